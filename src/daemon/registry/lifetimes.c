/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The registry's objects coming and going: the Manager made and freed, devices, profiles and
 * sensors added and removed (indexes, accounting, signals, what each removal ends), clients
 * that leave, and automatic assignment (colord §5.5); and the two lookups that ask beyond
 * the indexes (a device by id: a source's alias; a profile by file name for a caller: the
 * claims). Above the indexes (manager.c) and the models; nothing of the registry calls back
 * into it but the profile directories. */
#include "manager.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-errors.h"
#include "bus-order.h"
#include "client.h"
#include "device.h"
#include "device-source.h"
#include "device-verify.h"
#include "log.h"
#include "parser.h"
#include "polkit.h"
#include "profile-claim.h"
#include "profile-dirs.h"
#include "profile-load.h"
#include "profile-warnings.h"
#include "profile.h"
#include "sensor.h"
#include "signals.h"
#include "utf8.h"

int manager_new(ManagerConfig *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof *m);
        if (!m)
                return -ENOMEM;
        m->config = *config;
        *config = (ManagerConfig) { 0 };
        /* The lists first: manager_free() walks them whatever fails below. */
        list_init(&m->devices);
        list_init(&m->profiles);
        list_init(&m->sensors);
        list_init(&m->warnings_pending);
        list_init(&m->pending_auths);
        list_init(&m->loads_pending);
        int r = parser_new(m->config.parse_helper, m->config.parse_timeout_usec, &m->parser);
        if (r < 0)
                return r;
        m->daemon_uid = getuid();
        m->devices_by_path = hashmap_new();
        m->devices_by_id = CHAIN_INDEX_INIT(Device, id, same_id_next);
        m->profiles_by_filename = CHAIN_INDEX_INIT(Profile, filename, same_file_next);
        m->profiles_by_target = CHAIN_INDEX_INIT(Profile, mapping_target, same_target_next);
        m->profiles_by_path = hashmap_new();
        m->profiles_by_id = hashmap_new();
        m->sensors_by_path = hashmap_new();
        m->clients = hashmap_new();
        m->uid_counts = hashmap_new();
        m->owner_suffixes = hashmap_new();
        if (!m->devices_by_path || chain_index_init(&m->devices_by_id) < 0 || !m->profiles_by_path ||
            !m->profiles_by_id || chain_index_init(&m->profiles_by_filename) < 0 ||
            chain_index_init(&m->profiles_by_target) < 0 || !m->sensors_by_path || !m->clients || !m->uid_counts ||
            !m->owner_suffixes)
                return -ENOMEM;
        *ret = TAKE_PTR(m);
        return 0;
}

void manager_config_done(ManagerConfig *c) {
        c->state_dir = mfree(c->state_dir);
        c->profile_dirs = strv_free(c->profile_dirs);
        c->sysfs_root = mfree(c->sysfs_root);
        c->parse_helper = mfree(c->parse_helper);
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        polkit_cancel_all(m); /* before the bus goes: their replies are unref'd with it */
        profile_load_cancel_all(m);
        Device *d;
        LIST_FOREACH(&m->devices, d, Device, link) {
                list_unlink(&m->devices, &d->link);
                device_free(d);
        }
        profile_warnings_shutdown(m);
        Profile *p;
        LIST_FOREACH(&m->profiles, p, Profile, link) {
                list_unlink(&m->profiles, &p->link);
                profile_warnings_dequeue(p);
                profile_free(p);
        }
        Sensor *s;
        LIST_FOREACH(&m->sensors, s, Sensor, link) {
                list_unlink(&m->sensors, &s->link);
                sensor_free(s);
        }
        void *it = NULL, *v;
        while (hashmap_iterate(m->clients, &it, NULL, &v))
                client_free(v);
        it = NULL;
        while (hashmap_iterate(m->uid_counts, &it, NULL, &v))
                free(v);
        it = NULL;
        while (hashmap_iterate(m->owner_suffixes, &it, NULL, &v))
                free(v);
        hashmap_free(m->owner_suffixes);
        profile_watch_free(m->profile_watch);
        manager_stop_sources(m);
        bus_order_free(m->bus_order); /* after everything that keeps a call */
        hashmap_free(m->devices_by_path);
        chain_index_done(&m->devices_by_id);
        hashmap_free(m->profiles_by_path);
        hashmap_free(m->profiles_by_id);
        chain_index_done(&m->profiles_by_filename);
        chain_index_done(&m->profiles_by_target);
        hashmap_free(m->sensors_by_path);
        hashmap_free(m->clients);
        hashmap_free(m->uid_counts);
        store_free(m->store);
        sd_bus_flush_close_unref(m->bus);
        sd_event_unref(m->event);
        manager_config_done(&m->config);
        parser_free(m->parser);
        free(m->system_vendor);
        free(m->system_model);
        free(m);
        return NULL;
}

static char *owned_device_path(Manager *m, const char *id, uid_t uid) {
        return manager_object_path(m, DEVICE_PATH_PREFIX, id, uid);
}

Device *manager_find_device_by_id(Manager *m, const char *id, uid_t uid) {
        _cleanup_free_ char *path = owned_device_path(m, id, uid);
        Device *d = path ? hashmap_get(m->devices_by_path, path) : NULL;
        if (d && streq(d->id, id))
                return d;
        d = chain_index_first(&m->devices_by_id, id);
        if (d)
                return d;
        /* A source's alias: identical monitors, the plain id names the first twin (device-source.h). */
        return chain_index_first(&m->devices_by_id, manager_sources_alias_target(m, id));
}

Profile *manager_find_profile_by_filename_for(Manager *m, const char *filename, uid_t uid) {
        Profile *own_claim = NULL, *p;
        if (filename[0] == '/') {
                for (p = chain_index_first(&m->profiles_by_filename, filename); p;
                     p = chain_index_next(&m->profiles_by_filename, p)) {
                        if (!p->filename_claimed)
                                return p;
                        if (!own_claim && profile_filename_answers(p, uid))
                                own_claim = p;
                }
                return own_claim;
        }
        LIST_FOREACH(&m->profiles, p, Profile, link) {
                if (!p->filename)
                        continue;
                const char *base = strrchr(p->filename, '/');
                if (!streq(base ? base + 1 : p->filename, filename))
                        continue;
                if (!p->filename_claimed)
                        return p;
                if (!own_claim && profile_filename_answers(p, uid))
                        own_claim = p;
        }
        return own_claim;
}

/* colord §5.5 B, rules 1-3, for one candidate pair. */
static bool metadata_pair_allowed(Manager *m, Device *d, Profile *p) {
        uint64_t ts;
        if (m->store && store_mapping_get(m->store, device_mapping_layer(d), d->id, p->id, &ts) == 0 && ts == 0)
                return false; /* the user removed it before (for this device's owner, row 64) */
        if (!profile_is_edid(p))
                return true;
        char *const *w = profile_warnings(p);
        if (!w) {
                /* Not known yet: computed in a parser process, the pair is tried again then
                 * (manager_profile_warnings_known()); the loop never computes them itself. */
                (void) profile_warnings_request(p, NULL);
                return false;
        }
        return strv_isempty(w);
}

static void auto_add_for_device(Manager *m, Device *d) {
        if (m->store) {
                StoreMapping *maps = NULL;
                size_t n = 0;
                if (store_mapping_profiles_for_device(m->store, device_mapping_layer(d), d->id, &maps, &n) >= 0) {
                        for (size_t i = 0; i < n; i++) {
                                Profile *p = manager_find_profile_by_id(m, maps[i].id);
                                if (p && maps[i].timestamp > 0)
                                        (void) device_add_profile(d, p, true, maps[i].timestamp);
                        }
                        store_mappings_free(maps, n);
                }
        }
        for (Profile *p = chain_index_first(&m->profiles_by_target, d->id); p;
             p = chain_index_next(&m->profiles_by_target, p))
                if (metadata_pair_allowed(m, d, p))
                        (void) device_add_profile(d, p, false, now(CLOCK_REALTIME));
}

static void attach_hard(Device *d, Profile *p, uint64_t timestamp) {
        if (device_add_profile(d, p, true, timestamp) >= 0) {
                device_touch(d);
                device_emit_relations_changed(d, true, NULL);
        }
}

/* A stored hard mapping is the user's choice for a device id. It attaches to the device the
 * id names for the profile's owner (their own first, else the first, else a display alias),
 * and also to every other live device of that id the owner may change
 * (docs/compatibility.md, "Hard choices on devices that share an id"), as the choice itself
 * did when it was made; each device as its own layer of mappings says (row 64), so a user's
 * own choice reaches only that user's devices. */
static void attach_from_layer(Manager *m, Device *d, Profile *p, const char *device_id) {
        uint64_t ts;
        if (store_mapping_get(m->store, device_mapping_layer(d), device_id, p->id, &ts) == 0 && ts > 0)
                attach_hard(d, p, ts);
}

static void attach_stored_mapping(Manager *m, Profile *p, const char *device_id) {
        Device *first = manager_find_device_by_id(m, device_id, p->owner);
        if (!first)
                return;
        attach_from_layer(m, first, p, device_id);
        for (Device *d = chain_index_first(&m->devices_by_id, device_id); d; d = chain_index_next(&m->devices_by_id, d))
                if (d != first && device_may_be_modified_by(d, p->owner))
                        attach_from_layer(m, d, p, device_id);
}

static void auto_add_for_profile(Manager *m, Profile *p) {
        if (m->store) {
                StoreMapping *maps = NULL;
                size_t n = 0;
                if (store_mapping_devices_for_profile(m->store, p->id, &maps, &n) >= 0) {
                        for (size_t i = 0; i < n; i++)
                                attach_stored_mapping(m, p, maps[i].id);
                        store_mappings_free(maps, n);
                }
        }
        const char *target = strmap_get(&p->metadata, "MAPPING_device_id");
        if (target) {
                Device *d = manager_find_device_by_id(m, target, p->owner);
                if (d && metadata_pair_allowed(m, d, p) && device_add_profile(d, p, false, now(CLOCK_REALTIME)) >= 0) {
                        device_touch(d);
                        device_emit_relations_changed(d, true, NULL);
                }
        }
}

void manager_profile_warnings_known(Manager *m, Profile *p) {
        /* The pair metadata_pair_allowed() left for later: the profile's own target. */
        const char *target = strmap_get(&p->metadata, "MAPPING_device_id");
        Device *d = target && profile_is_edid(p) ? manager_find_device_by_id(m, target, p->owner) : NULL;
        if (d && !device_find_profile(d, p) && metadata_pair_allowed(m, d, p) &&
            device_add_profile(d, p, false, now(CLOCK_REALTIME)) >= 0) {
                device_touch(d);
                device_emit_relations_changed(d, true, NULL);
        }
}

/* The last guard before the bus, which carries UTF-8 only (a string that is not would make
 * every GetAll of the object fail): the sources escape or skip such bytes themselves
 * (udev-match.c, profile-dirs.c, startup.c); anything that still slips through is refused. */
static bool strings_are_utf8(const char *const *strings, size_t n, const StrMap *map) {
        for (size_t i = 0; i < n; i++)
                if (strings[i] && !utf8_is_valid(strings[i], strlen(strings[i])))
                        return false;
        for (size_t i = 0; i < map->n; i++)
                if (!utf8_is_valid(map->entries[i].key, strlen(map->entries[i].key)) ||
                    !utf8_is_valid(map->entries[i].value, strlen(map->entries[i].value)))
                        return false;
        return true;
}

int manager_add_device(Manager *m, Device *d) {
        device_verify_restore(d); /* a display is made anew at every start: its results come back */
        const char *const strings[] = { d->id, d->model, d->vendor, d->serial, d->colorspace, d->format, d->mode, d->seat };
        if (!strings_are_utf8(strings, ELEMENTSOF(strings), &d->metadata))
                return -EILSEQ;
        int r = hashmap_put(m->devices_by_path, d->path, d);
        if (r < 0)
                return r;
        r = chain_index_add(&m->devices_by_id, d);
        if (r < 0) {
                hashmap_remove(m->devices_by_path, d->path);
                return r;
        }
        list_append(&m->devices, &d->link);
        manager_account_object(m, d->owner, +1);
        auto_add_for_device(m, d);
        manager_emit_path_signal(m, "DeviceAdded", d->path);
        return 0;
}

void manager_remove_device(Manager *m, Device *d) {
        hashmap_remove_value(m->devices_by_path, d->path, d);
        chain_index_remove(&m->devices_by_id, d);
        list_unlink(&m->devices, &d->link);
        manager_account_object(m, d->owner, -1);
        manager_emit_path_signal(m, "DeviceRemoved", d->path);
        manager_sources_device_removed(m, d);
        device_free(d);
}

int manager_add_sensor(Manager *m, Sensor *s) {
        int r = hashmap_put(m->sensors_by_path, s->path, s);
        if (r < 0)
                return r;
        list_append(&m->sensors, &s->link);
        manager_emit_path_signal(m, "SensorAdded", s->path);
        return 0;
}

void manager_remove_sensor(Manager *m, Sensor *s) {
        hashmap_remove_value(m->sensors_by_path, s->path, s);
        list_unlink(&m->sensors, &s->link);
        manager_emit_path_signal(m, "SensorRemoved", s->path);
        sensor_abort(s, bus_error_name(DOMAIN_SENSOR, BUS_ERR_INTERNAL), "the sensor was unplugged");
        sensor_free(s);
}

int manager_add_profile(Manager *m, Profile *p, bool auto_add) {
        const char *const strings[] = { p->id, p->filename, p->title, p->qualifier, p->format };
        if (!strings_are_utf8(strings, ELEMENTSOF(strings), &p->metadata))
                return -EILSEQ;
        int r = hashmap_put(m->profiles_by_path, p->path, p);
        if (r < 0)
                return r;
        r = hashmap_put(m->profiles_by_id, p->id, p);
        if (r < 0) {
                hashmap_remove(m->profiles_by_path, p->path);
                return r;
        }
        r = chain_index_add(&m->profiles_by_filename, p);
        if (r >= 0)
                r = manager_profile_index_target(m, p);
        if (r < 0) {
                chain_index_remove(&m->profiles_by_filename, p);
                hashmap_remove(m->profiles_by_path, p->path);
                hashmap_remove(m->profiles_by_id, p->id);
                return r;
        }
        list_append(&m->profiles, &p->link);
        profile_warnings_queue(p);
        if (p->owner != 0)
                manager_account_object(m, p->owner, +1);
        if (auto_add)
                auto_add_for_profile(m, p);
        manager_emit_path_signal(m, "ProfileAdded", p->path);
        return 0;
}

void manager_remove_profile(Manager *m, Profile *p) {
        while (p->n_holders > 0) {
                Device *d = p->holders[p->n_holders - 1];
                (void) device_remove_profile(d, p);
                device_touch(d);
                device_emit_relations_changed(d, true, NULL);
        }
        hashmap_remove_value(m->profiles_by_path, p->path, p);
        hashmap_remove_value(m->profiles_by_id, p->id, p);
        chain_index_remove(&m->profiles_by_filename, p);
        manager_profile_unindex_target(m, p);
        list_unlink(&m->profiles, &p->link);
        if (p->owner != 0)
                manager_account_object(m, p->owner, -1);
        manager_emit_path_signal(m, "ProfileRemoved", p->path);
        profile_warnings_dequeue(p);
        profile_free(p);
}

void manager_client_vanished(Manager *m, const char *name) {
        Client *c = hashmap_remove(m->clients, name);
        if (!c)
                return;
        bool watched = c->watched;
        client_free(c);
        if (!watched)
                return;

        Device *d;
        LIST_FOREACH(&m->devices, d, Device, link) {
                if (strv_contains(d->inhibitors, name)) {
                        strv_remove(d->inhibitors, name);
                        device_emit_relations_changed(d, false, "ProfilingInhibitors");
                }
        }
        LIST_FOREACH(&m->devices, d, Device, link)
                if (d->scope == SCOPE_TEMP && streq_ptr(d->creator, name))
                        manager_remove_device(m, d);
        Profile *p;
        LIST_FOREACH(&m->profiles, p, Profile, link)
                if (p->scope == SCOPE_TEMP && streq_ptr(p->creator, name))
                        manager_remove_profile(m, p);
        Sensor *s;
        LIST_FOREACH(&m->sensors, s, Sensor, link)
                if (sensor_client_vanished(s, name))
                        sensor_emit_properties(s, "Locked", NULL);
}
