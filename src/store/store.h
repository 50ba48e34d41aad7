/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The persistent store: one SQLite database under the state directory holding device ↔
 * profile mappings (the system's and each user's own layer), devices of scope "disk" with their properties, per-device Enabled flags,
 * per-user profile titles and a cache of parsed ICC metadata. Prepared statements only;
 * negative errno on failure.
 *
 * Robustness: the file is checked (PRAGMA quick_check) at every open; a damaged file is moved
 * aside and the newest good backup (backups/tinct.db.1..3, rotated at open and by
 * store_backup()) takes its place. Only when no backup is usable does the store start empty.
 * Before SQLite opens the file, its write-ahead log is checked (store-wal.h): what SQLite would
 * drop silently is logged and a copy kept. A state directory that cannot be written is served
 * read-only (store_open_read_only(), docs/durability.md).
 *
 * Logging: store_open*(), store_backup() and store_import_colord() log their failures
 * themselves (they know the SQLite details); the other calls only return errors, with
 * SQLite's message at debug level, and their callers log.
 *
 * Deliberate limits: one connection, used from one thread. The store bounds nothing a client
 * sends (the daemon does); SQLite's own length limit (STORE_MAX_VALUE_SIZE) only keeps a bug
 * from bloating the file, and is reported as -E2BIG. Strings must be UTF-8 without NULs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct Store Store;
typedef struct IccInfo IccInfo;

#define STORE_DEFAULT_STATE_DIR "/var/lib/tinct"
#define STORE_DB_NAME "tinct.db"
#define STORE_BACKUPS 3
#define STORE_MAX_VALUE_SIZE (16 * 1024 * 1024)

typedef enum StoreOpenFlags {
        STORE_OPEN_NO_CREATE = 1 << 0, /* -ENOENT unless the database file exists (tools) */
        STORE_OPEN_NO_BACKUP = 1 << 1, /* do not rotate backups at open (tools) */
} StoreOpenFlags;

/* Creates state_dir if needed and opens (or creates, or migrates) the database in it.
 * A damaged database is replaced by its newest good backup (logged). -EPROTONOSUPPORT when
 * the file was written by a newer schema than this build knows (nothing is changed). */
int store_open(const char *state_dir, Store **ret);
int store_open_full(const char *state_dir, StoreOpenFlags flags, Store **ret);
/* For a daemon whose store_open() failed because the state directory cannot be written
 * (write_error: -EROFS, -ENOSPC, -EIO, -EACCES, ...): a store that serves what the database
 * file holds (read without writing anything beside it; a file that cannot be read gives an
 * empty store) from a copy in memory, and answers every write with write_error. Logs one
 * line that says so. -EPROTONOSUPPORT for a file of a newer schema, as store_open(). */
int store_open_read_only(const char *state_dir, int write_error, Store **ret);
bool store_is_read_only(const Store *s);
/* The negative errno a read-only store answers every write with (why it is read-only); 0
 * when it can be written. */
int store_read_only_error(const Store *s);
/* Whether a store_open() error is one store_open_read_only() is for: the directory or the
 * file cannot be written, as opposed to a newer schema or no memory. */
bool store_open_error_is_unwritable(int error);
/* Commits a transaction left open by store_begin() (with a warning), then closes. */
Store *store_free(Store *s);

/* Group several writes into one commit (nesting is not supported: -EBUSY). A commit that
 * fails rolls the transaction back: none is ever left open. */
int store_begin(Store *s);
int store_commit(Store *s);
void store_rollback(Store *s);

/* Checks the live database and, when it is sound and changed since the last backup, writes
 * a new backups/tinct.db.1 (older ones shift to .2, .3). For a daemon timer. Returns 1 when a
 * backup was written, 0 when nothing had changed, -EBADMSG when the check failed (the
 * existing backups are kept then), other negative errno on I/O errors. */
int store_backup(Store *s);

/* Mappings. timestamp_us 0 means "the user removed this pair".
 *
 * They come in layers (docs/compatibility.md row 64): STORE_LAYER_SYSTEM holds the system's
 * choices (root's, those of a caller polkit authorized, the daemon's); a uid's own layer holds
 * the choices that user made without authorization, on their own temp devices. A reader asks
 * for the layer of the device it serves: the system's devices read the system layer alone; a
 * user's device reads its owner's layer over the system's (the user's row for a pair, a
 * removal included, wins). Writing one layer never changes another. */
#define STORE_LAYER_SYSTEM ((uid_t) 0)

typedef struct StoreMapping {
        char *id;           /* profile id (for a device query) or device id */
        uint64_t timestamp; /* µs since the epoch */
} StoreMapping;

/* A user's layer keeps its LIMIT_MAPPINGS_PER_UID rows written last (the older go in the same
 * commit); the system's has no cap. */
int store_mapping_set(Store *s, uid_t layer, const char *device_id, const char *profile_id, uint64_t timestamp_us);
/* Drops the layer's own row for the pair, if any (the system's is dropped only when layer is
 * STORE_LAYER_SYSTEM). */
int store_mapping_unset(Store *s, uid_t layer, const char *device_id, const char *profile_id);
/* What the layer sees for the pair: its own row, else the system's. -ENOENT when neither. */
int store_mapping_get(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                      uint64_t *ret_timestamp_us);
/* What the layer sees: rows with timestamp > 0, oldest first. */
int store_mapping_profiles_for_device(Store *s, uid_t layer, const char *device_id, StoreMapping **ret,
                                      size_t *ret_n);
/* Every device id with a row > 0 for the profile in any layer, once, ordered by its oldest
 * such row (whose timestamp is given). Which devices of an id see it: store_mapping_get(). */
int store_mapping_devices_for_profile(Store *s, const char *profile_id, StoreMapping **ret, size_t *ret_n);
void store_mappings_free(StoreMapping *m, size_t n);

/* Devices of scope "disk". Kind is an ordinary property here: store it at creation (colord
 * does not, colord §16.7). "Enabled" is not a property (-EINVAL): use store_device_set_enabled(). */
int store_device_add(Store *s, const char *device_id);               /* -EEXIST if present */
/* With its properties and its Enabled flag (the system's), as colord drops every storage row
 * of a disk device. -ENOENT if it was not stored. */
int store_device_remove(Store *s, const char *device_id);
/* Insert or replace; value NULL removes the key. -ENOENT if the device is not stored. */
int store_device_set_property(Store *s, const char *device_id, const char *key, const char *value);
int store_device_list(Store *s, char ***ret_ids);                    /* in insertion order */
/* The uid that created the device (0 unless set; colord keeps none). -ENOENT if not stored. */
int store_device_set_owner(Store *s, const char *device_id, uid_t owner);
int store_device_get_owner(Store *s, const char *device_id, uid_t *ret);
/* k,v,...,NULL in the order keys were first set; -ENOENT if the device is not stored. */
int store_device_get_properties(Store *s, const char *device_id, char ***ret_pairs);

/* Enabled flag, kept per device id whatever the scope, in layers as the mappings: the
 * system's (root, the daemon, an authorized caller) and each user's own, set on the user's
 * own temp devices without authorization; a user's layer keeps its
 * LIMIT_ENABLED_FLAGS_PER_UID flags set last (the older go in the same commit). get reads
 * the layer's own flag, else the system's; -ENOENT if neither was set. */
int store_device_set_enabled(Store *s, const char *device_id, uid_t layer, bool enabled);
int store_device_get_enabled(Store *s, const char *device_id, uid_t layer, bool *ret);

/* Per-user profile titles. -ENOENT if that uid never set one. A uid but root keeps its
 * LIMIT_TITLES_PER_UID titles set last (the older go in the same commit). */
int store_profile_title_set(Store *s, const char *profile_id, uid_t uid, const char *title);
int store_profile_title_get(Store *s, const char *profile_id, uid_t uid, char **ret);

/* Profiles of scope "disk" (colord answers NotSupported). data is NULL for a profile
 * without ICC bytes. */
typedef struct StoreDiskProfile {
        char *id;
        uid_t owner;
        char **properties; /* key, value, ...: CreateProfile's dict as given (Title aside) */
        uint8_t *data;
        size_t size;
} StoreDiskProfile;

/* -EEXIST if a profile with this id is stored. */
int store_disk_profile_add(Store *s, const StoreDiskProfile *p);
/* -ENOENT if it was not stored. */
int store_disk_profile_remove(Store *s, const char *id);
/* A property set later (Profile.SetProperty): replaces the key's value, or adds the key at
 * the end, so the profile comes back with it. -ENOENT if it was not stored. */
int store_disk_profile_set_property(Store *s, const char *id, const char *key, const char *value);
/* In creation order. Returns the number of damaged rows left out (logged by the caller). */
int store_disk_profile_list(Store *s, StoreDiskProfile **ret, size_t *ret_n);
void store_disk_profiles_free(StoreDiskProfile *l, size_t n);

/* Verifications of a device against its profile (docs/verify.md), by device id whatever
 * its scope. source: STORE_VERIFICATION_VERIFY (`tinct verify`) or
 * STORE_VERIFICATION_CALIBRATION (the calibration helper's check right after profiling).
 * In layers as the mappings: STORE_LAYER_SYSTEM for the system's devices, a uid for those
 * recorded on that user's own devices; a layer sees its own rows and the system's. Only the
 * newest STORE_VERIFICATIONS_KEPT of a device, source and layer are kept: add drops the
 * older ones in the same transaction; and a user's layer keeps the results of its
 * LIMIT_VERIFIED_DEVICES_PER_UID devices verified last, all of an older device's going
 * with the add that pushes it out (the system's layer, written only by the system's own or
 * authorized callers, has no such cap). */
#define STORE_VERIFICATION_VERIFY "verify"
#define STORE_VERIFICATION_CALIBRATION "calibration"
#define STORE_VERIFICATIONS_KEPT 32

typedef struct StoreVerification {
        char *source;
        char *when;       /* ISO 8601 UTC, "2026-12-05T23:48:04Z" */
        double mean, max; /* CIEDE2000 */
        unsigned patches;
        char *profile_id; /* the profile verified against */
} StoreVerification;

/* -EINVAL for an unknown source, a when that is not ISO 8601 UTC, or figures that are not
 * finite and >= 0 (nothing is written). */
int store_verification_add(Store *s, uid_t layer, const char *device_id, const StoreVerification *v);
/* What the layer sees, newest first; source NULL for both. An empty list (not an error) when
 * there are none. */
int store_verification_list(Store *s, uid_t layer, const char *device_id, const char *source,
                            StoreVerification **ret, size_t *ret_n);
void store_verifications_free(StoreVerification *l, size_t n);

/* Parsed-ICC cache, keyed by path and checked against the file's identity. get returns a
 * new IccInfo (free with icc_info_free()), or -ENOENT when the path is unknown or the file
 * changed (size, mtime or inode differ) or the cached row is unusable. put replaces the row
 * for path; warnings NULL (ICC_INFO_SKIP_WARNINGS) and empty are kept apart. Wrap a startup
 * scan (its gets and puts) in store_begin()/store_commit(): one commit, and one read lock
 * instead of one per get (5000 hits: ~30 ms instead of ~50 ms; 5000 puts: ~40 ms). */
int store_profile_cache_get(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode,
                            IccInfo **ret);
int store_profile_cache_put(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode,
                            const IccInfo *info);
/* Fills in the warnings of a row put without them, if the row still describes that file
 * identity (the file may have changed since). */
int store_profile_cache_set_warnings(Store *s, const char *path, uint64_t size, int64_t mtime_ns,
                                     uint64_t inode, char *const *warnings);
/* Drops every cached path not in live_paths (NULL-terminated; NULL empties the cache).
 * Returns the number of rows removed. */
int store_profile_cache_prune(Store *s, char *const *live_paths);
/* Number of cached rows (for logs and tests). */
int store_profile_cache_count(Store *s, size_t *ret);

/* One-time import of colord's databases (mapping.db, storage.db in colord_dir, normally
 * /var/lib/colord). Rows already in the store win. The store records that the import ran,
 * so later calls do nothing. Returns 1 when the import ran now (whether or not colord's
 * files existed), 0 when it had already run. colord's files are opened read-only. */
int store_import_colord(Store *s, const char *colord_dir);

/* The whole store as JSON, but for the profile cache (it is derived from files) and the
 * verifications (measurements, not configuration: an import leaves them as they are). Strict
 * reader: malformed or unexpected input is refused with a message in *ret_error and nothing
 * is changed; a valid document replaces the store's content in one transaction. */
int store_export_json(Store *s, FILE *f);
int store_import_json(Store *s, const char *data, size_t size, char **ret_error);

#include "macro.h"
DEFINE_TRIVIAL_CLEANUP_FUNC(Store *, store_free);
