/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small JSON writer and a strict JSON reader (RFC 8259): the store's export and import
 * and every --json output of the CLI (docs/json.md). The reader builds a tree; it rejects
 * anything RFC 8259 does not allow (trailing commas, comments, leading zeros, control
 * characters and invalid UTF-8 in strings, lone surrogates, trailing data), duplicate
 * object keys, nesting deeper than JSON_MAX_DEPTH, and \u0000 (our strings are C strings).
 * Numbers keep their literal text; only integer accessors exist because what is read back
 * (the store's import) holds no fractions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "macro.h"

#define JSON_MAX_DEPTH 32

typedef enum JsonType {
        JSON_NULL,
        JSON_BOOLEAN,
        JSON_NUMBER,
        JSON_STRING,
        JSON_ARRAY,
        JSON_OBJECT,
} JsonType;

typedef struct JsonValue JsonValue;
struct JsonValue {
        JsonType type;
        bool boolean;
        char *text;        /* JSON_STRING: the value (UTF-8); JSON_NUMBER: the literal */
        char **keys;       /* JSON_OBJECT: keys in document order */
        JsonValue **items; /* JSON_ARRAY: items; JSON_OBJECT: the value of keys[i] */
        size_t n;
        unsigned line;     /* where the value starts, for error messages */
};

/* Returns 0, or -EBADMSG with "line L, column C: reason" in *ret_error (caller frees). */
int json_parse(const char *data, size_t size, JsonValue **ret, char **ret_error);
JsonValue *json_value_free(JsonValue *v);
DEFINE_TRIVIAL_CLEANUP_FUNC(JsonValue *, json_value_free);

const char *json_type_name(JsonType t);
/* NULL unless obj is an object holding key. */
const JsonValue *json_object_get(const JsonValue *obj, const char *key);
/* -EINVAL unless v is an integer literal (no fraction, no exponent); -ERANGE if it does not
 * fit. */
int json_value_get_int64(const JsonValue *v, int64_t *ret);

/* Streaming writer with two-space indentation; control characters, '"' and '\\' are
 * escaped, other UTF-8 is written as is. Errors are sticky: the first one is kept and returned
 * by json_writer_finish(): -EILSEQ for a string that is not valid UTF-8, -E2BIG for nesting
 * beyond JSON_MAX_DEPTH, -EIO for a failed write. */
typedef struct JsonWriter {
        FILE *f;
        unsigned depth;
        bool has_items[JSON_MAX_DEPTH + 1];
        bool after_key;
        int error;
} JsonWriter;

void json_writer_init(JsonWriter *w, FILE *f);
void json_write_begin_object(JsonWriter *w);
void json_write_end_object(JsonWriter *w);
void json_write_begin_array(JsonWriter *w);
void json_write_end_array(JsonWriter *w);
void json_write_key(JsonWriter *w, const char *key);
void json_write_string(JsonWriter *w, const char *s);
void json_write_int64(JsonWriter *w, int64_t v);
void json_write_bool(JsonWriter *w, bool v);
void json_write_null(JsonWriter *w);
/* Bytes that are not UTF-8 (EDID text, say) are written as U+FFFD, not an error. */
void json_write_string_lossy(JsonWriter *w, const char *s);
/* "key": value, lossy as above, or null when value is NULL (reports of what a file holds). */
void json_write_member_text(JsonWriter *w, const char *key, const char *value);
/* A number written as given (the caller vouches that it is a JSON number literal). */
void json_write_literal(JsonWriter *w, const char *literal);
/* The shortest form that reads back as the same double; null for NaN and infinities. */
void json_write_double(JsonWriter *w, double d);
/* With a fixed number of decimals (e.g. to match another tool's rounding). */
void json_write_fixed(JsonWriter *w, double d, int decimals);
/* Ends the document with a newline and flushes. Returns 0 or the first error. */
int json_writer_finish(JsonWriter *w);
