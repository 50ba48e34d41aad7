/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-properties: D-Bus values read generically from a message's signature into BusValue
 * trees, and an object's properties (GetAll) as one such tree (bus-properties.h). Every
 * property keeps its D-Bus type (numbers as numbers, booleans as booleans) without a
 * per-interface table here: the daemon's introspection data is the only schema. Not here:
 * printing (bus-print.c). */
#include "bus-properties.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

BusValue *bus_value_free(BusValue *v) {
        if (!v)
                return NULL;
        free(v->string);
        for (size_t i = 0; i < v->n; i++) {
                bus_value_free(v->items[i]);
                if (v->keys)
                        free(v->keys[i]);
        }
        free(v->items);
        free(v->keys);
        return mfree(v);
}

static int value_append(BusValue *v, char *key, BusValue *item) {
        BusValue **items = reallocarray(v->items, v->n + 1, sizeof *items);
        if (!items)
                return -ENOMEM;
        v->items = items;
        if (v->type == BUS_VALUE_DICT) {
                char **keys = reallocarray(v->keys, v->n + 1, sizeof *keys);
                if (!keys)
                        return -ENOMEM;
                v->keys = keys;
                v->keys[v->n] = key;
        }
        v->items[v->n++] = item;
        return 0;
}

/* Reads a basic value into v (already allocated, type not yet set). */
static int read_basic(sd_bus_message *m, char type, BusValue *v) {
        union {
                uint8_t y;
                int b;
                int16_t n;
                uint16_t q;
                int32_t i;
                uint32_t u;
                int64_t x;
                uint64_t t;
                double d;
                const char *s;
                int h;
        } u = {};
        int r;

        r = sd_bus_message_read_basic(m, type, &u);
        if (r < 0)
                return r;
        switch (type) {
        case SD_BUS_TYPE_STRING:
        case SD_BUS_TYPE_OBJECT_PATH:
        case SD_BUS_TYPE_SIGNATURE:
                v->type = BUS_VALUE_STRING;
                v->string = strdup(u.s);
                return v->string ? 0 : -ENOMEM;
        case SD_BUS_TYPE_BOOLEAN:
                v->type = BUS_VALUE_BOOLEAN;
                v->boolean = u.b;
                return 0;
        case SD_BUS_TYPE_BYTE:
                v->type = BUS_VALUE_UNSIGNED;
                v->u = u.y;
                return 0;
        case SD_BUS_TYPE_UINT16:
                v->type = BUS_VALUE_UNSIGNED;
                v->u = u.q;
                return 0;
        case SD_BUS_TYPE_UINT32:
                v->type = BUS_VALUE_UNSIGNED;
                v->u = u.u;
                return 0;
        case SD_BUS_TYPE_UINT64:
                v->type = BUS_VALUE_UNSIGNED;
                v->u = u.t;
                return 0;
        case SD_BUS_TYPE_INT16:
                v->type = BUS_VALUE_SIGNED;
                v->i = u.n;
                return 0;
        case SD_BUS_TYPE_INT32:
                v->type = BUS_VALUE_SIGNED;
                v->i = u.i;
                return 0;
        case SD_BUS_TYPE_INT64:
                v->type = BUS_VALUE_SIGNED;
                v->i = u.x;
                return 0;
        case SD_BUS_TYPE_UNIX_FD: /* only its index in the message is meaningful here */
                v->type = BUS_VALUE_SIGNED;
                v->i = u.h;
                return 0;
        case SD_BUS_TYPE_DOUBLE:
                v->type = BUS_VALUE_DOUBLE;
                v->d = u.d;
                return 0;
        }
        return -EBADMSG;
}

static char *value_to_key(const BusValue *v) {
        char *s = NULL;

        switch (v->type) {
        case BUS_VALUE_STRING:
                return strdup(v->string);
        case BUS_VALUE_BOOLEAN:
                return strdup(v->boolean ? "true" : "false");
        case BUS_VALUE_SIGNED:
                return asprintf(&s, "%" PRIi64, v->i) < 0 ? NULL : s;
        case BUS_VALUE_UNSIGNED:
                return asprintf(&s, "%" PRIu64, v->u) < 0 ? NULL : s;
        case BUS_VALUE_DOUBLE:
                return asprintf(&s, "%.17g", v->d) < 0 ? NULL : s;
        default:
                return NULL; /* dictionary keys are basic types */
        }
}

typedef struct DictEntry {
        char *key;
        BusValue *item;
} DictEntry;

static int dict_entry_compare(const void *a, const void *b) {
        const DictEntry *x = a, *y = b;
        return strcmp(x->key, y->key);
}

/* Sorts a dictionary's entries by key (keys and items move together). */
static int dict_sort(BusValue *v) {
        if (v->n < 2)
                return 0;
        DictEntry *e = calloc(v->n, sizeof *e);
        if (!e)
                return -ENOMEM;
        for (size_t i = 0; i < v->n; i++)
                e[i] = (DictEntry) { v->keys[i], v->items[i] };
        qsort(e, v->n, sizeof *e, dict_entry_compare);
        for (size_t i = 0; i < v->n; i++) {
                v->keys[i] = e[i].key;
                v->items[i] = e[i].item;
        }
        free(e);
        return 0;
}

static int read_value(sd_bus_message *m, unsigned depth, BusValue **ret);

static int read_container_items(sd_bus_message *m, unsigned depth, BusValue *v) {
        int r;

        for (;;) {
                r = sd_bus_message_at_end(m, false);
                if (r < 0)
                        return r;
                if (r > 0)
                        return 0;
                _cleanup_(bus_value_freep) BusValue *item = NULL;
                r = read_value(m, depth + 1, &item);
                if (r < 0)
                        return r;
                r = value_append(v, NULL, item);
                if (r < 0)
                        return r;
                TAKE_PTR(item);
        }
}

static int read_dict(sd_bus_message *m, const char *entry_contents, unsigned depth, BusValue *v) {
        int r;

        for (;;) {
                r = sd_bus_message_enter_container(m, SD_BUS_TYPE_DICT_ENTRY, entry_contents);
                if (r < 0)
                        return r;
                if (r == 0)
                        return dict_sort(v);
                _cleanup_(bus_value_freep) BusValue *key = NULL, *item = NULL;
                r = read_value(m, depth + 1, &key);
                if (r < 0)
                        return r;
                r = read_value(m, depth + 1, &item);
                if (r < 0)
                        return r;
                _cleanup_free_ char *k = value_to_key(key);
                if (!k)
                        return -ENOMEM;
                r = value_append(v, k, item);
                if (r < 0)
                        return r;
                TAKE_PTR(k);
                TAKE_PTR(item);
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
}

static int read_value(sd_bus_message *m, unsigned depth, BusValue **ret) {
        _cleanup_(bus_value_freep) BusValue *v = NULL;
        const char *contents;
        char type;
        int r;

        if (depth > 64) /* D-Bus itself allows 64 levels of nesting */
                return -EBADMSG;
        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        if (r == 0)
                return -EBADMSG;

        if (type == SD_BUS_TYPE_VARIANT) {
                r = sd_bus_message_enter_container(m, type, contents);
                if (r < 0)
                        return r;
                r = read_value(m, depth + 1, &v);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(v);
                return 0;
        }

        v = calloc(1, sizeof *v);
        if (!v)
                return -ENOMEM;
        switch (type) {
        case SD_BUS_TYPE_ARRAY:
                r = sd_bus_message_enter_container(m, type, contents);
                if (r < 0)
                        return r;
                if (contents[0] == SD_BUS_TYPE_DICT_ENTRY_BEGIN) {
                        /* "{sv}" → the entry's contents "sv" */
                        _cleanup_free_ char *entry = strndup(contents + 1, strlen(contents) - 2);
                        if (!entry)
                                return -ENOMEM;
                        v->type = BUS_VALUE_DICT;
                        r = read_dict(m, entry, depth, v);
                } else {
                        v->type = BUS_VALUE_ARRAY;
                        r = read_container_items(m, depth, v);
                }
                if (r < 0)
                        return r;
                break;
        case SD_BUS_TYPE_STRUCT:
                r = sd_bus_message_enter_container(m, type, contents);
                if (r < 0)
                        return r;
                v->type = BUS_VALUE_ARRAY;
                r = read_container_items(m, depth, v);
                if (r < 0)
                        return r;
                break;
        default:
                r = read_basic(m, type, v);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(v);
                return 0;
        }

        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        return 0;
}

int bus_value_read(sd_bus_message *m, BusValue **ret) {
        return read_value(m, 0, ret);
}

const BusValue *bus_value_get(const BusValue *dict, const char *key) {
        if (!dict || dict->type != BUS_VALUE_DICT)
                return NULL;
        for (size_t i = 0; i < dict->n; i++)
                if (streq(dict->keys[i], key))
                        return dict->items[i];
        return NULL;
}

const char *bus_value_get_string(const BusValue *dict, const char *key) {
        const BusValue *v = bus_value_get(dict, key);
        return v && v->type == BUS_VALUE_STRING ? v->string : NULL;
}

BusObject *bus_object_free(BusObject *o) {
        if (!o)
                return NULL;
        free(o->path);
        bus_value_free(o->properties);
        return mfree(o);
}

int bus_object_get(sd_bus *bus, BusObjectKind kind, const char *path, BusObject **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(bus_object_freep) BusObject *o = NULL;
        int r;

        r = bus_call(bus, path, "org.freedesktop.DBus.Properties", "GetAll", &reply, "s",
                     bus_object_kind_interface(kind));
        if (r < 0)
                return r;
        o = calloc(1, sizeof *o);
        if (!o)
                return bus_log_parse_error(-ENOMEM);
        o->path = strdup(path);
        if (!o->path)
                return bus_log_parse_error(-ENOMEM);
        r = bus_value_read(reply, &o->properties);
        if (r < 0)
                return bus_log_parse_error(r);
        if (o->properties->type != BUS_VALUE_DICT)
                return bus_log_parse_error(-EBADMSG);
        *ret = TAKE_PTR(o);
        return 0;
}
