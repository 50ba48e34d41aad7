/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict JSON reader and small writer (see json.h). Recursive descent with an explicit depth
 * bound, so hostile input cannot exhaust the stack. */
#include <assert.h>
#include "json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "utf8.h"

/* ---- reader --------------------------------------------------------------------------- */

typedef struct Parser {
        const char *p, *start, *end;
        char *error;
        const char *line_at;    /* newlines before here are counted in line */
        unsigned line;
} Parser;

JsonValue *json_value_free(JsonValue *v) {
        if (!v)
                return NULL;
        free(v->text);
        for (size_t i = 0; i < v->n; i++) {
                if (v->keys)
                        free(v->keys[i]);
                if (v->items)
                        json_value_free(v->items[i]);
        }
        free(v->keys);
        free(v->items);
        free(v);
        return NULL;
}

_printf_(2, 3) static int parse_error(Parser *ps, const char *fmt, ...) {
        if (ps->error)
                return -EBADMSG;
        unsigned line = 1, column = 1;
        for (const char *c = ps->start; c < ps->p && c < ps->end; c++) {
                if (*c == '\n') {
                        line++;
                        column = 1;
                } else if (((unsigned char) *c & 0xc0) != 0x80)
                        column++;
        }
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (asprintf(&ps->error, "line %u, column %u: %s", line, column, msg) < 0)
                ps->error = NULL;
        return -EBADMSG;
}

/* Counts on from the previous call (values only move forward), so numbering every value
 * stays linear; rescanning from the start made a 100 kB import take seconds. */
static unsigned current_line(Parser *ps) {
        for (; ps->line_at < ps->p; ps->line_at++)
                ps->line += *ps->line_at == '\n';
        return ps->line;
}

static void skip_ws(Parser *ps) {
        while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
                ps->p++;
}

static bool consume_literal(Parser *ps, const char *lit) {
        size_t n = strlen(lit);
        if ((size_t) (ps->end - ps->p) < n || memcmp(ps->p, lit, n) != 0)
                return false;
        ps->p += n;
        return true;
}

static int hex4(Parser *ps, uint32_t *ret) {
        if (ps->end - ps->p < 4)
                return parse_error(ps, "truncated \\u escape");
        uint32_t v = 0;
        for (int i = 0; i < 4; i++) {
                char c = ps->p[i];
                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= c - '0';
                else if (c >= 'a' && c <= 'f')
                        v |= c - 'a' + 10;
                else if (c >= 'A' && c <= 'F')
                        v |= c - 'A' + 10;
                else
                        return parse_error(ps, "invalid \\u escape");
        }
        ps->p += 4;
        *ret = v;
        return 0;
}

static size_t utf8_encode(uint32_t cp, char out[4]) {
        if (cp < 0x80) {
                out[0] = (char) cp;
                return 1;
        }
        if (cp < 0x800) {
                out[0] = (char) (0xc0 | (cp >> 6));
                out[1] = (char) (0x80 | (cp & 0x3f));
                return 2;
        }
        if (cp < 0x10000) {
                out[0] = (char) (0xe0 | (cp >> 12));
                out[1] = (char) (0x80 | ((cp >> 6) & 0x3f));
                out[2] = (char) (0x80 | (cp & 0x3f));
                return 3;
        }
        out[0] = (char) (0xf0 | (cp >> 18));
        out[1] = (char) (0x80 | ((cp >> 12) & 0x3f));
        out[2] = (char) (0x80 | ((cp >> 6) & 0x3f));
        out[3] = (char) (0x80 | (cp & 0x3f));
        return 4;
}

/* At the opening quote. The result is at most as long as the source, so one buffer of the
 * remaining input's size bounds it; it is trimmed once the end is known. */
static int parse_string(Parser *ps, char **ret) {
        ps->p++; /* '"' */
        const char *scan = ps->p;
        while (scan < ps->end && *scan != '"') {
                if (*scan == '\\' && scan + 1 < ps->end)
                        scan++;
                scan++;
        }
        _cleanup_free_ char *buf = malloc((size_t) (scan - ps->p) + 1);
        if (!buf)
                return -ENOMEM;
        size_t n = 0;

        for (;;) {
                if (ps->p >= ps->end)
                        return parse_error(ps, "unterminated string");
                unsigned char c = (unsigned char) *ps->p;
                if (c == '"') {
                        ps->p++;
                        break;
                }
                if (c < 0x20)
                        return parse_error(ps, "control character U+%04X in a string must be escaped", c);
                if (c != '\\') {
                        /* Copy a run of plain bytes, then check it is UTF-8. */
                        const char *run = ps->p;
                        while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' &&
                               (unsigned char) *ps->p >= 0x20)
                                ps->p++;
                        if (!utf8_is_valid(run, ps->p - run)) {
                                ps->p = run;
                                return parse_error(ps, "string is not valid UTF-8");
                        }
                        memcpy(buf + n, run, ps->p - run);
                        n += ps->p - run;
                        continue;
                }
                ps->p++;
                if (ps->p >= ps->end)
                        return parse_error(ps, "unterminated escape");
                char e = *ps->p++;
                switch (e) {
                case '"':  buf[n++] = '"'; break;
                case '\\': buf[n++] = '\\'; break;
                case '/':  buf[n++] = '/'; break;
                case 'b':  buf[n++] = '\b'; break;
                case 'f':  buf[n++] = '\f'; break;
                case 'n':  buf[n++] = '\n'; break;
                case 'r':  buf[n++] = '\r'; break;
                case 't':  buf[n++] = '\t'; break;
                case 'u': {
                        uint32_t cp;
                        int r = hex4(ps, &cp);
                        if (r < 0)
                                return r;
                        if (cp >= 0xdc00 && cp <= 0xdfff)
                                return parse_error(ps, "lone low surrogate \\u%04X", cp);
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                                uint32_t lo;
                                if (!consume_literal(ps, "\\u"))
                                        return parse_error(ps, "high surrogate \\u%04X without its pair", cp);
                                r = hex4(ps, &lo);
                                if (r < 0)
                                        return r;
                                if (lo < 0xdc00 || lo > 0xdfff)
                                        return parse_error(ps, "high surrogate \\u%04X without its pair", cp);
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        }
                        if (cp == 0)
                                return parse_error(ps, "\\u0000 is not supported");
                        /* A 6-byte escape becomes at most 3 bytes, a 12-byte pair 4. */
                        n += utf8_encode(cp, buf + n);
                        break;
                }
                default:
                        ps->p--;
                        return parse_error(ps, "invalid escape '\\%c'", e);
                }
        }
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static int parse_number(Parser *ps, char **ret) {
        const char *s = ps->p;
        if (ps->p < ps->end && *ps->p == '-')
                ps->p++;
        if (ps->p >= ps->end || !is_digit(*ps->p))
                return parse_error(ps, "invalid number");
        if (*ps->p == '0') {
                ps->p++;
                if (ps->p < ps->end && is_digit(*ps->p))
                        return parse_error(ps, "leading zeros are not allowed");
        } else
                while (ps->p < ps->end && is_digit(*ps->p))
                        ps->p++;
        if (ps->p < ps->end && *ps->p == '.') {
                ps->p++;
                if (ps->p >= ps->end || !is_digit(*ps->p))
                        return parse_error(ps, "invalid number");
                while (ps->p < ps->end && is_digit(*ps->p))
                        ps->p++;
        }
        if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
                ps->p++;
                if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
                        ps->p++;
                if (ps->p >= ps->end || !is_digit(*ps->p))
                        return parse_error(ps, "invalid number");
                while (ps->p < ps->end && is_digit(*ps->p))
                        ps->p++;
        }
        *ret = strndup(s, ps->p - s);
        return *ret ? 0 : -ENOMEM;
}

static int grow(void **array, size_t *allocated, size_t n, size_t size) {
        if (n < *allocated)
                return 0;
        size_t na = *allocated ? *allocated * 2 : 4;
        void *t = reallocarray(*array, na, size);
        if (!t)
                return -ENOMEM;
        *array = t;
        *allocated = na;
        return 0;
}

static int parse_value(Parser *ps, unsigned depth, JsonValue **ret);

static int parse_container(Parser *ps, unsigned depth, JsonValue *v) {
        bool object = v->type == JSON_OBJECT;
        char close = object ? '}' : ']';
        size_t allocated_items = 0, allocated_keys = 0;
        int r;

        if (depth >= JSON_MAX_DEPTH)
                return parse_error(ps, "nested deeper than %d levels", JSON_MAX_DEPTH);
        ps->p++; /* '{' or '[' */
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == close) {
                ps->p++;
                return 0;
        }
        for (;;) {
                skip_ws(ps);
                if (object) {
                        if (ps->p >= ps->end || *ps->p != '"')
                                return parse_error(ps, "expected a string key");
                        const char *key_at = ps->p;
                        char *key = NULL;
                        r = parse_string(ps, &key);
                        if (r < 0)
                                return r;
                        for (size_t i = 0; i < v->n; i++)
                                if (streq(v->keys[i], key)) {
                                        ps->p = key_at;
                                        free(key);
                                        return parse_error(ps, "duplicate key \"%s\"", v->keys[i]);
                                }
                        r = grow((void **) &v->keys, &allocated_keys, v->n, sizeof(char *));
                        if (r < 0) {
                                free(key);
                                return r;
                        }
                        v->keys[v->n] = key;
                        skip_ws(ps);
                        if (ps->p >= ps->end || *ps->p != ':') {
                                free(key);
                                return parse_error(ps, "expected ':'");
                        }
                        ps->p++;
                }
                JsonValue *item = NULL;
                r = parse_value(ps, depth + 1, &item);
                if (r >= 0)
                        r = grow((void **) &v->items, &allocated_items, v->n, sizeof(JsonValue *));
                if (r < 0) {
                        json_value_free(item);
                        if (object)
                                free(v->keys[v->n]);
                        return r;
                }
                v->items[v->n++] = item;

                skip_ws(ps);
                if (ps->p < ps->end && *ps->p == ',') {
                        ps->p++;
                        skip_ws(ps);
                        if (ps->p < ps->end && *ps->p == close)
                                return parse_error(ps, "trailing comma");
                        continue;
                }
                if (ps->p < ps->end && *ps->p == close) {
                        ps->p++;
                        return 0;
                }
                return parse_error(ps, "expected ',' or '%c'", close);
        }
}

static int parse_value(Parser *ps, unsigned depth, JsonValue **ret) {
        skip_ws(ps);
        if (ps->p >= ps->end)
                return parse_error(ps, "unexpected end of input");

        _cleanup_(json_value_freep) JsonValue *v = calloc(1, sizeof(JsonValue));
        if (!v)
                return -ENOMEM;
        v->line = current_line(ps);
        int r = 0;
        switch (*ps->p) {
        case '{':
                v->type = JSON_OBJECT;
                r = parse_container(ps, depth, v);
                break;
        case '[':
                v->type = JSON_ARRAY;
                r = parse_container(ps, depth, v);
                break;
        case '"':
                v->type = JSON_STRING;
                r = parse_string(ps, &v->text);
                break;
        case 't':
        case 'f':
        case 'n':
                if (consume_literal(ps, "true")) {
                        v->type = JSON_BOOLEAN;
                        v->boolean = true;
                } else if (consume_literal(ps, "false"))
                        v->type = JSON_BOOLEAN;
                else if (consume_literal(ps, "null"))
                        v->type = JSON_NULL;
                else
                        r = parse_error(ps, "unexpected character '%c'", *ps->p);
                break;
        default:
                if (*ps->p == '-' || is_digit(*ps->p)) {
                        v->type = JSON_NUMBER;
                        r = parse_number(ps, &v->text);
                } else if ((unsigned char) *ps->p >= 0x20 && (unsigned char) *ps->p < 0x7f)
                        r = parse_error(ps, "unexpected character '%c'", *ps->p);
                else
                        r = parse_error(ps, "unexpected byte 0x%02x", (unsigned char) *ps->p);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(v);
        return 0;
}

int json_parse(const char *data, size_t size, JsonValue **ret, char **ret_error) {
        Parser ps = { .p = data, .start = data, .end = data + size, .line_at = data, .line = 1 };
        JsonValue *v = NULL;

        /* A byte order mark is refused like any other stray byte: RFC 8259 §8.1 forbids
         * emitting one and our writer never does. */
        int r = parse_value(&ps, 0, &v);
        if (r >= 0) {
                skip_ws(&ps);
                if (ps.p < ps.end) {
                        r = parse_error(&ps, "unexpected data after the document");
                        v = json_value_free(v);
                }
        }
        if (r < 0) {
                if (r == -ENOMEM && !ps.error)
                        ps.error = strdup("out of memory");
                if (ret_error)
                        *ret_error = TAKE_PTR(ps.error);
                free(ps.error);
                return r;
        }
        *ret = v;
        return 0;
}

const char *json_type_name(JsonType t) {
        static const char *const names[] = {
                [JSON_NULL] = "null", [JSON_BOOLEAN] = "a boolean", [JSON_NUMBER] = "a number",
                [JSON_STRING] = "a string", [JSON_ARRAY] = "an array", [JSON_OBJECT] = "an object",
        };
        return t < ELEMENTSOF(names) ? names[t] : "?";
}

const JsonValue *json_object_get(const JsonValue *obj, const char *key) {
        if (!obj || obj->type != JSON_OBJECT)
                return NULL;
        for (size_t i = 0; i < obj->n; i++)
                if (streq(obj->keys[i], key))
                        return obj->items[i];
        return NULL;
}

int json_value_get_int64(const JsonValue *v, int64_t *ret) {
        if (!v || v->type != JSON_NUMBER || strpbrk(v->text, ".eE"))
                return -EINVAL;
        errno = 0;
        char *end;
        long long x = strtoll(v->text, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (*end != '\0' || errno != 0)
                return -EINVAL;
        *ret = x;
        return 0;
}

/* ---- writer --------------------------------------------------------------------------- */

void json_writer_init(JsonWriter *w, FILE *f) {
        *w = (JsonWriter) { .f = f };
}

static void writer_indent(JsonWriter *w) {
        fputc('\n', w->f);
        for (unsigned i = 0; i < w->depth; i++)
                fputs("  ", w->f);
}

/* Separator and indentation before a value or key. */
static void writer_item(JsonWriter *w) {
        if (w->after_key) {
                w->after_key = false;
                return;
        }
        if (w->depth == 0)
                return;
        if (w->has_items[w->depth])
                fputc(',', w->f);
        w->has_items[w->depth] = true;
        writer_indent(w);
}

static void writer_open(JsonWriter *w, char c) {
        writer_item(w);
        if (w->depth >= JSON_MAX_DEPTH) {
                if (!w->error)
                        w->error = -E2BIG;
                return;
        }
        fputc(c, w->f);
        w->depth++;
        w->has_items[w->depth] = false;
}

static void writer_close(JsonWriter *w, char c) {
        assert(!w->after_key); /* a key is always followed by its value */
        if (w->depth == 0) {
                /* An unbalanced end after a refused (too deep) begin; anything else is a bug. */
                assert(w->error);
                return;
        }
        bool had = w->has_items[w->depth];
        w->depth--;
        if (had)
                writer_indent(w);
        fputc(c, w->f);
}

void json_write_begin_object(JsonWriter *w) {
        writer_open(w, '{');
}
void json_write_end_object(JsonWriter *w) {
        writer_close(w, '}');
}
void json_write_begin_array(JsonWriter *w) {
        writer_open(w, '[');
}
void json_write_end_array(JsonWriter *w) {
        writer_close(w, ']');
}

/* lossy: bytes that are not UTF-8 become U+FFFD instead of failing the document. */
static void write_escaped(JsonWriter *w, const char *s, bool lossy) {
        size_t len = strlen(s);
        if (!lossy && !utf8_is_valid(s, len)) {
                if (!w->error)
                        w->error = -EILSEQ;
                fputs("\"\"", w->f);
                return;
        }
        fputc('"', w->f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                size_t n = *p < 0x80 ? 1 : utf8_sequence_length((const char *) p, len - (size_t) (p - (const unsigned char *) s));
                if (n == 0) {
                        fputs("\\ufffd", w->f);
                        continue;
                }
                if (n > 1) {
                        fwrite(p, 1, n, w->f);
                        p += n - 1;
                        continue;
                }
                switch (*p) {
                case '"':  fputs("\\\"", w->f); break;
                case '\\': fputs("\\\\", w->f); break;
                case '\b': fputs("\\b", w->f); break;
                case '\f': fputs("\\f", w->f); break;
                case '\n': fputs("\\n", w->f); break;
                case '\r': fputs("\\r", w->f); break;
                case '\t': fputs("\\t", w->f); break;
                default:
                        if (*p < 0x20 || *p == 0x7f)
                                fprintf(w->f, "\\u%04x", *p);
                        else
                                fputc(*p, w->f);
                }
        }
        fputc('"', w->f);
}

void json_write_key(JsonWriter *w, const char *key) {
        writer_item(w);
        write_escaped(w, key, false);
        fputs(": ", w->f);
        w->after_key = true;
}

void json_write_string(JsonWriter *w, const char *s) {
        writer_item(w);
        write_escaped(w, s ?: "", false);
}

void json_write_string_lossy(JsonWriter *w, const char *s) {
        writer_item(w);
        write_escaped(w, s ?: "", true);
}

void json_write_member_text(JsonWriter *w, const char *key, const char *value) {
        json_write_key(w, key);
        if (value)
                json_write_string_lossy(w, value);
        else
                json_write_null(w);
}

void json_write_literal(JsonWriter *w, const char *literal) {
        writer_item(w);
        fputs(literal, w->f);
}

void json_write_double(JsonWriter *w, double d) {
        char buf[32];
        if (!isfinite(d)) { /* JSON has no NaN or infinity */
                json_write_null(w);
                return;
        }
        /* the shortest of %.15g and %.17g that reads back as the same double */
        snprintf(buf, sizeof buf, "%.15g", d);
        if (strtod(buf, NULL) != d)
                snprintf(buf, sizeof buf, "%.17g", d);
        json_write_literal(w, buf);
}

void json_write_fixed(JsonWriter *w, double d, int decimals) {
        char buf[64];
        if (!isfinite(d)) {
                json_write_null(w);
                return;
        }
        snprintf(buf, sizeof buf, "%.*f", decimals, d);
        json_write_literal(w, buf);
}

void json_write_int64(JsonWriter *w, int64_t v) {
        writer_item(w);
        fprintf(w->f, "%" PRId64, v);
}

void json_write_bool(JsonWriter *w, bool v) {
        writer_item(w);
        fputs(v ? "true" : "false", w->f);
}

void json_write_null(JsonWriter *w) {
        writer_item(w);
        fputs("null", w->f);
}

int json_writer_finish(JsonWriter *w) {
        fputc('\n', w->f);
        if (fflush(w->f) != 0 || ferror(w->f))
                return w->error ?: -EIO;
        return w->error;
}
