/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-client: the connection, call, argument and printing helpers of tinct's bus verbs
 * (see bus-client.h). Values are read generically from the reply's signature, so every
 * property prints with its D-Bus type (numbers as numbers, booleans as booleans) without a
 * per-interface table here; the daemon's introspection data is the only schema. */
#include "bus-client.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strv.h"

/* ---- holding something until Ctrl-C ---------------------------------------------------- */

int parse_seconds(const char *s, unsigned long *ret) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end || s[0] == '-' || v > INT32_MAX)
                return -EINVAL;
        *ret = v;
        return 0;
}

int block_interrupts(sigset_t *mask) {
        sigemptyset(mask);
        sigaddset(mask, SIGINT);
        sigaddset(mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, mask, NULL) < 0) {
                fprintf(stderr, "tinct: Failed to block signals: %m\n");
                return -errno;
        }
        return 0;
}

int hold_until_signal(const sigset_t *mask, unsigned long seconds) {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += (time_t) seconds;
        for (;;) {
                int r;
                if (seconds == 0)
                        r = sigwaitinfo(mask, NULL);
                else {
                        struct timespec now, left;
                        clock_gettime(CLOCK_MONOTONIC, &now);
                        left.tv_sec = deadline.tv_sec - now.tv_sec;
                        left.tv_nsec = deadline.tv_nsec - now.tv_nsec;
                        if (left.tv_nsec < 0) {
                                left.tv_nsec += 1000000000L;
                                left.tv_sec--;
                        }
                        if (left.tv_sec < 0)
                                return 0;
                        r = sigtimedwait(mask, NULL, &left);
                }
                if (r >= 0 || errno == EAGAIN)
                        return 0; /* a signal, or the time is up */
                if (errno != EINTR) {
                        fprintf(stderr, "tinct: Failed to wait: %m\n");
                        return -errno;
                }
        }
}

/* ---- calls ---------------------------------------------------------------------------- */

/* What the last failure was, for the exit status (bus_exit_status()). */
static int last_exit = EXIT_FAILURE;

int bus_exit_status(int status) {
        return status == EXIT_FAILURE ? last_exit : status;
}

static void classify(const sd_bus_error *error, int r) {
        static const struct {
                const char *suffix;
                int status;
        } table[] = {
                { "ColorManager.NotFound", EXIT_NOT_FOUND },
                { ".FailedToAuthenticate", EXIT_DENIED },
                { ".NotAuthorized", EXIT_DENIED },
                { "DBus.Error.AccessDenied", EXIT_DENIED },
                { "DBus.Error.ServiceUnknown", EXIT_UNREACHABLE },
                { "DBus.Error.NameHasNoOwner", EXIT_UNREACHABLE },
                { "DBus.Error.NoServer", EXIT_UNREACHABLE },
        };
        last_exit = EXIT_FAILURE;
        if (!sd_bus_error_is_set(error)) {
                if (r == -ENOENT || r == -ECONNREFUSED || r == -ECONNRESET || r == -ENOTCONN)
                        last_exit = EXIT_UNREACHABLE;
                return;
        }
        size_t n = strlen(error->name);
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                size_t k = strlen(table[i].suffix);
                if (n >= k && strcmp(error->name + n - k, table[i].suffix) == 0)
                        last_exit = table[i].status;
        }
}

int bus_connect(sd_bus **ret) {
        int r = sd_bus_open_system(ret);
        if (r < 0) {
                fprintf(stderr, "tinct: Failed to connect to the system bus: %s\n", strerror(-r));
                last_exit = EXIT_UNREACHABLE;
        }
        return r;
}

static int report_call_error(const char *member, const sd_bus_error *error, int r) {
        classify(error, r);
        if (sd_bus_error_is_set(error))
                fprintf(stderr, "tinct: %s: %s\n", error->name,
                        isempty(error->message) ? strerror(-r) : error->message);
        else
                fprintf(stderr, "tinct: %s failed: %s\n", member, strerror(-r));
        return r;
}

int bus_log_parse_error(int r) {
        fprintf(stderr, "tinct: Failed to parse the daemon's reply: %s\n", strerror(-r));
        return r;
}

int bus_log_create_error(int r) {
        fprintf(stderr, "tinct: Failed to build a method call: %s\n", strerror(-r));
        return r;
}

static int bus_callv(sd_bus *bus, const char *path, const char *iface, const char *member,
                     sd_bus_message **ret_reply, const char *types, va_list ap) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_methodv(bus, CM_SERVICE, path, iface, member, &error, &reply, types, ap);
        if (r < 0)
                return report_call_error(member, &error, r);
        if (ret_reply)
                *ret_reply = reply;
        else
                sd_bus_message_unref(reply);
        return 0;
}

int bus_call(sd_bus *bus, const char *path, const char *iface, const char *member,
             sd_bus_message **ret_reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = bus_callv(bus, path, iface, member, ret_reply, types, ap);
        va_end(ap);
        return r;
}

int bus_new_method_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                        sd_bus_message **ret) {
        int r = sd_bus_message_new_method_call(bus, ret, CM_SERVICE, path, iface, member);
        if (r < 0)
                return bus_log_create_error(r);
        return 0;
}

int bus_call_message(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0)
                return report_call_error(sd_bus_message_get_member(m), &error, r);
        if (ret_reply)
                *ret_reply = reply;
        else
                sd_bus_message_unref(reply);
        return 0;
}

int bus_call_path(sd_bus *bus, const char *path, const char *iface, const char *member,
                  char **ret_path, const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *p;
        va_list ap;
        int r;

        va_start(ap, types);
        r = bus_callv(bus, path, iface, member, &reply, types, ap);
        va_end(ap);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &p);
        if (r < 0)
                return bus_log_parse_error(r);
        *ret_path = strdup(p);
        if (!*ret_path)
                return bus_log_parse_error(-ENOMEM);
        return 0;
}

int bus_call_paths(sd_bus *bus, const char *path, const char *iface, const char *member,
                   char ***ret_paths, const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        char **paths = NULL;
        va_list ap;
        int r;

        va_start(ap, types);
        r = bus_callv(bus, path, iface, member, &reply, types, ap);
        va_end(ap);
        if (r < 0)
                return r;
        r = sd_bus_message_read_strv(reply, &paths);
        if (r < 0)
                return bus_log_parse_error(r);
        if (!paths) { /* an empty array gives NULL */
                paths = calloc(1, sizeof(char *));
                if (!paths)
                        return bus_log_parse_error(-ENOMEM);
        }
        *ret_paths = paths;
        return 0;
}

const char *bus_object_kind_interface(BusObjectKind kind) {
        switch (kind) {
        case BUS_OBJECT_DEVICE:
                return CM_IFACE_DEVICE;
        case BUS_OBJECT_PROFILE:
                return CM_IFACE_PROFILE;
        case BUS_OBJECT_SENSOR:
                return CM_IFACE_SENSOR;
        }
        return NULL;
}

int bus_resolve(sd_bus *bus, BusObjectKind kind, const char *arg, char **ret_path) {
        static const char *const find[] = {
                [BUS_OBJECT_DEVICE] = "FindDeviceById",
                [BUS_OBJECT_PROFILE] = "FindProfileById",
                [BUS_OBJECT_SENSOR] = "FindSensorById",
        };

        if (sd_bus_object_path_is_valid(arg)) {
                *ret_path = strdup(arg);
                if (!*ret_path) {
                        fprintf(stderr, "tinct: Out of memory.\n");
                        return -ENOMEM;
                }
                return 0;
        }
        return bus_call_path(bus, CM_PATH, CM_IFACE, find[kind], ret_path, "s", arg);
}

/* ---- values --------------------------------------------------------------------------- */

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

/* ---- JSON ----------------------------------------------------------------------------- */

void bus_value_write_json(const BusValue *v, JsonWriter *w) {
        char buf[32];

        switch (v->type) {
        case BUS_VALUE_STRING:
                json_write_string(w, v->string);
                break;
        case BUS_VALUE_BOOLEAN:
                json_write_bool(w, v->boolean);
                break;
        case BUS_VALUE_SIGNED:
                json_write_int64(w, v->i);
                break;
        case BUS_VALUE_UNSIGNED:
                snprintf(buf, sizeof buf, "%" PRIu64, v->u);
                json_write_literal(w, buf);
                break;
        case BUS_VALUE_DOUBLE:
                json_write_double(w, v->d);
                break;
        case BUS_VALUE_ARRAY:
                json_write_begin_array(w);
                for (size_t i = 0; i < v->n; i++)
                        bus_value_write_json(v->items[i], w);
                json_write_end_array(w);
                break;
        case BUS_VALUE_DICT:
                json_write_begin_object(w);
                for (size_t i = 0; i < v->n; i++) {
                        json_write_key(w, v->keys[i]);
                        bus_value_write_json(v->items[i], w);
                }
                json_write_end_object(w);
                break;
        }
}

int bus_json_finish(JsonWriter *w) {
        int r = json_writer_finish(w);
        if (r < 0)
                fprintf(stderr, "tinct: Failed to write JSON: %s\n", strerror(-r));
        return r;
}

/* ---- objects -------------------------------------------------------------------------- */

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

/* Text: control characters would break the one-line-per-value layout, so they are shown
 * as C escapes; everything else (UTF-8 included) is printed as it is. */
static void print_text_string(FILE *f, const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p == '\n')
                        fputs("\\n", f);
                else if (*p == '\t')
                        fputs("\\t", f);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\x%02x", *p);
                else
                        fputc(*p, f);
}

/* A value on one line: scalars as they are, containers as [a, b] and {k=v}. */
static void print_text_inline(FILE *f, const BusValue *v) {
        switch (v->type) {
        case BUS_VALUE_STRING:
                print_text_string(f, v->string);
                break;
        case BUS_VALUE_BOOLEAN:
                fputs(v->boolean ? "true" : "false", f);
                break;
        case BUS_VALUE_SIGNED:
                fprintf(f, "%" PRIi64, v->i);
                break;
        case BUS_VALUE_UNSIGNED:
                fprintf(f, "%" PRIu64, v->u);
                break;
        case BUS_VALUE_DOUBLE:
                fprintf(f, "%g", v->d);
                break;
        case BUS_VALUE_ARRAY:
                fputc('[', f);
                for (size_t i = 0; i < v->n; i++) {
                        if (i > 0)
                                fputs(", ", f);
                        print_text_inline(f, v->items[i]);
                }
                fputc(']', f);
                break;
        case BUS_VALUE_DICT:
                fputc('{', f);
                for (size_t i = 0; i < v->n; i++) {
                        if (i > 0)
                                fputs(", ", f);
                        print_text_string(f, v->keys[i]);
                        fputc('=', f);
                        print_text_inline(f, v->items[i]);
                }
                fputc('}', f);
                break;
        }
}

static bool is_container(const BusValue *v) {
        return v->type == BUS_VALUE_ARRAY || v->type == BUS_VALUE_DICT;
}

/* A property: arrays one item per line and dictionaries one KEY=value per line, the
 * continuation lines aligned under the first value. */
static void print_text_property(FILE *f, const char *name, const BusValue *v, int width) {
        bool container = is_container(v);

        fprintf(f, "  %s:", name);
        if ((container && v->n == 0) || (v->type == BUS_VALUE_STRING && isempty(v->string))) {
                fputc('\n', f); /* nothing to show, and no trailing blanks */
                return;
        }
        fprintf(f, "%*s", width - (int) strlen(name) + 1, "");
        if (!container) {
                print_text_inline(f, v);
                fputc('\n', f);
                return;
        }
        for (size_t i = 0; i < v->n; i++) {
                if (i > 0)
                        fprintf(f, "%*s", width + 4, "");
                if (v->type == BUS_VALUE_DICT) {
                        print_text_string(f, v->keys[i]);
                        fputc('=', f);
                }
                print_text_inline(f, v->items[i]);
                fputc('\n', f);
        }
}

void bus_object_print_text(const BusObject *o, FILE *f) {
        int width = 0;

        for (size_t i = 0; i < o->properties->n; i++)
                if ((int) strlen(o->properties->keys[i]) > width)
                        width = (int) strlen(o->properties->keys[i]);
        fprintf(f, "Object Path: %s\n", o->path);
        for (size_t i = 0; i < o->properties->n; i++)
                print_text_property(f, o->properties->keys[i], o->properties->items[i], width);
}

void bus_object_write_json(const BusObject *o, JsonWriter *w) {
        json_write_begin_object(w);
        json_write_key(w, "object_path");
        json_write_string(w, o->path);
        for (size_t i = 0; i < o->properties->n; i++) {
                json_write_key(w, o->properties->keys[i]);
                bus_value_write_json(o->properties->items[i], w);
        }
        json_write_end_object(w);
}

int bus_print_object(sd_bus *bus, BusObjectKind kind, const char *path, bool json) {
        _cleanup_(bus_object_freep) BusObject *o = NULL;
        int r;

        r = bus_object_get(bus, kind, path, &o);
        if (r < 0)
                return r;
        if (!json) {
                bus_object_print_text(o, stdout);
                return 0;
        }
        JsonWriter w;
        json_writer_init(&w, stdout);
        bus_object_write_json(o, &w);
        return bus_json_finish(&w);
}

int bus_print_objects(sd_bus *bus, BusObjectKind kind, char *const *paths, const char *list_key,
                      bool json) {
        JsonWriter w;
        int r;

        /* Fetch everything first: an object that fails half-way must not leave half a
         * JSON document on stdout. */
        size_t n = strv_length(paths);
        _cleanup_free_ BusObject **objects = calloc(n + 1, sizeof *objects);
        if (!objects)
                return bus_log_parse_error(-ENOMEM);
        for (size_t i = 0; i < n; i++) {
                r = bus_object_get(bus, kind, paths[i], &objects[i]);
                if (r < 0)
                        goto finish;
        }

        if (json) {
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, list_key);
                json_write_begin_array(&w);
                for (size_t i = 0; i < n; i++)
                        bus_object_write_json(objects[i], &w);
                json_write_end_array(&w);
                json_write_end_object(&w);
                r = bus_json_finish(&w);
        } else {
                for (size_t i = 0; i < n; i++) {
                        if (i > 0)
                                putchar('\n');
                        bus_object_print_text(objects[i], stdout);
                }
                r = 0;
        }
finish:
        for (size_t i = 0; i < n; i++)
                bus_object_free(objects[i]);
        return r;
}
