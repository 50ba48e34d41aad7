/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A colour-managed device: its properties, its ordered profile relations and the rules
 * for ordering and qualifier lookup (colord §3, §5). No bus code here: device-dbus.c has it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "list.h"
#include "manager.h"
#include "strmap.h"
#include "time-util.h"

typedef enum Scope {
        SCOPE_UNKNOWN,
        SCOPE_NORMAL,
        SCOPE_TEMP,
        SCOPE_DISK,
} Scope;

const char *scope_to_string(Scope s);
/* -EINVAL unless one of normal, temp, disk. */
int scope_from_string(const char *s, Scope *ret);

typedef struct DeviceProfile {
        Profile *profile;
        bool hard;
        uint64_t timestamp; /* µs; the assignment time, kept across restarts for hard ones */
} DeviceProfile;

struct Device {
        Manager *manager;
        ListLink link;

        char *id;
        struct Device *same_id_next; /* Manager.devices_by_id */
        char *path;
        uid_t owner;
        Scope scope;
        char *creator; /* unique bus name of the creating connection (temp scope) */

        const char *kind; /* static string from the kind table */
        char *model, *vendor, *serial, *colorspace, *format, *mode, *seat;
        bool enabled, embedded;
        uint64_t created, modified;
        StrMap metadata;

        DeviceProfile *profiles; /* newest first */
        size_t n_profiles;
        char **inhibitors;
};

int device_new(Manager *m, const char *id, uid_t owner, Scope scope, Device **ret);
Device *device_free(Device *d);

/* Applies one CreateDevice/SetProperty property (colord §3.3). Known keys set fields (with
 * normalisation), others go to Metadata. *ret_property is the bus property that changed. */
int device_set_property(Device *d, const char *key, const char *value, const char **ret_property);

/* What a source sets on a device it has just made: the pairs in order, Kind first (the model
 * clean-up depends on it, colord §3.3); a pair without a value is left out, so the field stays
 * unset. Stops at the first failure. */
typedef struct DeviceProperty {
        const char *key;
        const char *value;
} DeviceProperty;
int device_set_properties(Device *d, const DeviceProperty *props, size_t n_props);

/* -E2BIG when device_set_property(d, key, …) would add a Metadata entry beyond
 * LIMIT_METADATA_ENTRIES; then nothing else can refuse it but a failed allocation. So a
 * caller checks first, stores, and only then changes the device. */
int device_check_property(const Device *d, const char *key);
/* How many Metadata entries applying every property of props would add. */
unsigned device_new_metadata_keys(const Device *d, const StrMap *props);

/* Relations. device_add_profile: -EEXIST if already there with the same or a stronger
 * relation; a soft entry asked for hard is upgraded in place. */
int device_add_profile(Device *d, Profile *p, bool hard, uint64_t timestamp);
int device_remove_profile(Device *d, Profile *p);       /* -ENOENT */
int device_make_profile_default(Device *d, Profile *p, uint64_t now); /* -ENOENT */
DeviceProfile *device_find_profile(Device *d, Profile *p);

/* The exported Profiles order: hard, then soft non-EDID, then soft EDID (colord §5.3). */
Profile **device_ordered_profiles(Device *d, size_t *ret_n);
/* colord §5.4: hard pass then soft pass, each query in order. NULL when nothing matches. */
Profile *device_profile_for_qualifiers(Device *d, const char *const *qualifiers);

void device_touch(Device *d); /* Modified = now */

/* Non-root callers may change their own devices and those of the system (root-owned: a
 * user picking a printer profile), not another user's (colord checks nothing: colord §16.22;
 * docs/compatibility.md row 18). */
bool device_may_be_modified_by(const Device *d, uid_t uid);

/* The layer of stored mappings the device reads (store.h, docs/compatibility.md row 64): the
 * system's for a device of root or the daemon, else its owner's, which lies over the system's. */
uid_t device_mapping_layer(const Device *d);

DEFINE_TRIVIAL_CLEANUP_FUNC(Device *, device_free);
