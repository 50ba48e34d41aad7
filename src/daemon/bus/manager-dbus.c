/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The manager object /org/freedesktop/ColorManager: its vtable, method handlers and the
 * registration of every other vtable. Handlers validate everything before they change
 * anything, so a failed call leaves no trace (colord §16.5). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-login.h>

#include "bus-errors.h"
#include "bus-raw.h"
#include "dbus-wire.h"
#include "bus-util.h"
#include "device-source.h"
#include "daemon-dbus.h"
#include "device.h"
#include "log.h"
#include "names.h"
#include "polkit.h"
#include "profile-claim.h"
#include "profile-load.h"
#include "profile.h"
#include "sensor.h"

#define ACTION_PREFIX "org.freedesktop.color-manager."

static int reply_paths(sd_bus_message *msg, const char *const *paths, size_t n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "o");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "o", paths[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* Collects matching object paths from a list in order, then replies. */
#define REPLY_FILTERED(msg, list, type, cond)                                          \
        ({                                                                             \
                const char **_paths = malloc(sizeof(char *) * ((list)->size + 1));     \
                size_t _n = 0;                                                         \
                type *it;                                                              \
                int _r = -ENOMEM;                                                      \
                if (_paths) {                                                          \
                        LIST_FOREACH(list, it, type, link)                             \
                                if (cond)                                              \
                                        _paths[_n++] = it->path;                       \
                        _r = reply_paths(msg, _paths, _n);                             \
                        free(_paths);                                                  \
                }                                                                      \
                _r;                                                                    \
        })

static bool device_visible_to(const Device *d, uid_t uid, uid_t daemon_uid) {
        /* colord hides devices of its own user from everyone (colord §16.12); we don't. */
        return uid == 0 || d->owner == 0 || d->owner == uid || d->owner == daemon_uid;
}

static int caller(Manager *m, sd_bus_message *msg, Client **ret, sd_bus_error *error) {
        int r = manager_get_client(m, msg, ret);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to get owner");
        return 0;
}

static int method_get_devices(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        Client *c;
        int r = caller(m, msg, &c, error);
        if (r < 0)
                return r;
        return REPLY_FILTERED(msg, &m->devices, Device, device_visible_to(it, c->uid, m->daemon_uid));
}

static bool is_real_device_kind(const char *kind) {
        return names_device_kind_is_valid(kind) && !streq(kind, "unknown");
}

static int method_get_devices_by_kind(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *kind;
        Client *c;
        int r = sd_bus_message_read(msg, "s", &kind);
        if (r < 0)
                return r;
        if (!is_real_device_kind(kind))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "device kind %s not recognised", kind);
        r = caller(m, msg, &c, error);
        if (r < 0)
                return r;
        return REPLY_FILTERED(msg, &m->devices, Device,
                              streq(it->kind, kind) && device_visible_to(it, c->uid, m->daemon_uid));
}

static int method_find_device_by_id(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        Client *c;
        int r = sd_bus_message_read(msg, "s", &id);
        if (r < 0)
                return r;
        r = caller(m, msg, &c, error);
        if (r < 0)
                return r;
        Device *d = manager_find_device_by_id(m, id, c->uid);
        if (!d)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "device id '%s' does not exist", id);
        return sd_bus_reply_method_return(msg, "o", d->path);
}

static const char *device_property_value(const Device *d, const char *key) {
        if (streq(key, "Model"))
                return d->model;
        if (streq(key, "Vendor"))
                return d->vendor;
        if (streq(key, "Serial"))
                return d->serial;
        return strmap_get(&d->metadata, key);
}

static int method_find_device_by_property(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *key, *value;
        int r = sd_bus_message_read(msg, "ss", &key, &value);
        if (r < 0)
                return r;
        Device *d;
        LIST_FOREACH(&m->devices, d, Device, link)
                if (streq_ptr(device_property_value(d, key), value))
                        return sd_bus_reply_method_return(msg, "o", d->path);
        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "property match '%s'='%s' does not exist", key, value);
}

static int method_find_sensor_by_id(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        int r = sd_bus_message_read(msg, "s", &id);
        if (r < 0)
                return r;
        Sensor *s;
        LIST_FOREACH(&m->sensors, s, Sensor, link)
                if (streq(s->id, id))
                        return sd_bus_reply_method_return(msg, "o", s->path);
        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "sensor id '%s' does not exist", id);
}

static int method_find_profile_by_id(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *id;
        int r = sd_bus_message_read(msg, "s", &id);
        if (r < 0)
                return r;
        Profile *p = manager_find_profile_by_id(m, id);
        if (!p)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "profile id '%s' does not exist", id);
        return sd_bus_reply_method_return(msg, "o", p->path);
}

static int reply_profile_by_filename(Manager *m, sd_bus_message *msg, const char *filename, sd_bus_error *error) {
        Client *c;
        int r = caller(m, msg, &c, error);
        if (r < 0)
                return r;
        Profile *p = manager_find_profile_by_filename_for(m, filename, c->uid);
        if (!p)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "profile filename '%s' does not exist", filename);
        return sd_bus_reply_method_return(msg, "o", p->path);
}

static int method_find_profile_by_filename(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *filename;
        int r = sd_bus_message_read(msg, "s", &filename);
        if (r < 0)
                return r;
        return reply_profile_by_filename(userdata, msg, filename, error);
}

static int method_find_profile_by_property(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *key, *value;
        int r = sd_bus_message_read(msg, "ss", &key, &value);
        if (r < 0)
                return r;
        if (streq(key, "Filename"))
                return reply_profile_by_filename(m, msg, value, error);
        Profile *p;
        LIST_FOREACH(&m->profiles, p, Profile, link)
                if (streq_ptr(strmap_get(&p->metadata, key), value))
                        return sd_bus_reply_method_return(msg, "o", p->path);
        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "property match '%s'='%s' does not exist", key, value);
}

static int method_get_standard_space(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *space;
        int r = sd_bus_message_read(msg, "s", &space);
        if (r < 0)
                return r;
        /* Only system-wide profiles may define a standard space, as the interface says and
         * colord does not enforce (colord §16.21): a user cannot spoof sRGB for everyone. */
        Profile *best = NULL, *p;
        LIST_FOREACH(&m->profiles, p, Profile, link)
                if (p->is_system_wide && streq_ptr(strmap_get(&p->metadata, "STANDARD_space"), space) &&
                    (!best || p->score > best->score))
                        best = p;
        if (!best)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "profile space '%s' does not exist", space);
        return sd_bus_reply_method_return(msg, "o", best->path);
}

static int method_get_profiles(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        return REPLY_FILTERED(msg, &m->profiles, Profile, true);
}

static int method_get_profiles_by_kind(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *kind;
        int r = sd_bus_message_read(msg, "s", &kind);
        if (r < 0)
                return r;
        const char *k = names_profile_kind_parse(kind);
        return REPLY_FILTERED(msg, &m->profiles, Profile, streq(it->kind, k));
}

static int method_get_sensors(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        return REPLY_FILTERED(msg, &m->sensors, Sensor, true);
}

static void watch_creator(Manager *m, Client *c) {
        c->watched = true;
}

static int check_object_quota(Manager *m, Client *c, sd_bus_error *error) {
        if (c->uid != 0 && manager_objects_of_uid(m, c->uid) >= LIMIT_OBJECTS_PER_UID)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID,
                                     "too many devices and profiles for uid %u (at most %d)",
                                     (unsigned) c->uid, LIMIT_OBJECTS_PER_UID);
        return 0;
}

static int check_id(const char *what, const char *id, sd_bus_error *error) {
        if (isempty(id))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "%s id cannot be blank", what);
        if (strlen(id) > LIMIT_ID_LEN)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "%s id too long", what);
        return 0;
}

/* Applies CreateDevice properties: Kind first (the model suffix depends on it). */
static int device_apply_properties(Device *d, const StrMap *props) {
        const char *kind = strmap_get(props, "Kind");
        int r;
        if (kind) {
                r = device_set_property(d, "Kind", kind, NULL);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < props->n; i++) {
                if (streq(props->entries[i].key, "Kind"))
                        continue;
                r = device_set_property(d, props->entries[i].key, props->entries[i].value, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int store_disk_device(Manager *m, Device *d, const StrMap *props, bool is_new) {
        int r = store_begin(m->store);
        if (r < 0)
                return r;
        if (is_new)
                r = store_device_add(m->store, d->id);
        /* The creator is stored too, so a user's device comes back as theirs (startup.c). */
        if (is_new && r >= 0 && d->owner != 0)
                r = store_device_set_owner(m->store, d->id, d->owner);
        /* Enabled has its own table (SetEnabled); as a property it is only metadata. */
        for (size_t i = 0; r >= 0 && i < props->n; i++)
                if (!streq(props->entries[i].key, "Enabled"))
                        r = store_device_set_property(m->store, d->id, props->entries[i].key, props->entries[i].value);
        const char *cmdline = strmap_get(&d->metadata, "OwnerCmdline");
        if (r >= 0 && cmdline)
                r = store_device_set_property(m->store, d->id, "OwnerCmdline", cmdline);
        if (r >= 0)
                r = store_commit(m->store);
        if (r < 0)
                store_rollback(m->store);
        return r;
}

/* A device a source made, taken by a client's CreateDevice (cupsd registering its own
 * queue): the creator's, in the scope it asked for (temp: it goes when the client leaves
 * the bus, and the source makes it again while it has the thing). */
static int hand_over_device(Manager *m, Client *c, DeviceSource *source, Device *d, Scope scope) {
        source->vtable->handed_over(source->state, d);
        if (scope != SCOPE_TEMP)
                return 0;
        d->scope = SCOPE_TEMP;
        int r = free_and_strdup(&d->creator, c->name);
        if (r < 0)
                return r;
        watch_creator(m, c);
        return 0;
}

/* Everything is checked, then stored, and only then is the device changed: a refused
 * promotion (too many Metadata entries, a disk that refuses the write) leaves the virtual
 * device as it was, in memory and on disk. What remains that can fail is an allocation. */
static int promote_virtual_device(sd_bus_message *msg, Manager *m, Device *existing, const StrMap *props,
                                  sd_bus_error *error) {
        if (existing->metadata.n + device_new_metadata_keys(existing, props) > LIMIT_METADATA_ENTRIES)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many metadata entries");
        _cleanup_free_ char *mode = strdup(strmap_get(props, "Mode") ?: "physical");
        if (!mode)
                return -ENOMEM;
        int r;
        if (existing->scope == SCOPE_DISK) {
                r = store_disk_device(m, existing, props, false);
                if (r < 0)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save device: %s", strerror(-r));
        }
        r = device_apply_properties(existing, props);
        if (r < 0)
                return r;
        free(existing->mode);
        existing->mode = TAKE_PTR(mode);
        device_emit_properties(existing, "Mode", "Model", "Vendor", "Serial", "Kind", "Colorspace",
                               "Format", "Seat", "Embedded", "Metadata", NULL);
        return sd_bus_reply_method_return(msg, "o", existing->path);
}

static int create_device_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        const char *id, *scope_str;
        _cleanup_(strmap_clear) StrMap props = { 0 };
        Scope scope;
        int r;

        r = sd_bus_message_read(msg, "ss", &id, &scope_str);
        if (r < 0)
                return r;
        r = bus_read_strmap(msg, &props, DOMAIN_MANAGER, error);
        if (r < 0)
                return r;
        r = check_id("device", id, error);
        if (r < 0)
                return r;
        const char *kind = strmap_get(&props, "Kind");
        if (!kind)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "required device type not specified");
        if (!is_real_device_kind(kind))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "device type %s not recognised", kind);
        if (scope_from_string(scope_str, &scope) < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "scope non-valid: %s", scope_str);

        _cleanup_free_ char *path = manager_object_path(m, DEVICE_PATH_PREFIX, id, c->uid);
        if (!path)
                return -ENOMEM;
        Device *existing = manager_find_device_by_path(m, path);
        if (existing && !streq(existing->id, id))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS,
                                     "device id '%s' maps to the object path of device '%s'", id, existing->id);
        if (existing) {
                /* A virtual device (e.g. restored from disk before CUPS started) becomes the
                 * real one: promote it in place, no duplicate object (colord §16.6). */
                /* So does a source's device that yields to a client (the device tinct made for
                 * a CUPS queue when cupsd registers the queue itself: it becomes cupsd's,
                 * docs/printers.md), never a second one. */
                DeviceSource *source = manager_source_yielding(m, existing);
                if (!streq_ptr(existing->mode, "virtual") && !source)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS, "device id '%s' already exists", id);
                r = promote_virtual_device(msg, m, existing, &props, error);
                if (r >= 0 && source)
                        r = hand_over_device(m, c, source, existing, scope);
                return r;
        }
        r = check_object_quota(m, c, error);
        if (r < 0)
                return r;

        _cleanup_(device_freep) Device *d = NULL;
        r = device_new(m, id, c->uid, scope, &d);
        if (r < 0)
                return r;
        client_read_process(c);
        if (c->seat && !(d->seat = strdup(c->seat)))
                return -ENOMEM;
        r = device_apply_properties(d, &props);
        if (r < 0)
                return r;
        if (c->cmdline) {
                r = strmap_set(&d->metadata, "OwnerCmdline", c->cmdline);
                if (r < 0)
                        return r;
        }
        bool enabled;
        if (store_device_get_enabled(m->store, id, device_mapping_layer(d), &enabled) >= 0)
                d->enabled = enabled;
        if (scope == SCOPE_TEMP) {
                r = free_and_strdup(&d->creator, c->name);
                if (r < 0)
                        return r;
                watch_creator(m, c);
        }
        if (scope == SCOPE_DISK) {
                r = store_disk_device(m, d, &props, true);
                if (r == -EEXIST)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS,
                                             "device id '%s' is already stored on disk by another owner", id);
                if (r < 0)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save device: %s", strerror(-r));
        }
        r = manager_add_device(m, d);
        if (r < 0) {
                if (scope == SCOPE_DISK)
                        (void) store_device_remove(m->store, id);
                return r;
        }
        Device *added = TAKE_PTR(d);
        log_debug("Created device %s (%s) for uid %u", added->id, added->path, (unsigned) c->uid);
        return sd_bus_reply_method_return(msg, "o", added->path);
}

/* Whether a Create* call asks for scope temp (its second argument); the message is rewound. */
static bool creates_temp(sd_bus_message *msg) {
        const char *id, *scope;
        bool temp = sd_bus_message_read(msg, "ss", &id, &scope) >= 0 && streq(scope, "temp");
        (void) sd_bus_message_rewind(msg, true);
        return temp;
}

static int method_create_device(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return polkit_authorize_object(userdata, msg, ACTION_PREFIX "create-device", DOMAIN_MANAGER, creates_temp(msg),
                                       POLKIT_CALLER, create_device_authorized, error);
}

/* Non-root callers may remove only what they created (colord lets anyone: colord §16.22). */
static bool may_remove(Manager *m, Client *c, uid_t owner) {
        return c->uid == 0 || c->uid == m->daemon_uid || c->uid == owner;
}

static int delete_device_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        const char *arg;
        int r = sd_bus_message_read(msg, "o", &arg);
        if (r < 0)
                return r;
        Device *d = manager_find_device_by_id(m, arg, c->uid);
        if (!d)
                d = manager_find_device_by_path(m, arg);
        if (!d)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "device path '%s' not found", arg);
        if (!may_remove(m, c, d->owner))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_FAILED_TO_AUTHENTICATE,
                                     "device '%s' belongs to another user", d->id);
        if (d->scope == SCOPE_DISK) {
                r = store_device_remove(m->store, d->id);
                if (r < 0)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL,
                                             "failed to remove device from disk: %s", strerror(-r));
        }
        manager_remove_device(m, d);
        return sd_bus_reply_method_return(msg, "");
}

static int method_delete_device(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *arg = NULL;
        (void) sd_bus_message_read(msg, "o", &arg);
        Device *d = arg ? manager_find_device_by_path(userdata, arg) : NULL;
        (void) sd_bus_message_rewind(msg, true);
        return polkit_authorize_object(userdata, msg, ACTION_PREFIX "delete-device", DOMAIN_MANAGER,
                                       d && d->scope == SCOPE_TEMP, d ? d->owner : 0, delete_device_authorized, error);
}

/* CreateProfileWithFd(s, s, h, a{ss}) read from the bytes; strings point into *wire. */
static int read_args_from_wire(sd_bus_message *msg, uint8_t **wire, const char **ret_id, const char **ret_scope,
                               StrMap *props, sd_bus_error *error) {
        size_t size;
        DBusWireCursor c;
        const char *sig, *k, *v;
        uint32_t handle;
        size_t end;
        int r = bus_message_wire_bytes(msg, LIMIT_CREATE_ARGS_WIRE, wire, &size);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "unreadable arguments: %s", strerror(-r));
        if (dbus_wire_open(*wire, size, &c, &sig) < 0 || !streq(sig, "ssha{ss}") ||
            dbus_wire_read_string(&c, ret_id) < 0 || dbus_wire_read_string(&c, ret_scope) < 0 ||
            dbus_wire_read_u32(&c, &handle) < 0 || dbus_wire_enter_array(&c, 8, &end) < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "malformed arguments");
        while (c.pos < end) {
                if (dbus_wire_align(&c, 8) < 0 || dbus_wire_read_string(&c, &k) < 0 ||
                    dbus_wire_read_string(&c, &v) < 0 || c.pos > end)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "malformed arguments");
                r = bus_check_property(k, v, DOMAIN_MANAGER, error);
                if (r < 0)
                        return r;
                if (!strmap_get(props, k) && props->n >= LIMIT_METADATA_ENTRIES)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many properties");
                r = strmap_set(props, k, v);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* colord answers NotSupported for scope "disk"; tinct keeps what the call was given, the
 * ICC bytes included, so the profile comes back at every start (startup.c). */
static int store_disk_profile(Manager *m, Profile *p, const StrMap *props, sd_bus_error *error) {
        if (p->size > (size_t) STORE_MAX_VALUE_SIZE)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID,
                                     "a disk profile's ICC data is limited to %u bytes", (unsigned) STORE_MAX_VALUE_SIZE);
        _cleanup_free_ char **pairs = calloc(props->n * 2 + 1, sizeof(char *));
        if (!pairs)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < props->n; i++)
                if (!streq(props->entries[i].key, "Title")) { /* titles are per user, stored apart */
                        pairs[k++] = props->entries[i].key;
                        pairs[k++] = props->entries[i].value;
                }
        StoreDiskProfile sp = { .id = p->id, .owner = p->owner, .properties = pairs, .data = p->data, .size = p->size };
        int r = store_disk_profile_add(m->store, &sp);
        if (r == -EEXIST)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS,
                                     "profile id '%s' is already stored on disk", p->id);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save profile: %s", strerror(-r));
        return 0;
}

/* A disk profile and its creator's title are stored in one commit, before the profile
 * exists: both or neither, so a refused call leaves no row that would bring it back. */
static int store_new_profile(Manager *m, Profile *p, const StrMap *props, const char *title, uid_t uid,
                             sd_bus_error *error) {
        if (p->scope != SCOPE_DISK && !title)
                return 0;
        int r = store_begin(m->store);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save profile: %s", strerror(-r));
        if (p->scope == SCOPE_DISK)
                r = store_disk_profile(m, p, props, error);
        if (r >= 0 && title) {
                r = store_profile_title_set(m->store, p->id, uid, title);
                if (r < 0)
                        r = bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save title: %s", strerror(-r));
        }
        if (r >= 0) {
                r = store_commit(m->store);
                if (r < 0)
                        r = bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save profile: %s", strerror(-r));
        }
        if (r < 0)
                store_rollback(m->store);
        return r;
}

/* What a CreateProfile call carries past the parse of its bytes. */
typedef struct CreateArgs {
        StrMap props;
        char *title;
        Scope scope;
} CreateArgs;

static void create_args_free(void *userdata) {
        CreateArgs *a = userdata;
        if (!a)
                return;
        strmap_clear(&a->props);
        free(a->title);
        free(a);
}

/* The end of CreateProfile*: stored, registered, answered. With bytes to parse it runs once
 * they are parsed (profile-load.h), the loop having served others meanwhile, so it looks
 * again at what may have changed: the caller may have left, the id been taken, the quota
 * been used. */
static int create_profile_finish(sd_bus_message *msg, Manager *m, Profile **pp, void *userdata,
                                 sd_bus_error *error) {
        CreateArgs *a = userdata;
        Profile *p = *pp;
        Client *c;
        int r = manager_get_client(m, msg, &c);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_FAILED_TO_AUTHENTICATE, "could not get uid of caller");
        if (manager_find_profile_by_id(m, p->id))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS, "profile id '%s' already exists", p->id);
        if (manager_find_profile_by_path(m, p->path))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS,
                                     "profile id '%s' maps to the object path of another profile", p->id);
        r = check_object_quota(m, c, error);
        if (r < 0)
                return r;
        r = store_new_profile(m, p, &a->props, a->title, c->uid, error);
        if (r < 0)
                return r;
        if (a->scope == SCOPE_TEMP) {
                r = free_and_strdup(&p->creator, c->name);
                if (r < 0)
                        return r;
                watch_creator(m, c);
        }
        r = manager_add_profile(m, p, true);
        if (r < 0) {
                if (a->scope == SCOPE_DISK)
                        (void) store_disk_profile_remove(m->store, p->id);
                return r;
        }
        *pp = NULL; /* the registry's now */
        return sd_bus_reply_method_return(msg, "o", p->path);
}

static int create_profile_common(sd_bus_message *msg, Manager *m, Client *c, bool with_fd, sd_bus_error *error) {
        const char *id, *scope_str;
        int fd = -1, r;
        _cleanup_(strmap_clear) StrMap props = { 0 };
        Scope scope;

        _cleanup_free_ uint8_t *wire = NULL;
        r = sd_bus_message_read(msg, "ss", &id, &scope_str);
        if (r >= 0 && with_fd) {
                r = sd_bus_message_read(msg, "h", &fd);
                /* libcolord sends handle -1 without any fd for profiles that have no file.
                 * sd-bus refuses to read (or skip) such a handle, so the arguments come
                 * from the message's wire form instead (bus-raw.h). */
                if (r == -EBADMSG) {
                        fd = -1;
                        r = read_args_from_wire(msg, &wire, &id, &scope_str, &props, error);
                        if (r < 0)
                                return r;
                }
        }
        if (r < 0)
                return r;
        if (!wire) {
                r = bus_read_strmap(msg, &props, DOMAIN_MANAGER, error);
                if (r < 0)
                        return r;
        }
        r = check_id("profile", id, error);
        if (r < 0)
                return r;
        if (manager_find_profile_by_id(m, id))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS, "profile id '%s' already exists", id);
        /* Printers' vendor profiles are the daemon's, and their ids can be computed before
         * the printer is asked: taken by a client, root's printer would list its profile
         * (docs/printers.md, compatibility.md). The id is as good as taken. */
        if (manager_sources_reserve_profile_id(m, id))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS,
                                     "profile id '%s' is reserved for a printer's vendor profile", id);
        if (scope_from_string(scope_str, &scope) < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "scope non-valid: %s", scope_str);
        const char *title = strmap_get(&props, "Title");
        if (title && strlen(title) < 3)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "'Title' value input invalid");
        r = check_object_quota(m, c, error);
        if (r < 0)
                return r;

        _cleanup_(profile_freep) Profile *p = NULL;
        r = profile_new(m, id, c->uid, scope, &p);
        if (r < 0)
                return r;
        if (manager_find_profile_by_path(m, p->path))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_ALREADY_EXISTS,
                                     "profile id '%s' maps to the object path of another profile", id);
        profile_apply_well_known_id(p);
        for (size_t i = 0; i < props.n; i++) {
                if (streq(props.entries[i].key, "Title"))
                        continue;
                r = profile_set_property(p, props.entries[i].key, props.entries[i].value, NULL);
                if (r < 0)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many properties");
        }

        /* The file: through the passed fd when there is one, else by name. The fd's
         * Filename is only the caller's word until checked (profile-claim.h). */
        if (with_fd && fd >= 0 && p->filename) {
                r = profile_claim_check_fd(p, fd, c->uid == 0 || c->uid == m->daemon_uid, error);
                if (r < 0)
                        return r;
        }
        uint8_t *data = NULL;
        size_t size = 0;
        if (with_fd && fd >= 0)
                r = profile_read_fd(fd, &data, &size, error);
        else if (p->filename) {
                bool privileged = c->uid == 0 || c->uid == m->daemon_uid;
                r = profile_read_filename(m, p->filename, privileged, &data, &size, error);
        }
        if (r < 0)
                return r;

        CreateArgs *a = calloc(1, sizeof *a);
        if (!a) {
                free(data);
                return -ENOMEM;
        }
        a->props = props;
        props = (StrMap) { 0 };
        a->scope = scope;
        if (title && !(a->title = strdup(title))) {
                free(data);
                create_args_free(a);
                return -ENOMEM;
        }
        if (!data) {
                r = create_profile_finish(msg, m, &p, a, error);
                create_args_free(a);
                return r;
        }
        /* The parse runs in a parser process; the answer comes from create_profile_finish(). */
        return profile_load_async(TAKE_PTR(p), data, size, msg, c->uid, create_profile_finish, a, create_args_free,
                                  error);
}

static int create_profile_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        return create_profile_common(msg, m, c, false, error);
}

static int create_profile_fd_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        return create_profile_common(msg, m, c, true, error);
}

static int method_create_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return polkit_authorize_object(userdata, msg, ACTION_PREFIX "create-profile", DOMAIN_MANAGER, creates_temp(msg),
                                       POLKIT_CALLER, create_profile_authorized, error);
}

static int method_create_profile_with_fd(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return polkit_authorize_object(userdata, msg, ACTION_PREFIX "create-profile", DOMAIN_MANAGER, creates_temp(msg),
                                       POLKIT_CALLER, create_profile_fd_authorized, error);
}

static int delete_profile_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        const char *arg;
        int r = sd_bus_message_read(msg, "o", &arg);
        if (r < 0)
                return r;
        Profile *p = manager_find_profile_by_id(m, arg);
        if (!p)
                p = manager_find_profile_by_path(m, arg);
        if (!p)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_NOT_FOUND, "profile path '%s' not found", arg);
        if (!may_remove(m, c, p->owner))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_FAILED_TO_AUTHENTICATE,
                                     "profile '%s' belongs to another user", p->id);
        if (p->scope == SCOPE_DISK) {
                r = store_disk_profile_remove(m->store, p->id);
                if (r < 0 && r != -ENOENT)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL,
                                             "failed to forget profile: %s", strerror(-r));
        }
        manager_remove_profile(m, p);
        return sd_bus_reply_method_return(msg, "");
}

static int method_delete_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        /* colord checks create-profile here and never uses delete-profile (colord §2.2). */
        const char *arg = NULL;
        (void) sd_bus_message_read(msg, "o", &arg);
        Profile *p = arg ? manager_find_profile_by_path(userdata, arg) : NULL;
        (void) sd_bus_message_rewind(msg, true);
        return polkit_authorize_object(userdata, msg, ACTION_PREFIX "create-profile", DOMAIN_MANAGER,
                                       p && p->scope == SCOPE_TEMP, p ? p->owner : 0, delete_profile_authorized, error);
}

static int property_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *v = streq(property, "DaemonVersion") ? TINCT_VERSION :
                        streq(property, "SystemVendor") ? m->system_vendor : m->system_model;
        return sd_bus_message_append(reply, "s", strempty(v));
}

const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("DaemonVersion", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SystemVendor", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SystemModel", "s", property_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_ARGS("GetDevices", SD_BUS_NO_ARGS, SD_BUS_RESULT("ao", devices), method_get_devices, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetDevicesByKind", SD_BUS_ARGS("s", kind), SD_BUS_RESULT("ao", devices),
                                method_get_devices_by_kind, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("FindDeviceById", SD_BUS_ARGS("s", device_id), SD_BUS_RESULT("o", object_path),
                                method_find_device_by_id, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("FindSensorById", SD_BUS_ARGS("s", sensor_id), SD_BUS_RESULT("o", object_path),
                                method_find_sensor_by_id, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("FindDeviceByProperty", SD_BUS_ARGS("s", key, "s", value),
                                SD_BUS_RESULT("o", object_path), method_find_device_by_property, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("FindProfileById", SD_BUS_ARGS("s", profile_id), SD_BUS_RESULT("o", object_path),
                                method_find_profile_by_id, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("FindProfileByProperty", SD_BUS_ARGS("s", key, "s", value),
                                SD_BUS_RESULT("o", object_path), method_find_profile_by_property, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("FindProfileByFilename", SD_BUS_ARGS("s", filename),
                                SD_BUS_RESULT("o", object_path), method_find_profile_by_filename, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetStandardSpace", SD_BUS_ARGS("s", standard_space),
                                SD_BUS_RESULT("o", object_path), method_get_standard_space, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProfiles", SD_BUS_NO_ARGS, SD_BUS_RESULT("ao", devices), method_get_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSensors", SD_BUS_NO_ARGS, SD_BUS_RESULT("ao", devices), method_get_sensors, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProfilesByKind", SD_BUS_ARGS("s", kind), SD_BUS_RESULT("ao", devices),
                                method_get_profiles_by_kind, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CreateProfileWithFd",
                                SD_BUS_ARGS("s", profile_id, "s", scope, "h", handle, "a{ss}", properties),
                                SD_BUS_RESULT("o", object_path), method_create_profile_with_fd, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CreateProfile", SD_BUS_ARGS("s", profile_id, "s", scope, "a{ss}", properties),
                                SD_BUS_RESULT("o", object_path), method_create_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CreateDevice", SD_BUS_ARGS("s", device_id, "s", scope, "a{ss}", properties),
                                SD_BUS_RESULT("o", object_path), method_create_device, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteDevice", SD_BUS_ARGS("o", object_path), SD_BUS_NO_RESULT,
                                method_delete_device, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DeleteProfile", SD_BUS_ARGS("o", object_path), SD_BUS_NO_RESULT,
                                method_delete_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("Changed", NULL, 0),
        SD_BUS_SIGNAL_WITH_ARGS("DeviceAdded", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("DeviceRemoved", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("DeviceChanged", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("ProfileAdded", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("ProfileRemoved", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("SensorAdded", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("SensorRemoved", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_SIGNAL_WITH_ARGS("ProfileChanged", SD_BUS_ARGS("o", object_path), 0),
        SD_BUS_VTABLE_END,
};
