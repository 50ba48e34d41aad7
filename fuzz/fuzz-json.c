/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the strict JSON reader (src/shared/json.c), which the store's import
 * feeds with user files. Any bytes are parsed or refused with a "line L, column C: ..."
 * message. An accepted document is checked for what json.h promises (valid UTF-8 strings
 * without NULs, no duplicate keys, depth within JSON_MAX_DEPTH, every value's line inside
 * the input), then written back with JsonWriter, which must succeed, and read again, which
 * must give the same tree: export and import agree on everything the reader accepts. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_value(const JsonValue *v, unsigned depth, unsigned lines) {
        if (depth > JSON_MAX_DEPTH || v->line < 1 || v->line > lines)
                abort();
        switch (v->type) {
        case JSON_NULL:
        case JSON_BOOLEAN:
                break;
        case JSON_NUMBER: {
                int64_t i;
                if (!v->text || !*v->text)
                        abort();
                (void) json_value_get_int64(v, &i);
                break;
        }
        case JSON_STRING:
                if (!v->text || !utf8_is_valid(v->text, strlen(v->text)))
                        abort();
                break;
        case JSON_ARRAY:
        case JSON_OBJECT:
                for (size_t i = 0; i < v->n; i++) {
                        if (v->type == JSON_OBJECT) {
                                if (!utf8_is_valid(v->keys[i], strlen(v->keys[i])) ||
                                    json_object_get(v, v->keys[i]) != v->items[i])
                                        abort(); /* first match is this one: no duplicates */
                        }
                        check_value(v->items[i], depth + 1, lines);
                }
                break;
        default:
                abort();
        }
}

static void write_value(JsonWriter *w, const JsonValue *v) {
        switch (v->type) {
        case JSON_NULL:
                json_write_null(w);
                break;
        case JSON_BOOLEAN:
                json_write_bool(w, v->boolean);
                break;
        case JSON_NUMBER:
                json_write_literal(w, v->text);
                break;
        case JSON_STRING:
                json_write_string(w, v->text);
                break;
        case JSON_ARRAY:
                json_write_begin_array(w);
                for (size_t i = 0; i < v->n; i++)
                        write_value(w, v->items[i]);
                json_write_end_array(w);
                break;
        case JSON_OBJECT:
                json_write_begin_object(w);
                for (size_t i = 0; i < v->n; i++) {
                        json_write_key(w, v->keys[i]);
                        write_value(w, v->items[i]);
                }
                json_write_end_object(w);
                break;
        }
}

static bool same(const JsonValue *a, const JsonValue *b) {
        if (a->type != b->type || a->n != b->n || (a->type == JSON_BOOLEAN && a->boolean != b->boolean))
                return false;
        if ((a->type == JSON_NUMBER || a->type == JSON_STRING) && strcmp(a->text, b->text) != 0)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if ((a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0) ||
                    !same(a->items[i], b->items[i]))
                        return false;
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(json_value_freep) JsonValue *v = NULL, *back = NULL;
        _cleanup_free_ char *error = NULL, *out = NULL;
        size_t out_size = 0;
        unsigned lines = 1;

        if (json_parse((const char *) data, size, &v, &error) < 0) {
                if (v || !error || strncmp(error, "line ", 5) != 0)
                        abort();
                return 0;
        }
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        if (!v || error)
                abort();
        check_value(v, 0, lines);

        FILE *f = open_memstream(&out, &out_size);
        if (!f)
                abort();
        JsonWriter w;
        json_writer_init(&w, f);
        write_value(&w, v);
        if (json_writer_finish(&w) < 0)
                abort();
        fclose(f);
        free(error);
        error = NULL;
        if (json_parse(out, out_size, &back, &error) < 0 || !same(v, back))
                abort();
        return 0;
}
