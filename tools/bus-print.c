/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-print: BusValue trees and daemon objects printed as text (colormgr's layout) or as
 * the JSON of docs/json.md (through src/shared/json.h's writer); bus-print.h. Not here:
 * fetching them (bus-properties.c). */
#include "bus-print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "strv.h"

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
        int r;

        r = json_writer_finish(w);
        if (r < 0)
                return log_error_errno(r, "Failed to write JSON: %m");
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
