/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The strict import of a JSON export (the format: store-export.c). Unknown keys, wrong
 * types, duplicates and out-of-range numbers are errors with the line they are on; a valid
 * document replaces the store's content in one transaction, and an error leaves the store
 * as it was. */
#include "store-internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>

#include "json.h"
#include "strv.h"

/* The import empties every table of the export before it fills them. */
static const StoreSql sql_clear[] = {
        { STMT_CLEAR_MAPPINGS, "DELETE FROM mappings" },
        { STMT_CLEAR_DEVICES, "DELETE FROM devices" }, /* properties go by ON DELETE CASCADE */
        { STMT_CLEAR_ENABLED, "DELETE FROM device_enabled" },
        { STMT_CLEAR_TITLES, "DELETE FROM profile_titles" },
        { STMT_CLEAR_INFO, "DELETE FROM store_info" },
        { STMT_CLEAR_DISK_PROFILES, "DELETE FROM disk_profiles" },
};


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

typedef enum FieldKind {
        FIELD_STRING,  /* ret: const char ** */
        FIELD_INTEGER, /* ret: int64_t *, within min..max */
        FIELD_BOOLEAN, /* ret: bool * */
        FIELD_ANY,     /* ret: const JsonValue **, checked by the caller */
} FieldKind;

/* One key of an object the import reads. An optional key that is missing leaves *ret as
 * it was. */
typedef struct Field {
        const char *key;
        FieldKind kind;
        bool optional;
        int64_t min, max;
        void *ret;
} Field;

static int get_field(const JsonValue *obj, const char *noun, const Field *f, char **ret_error) {
        const JsonValue *v = json_object_get(obj, f->key);
        char label[128];
        switch (f->kind) {
        case FIELD_STRING:
                return get_string(obj, f->key, noun, f->ret, ret_error);
        case FIELD_INTEGER:
                return get_integer(obj, f->key, noun, f->min, f->max, f->ret, ret_error);
        case FIELD_BOOLEAN:
                snprintf(label, sizeof label, "%s \"%s\"", noun, f->key);
                if (v->type != JSON_BOOLEAN)
                        return expect_type(v, JSON_BOOLEAN, label, ret_error);
                *(bool *) f->ret = v->boolean;
                return 0;
        case FIELD_ANY:
                *(const JsonValue **) f->ret = v;
                return 0;
        }
        assert(!"unknown FieldKind");
        return -EINVAL;
}

/* obj is an object with exactly these keys (the optional ones may be missing), each read
 * in order. what names the object in messages ("a mapping"), noun its fields' owner. */
static int get_fields(const JsonValue *obj, const char *what, const char *noun, const Field *fields, size_t n,
                      char **ret_error) {
        int r = expect_type(obj, JSON_OBJECT, what, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < obj->n; i++) {
                bool known = false;
                for (size_t k = 0; k < n && !known; k++)
                        known = streq(fields[k].key, obj->keys[i]);
                if (!known)
                        return import_error(ret_error, obj->items[i], "%s: unknown key \"%s\"", what, obj->keys[i]);
        }
        for (size_t k = 0; k < n; k++)
                if (!fields[k].optional && !json_object_get(obj, fields[k].key))
                        return import_error(ret_error, obj, "%s: missing key \"%s\"", what, fields[k].key);
        for (size_t k = 0; k < n; k++) {
                if (!json_object_get(obj, fields[k].key))
                        continue;
                r = get_field(obj, noun, &fields[k], ret_error);
                if (r < 0)
                        return r;
        }
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
        const char *id;
        int64_t owner = 0;
        const JsonValue *props;
        const Field fields[] = {
                { "id", FIELD_STRING, .ret = &id },
                { "properties", FIELD_ANY, .ret = &props },
                { "owner", FIELD_INTEGER, .optional = true, .min = 0, .max = UINT32_MAX - 1, .ret = &owner },
        };
        int r = get_fields(d, "a device", "device", fields, ELEMENTSOF(fields), ret_error);
        if (r < 0)
                return r;
        r = store_device_add(s, id);
        if (r >= 0 && owner != 0)
                r = store_device_set_owner(s, id, (uid_t) owner);
        if (r == -EEXIST)
                return import_error(ret_error, d, "duplicate device \"%s\"", id);
        if (r == -E2BIG)
                return import_error(ret_error, d, "device id too long");
        if (r < 0)
                return r;
        return import_device_properties(s, id, props, ret_error);
}

static int import_enabled_flag(Store *s, const JsonValue *e, char **ret_error) {
        const char *device;
        bool enabled;
        int64_t owner = STORE_LAYER_SYSTEM;
        const Field fields[] = {
                { "device", FIELD_STRING, .ret = &device },
                { "enabled", FIELD_BOOLEAN, .ret = &enabled },
                { "owner", FIELD_INTEGER, .optional = true, .min = 0, .max = UINT32_MAX - 1, .ret = &owner },
        };
        int r = get_fields(e, "an enabled flag", "enabled flag", fields, ELEMENTSOF(fields), ret_error);
        if (r < 0)
                return r;
        r = store_device_enabled_insert_if_missing(s, (uid_t) owner, device, enabled);
        return insert_unique(r, e, "enabled flag", ret_error);
}

static int import_mapping(Store *s, const JsonValue *m, char **ret_error) {
        const char *device, *profile;
        int64_t ts = 0, owner = STORE_LAYER_SYSTEM;
        const Field fields[] = {
                { "device", FIELD_STRING, .ret = &device },
                { "profile", FIELD_STRING, .ret = &profile },
                { "timestamp", FIELD_INTEGER, .min = 0, .max = INT64_MAX, .ret = &ts },
                { "owner", FIELD_INTEGER, .optional = true, .min = 0, .max = UINT32_MAX - 1, .ret = &owner },
        };
        int r = get_fields(m, "a mapping", "mapping", fields, ELEMENTSOF(fields), ret_error);
        if (r < 0)
                return r;
        r = store_mapping_insert_if_missing(s, (uid_t) owner, device, profile, ts);
        return insert_unique(r, m, "mapping", ret_error);
}

static int import_title(Store *s, const JsonValue *t, char **ret_error) {
        const char *profile, *title;
        int64_t uid = 0;
        const Field fields[] = {
                { "profile", FIELD_STRING, .ret = &profile },
                { "uid", FIELD_INTEGER, .min = 0, .max = UINT32_MAX - 1, .ret = &uid },
                { "title", FIELD_STRING, .ret = &title },
        };
        int r = get_fields(t, "a title", "title", fields, ELEMENTSOF(fields), ret_error);
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
        const char *id = NULL;
        int64_t owner = 0;
        const JsonValue *props, *data;
        const Field fields[] = {
                { "id", FIELD_STRING, .ret = &id },
                { "owner", FIELD_INTEGER, .min = 0, .max = UINT32_MAX - 1, .ret = &owner },
                { "properties", FIELD_ANY, .ret = &props },
                { "data", FIELD_ANY, .ret = &data },
        };
        _cleanup_strv_free_ char **pairs = NULL;
        _cleanup_free_ uint8_t *bytes = NULL;
        size_t size = 0;
        int r = get_fields(e, "a disk profile", "disk profile", fields, ELEMENTSOF(fields), ret_error);
        if (r < 0)
                return r;
        r = pairs_from_object(props, &pairs, ret_error);
        if (r < 0)
                return r;
        if (data->type == JSON_STRING) {
                r = hex_decode(data->text, &bytes, &size);
                if (r == -EBADMSG)
                        return import_error(ret_error, data,
                                            "disk profile \"data\": not an even number of lower-case hex digits");
                if (r < 0)
                        return r;
        } else if (data->type != JSON_NULL)
                return import_error(ret_error, data, "disk profile \"data\" must be a hex string or null");

        StoreDiskProfile p = {
                .id = (char *) id, .owner = (uid_t) owner, .properties = pairs, .data = bytes, .size = size,
        };
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

/* The document's shape, format and version; its lists are read by import_content(). */
static int import_check_header(const JsonValue *doc, int64_t *ret_version, char **ret_error) {
        const char *format;
        const JsonValue *ignored;
        const Field fields[] = {
                { "format", FIELD_STRING, .ret = &format },
                { "version", FIELD_INTEGER, .min = 1, .max = INT32_MAX, .ret = ret_version },
                { "info", FIELD_ANY, .ret = &ignored },
                { "devices", FIELD_ANY, .ret = &ignored },
                { "enabled", FIELD_ANY, .ret = &ignored },
                { "mappings", FIELD_ANY, .ret = &ignored },
                { "titles", FIELD_ANY, .ret = &ignored },
                { "disk_profiles", FIELD_ANY, .optional = true, .ret = &ignored },
        };
        int r = get_fields(doc, "the document", "the document", fields, ELEMENTSOF(fields), ret_error);
        if (r < 0)
                return r;
        if (!streq(format, STORE_EXPORT_FORMAT))
                return import_error(ret_error, doc, "not a tinct store export (format \"%s\")", format);
        if (*ret_version > STORE_EXPORT_VERSION)
                return import_error(ret_error, doc,
                                    "export format version %" PRId64 " is not supported (this build reads %d)",
                                    *ret_version, STORE_EXPORT_VERSION);
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
