/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON export of the store's content (not the profile cache, which is derived
 * from files and keyed by inode, so it means nothing on another machine).
 *
 * Format (version 2; version 1 had no "disk_profiles" and is still read), with every list
 * in a fixed order so two exports of the same content are byte-identical:
 *   { "format": "tinct-store", "version": 2,
 *     "info":     { key: value, ... }                         (by key)
 *     "devices":  [ { "id": ..., "properties": { k: v }, "owner": n } ]  (insertion order, keys
 *                 as set; "owner" only when not 0, i.e. created by a user)
 *     "enabled":  [ { "device": ..., "enabled": bool, "owner": n } ]  (by device, owner; "owner"
 *                 only when not 0, as for the mappings: schema 7 put the flags in layers)
 *     "mappings": [ { "device": ..., "profile": ..., "timestamp": µs, "owner": n } ]
 *                 (by device, profile, owner; "owner" only when not 0: a user's own layer,
 *                 store.h; without it the row is the system's, as every row before schema 5)
 *     "titles":   [ { "profile": ..., "uid": n, "title": ... } ]          (by profile, uid)
 *     "disk_profiles": [ { "id": ..., "owner": n, "properties": { k: v },
 *                          "data": lower-case hex of the ICC bytes, or null } ]  (creation order) }
 * The strict import of this format: store-import.c. */
#include "store-internal.h"

#include <assert.h>

#include "json.h"
#include "strv.h"

/* Whole tables, in the fixed orders of the format. */
static const StoreSql sql_export_info = { STMT_EXPORT_INFO, "SELECT key, value FROM store_info ORDER BY key" };
static const StoreSql sql_export_enabled = {
        STMT_EXPORT_ENABLED,
        "SELECT device_id, enabled, owner FROM device_enabled ORDER BY device_id, owner",
};
static const StoreSql sql_export_mappings = {
        STMT_EXPORT_MAPPINGS,
        "SELECT device_id, profile_id, timestamp, owner FROM mappings ORDER BY device_id, profile_id, owner",
};
static const StoreSql sql_export_titles = {
        STMT_EXPORT_TITLES,
        "SELECT profile_id, uid, title FROM profile_titles ORDER BY profile_id, uid",
};

static int export_info(Store *s, JsonWriter *w) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_export_info, &st);
        if (r < 0)
                return r;
        json_write_key(w, "info");
        json_write_begin_object(w);
        for (; r > 0; r = store_step(s, st)) {
                json_write_key(w, (const char *) sqlite3_column_text(st, 0) ?: "");
                json_write_string(w, (const char *) sqlite3_column_text(st, 1));
        }
        json_write_end_object(w);
        return r;
}

/* key, value, ... as a JSON object, in the list's order. */
static void write_pairs(JsonWriter *w, char *const *pairs) {
        json_write_begin_object(w);
        for (size_t i = 0; pairs && pairs[i] && pairs[i + 1]; i += 2) {
                json_write_key(w, pairs[i]);
                json_write_string(w, pairs[i + 1]);
        }
        json_write_end_object(w);
}

static int export_devices(Store *s, JsonWriter *w) {
        _cleanup_strv_free_ char **ids = NULL;
        int r = store_device_list(s, &ids);
        if (r < 0)
                return r;
        json_write_key(w, "devices");
        json_write_begin_array(w);
        STRV_FOREACH(id, ids) {
                _cleanup_strv_free_ char **props = NULL;
                r = store_device_get_properties(s, *id, &props);
                if (r < 0)
                        return r;
                json_write_begin_object(w);
                json_write_key(w, "id");
                json_write_string(w, *id);
                json_write_key(w, "properties");
                write_pairs(w, props);
                uid_t owner = 0;
                r = store_device_get_owner(s, *id, &owner);
                if (r < 0)
                        return r;
                if (owner != 0) { /* only then: a root-owned device exports as before */
                        json_write_key(w, "owner");
                        json_write_int64(w, owner);
                }
                json_write_end_object(w);
        }
        json_write_end_array(w);
        return 0;
}

/* One column of a table's rows as one key of each JSON object. */
typedef enum ColumnKind {
        COLUMN_STRING,
        COLUMN_INTEGER,
        COLUMN_INTEGER_UNLESS_0, /* left out when 0, so older exports read the same */
        COLUMN_BOOLEAN,
} ColumnKind;

typedef struct Column {
        const char *key;
        ColumnKind kind;
} Column;

/* key: [ {column 0, column 1, ...}, ... ] for every row of sql. */
static int export_rows(Store *s, JsonWriter *w, const char *key, const StoreSql *sql, const Column *columns,
                       size_t n_columns) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, sql, &st);
        if (r < 0)
                return r;
        json_write_key(w, key);
        json_write_begin_array(w);
        for (; r > 0; r = store_step(s, st)) {
                json_write_begin_object(w);
                for (size_t c = 0; c < n_columns; c++) {
                        int64_t v = sqlite3_column_int64(st, (int) c);
                        if (columns[c].kind == COLUMN_INTEGER_UNLESS_0 && v == 0)
                                continue;
                        json_write_key(w, columns[c].key);
                        if (columns[c].kind == COLUMN_STRING)
                                json_write_string(w, (const char *) sqlite3_column_text(st, (int) c));
                        else if (columns[c].kind == COLUMN_BOOLEAN)
                                json_write_bool(w, v != 0);
                        else
                                json_write_int64(w, v);
                }
                json_write_end_object(w);
        }
        json_write_end_array(w);
        return r;
}

static int export_enabled(Store *s, JsonWriter *w) {
        /* "owner" only for a user's own layer, as for the mappings. */
        static const Column columns[] = {
                { "device", COLUMN_STRING },
                { "enabled", COLUMN_BOOLEAN },
                { "owner", COLUMN_INTEGER_UNLESS_0 },
        };
        return export_rows(s, w, "enabled", &sql_export_enabled, columns, ELEMENTSOF(columns));
}

static int export_mappings(Store *s, JsonWriter *w) {
        /* "owner" only for a user's own layer: the system's rows export as before layers. */
        static const Column columns[] = {
                { "device", COLUMN_STRING },
                { "profile", COLUMN_STRING },
                { "timestamp", COLUMN_INTEGER },
                { "owner", COLUMN_INTEGER_UNLESS_0 },
        };
        return export_rows(s, w, "mappings", &sql_export_mappings, columns, ELEMENTSOF(columns));
}

static int export_titles(Store *s, JsonWriter *w) {
        static const Column columns[] = {
                { "profile", COLUMN_STRING },
                { "uid", COLUMN_INTEGER },
                { "title", COLUMN_STRING },
        };
        return export_rows(s, w, "titles", &sql_export_titles, columns, ELEMENTSOF(columns));
}

/* The ICC bytes of disk profiles travel as lower-case hex. */
static char *hex_encode(const uint8_t *data, size_t size) {
        static const char digits[] = "0123456789abcdef";
        char *hex = malloc(size * 2 + 1);
        if (!hex)
                return NULL;
        for (size_t i = 0; i < size; i++) {
                hex[2 * i] = digits[data[i] >> 4];
                hex[2 * i + 1] = digits[data[i] & 15];
        }
        hex[size * 2] = 0;
        return hex;
}

static int export_disk_profiles(Store *s, JsonWriter *w) {
        StoreDiskProfile *l = NULL;
        size_t n = 0;
        int r = store_disk_profile_list(s, &l, &n);
        if (r < 0)
                return r;
        json_write_key(w, "disk_profiles");
        json_write_begin_array(w);
        for (size_t i = 0; i < n; i++) {
                json_write_begin_object(w);
                json_write_key(w, "id");
                json_write_string(w, l[i].id);
                json_write_key(w, "owner");
                json_write_int64(w, l[i].owner);
                json_write_key(w, "properties");
                write_pairs(w, l[i].properties);
                json_write_key(w, "data");
                if (!l[i].data)
                        json_write_null(w);
                else {
                        _cleanup_free_ char *hex = hex_encode(l[i].data, l[i].size);
                        if (!hex) {
                                r = -ENOMEM;
                                break;
                        }
                        json_write_string(w, hex);
                }
                json_write_end_object(w);
        }
        json_write_end_array(w);
        store_disk_profiles_free(l, n);
        return r < 0 ? r : 0;
}

/* Each writes its key and value, in this order. */
static int (*const export_sections[])(Store *s, JsonWriter *w) = {
        export_info, export_devices, export_enabled, export_mappings, export_titles, export_disk_profiles,
};

int store_export_json(Store *s, FILE *f) {
        assert(s && f);
        StoreOp op;
        int r = store_op_begin(s, false, &op); /* one snapshot, even if the daemon writes */
        if (r < 0)
                return r;

        JsonWriter w;
        json_writer_init(&w, f);
        json_write_begin_object(&w);
        json_write_key(&w, "format");
        json_write_string(&w, STORE_EXPORT_FORMAT);
        json_write_key(&w, "version");
        json_write_int64(&w, STORE_EXPORT_VERSION);
        for (size_t i = 0; i < ELEMENTSOF(export_sections); i++) {
                r = export_sections[i](s, &w);
                if (r < 0)
                        break;
        }
        json_write_end_object(&w);
        int q = json_writer_finish(&w);
        if (r >= 0)
                r = q;
        return store_op_end(s, &op, r);
}
