/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device ↔ profile mappings in layers (store.h, docs/compatibility.md row 64): the system's
 * (owner 0) and each user's own. A row with timestamp 0 records that the user removed the
 * pair, so that automatic assignment does not bring it back. A user writes their layer
 * without authorization, on their own temp devices of ids they choose, so it keeps its
 * LIMIT_MAPPINGS_PER_UID rows written last: a loop of CreateDevice, AddProfile and
 * DeleteDevice does not grow the store. The rows are not deleted with the device: a
 * monitor's device is made anew at each replug, and its choices come back with it.
 *
 * Deliberately not here: which layer a caller writes (the daemon decides from polkit's
 * answer) and what a mapping means for a device's profile list. */
#include "store-internal.h"
#include "tinct-limits.h"

#include <assert.h>

/* owner: STORE_LAYER_SYSTEM (0) or the uid whose own layer the row is in. seq: the layer's
 * largest + 1, so that a write makes the row the layer's newest (schema 7). */
static const StoreSql sql_set = {
        STMT_MAPPING_SET,
        "INSERT INTO mappings (device_id, profile_id, owner, timestamp, seq) VALUES (?1, ?2, ?3, ?4, "
        "(SELECT coalesce(max(seq), 0) + 1 FROM mappings WHERE owner = ?3)) "
        "ON CONFLICT (device_id, profile_id, owner) DO UPDATE SET timestamp = excluded.timestamp, seq = excluded.seq",
};
/* A user's layer: everything but its ?2 rows written last. */
static const StoreSql sql_trim_layer = {
        STMT_MAPPING_TRIM_LAYER,
        "DELETE FROM mappings WHERE owner = ?1 AND (device_id, profile_id) NOT IN "
        "(SELECT device_id, profile_id FROM mappings WHERE owner = ?1 ORDER BY seq DESC LIMIT ?2)",
};
static const StoreSql sql_unset = {
        STMT_MAPPING_UNSET,
        "DELETE FROM mappings WHERE device_id = ?1 AND profile_id = ?2 AND owner = ?3",
};
/* The layer's own row first (owner = 0 is false for it), else the system's. */
static const StoreSql sql_get = {
        STMT_MAPPING_GET,
        "SELECT timestamp FROM mappings WHERE device_id = ?1 AND profile_id = ?2 AND owner IN (0, ?3) "
        "ORDER BY owner = 0 LIMIT 1",
};
/* A system row counts only where the layer has no row of its own for the pair. */
static const StoreSql sql_profiles_for_device = {
        STMT_MAPPING_PROFILES_FOR_DEVICE,
        "SELECT profile_id, timestamp FROM mappings AS m WHERE device_id = ?1 AND owner IN (0, ?2) "
        "AND timestamp > 0 AND NOT (owner = 0 AND ?2 != 0 AND EXISTS (SELECT 1 FROM mappings AS u "
        "WHERE u.device_id = m.device_id AND u.profile_id = m.profile_id AND u.owner = ?2)) "
        "ORDER BY timestamp, profile_id",
};
static const StoreSql sql_devices_for_profile = {
        STMT_MAPPING_DEVICES_FOR_PROFILE,
        "SELECT device_id, min(timestamp) FROM mappings WHERE profile_id = ?1 AND timestamp > 0 "
        "GROUP BY device_id ORDER BY 2, device_id",
};
static const StoreSql sql_insert_if_missing = {
        STMT_MAPPING_INSERT_IF_MISSING,
        "INSERT INTO mappings (device_id, profile_id, owner, timestamp) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT DO NOTHING",
};

int store_mapping_set(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                      uint64_t timestamp_us) {
        assert(device_id && profile_id);
        if (timestamp_us > INT64_MAX)
                return -ERANGE;
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = store_exec(s, &sql_set, NULL, ARG_TEXT(device_id), ARG_TEXT(profile_id), ARG_INT(layer),
                       ARG_INT(timestamp_us));
        if (r >= 0 && layer != STORE_LAYER_SYSTEM)
                r = store_exec(s, &sql_trim_layer, NULL, ARG_INT(layer), ARG_INT(LIMIT_MAPPINGS_PER_UID));
        return store_op_end(s, &op, r);
}

int store_mapping_insert_if_missing(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                                    int64_t timestamp_us) {
        assert(device_id && profile_id);
        int r = store_exec(s, &sql_insert_if_missing, NULL, ARG_TEXT(device_id), ARG_TEXT(profile_id),
                           ARG_INT(layer), ARG_INT(timestamp_us));
        if (r < 0)
                return r;
        return sqlite3_changes(s->db) > 0;
}

int store_mapping_unset(Store *s, uid_t layer, const char *device_id, const char *profile_id) {
        assert(device_id && profile_id);
        return store_exec(s, &sql_unset, NULL, ARG_TEXT(device_id), ARG_TEXT(profile_id), ARG_INT(layer));
}

int store_mapping_get(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                      uint64_t *ret_timestamp_us) {
        assert(device_id && profile_id);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_get, &st, ARG_TEXT(device_id), ARG_TEXT(profile_id), ARG_INT(layer));
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        int64_t t = sqlite3_column_int64(st, 0);
        if (ret_timestamp_us)
                *ret_timestamp_us = t < 0 ? 0 : (uint64_t) t;
        return 0;
}

void store_mappings_free(StoreMapping *m, size_t n) {
        if (!m)
                return;
        for (size_t i = 0; i < n; i++)
                free(m[i].id);
        free(m);
}

/* The rows of a query that store_exec() started (r is its answer): column 0 the id, column
 * 1 the timestamp. */
static int mappings_collect(Store *s, sqlite3_stmt *st, int r, StoreMapping **ret, size_t *ret_n) {
        StoreMapping *m = NULL;
        size_t n = 0, allocated = 0;
        for (; r > 0; r = store_step(s, st)) {
                if (n == allocated) {
                        size_t na = allocated ? allocated * 2 : 8;
                        StoreMapping *t = reallocarray(m, na, sizeof(StoreMapping));
                        if (!t) {
                                r = -ENOMEM;
                                break;
                        }
                        m = t;
                        allocated = na;
                }
                const unsigned char *id = sqlite3_column_text(st, 0);
                m[n].id = strdup(id ? (const char *) id : "");
                if (!m[n].id) {
                        r = -ENOMEM;
                        break;
                }
                m[n].timestamp = (uint64_t) sqlite3_column_int64(st, 1);
                n++;
        }
        if (r < 0) {
                store_mappings_free(m, n);
                return r;
        }
        *ret = m;
        *ret_n = n;
        return 0;
}

int store_mapping_profiles_for_device(Store *s, uid_t layer, const char *device_id, StoreMapping **ret,
                                      size_t *ret_n) {
        assert(device_id && ret && ret_n);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_profiles_for_device, &st, ARG_TEXT(device_id), ARG_INT(layer));
        return mappings_collect(s, st, r, ret, ret_n);
}

int store_mapping_devices_for_profile(Store *s, const char *profile_id, StoreMapping **ret, size_t *ret_n) {
        assert(profile_id && ret && ret_n);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_devices_for_profile, &st, ARG_TEXT(profile_id));
        return mappings_collect(s, st, r, ret, ret_n);
}
