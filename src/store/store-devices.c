/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Devices of scope "disk" (their ids in creation order, their properties in the order keys
 * were first set, the uid that created them) and the Enabled flag, which colord keeps per
 * device id whatever the scope (colord §16.7), so it lives in a table of its own, in layers
 * as the mappings (store.h): a flag a user set on their own temp device without
 * authorization is in that user's layer, which keeps its LIMIT_ENABLED_FLAGS_PER_UID flags
 * set last (ids of the user's choosing cannot grow the store). A disk device's flag goes
 * with the device; a temp or normal device's stays, for the device of the id made anew.
 *
 * Deliberately not here: which devices are "disk" and who may change them (the daemon). */
#include "store-internal.h"
#include "tinct-limits.h"

#include <assert.h>

static const StoreSql sql_add = { STMT_DEVICE_ADD, "INSERT INTO devices (device_id) VALUES (?1)" };
static const StoreSql sql_exists = { STMT_DEVICE_EXISTS, "SELECT 1 FROM devices WHERE device_id = ?1" };
/* Its properties go by ON DELETE CASCADE. */
static const StoreSql sql_remove = { STMT_DEVICE_REMOVE, "DELETE FROM devices WHERE device_id = ?1" };
static const StoreSql sql_property_set = {
        STMT_DEVICE_PROPERTY_SET,
        "INSERT INTO device_properties (device_id, key, value) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (device_id, key) DO UPDATE SET value = excluded.value",
};
static const StoreSql sql_property_delete = {
        STMT_DEVICE_PROPERTY_DELETE,
        "DELETE FROM device_properties WHERE device_id = ?1 AND key = ?2",
};
static const StoreSql sql_list = { STMT_DEVICE_LIST, "SELECT device_id FROM devices ORDER BY seq" };
/* An upsert keeps the rowid, so rowid order is the order keys were first set. */
static const StoreSql sql_properties = {
        STMT_DEVICE_PROPERTIES,
        "SELECT key, value FROM device_properties WHERE device_id = ?1 ORDER BY rowid",
};
static const StoreSql sql_set_owner = { STMT_DEVICE_SET_OWNER, "UPDATE devices SET owner = ?2 WHERE device_id = ?1" };
static const StoreSql sql_get_owner = { STMT_DEVICE_GET_OWNER, "SELECT owner FROM devices WHERE device_id = ?1" };

/* owner: STORE_LAYER_SYSTEM or the uid whose own layer the row is in; seq: the layer's
 * largest + 1 (schema 7). */
static const StoreSql sql_enabled_set = {
        STMT_ENABLED_SET,
        "INSERT INTO device_enabled (device_id, owner, enabled, seq) VALUES (?1, ?2, ?3, "
        "(SELECT coalesce(max(seq), 0) + 1 FROM device_enabled WHERE owner = ?2)) "
        "ON CONFLICT (device_id, owner) DO UPDATE SET enabled = excluded.enabled, seq = excluded.seq",
};
/* A user's layer: everything but its ?2 flags set last. */
static const StoreSql sql_enabled_trim_owner = {
        STMT_ENABLED_TRIM_OWNER,
        "DELETE FROM device_enabled WHERE owner = ?1 AND device_id NOT IN "
        "(SELECT device_id FROM device_enabled WHERE owner = ?1 ORDER BY seq DESC LIMIT ?2)",
};
static const StoreSql sql_enabled_insert_if_missing = {
        STMT_ENABLED_INSERT_IF_MISSING,
        "INSERT INTO device_enabled (device_id, owner, enabled) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
};
/* The layer's own row first (owner = 0 is false for it), else the system's. */
static const StoreSql sql_enabled_get = {
        STMT_ENABLED_GET,
        "SELECT enabled FROM device_enabled WHERE device_id = ?1 AND owner IN (0, ?2) ORDER BY owner = 0 LIMIT 1",
};
/* A disk device's flag is the system's: only an authorized caller changes a disk device. */
static const StoreSql sql_enabled_delete = {
        STMT_ENABLED_DELETE,
        "DELETE FROM device_enabled WHERE device_id = ?1 AND owner = 0",
};

/* 1 if stored, 0 if not. */
static int device_exists(Store *s, const char *device_id) {
        return store_exec(s, &sql_exists, NULL, ARG_TEXT(device_id));
}

int store_device_add(Store *s, const char *device_id) {
        assert(device_id);
        return store_exec(s, &sql_add, NULL, ARG_TEXT(device_id));
}

/* The device's row and its Enabled flag, inside the caller's transaction. */
static int device_remove_rows(Store *s, const char *device_id) {
        int r = store_exec(s, &sql_remove, NULL, ARG_TEXT(device_id));
        if (r < 0)
                return r;
        if (sqlite3_changes(s->db) == 0)
                return -ENOENT;
        return store_exec(s, &sql_enabled_delete, NULL, ARG_TEXT(device_id));
}

int store_device_remove(Store *s, const char *device_id) {
        assert(device_id);
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = device_remove_rows(s, device_id);
        return store_op_end(s, &op, r);
}

int store_device_set_property(Store *s, const char *device_id, const char *key, const char *value) {
        assert(device_id && key);
        if (streq(key, "Enabled"))
                return -EINVAL; /* a table of its own: store_device_set_enabled() */
        if (value)
                return store_exec(s, &sql_property_set, NULL, ARG_TEXT(device_id), ARG_TEXT(key), ARG_TEXT(value));

        int r = store_exec(s, &sql_property_delete, NULL, ARG_TEXT(device_id), ARG_TEXT(key));
        if (r < 0)
                return r;
        if (sqlite3_changes(s->db) > 0)
                return 0;
        /* Deleting a key that is not there is fine, but not on a device that is not. */
        r = device_exists(s, device_id);
        if (r < 0)
                return r;
        return r > 0 ? 0 : -ENOENT;
}

int store_device_list(Store *s, char ***ret_ids) {
        assert(ret_ids);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_list, &st);
        return store_collect_strings(s, st, r, false, ret_ids);
}

/* Existence and rows, inside the caller's snapshot. */
static int device_properties(Store *s, const char *device_id, char ***ret_pairs) {
        int r = device_exists(s, device_id);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        r = store_exec(s, &sql_properties, &st, ARG_TEXT(device_id));
        return store_collect_strings(s, st, r, true, ret_pairs);
}

int store_device_get_properties(Store *s, const char *device_id, char ***ret_pairs) {
        assert(device_id && ret_pairs);
        StoreOp op;
        int r = store_op_begin(s, false, &op); /* existence and rows from one snapshot */
        if (r < 0)
                return r;
        r = device_properties(s, device_id, ret_pairs);
        return store_op_end(s, &op, r);
}

int store_device_set_owner(Store *s, const char *device_id, uid_t owner) {
        assert(device_id);
        int r = store_exec(s, &sql_set_owner, NULL, ARG_TEXT(device_id), ARG_INT(owner));
        if (r < 0)
                return r;
        return sqlite3_changes(s->db) > 0 ? 0 : -ENOENT;
}

int store_device_get_owner(Store *s, const char *device_id, uid_t *ret) {
        assert(device_id);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_get_owner, &st, ARG_TEXT(device_id));
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        int64_t v = sqlite3_column_int64(st, 0);
        if (v < 0 || v > UINT32_MAX)
                return -EBADMSG;
        if (ret)
                *ret = (uid_t) v;
        return 0;
}

int store_device_set_enabled(Store *s, const char *device_id, uid_t layer, bool enabled) {
        assert(device_id);
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = store_exec(s, &sql_enabled_set, NULL, ARG_TEXT(device_id), ARG_INT(layer), ARG_INT(enabled));
        if (r >= 0 && layer != STORE_LAYER_SYSTEM)
                r = store_exec(s, &sql_enabled_trim_owner, NULL, ARG_INT(layer), ARG_INT(LIMIT_ENABLED_FLAGS_PER_UID));
        return store_op_end(s, &op, r);
}

int store_device_enabled_insert_if_missing(Store *s, uid_t layer, const char *device_id, bool enabled) {
        assert(device_id);
        int r = store_exec(s, &sql_enabled_insert_if_missing, NULL, ARG_TEXT(device_id), ARG_INT(layer), ARG_INT(enabled));
        if (r < 0)
                return r;
        return sqlite3_changes(s->db) > 0;
}

int store_device_get_enabled(Store *s, const char *device_id, uid_t layer, bool *ret) {
        assert(device_id);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_enabled_get, &st, ARG_TEXT(device_id), ARG_INT(layer));
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        if (ret)
                *ret = sqlite3_column_int(st, 0) != 0;
        return 0;
}
