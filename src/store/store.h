/* The persistent store: one SQLite database under the state directory holding device ↔
 * profile mappings, devices of scope "disk" with their properties, per-device Enabled flags
 * and per-user profile titles. Prepared statements only; negative errno on failure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct Store Store;

/* Creates state_dir if needed and opens (or creates, or migrates) the database in it. */
int store_open(const char *state_dir, Store **ret);
Store *store_free(Store *s);

/* Group several writes into one commit (nesting is not supported). */
int store_begin(Store *s);
int store_commit(Store *s);
void store_rollback(Store *s);

/* Mappings. timestamp_us 0 means "the user removed this pair". */
typedef struct StoreMapping {
        char *id;           /* profile id (for a device query) or device id */
        uint64_t timestamp; /* µs since the epoch */
} StoreMapping;

int store_mapping_set(Store *s, const char *device_id, const char *profile_id, uint64_t timestamp_us);
/* -ENOENT when there is no row for the pair. */
int store_mapping_get(Store *s, const char *device_id, const char *profile_id, uint64_t *ret_timestamp_us);
/* Rows with timestamp > 0, oldest first. */
int store_mapping_profiles_for_device(Store *s, const char *device_id, StoreMapping **ret, size_t *ret_n);
int store_mapping_devices_for_profile(Store *s, const char *profile_id, StoreMapping **ret, size_t *ret_n);
void store_mappings_free(StoreMapping *m, size_t n);

/* Devices of scope "disk". */
int store_device_add(Store *s, const char *device_id);               /* -EEXIST if present */
int store_device_remove(Store *s, const char *device_id);            /* with its properties */
int store_device_set_property(Store *s, const char *device_id, const char *key, const char *value);
int store_device_list(Store *s, char ***ret_ids);                    /* in insertion order */
int store_device_get_properties(Store *s, const char *device_id, char ***ret_pairs); /* k,v,...,NULL */

/* Enabled flag, kept per device id whatever the scope. -ENOENT if never set. */
int store_device_set_enabled(Store *s, const char *device_id, bool enabled);
int store_device_get_enabled(Store *s, const char *device_id, bool *ret);

/* Per-user profile titles. -ENOENT if that uid never set one. */
int store_profile_title_set(Store *s, const char *profile_id, uid_t uid, const char *title);
int store_profile_title_get(Store *s, const char *profile_id, uid_t uid, char **ret);

#include "macro.h"
DEFINE_TRIVIAL_CLEANUP_FUNC(Store *, store_free);
