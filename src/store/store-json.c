/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON export and import of the store's content (not the profile cache, which is derived
 * from files and keyed by inode, so it means nothing on another machine).
 *
 * Format (version 2; version 1 had no "disk_profiles" and is still read), with every list in a fixed order so two exports of the same content
 * are byte-identical:
 *   { "format": "tinct-store", "version": 1,
 *     "info":     { key: value, ... }                         (by key)
 *     "devices":  [ { "id": ..., "properties": { k: v }, "owner": n } ]  (insertion order, keys
 *                 as set; "owner" only when not 0, i.e. created by a user)
 *     "enabled":  [ { "device": ..., "enabled": bool } ]      (by device)
 *     "mappings": [ { "device": ..., "profile": ..., "timestamp": µs, "owner": n } ]
 *                 (by device, profile, owner; "owner" only when not 0: a user's own layer,
 *                 store.h; without it the row is the system's, as every row before schema 5)
 *     "titles":   [ { "profile": ..., "uid": n, "title": ... } ]          (by profile, uid)
 *     "disk_profiles": [ { "id": ..., "owner": n, "properties": { k: v },
 *                          "data": lower-case hex of the ICC bytes, or null } ]  (creation order) }
 * Import is strict: unknown keys, wrong types, duplicates and out-of-range numbers are
 * errors, and an error leaves the store as it was. */
#include "store-internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>

#include "json.h"
#include "strv.h"

#define EXPORT_FORMAT "tinct-store"
#define EXPORT_VERSION 2

/* The export reads whole tables in its fixed orders; the import empties them first. */
static const StoreSql sql_export_info = { STMT_EXPORT_INFO, "SELECT key, value FROM store_info ORDER BY key" };
static const StoreSql sql_export_enabled = {
        STMT_EXPORT_ENABLED,
        "SELECT device_id, enabled FROM device_enabled ORDER BY device_id",
};
static const StoreSql sql_export_mappings = {
        STMT_EXPORT_MAPPINGS,
        "SELECT device_id, profile_id, timestamp, owner FROM mappings ORDER BY device_id, profile_id, owner",
};
static const StoreSql sql_export_titles = {
        STMT_EXPORT_TITLES,
        "SELECT profile_id, uid, title FROM profile_titles ORDER BY profile_id, uid",
};
static const StoreSql sql_clear[] = {
        { STMT_CLEAR_MAPPINGS, "DELETE FROM mappings" },
        { STMT_CLEAR_DEVICES, "DELETE FROM devices" }, /* properties go by ON DELETE CASCADE */
        { STMT_CLEAR_ENABLED, "DELETE FROM device_enabled" },
        { STMT_CLEAR_TITLES, "DELETE FROM profile_titles" },
        { STMT_CLEAR_INFO, "DELETE FROM store_info" },
        { STMT_CLEAR_DISK_PROFILES, "DELETE FROM disk_profiles" },
};

/* ---- export --------------------------------------------------------------------------- */

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

static int export_enabled(Store *s, JsonWriter *w) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_export_enabled, &st);
        if (r < 0)
                return r;
        json_write_key(w, "enabled");
        json_write_begin_array(w);
        for (; r > 0; r = store_step(s, st)) {
                json_write_begin_object(w);
                json_write_key(w, "device");
                json_write_string(w, (const char *) sqlite3_column_text(st, 0));
                json_write_key(w, "enabled");
                json_write_bool(w, sqlite3_column_int(st, 1) != 0);
                json_write_end_object(w);
        }
        json_write_end_array(w);
        return r;
}

static int export_mappings(Store *s, JsonWriter *w) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_export_mappings, &st);
        if (r < 0)
                return r;
        json_write_key(w, "mappings");
        json_write_begin_array(w);
        for (; r > 0; r = store_step(s, st)) {
                json_write_begin_object(w);
                json_write_key(w, "device");
                json_write_string(w, (const char *) sqlite3_column_text(st, 0));
                json_write_key(w, "profile");
                json_write_string(w, (const char *) sqlite3_column_text(st, 1));
                json_write_key(w, "timestamp");
                json_write_int64(w, sqlite3_column_int64(st, 2));
                int64_t owner = sqlite3_column_int64(st, 3);
                if (owner != STORE_LAYER_SYSTEM) { /* only then: the system's rows export as before */
                        json_write_key(w, "owner");
                        json_write_int64(w, owner);
                }
                json_write_end_object(w);
        }
        json_write_end_array(w);
        return r;
}

static int export_titles(Store *s, JsonWriter *w) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_export_titles, &st);
        if (r < 0)
                return r;
        json_write_key(w, "titles");
        json_write_begin_array(w);
        for (; r > 0; r = store_step(s, st)) {
                json_write_begin_object(w);
                json_write_key(w, "profile");
                json_write_string(w, (const char *) sqlite3_column_text(st, 0));
                json_write_key(w, "uid");
                json_write_int64(w, sqlite3_column_int64(st, 1));
                json_write_key(w, "title");
                json_write_string(w, (const char *) sqlite3_column_text(st, 2));
                json_write_end_object(w);
        }
        json_write_end_array(w);
        return r;
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
        json_write_string(&w, EXPORT_FORMAT);
        json_write_key(&w, "version");
        json_write_int64(&w, EXPORT_VERSION);
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

/* ---- import --------------------------------------------------------------------------- */

_printf_(3, 4) static int import_error(char **ret_error, const JsonValue *at, const char *fmt, ...) {
        if (!ret_error || *ret_error)
                return -EBADMSG;
        _cleanup_free_ char *msg = NULL;
        va_list ap;
        va_start(ap, fmt);
        int k = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        if (at) {
                if (asprintf(ret_error, "line %u: %s", at->line, msg) < 0)
                        return -ENOMEM;
        } else
                *ret_error = TAKE_PTR(msg);
        return -EBADMSG;
}

static int expect_type(const JsonValue *v, JsonType type, const char *what, char **ret_error) {
        if (v->type != type)
                return import_error(ret_error, v, "%s must be %s, not %s", what, json_type_name(type),
                                    json_type_name(v->type));
        return 0;
}

/* Checks that obj is an object with exactly the required keys (and maybe the optional). */
static int expect_keys(const JsonValue *obj, const char *what, const char *const *required,
                       const char *const *optional, char **ret_error) {
        int r = expect_type(obj, JSON_OBJECT, what, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < obj->n; i++) {
                bool known = strv_contains((char *const *) required, obj->keys[i]) ||
                             strv_contains((char *const *) optional, obj->keys[i]);
                if (!known)
                        return import_error(ret_error, obj->items[i], "%s: unknown key \"%s\"", what, obj->keys[i]);
        }
        for (const char *const *k = required; k && *k; k++)
                if (!json_object_get(obj, *k))
                        return import_error(ret_error, obj, "%s: missing key \"%s\"", what, *k);
        return 0;
}

static int get_string(const JsonValue *obj, const char *key, const char *what, const char **ret, char **ret_error) {
        const JsonValue *v = json_object_get(obj, key);
        char field[128];
        snprintf(field, sizeof field, "%s \"%s\"", what, key);
        int r = expect_type(v, JSON_STRING, field, ret_error);
        if (r < 0)
                return r;
        *ret = v->text;
        return 0;
}

static int get_integer(const JsonValue *obj, const char *key, const char *what, int64_t min, int64_t max,
                       int64_t *ret, char **ret_error) {
        const JsonValue *v = json_object_get(obj, key);
        int64_t x;
        if (v->type != JSON_NUMBER || json_value_get_int64(v, &x) < 0 || x < min || x > max)
                return import_error(ret_error, v, "%s \"%s\" must be an integer from %" PRId64 " to %" PRId64, what,
                                    key, min, max);
        *ret = x;
        return 0;
}

/* An insert-if-missing's answer (1 inserted, 0 present): a row already there is a duplicate. */
static int insert_unique(int r, const JsonValue *at, const char *what, char **ret_error) {
        if (r == -E2BIG)
                return import_error(ret_error, at, "%s: value too long", what);
        if (r < 0)
                return r;
        if (r == 0)
                return import_error(ret_error, at, "duplicate %s", what);
        return 0;
}

static int import_info(Store *s, const JsonValue *info, char **ret_error) {
        int r = expect_type(info, JSON_OBJECT, "\"info\"", ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < info->n; i++) {
                r = expect_type(info->items[i], JSON_STRING, "an \"info\" value", ret_error);
                if (r < 0)
                        return r;
                r = store_info_set(s, info->keys[i], info->items[i]->text);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int import_device_properties(Store *s, const char *id, const JsonValue *props, char **ret_error) {
        int r = expect_type(props, JSON_OBJECT, "device \"properties\"", ret_error);
        if (r < 0)
                return r;
        for (size_t k = 0; k < props->n; k++) {
                const JsonValue *v = props->items[k];
                if (streq(props->keys[k], "Enabled"))
                        return import_error(ret_error, v,
                                            "device \"%s\": \"Enabled\" belongs in \"enabled\", not in properties", id);
                r = expect_type(v, JSON_STRING, "a device property", ret_error);
                if (r < 0)
                        return r;
                r = store_device_set_property(s, id, props->keys[k], v->text);
                if (r == -E2BIG)
                        return import_error(ret_error, v, "device property too long");
                if (r < 0)
                        return r;
        }
        return 0;
}

static int import_device(Store *s, const JsonValue *d, char **ret_error) {
        static const char *const keys[] = { "id", "properties", NULL }, *const optional[] = { "owner", NULL };
        const char *id;
        int64_t owner = 0;
        int r = expect_keys(d, "a device", keys, optional, ret_error);
        if (r < 0)
                return r;
        r = get_string(d, "id", "device", &id, ret_error);
        if (r < 0)
                return r;
        if (json_object_get(d, "owner")) {
                r = get_integer(d, "owner", "device", 0, UINT32_MAX - 1, &owner, ret_error);
                if (r < 0)
                        return r;
        }
        r = store_device_add(s, id);
        if (r >= 0 && owner != 0)
                r = store_device_set_owner(s, id, (uid_t) owner);
        if (r == -EEXIST)
                return import_error(ret_error, d, "duplicate device \"%s\"", id);
        if (r == -E2BIG)
                return import_error(ret_error, d, "device id too long");
        if (r < 0)
                return r;
        return import_device_properties(s, id, json_object_get(d, "properties"), ret_error);
}

static int import_enabled_flag(Store *s, const JsonValue *e, char **ret_error) {
        static const char *const keys[] = { "device", "enabled", NULL };
        const char *device;
        int r = expect_keys(e, "an enabled flag", keys, NULL, ret_error);
        if (r < 0)
                return r;
        r = get_string(e, "device", "enabled flag", &device, ret_error);
        if (r < 0)
                return r;
        const JsonValue *enabled = json_object_get(e, "enabled");
        r = expect_type(enabled, JSON_BOOLEAN, "\"enabled\"", ret_error);
        if (r < 0)
                return r;
        r = store_device_enabled_insert_if_missing(s, device, enabled->boolean);
        return insert_unique(r, e, "enabled flag", ret_error);
}

static int import_mapping(Store *s, const JsonValue *m, char **ret_error) {
        static const char *const keys[] = { "device", "profile", "timestamp", NULL }, *const optional[] = { "owner", NULL };
        const char *device, *profile;
        int64_t ts = 0, owner = STORE_LAYER_SYSTEM;
        int r = expect_keys(m, "a mapping", keys, optional, ret_error);
        if (r < 0)
                return r;
        r = get_string(m, "device", "mapping", &device, ret_error);
        if (r < 0)
                return r;
        r = get_string(m, "profile", "mapping", &profile, ret_error);
        if (r < 0)
                return r;
        r = get_integer(m, "timestamp", "mapping", 0, INT64_MAX, &ts, ret_error);
        if (r < 0)
                return r;
        if (json_object_get(m, "owner")) {
                r = get_integer(m, "owner", "mapping", 0, UINT32_MAX - 1, &owner, ret_error);
                if (r < 0)
                        return r;
        }
        r = store_mapping_insert_if_missing(s, (uid_t) owner, device, profile, ts);
        return insert_unique(r, m, "mapping", ret_error);
}

static int import_title(Store *s, const JsonValue *t, char **ret_error) {
        static const char *const keys[] = { "profile", "uid", "title", NULL };
        const char *profile, *title;
        int64_t uid = 0;
        int r = expect_keys(t, "a title", keys, NULL, ret_error);
        if (r < 0)
                return r;
        r = get_string(t, "profile", "title", &profile, ret_error);
        if (r < 0)
                return r;
        r = get_integer(t, "uid", "title", 0, UINT32_MAX - 1, &uid, ret_error);
        if (r < 0)
                return r;
        r = get_string(t, "title", "title", &title, ret_error);
        if (r < 0)
                return r;
        r = store_profile_title_insert_if_missing(s, profile, (uid_t) uid, title);
        return insert_unique(r, t, "title", ret_error);
}

static int hex_value(char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* -EBADMSG for an odd length or anything but lower-case hex digits. */
static int hex_decode(const char *hex, uint8_t **ret, size_t *ret_size) {
        size_t len = strlen(hex);
        if (len % 2 != 0)
                return -EBADMSG;
        _cleanup_free_ uint8_t *bytes = malloc(len / 2 + 1);
        if (!bytes)
                return -ENOMEM;
        for (size_t i = 0; i < len / 2; i++) {
                int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
                if (hi < 0 || lo < 0)
                        return -EBADMSG;
                bytes[i] = (uint8_t) (hi << 4 | lo);
        }
        *ret = TAKE_PTR(bytes);
        *ret_size = len / 2;
        return 0;
}

/* key, value, ... of a JSON object of strings. */
static int pairs_from_object(const JsonValue *props, char ***ret, char **ret_error) {
        int r = expect_type(props, JSON_OBJECT, "disk profile \"properties\"", ret_error);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **pairs = NULL;
        for (size_t k = 0; k < props->n; k++) {
                r = expect_type(props->items[k], JSON_STRING, "a disk profile property", ret_error);
                if (r < 0)
                        return r;
                if (strv_extend(&pairs, props->keys[k]) < 0 || strv_extend(&pairs, props->items[k]->text) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(pairs);
        return 0;
}

static int import_disk_profile(Store *s, const JsonValue *e, char **ret_error) {
        static const char *const keys[] = { "id", "owner", "properties", "data", NULL };
        const char *id = NULL;
        int64_t owner = 0;
        _cleanup_strv_free_ char **pairs = NULL;
        _cleanup_free_ uint8_t *bytes = NULL;
        size_t size = 0;
        int r = expect_keys(e, "a disk profile", keys, NULL, ret_error);
        if (r < 0)
                return r;
        r = get_string(e, "id", "disk profile", &id, ret_error);
        if (r < 0)
                return r;
        r = get_integer(e, "owner", "disk profile", 0, UINT32_MAX - 1, &owner, ret_error);
        if (r < 0)
                return r;
        r = pairs_from_object(json_object_get(e, "properties"), &pairs, ret_error);
        if (r < 0)
                return r;
        const JsonValue *data = json_object_get(e, "data");
        if (data->type == JSON_STRING) {
                r = hex_decode(data->text, &bytes, &size);
                if (r == -EBADMSG)
                        return import_error(ret_error, data,
                                            "disk profile \"data\": not an even number of lower-case hex digits");
                if (r < 0)
                        return r;
        } else if (data->type != JSON_NULL)
                return import_error(ret_error, data, "disk profile \"data\" must be a hex string or null");

        StoreDiskProfile p = { .id = (char *) id, .owner = (uid_t) owner, .properties = pairs, .data = bytes, .size = size };
        r = store_disk_profile_add(s, &p);
        if (r == -EEXIST)
                return import_error(ret_error, e, "duplicate disk profile \"%s\"", id);
        return r;
}

/* One list of the document, each element through import_one. */
static int import_list(Store *s, const JsonValue *list, const char *what,
                       int (*import_one)(Store *s, const JsonValue *v, char **ret_error), char **ret_error) {
        int r = expect_type(list, JSON_ARRAY, what, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < list->n; i++) {
                r = import_one(s, list->items[i], ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The document's content into the emptied store, inside the caller's transaction. */
static int import_content(Store *s, const JsonValue *doc, int64_t version, char **ret_error) {
        static const struct {
                const char *key, *what;
                int (*import_one)(Store *s, const JsonValue *v, char **ret_error);
        } lists[] = {
                { "devices", "\"devices\"", import_device },
                { "enabled", "\"enabled\"", import_enabled_flag },
                { "mappings", "\"mappings\"", import_mapping },
                { "titles", "\"titles\"", import_title },
        };
        int r;
        for (size_t i = 0; i < ELEMENTSOF(sql_clear); i++) {
                r = store_exec(s, &sql_clear[i], NULL);
                if (r < 0)
                        return r;
        }
        r = import_info(s, json_object_get(doc, "info"), ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
                r = import_list(s, json_object_get(doc, lists[i].key), lists[i].what, lists[i].import_one, ret_error);
                if (r < 0)
                        return r;
        }
        const JsonValue *disk_profiles = json_object_get(doc, "disk_profiles");
        if (!disk_profiles)
                return 0; /* optional in version 2, absent in version 1 */
        if (version == 1)
                return import_error(ret_error, doc, "\"disk_profiles\" is not part of version 1");
        return import_list(s, disk_profiles, "\"disk_profiles\"", import_disk_profile, ret_error);
}

/* The document's shape, format and version. */
static int import_check_header(const JsonValue *doc, int64_t *ret_version, char **ret_error) {
        static const char *const keys[] = { "format", "version", "info", "devices", "enabled", "mappings", "titles", NULL };
        static const char *const optional[] = { "disk_profiles", NULL };
        const char *format;
        int r = expect_keys(doc, "the document", keys, optional, ret_error);
        if (r < 0)
                return r;
        r = get_string(doc, "format", "the document", &format, ret_error);
        if (r < 0)
                return r;
        if (!streq(format, EXPORT_FORMAT))
                return import_error(ret_error, doc, "not a tinct store export (format \"%s\")", format);
        r = get_integer(doc, "version", "the document", 1, INT32_MAX, ret_version, ret_error);
        if (r < 0)
                return r;
        if (*ret_version > EXPORT_VERSION)
                return import_error(ret_error, doc, "export format version %" PRId64 " is not supported (this build reads %d)",
                                    *ret_version, EXPORT_VERSION);
        return 0;
}

static int import_document(Store *s, const char *data, size_t size, char **ret_error) {
        _cleanup_(json_value_freep) JsonValue *doc = NULL;
        int64_t version = 0;
        int r = json_parse(data, size, &doc, ret_error);
        if (r < 0)
                return r;
        r = import_check_header(doc, &version, ret_error);
        if (r < 0)
                return r;
        StoreOp op;
        r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = import_content(s, doc, version, ret_error);
        return store_op_end(s, &op, r);
}

int store_import_json(Store *s, const char *data, size_t size, char **ret_error) {
        assert(s && data);
        _cleanup_free_ char *error = NULL;
        int r = import_document(s, data, size, &error);
        if (r >= 0)
                return 0;
        if (!error && asprintf(&error, "%s", strerror(-r)) < 0)
                error = NULL;
        if (ret_error)
                *ret_error = TAKE_PTR(error);
        return r;
}
