/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device state and relation rules. Emitting signals is the caller's job (device-dbus.c,
 * manager.c): every function here only changes the model and says what changed. */
#include "device.h"

#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "profile.h"
#include "qualifier.h"
#include "store.h"

const char *scope_to_string(Scope s) {
        static const char *const t[] = { "unknown", "normal", "temp", "disk" };
        return t[s];
}

int scope_from_string(const char *s, Scope *ret) {
        if (streq(s, "normal"))
                *ret = SCOPE_NORMAL;
        else if (streq(s, "temp"))
                *ret = SCOPE_TEMP;
        else if (streq(s, "disk"))
                *ret = SCOPE_DISK;
        else
                return -EINVAL;
        return 0;
}

int device_new(Manager *m, const char *id, uid_t owner, Scope scope, Device **ret) {
        Device *d = calloc(1, sizeof *d);
        if (!d)
                return -ENOMEM;
        d->manager = m;
        d->owner = owner;
        d->scope = scope;
        d->kind = "unknown";
        d->enabled = true;
        d->created = d->modified = now(CLOCK_REALTIME);
        d->id = strdup(id);
        d->mode = strdup("unknown");
        d->path = manager_object_path(m, DEVICE_PATH_PREFIX, id, owner);
        if (!d->id || !d->mode || !d->path) {
                device_free(d);
                return -ENOMEM;
        }
        *ret = d;
        return 0;
}

Device *device_free(Device *d) {
        if (!d)
                return NULL;
        for (size_t i = 0; i < d->n_profiles; i++)
                profile_remove_holder(d->profiles[i].profile, d);
        free(d->profiles);
        free(d->id);
        free(d->path);
        free(d->creator);
        free(d->model);
        free(d->vendor);
        free(d->serial);
        free(d->colorspace);
        free(d->format);
        free(d->mode);
        free(d->seat);
        strmap_clear(&d->metadata);
        strv_free(d->inhibitors);
        free(d);
        return NULL;
}

void device_touch(Device *d) {
        d->modified = now(CLOCK_REALTIME);
}

bool device_may_be_modified_by(const Device *d, uid_t uid) {
        uid_t daemon = d->manager->daemon_uid;
        return uid == 0 || uid == daemon || d->owner == uid || d->owner == 0 || d->owner == daemon;
}

uid_t device_mapping_layer(const Device *d) {
        if (d->owner == 0 || d->owner == d->manager->daemon_uid)
                return STORE_LAYER_SYSTEM;
        return d->owner;
}

static int set_string(char **field, char *value) {
        if (!value)
                return -ENOMEM;
        free(*field);
        *field = value;
        return 0;
}

static bool is_field_property(const char *key) {
        static const char *const fields[] = { "Kind", "Model", "Vendor", "Serial", "Colorspace",
                                              "Format", "Mode", "Seat", "Embedded" };
        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                if (streq(key, fields[i]))
                        return true;
        return false;
}

unsigned device_new_metadata_keys(const Device *d, const StrMap *props) {
        unsigned n = 0;
        for (size_t i = 0; i < props->n; i++)
                if (!is_field_property(props->entries[i].key) && !strmap_get(&d->metadata, props->entries[i].key))
                        n++;
        return n;
}

int device_check_property(const Device *d, const char *key) {
        if (is_field_property(key) || strmap_get(&d->metadata, key) || d->metadata.n < LIMIT_METADATA_ENTRIES)
                return 0;
        return -E2BIG;
}

int device_set_property(Device *d, const char *key, const char *value, const char **ret_property) {
        const char *prop = key;
        int r = 0;

        if (streq(key, "Kind"))
                d->kind = names_device_kind_parse(value);
        else if (streq(key, "Model"))
                r = set_string(&d->model, names_model_normalize(value, d->kind));
        else if (streq(key, "Vendor"))
                r = set_string(&d->vendor, names_vendor_quirk(value));
        else if (streq(key, "Serial"))
                r = set_string(&d->serial, names_serial_normalize(value));
        else if (streq(key, "Colorspace"))
                r = set_string(&d->colorspace, strdup(value));
        else if (streq(key, "Format"))
                r = set_string(&d->format, strdup(value));
        else if (streq(key, "Mode"))
                r = set_string(&d->mode, strdup(value));
        else if (streq(key, "Seat"))
                r = set_string(&d->seat, strdup(value));
        else if (streq(key, "Embedded"))
                d->embedded = true; /* any value sets it, as in colord */
        else {
                r = device_check_property(d, key);
                if (r < 0)
                        return r;
                r = strmap_set(&d->metadata, key, value);
                prop = "Metadata";
        }
        if (r < 0)
                return r;
        if (ret_property)
                *ret_property = prop;
        return 0;
}

int device_set_properties(Device *d, const DeviceProperty *props, size_t n_props) {
        for (size_t i = 0; i < n_props; i++) {
                if (!props[i].value)
                        continue;
                int r = device_set_property(d, props[i].key, props[i].value, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

DeviceProfile *device_find_profile(Device *d, Profile *p) {
        for (size_t i = 0; i < d->n_profiles; i++)
                if (d->profiles[i].profile == p)
                        return &d->profiles[i];
        return NULL;
}

/* Newest first; equal timestamps keep their current order (stable insertion sort). */
static void sort_profiles(Device *d) {
        for (size_t i = 1; i < d->n_profiles; i++) {
                DeviceProfile e = d->profiles[i];
                size_t j = i;
                while (j > 0 && d->profiles[j - 1].timestamp < e.timestamp) {
                        d->profiles[j] = d->profiles[j - 1];
                        j--;
                }
                d->profiles[j] = e;
        }
}

int device_add_profile(Device *d, Profile *p, bool hard, uint64_t timestamp) {
        DeviceProfile *e = device_find_profile(d, p);
        if (e) {
                if (hard && !e->hard) {
                        e->hard = true;
                        return 0;
                }
                return -EEXIST;
        }
        DeviceProfile *n = realloc(d->profiles, sizeof *n * (d->n_profiles + 1));
        if (!n)
                return -ENOMEM;
        d->profiles = n;
        int r = profile_add_holder(p, d);
        if (r < 0)
                return r;
        d->profiles[d->n_profiles++] = (DeviceProfile) { .profile = p, .hard = hard, .timestamp = timestamp };
        sort_profiles(d);
        return 0;
}

int device_remove_profile(Device *d, Profile *p) {
        DeviceProfile *e = device_find_profile(d, p);
        if (!e)
                return -ENOENT;
        size_t i = (size_t) (e - d->profiles);
        memmove(e, e + 1, sizeof *e * (d->n_profiles - i - 1));
        d->n_profiles--;
        profile_remove_holder(p, d);
        return 0;
}

int device_make_profile_default(Device *d, Profile *p, uint64_t now) {
        DeviceProfile *e = device_find_profile(d, p);
        if (!e)
                return -ENOENT;
        /* colord leaves a soft first profile soft (colord §16.8); we always make the user's
         * choice hard, and refresh its time so it wins among hard entries. */
        e->hard = true;
        e->timestamp = now;
        sort_profiles(d);
        return 0;
}

Profile **device_ordered_profiles(Device *d, size_t *ret_n) {
        Profile **out = malloc(sizeof *out * (d->n_profiles + 1));
        size_t n = 0;
        if (!out)
                return NULL;
        for (int pass = 0; pass < 3; pass++)
                for (size_t i = 0; i < d->n_profiles; i++) {
                        const DeviceProfile *e = &d->profiles[i];
                        bool edid = profile_is_edid(e->profile);
                        if ((pass == 0 && e->hard) || (pass == 1 && !e->hard && !edid) ||
                            (pass == 2 && !e->hard && edid))
                                out[n++] = e->profile;
                }
        *ret_n = n;
        return out;
}

Profile *device_profile_for_qualifiers(Device *d, const char *const *qualifiers) {
        for (int hard = 1; hard >= 0; hard--)
                for (const char *const *q = qualifiers; *q; q++)
                        for (size_t i = 0; i < d->n_profiles; i++) {
                                const DeviceProfile *e = &d->profiles[i];
                                if (e->hard == (bool) hard && qualifier_match(*q, e->profile->qualifier))
                                        return e->profile;
                        }
        return NULL;
}
