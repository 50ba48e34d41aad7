/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's registry: every device, profile and sensor, the lookups over them, the
 * rules that tie them together (automatic assignment, scope lifetimes) and the store.
 * Defined in two files: manager.c (the indexes and lookups, on which the rest of the
 * registry builds) and lifetimes.c (objects coming and going, automatic assignment). The
 * bus vtables live in bus/; this header holds state and invariants. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "chain-index.h"
#include "cm-names.h"
#include "hashmap.h"
#include "list.h"
#include "store.h"
#include "strv.h"
#include "tinct-limits.h"  /* LIMIT_*: what a client can create */

#define DEVICE_PATH_PREFIX CM_PATH "/devices"
#define PROFILE_PATH_PREFIX CM_PATH "/profiles"
#define SENSOR_PATH_PREFIX CM_PATH "/sensors"

typedef struct Device Device;
typedef struct Profile Profile;
typedef struct Sensor Sensor;

typedef struct ManagerConfig {
        char *state_dir;
        char **profile_dirs;
        char *sysfs_root;
        bool no_udev;                   /* --no-udev: no device of this machine is looked for */
        uint64_t polkit_timeout_usec;
        char *parse_helper;             /* tinct-parse (docs/sandbox.md) */
        uint64_t parse_timeout_usec;
        /* The sources' own settings are theirs (startup.h's SourcesConfig), not the registry's. */
} ManagerConfig;

typedef struct Manager {
        sd_event *event;
        sd_bus *bus;
        struct BusOrder *bus_order; /* each client's calls answered in order (bus-order.h) */
        Store *store;
        struct Parser *parser;      /* every ICC and EDID parse goes through it (docs/sandbox.md) */
        ManagerConfig config;
        uid_t daemon_uid;

        List devices;               /* creation order */
        Hashmap *devices_by_path;
        ChainIndex devices_by_id;   /* every device of each id (one per owner), creation order */
        List profiles;
        Hashmap *profiles_by_path;
        Hashmap *profiles_by_id;    /* profile ids are global */
        ChainIndex profiles_by_filename;
        ChainIndex profiles_by_target; /* by MAPPING_device_id, for automatic assignment */
        List sensors;
        Hashmap *sensors_by_path;

        Hashmap *clients;           /* unique name → Client */
        Hashmap *owner_suffixes;    /* "uid" → "_<user>_<uid>", so paths need no NSS lookup per call */
        Hashmap *uid_counts;        /* "uid" → UidCount: live devices + profiles per owner */
        List pending_auths;         /* polkit checks awaiting their answer (polkit.c) */
        List loads_pending;         /* profile-load.c: calls waiting for their parse */

        List warnings_pending;      /* profiles whose warnings are still to be computed */
        sd_event_source *warnings_idle;

        bool announcing;            /* signals on: set once the startup scan is done */

        struct ProfileWatch *profile_watch;
        struct DeviceSource *sources;       /* device-source.h: displays, udev, scanners, CUPS… */
        size_t n_sources;

        char *system_vendor;
        char *system_model;
} Manager;

/* The bus to emit signals on: NULL during startup (the name is taken after the startup
 * scan, so nobody can know those objects yet; 5000 ProfileAdded cost 13% of a warm start)
 * and without a bus. */
static inline sd_bus *manager_signal_bus(Manager *m) {
        return m->announcing ? m->bus : NULL;
}

/* Frees what the configuration owns; a cleanup function for a ManagerConfig on the stack. */
void manager_config_done(ManagerConfig *c);

/* Takes over everything *config owns (and zeroes it), on success and on failure alike. */
int manager_new(ManagerConfig *config, Manager **ret);
Manager *manager_free(Manager *m);
/* Lookups. `uid` is the caller, whose own objects are preferred. */
Device *manager_find_device_by_id(Manager *m, const char *id, uid_t uid);
Device *manager_find_device_by_path(Manager *m, const char *path);
Profile *manager_find_profile_by_id(Manager *m, const char *id);
Profile *manager_find_profile_by_path(Manager *m, const char *path);
Profile *manager_find_profile_by_filename(Manager *m, const char *filename);
/* The same for a caller's lookup: a Filename that is only another user's claim never
 * answers, and a checked one wins over any claim of the same path (profile-claim.h). */
Profile *manager_find_profile_by_filename_for(Manager *m, const char *filename, uid_t uid);

/* The object path a device or profile with this id and owner gets (colord §1.1). */
char *manager_object_path(Manager *m, const char *prefix, const char *id, uid_t owner);

/* Registration: adds to the lists and maps, runs automatic assignment, emits *Added. */
int manager_add_device(Manager *m, Device *d);
void manager_remove_device(Manager *m, Device *d); /* emits DeviceRemoved, frees */
/* auto_add: run automatic assignment (client-created profiles only, colord §5.5). */
int manager_add_profile(Manager *m, Profile *p, bool auto_add);
/* p's warnings were not known when it was paired with its MAPPING_device_id and are now
 * (profile-warnings.h): the pair is tried again. */
void manager_profile_warnings_known(Manager *m, Profile *p);
void manager_remove_profile(Manager *m, Profile *p); /* detaches from devices, emits, frees */
/* profile_set_property() for a registered profile: keeps the indexes right. */
int manager_profile_set_property(Manager *m, Profile *p, const char *key, const char *value,
                                 const char **ret_property);
/* A discovered profile's file moved: keeps the filename index right. */
int manager_profile_set_filename(Manager *m, Profile *p, const char *filename);
/* The MAPPING_device_id index of a profile (for automatic assignment), made and dropped
 * as it is added and removed (lifetimes.c). */
int manager_profile_index_target(Manager *m, Profile *p);
void manager_profile_unindex_target(Manager *m, Profile *p);

/* Sensors: into the list and map, SensorAdded; out again with SensorRemoved (frees; a
 * reading in progress gets an error). */
int manager_add_sensor(Manager *m, Sensor *s);
void manager_remove_sensor(Manager *m, Sensor *s);

/* Client left the bus: drop its temp objects, inhibitors and sensor locks. */
void manager_client_vanished(Manager *m, const char *name);

/* Per-owner object accounting for LIMIT_OBJECTS_PER_UID. */
unsigned manager_objects_of_uid(Manager *m, uid_t uid);
void manager_account_object(Manager *m, uid_t uid, int delta);

DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);
