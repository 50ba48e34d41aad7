/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CGATS.17 reader (the text format of ArgyllCMS's .ti1/.ti3/.cal files) and the reading of a
 * display .ti3 into samples.
 *
 * The file is copied once; lines and then tokens are cut in place (NUL-terminated inside the
 * copy), so a table holds pointers into one buffer and no token is allocated on its own.
 * The format, as Argyll writes it: an identifier line ("CTI3"), header lines `NAME value`
 * (value bare or in double quotes, `#` starts a comment), `NUMBER_OF_FIELDS n`,
 * `BEGIN_DATA_FORMAT` field names `END_DATA_FORMAT`, `NUMBER_OF_SETS n`, `BEGIN_DATA` values
 * `END_DATA`; a further table (Argyll's "CAL") may follow.
 *
 * Not here: lcms2, files, logging, writing CGATS. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgats.h"

typedef struct Parser {
        Cgats *c;
        char *error;
        /* the tokens of the current line (pointers into c's text) */
        char **tok;
        size_t n_tok, n_tok_alloc;
} Parser;

_printf_(3, 4) static int fail(Parser *p, int r, const char *fmt, ...) {
        va_list ap;

        free(p->error);
        p->error = NULL;
        va_start(ap, fmt);
        if (vasprintf(&p->error, fmt, ap) < 0)
                p->error = NULL;
        va_end(ap);
        return r;
}

static void table_done(CgatsTable *t) {
        free(t->keywords);
        free(t->fields);
        free(t->values);
        free(t->set_lines);
}

Cgats *cgats_free(Cgats *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_tables; i++)
                table_done(&c->tables[i]);
        free(c->tables);
        free(c->text);
        free(c);
        return NULL;
}

/* Grows *array (of elem-sized items) to hold at least n items. */
static int grow(void *array, size_t *alloc, size_t n, size_t elem) {
        void **a = array;
        size_t m;
        void *q;

        if (n <= *alloc)
                return 0;
        m = *alloc ? *alloc * 2 : 16;
        while (m < n)
                m *= 2;
        q = reallocarray(*a, m, elem);
        if (!q)
                return -ENOMEM;
        *a = q;
        *alloc = m;
        return 0;
}

static bool is_space(char ch) {
        return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Cuts one line (NUL-terminated in place) into tokens: bare words, or double-quoted strings
 * (quotes removed; no escapes in CGATS as Argyll writes it). '#' outside a string ends the
 * line. */
static int split_line(Parser *p, char *s, unsigned line) {
        p->n_tok = 0;
        for (;;) {
                char *start;

                while (is_space(*s))
                        s++;
                if (*s == '\0' || *s == '#')
                        return 0;
                if (*s == '"') {
                        start = ++s;
                        char *end = strchr(s, '"');
                        if (!end)
                                return fail(p, -EINVAL, "line %u: unterminated string", line);
                        *end = '\0';
                        s = end + 1;
                        if (*s != '\0' && !is_space(*s) && *s != '#')
                                return fail(p, -EINVAL, "line %u: text straight after a closing quote", line);
                } else {
                        start = s;
                        while (*s != '\0' && !is_space(*s) && *s != '#' && *s != '"')
                                s++;
                        if (*s == '"')
                                return fail(p, -EINVAL, "line %u: quote inside a word", line);
                        if (*s == '#') {
                                *s = '\0';
                                /* the rest is a comment: stop after this token */
                                if ((size_t) (s - start) > CGATS_MAX_TOKEN)
                                        return fail(p, -EFBIG, "line %u: a token longer than %u bytes", line,
                                                    CGATS_MAX_TOKEN);
                                if (grow(&p->tok, &p->n_tok_alloc, p->n_tok + 1, sizeof(char *)) < 0)
                                        return -ENOMEM;
                                p->tok[p->n_tok++] = start;
                                return 0;
                        }
                        if (*s != '\0')
                                *s++ = '\0';
                }
                if (strlen(start) > CGATS_MAX_TOKEN)
                        return fail(p, -EFBIG, "line %u: a token longer than %u bytes", line, CGATS_MAX_TOKEN);
                if (grow(&p->tok, &p->n_tok_alloc, p->n_tok + 1, sizeof(char *)) < 0)
                        return -ENOMEM;
                p->tok[p->n_tok++] = start;
        }
}

/* Keywords and field names: a letter or '_' first, then letters, digits, '_',
 * '-', '.'. */
static bool is_identifier(const char *s) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
                return false;
        for (; *s; s++)
                if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
                      *s == '_' || *s == '-' || *s == '.'))
                        return false;
        return true;
}

/* A file identifier: also the IT8.7 names of vendors' reference files ("IT8.7/2"). */
static bool is_file_identifier(const char *s) {
        _cleanup_free_ char *copy = strdup(s);

        if (!copy)
                return false;
        for (char *c = copy; *c; c++)
                if (*c == '/')
                        *c = '.';
        return is_identifier(copy);
}

static int parse_count(Parser *p, const char *name, const char *value, unsigned line, size_t max,
                       size_t *ret) {
        char *end;
        unsigned long long v;

        if (!value || !(*value >= '0' && *value <= '9'))
                return fail(p, -EINVAL, "line %u: %s needs a whole number", line, name);
        errno = 0;
        v = strtoull(value, &end, 10);
        if (errno != 0 || *end != '\0')
                return fail(p, -EINVAL, "line %u: %s needs a whole number, not \"%s\"", line, name, value);
        if (v > max)
                return fail(p, -EFBIG, "line %u: %s %llu is more than the %zu this reader accepts", line, name,
                            v, max);
        *ret = (size_t) v;
        return 0;
}

typedef enum State {
        STATE_TYPE,     /* before a table: its identifier line */
        STATE_HEADER,
        STATE_FORMAT,
        STATE_DATA,
} State;

typedef struct TableBuild {
        CgatsTable t;
        size_t kw_alloc, field_alloc;
        bool has_n_fields, has_n_sets, has_format;
        size_t declared_fields;
        size_t n_values;        /* values read so far */
        unsigned begin_line;    /* where the table's identifier is */
} TableBuild;

static int header_line(Parser *p, TableBuild *b, State *state, unsigned line) {
        const char *name = p->tok[0];
        const char *value = p->n_tok > 1 ? p->tok[1] : NULL;
        int r;

        if (streq(name, "BEGIN_DATA_FORMAT")) {
                if (b->has_format)
                        return fail(p, -EINVAL, "line %u: a second BEGIN_DATA_FORMAT", line);
                *state = STATE_FORMAT;
                return 1; /* the rest of the line holds field names */
        }
        if (streq(name, "BEGIN_DATA")) {
                if (!b->has_format)
                        return fail(p, -EINVAL, "line %u: BEGIN_DATA before BEGIN_DATA_FORMAT", line);
                if (!b->has_n_sets)
                        return fail(p, -EINVAL, "line %u: BEGIN_DATA without NUMBER_OF_SETS", line);
                if (b->t.n_fields == 0 && b->t.n_sets > 0)
                        return fail(p, -EINVAL, "line %u: data without fields", line);
                if (b->t.n_sets > 0 && b->t.n_fields > CGATS_MAX_VALUES / b->t.n_sets)
                        return fail(p, -EFBIG, "line %u: %zu sets of %zu fields are more than this reader accepts",
                                    line, b->t.n_sets, b->t.n_fields);
                b->t.values = calloc(b->t.n_sets * b->t.n_fields + 1, sizeof(char *));
                b->t.set_lines = calloc(b->t.n_sets + 1, sizeof(unsigned));
                if (!b->t.values || !b->t.set_lines)
                        return -ENOMEM;
                *state = STATE_DATA;
                return 1;
        }
        if (streq(name, "END_DATA_FORMAT") || streq(name, "END_DATA"))
                return fail(p, -EINVAL, "line %u: %s without its BEGIN", line, name);
        if (!is_identifier(name))
                return fail(p, -EINVAL, "line %u: \"%s\" is not a keyword", line, name);
        if (p->n_tok > 2)
                return fail(p, -EINVAL, "line %u: more than one value for %s", line, name);
        if (streq(name, "NUMBER_OF_FIELDS")) {
                if (b->has_n_fields)
                        return fail(p, -EINVAL, "line %u: a second NUMBER_OF_FIELDS", line);
                r = parse_count(p, name, value, line, CGATS_MAX_FIELDS, &b->declared_fields);
                if (r < 0)
                        return r;
                if (b->has_format && b->declared_fields != b->t.n_fields)
                        return fail(p, -EINVAL, "line %u: NUMBER_OF_FIELDS is %zu, the data format has %zu fields",
                                    line, b->declared_fields, b->t.n_fields);
                b->has_n_fields = true;
                return 0;
        }
        if (streq(name, "NUMBER_OF_SETS")) {
                if (b->has_n_sets)
                        return fail(p, -EINVAL, "line %u: a second NUMBER_OF_SETS", line);
                r = parse_count(p, name, value, line, CGATS_MAX_SETS, &b->t.n_sets);
                if (r < 0)
                        return r;
                b->has_n_sets = true;
                return 0;
        }
        if (streq(name, "KEYWORD")) /* declares a custom keyword: nothing to keep */
                return 0;
        if (b->t.n_keywords >= CGATS_MAX_KEYWORDS)
                return fail(p, -EFBIG, "line %u: more than %u keywords", line, CGATS_MAX_KEYWORDS);
        if (grow(&b->t.keywords, &b->kw_alloc, 2 * (b->t.n_keywords + 1), sizeof(char *)) < 0)
                return -ENOMEM;
        b->t.keywords[2 * b->t.n_keywords] = p->tok[0];
        /* no value: the empty string at the end of the name, so every string lies in the copy */
        b->t.keywords[2 * b->t.n_keywords + 1] = p->n_tok > 1 ? p->tok[1] : p->tok[0] + strlen(p->tok[0]);
        b->t.n_keywords++;
        return 0;
}

static int format_tokens(Parser *p, TableBuild *b, State *state, size_t first, unsigned line) {
        for (size_t i = first; i < p->n_tok; i++) {
                char *f = p->tok[i];

                if (streq(f, "END_DATA_FORMAT")) {
                        if (i + 1 < p->n_tok)
                                return fail(p, -EINVAL, "line %u: text after END_DATA_FORMAT", line);
                        if (b->t.n_fields == 0)
                                return fail(p, -EINVAL, "line %u: an empty data format", line);
                        if (b->has_n_fields && b->declared_fields != b->t.n_fields)
                                return fail(p, -EINVAL, "line %u: NUMBER_OF_FIELDS is %zu, the data format has %zu fields",
                                            line, b->declared_fields, b->t.n_fields);
                        b->has_format = true;
                        *state = STATE_HEADER;
                        return 0;
                }
                if (!is_identifier(f))
                        return fail(p, -EINVAL, "line %u: \"%s\" is not a field name", line, f);
                if (cgats_table_field(&b->t, f) >= 0)
                        return fail(p, -EINVAL, "line %u: field %s twice", line, f);
                if (b->t.n_fields >= CGATS_MAX_FIELDS)
                        return fail(p, -EFBIG, "line %u: more than %u fields", line, CGATS_MAX_FIELDS);
                if (grow(&b->t.fields, &b->field_alloc, b->t.n_fields + 1, sizeof(char *)) < 0)
                        return -ENOMEM;
                b->t.fields[b->t.n_fields++] = f;
        }
        return 0;
}

static int data_tokens(Parser *p, TableBuild *b, State *state, size_t first, unsigned line) {
        size_t total = b->t.n_sets * b->t.n_fields;

        for (size_t i = first; i < p->n_tok; i++) {
                if (streq(p->tok[i], "END_DATA")) {
                        if (i + 1 < p->n_tok)
                                return fail(p, -EINVAL, "line %u: text after END_DATA", line);
                        if (b->n_values != total) {
                                if (b->n_values % b->t.n_fields != 0)
                                        return fail(p, -EINVAL,
                                                    "line %u: the last set has %zu values, NUMBER_OF_FIELDS is %zu",
                                                    line, b->n_values % b->t.n_fields, b->t.n_fields);
                                return fail(p, -EINVAL, "line %u: %zu sets of data, NUMBER_OF_SETS is %zu", line,
                                            b->n_values / b->t.n_fields, b->t.n_sets);
                        }
                        *state = STATE_TYPE;
                        return 1;
                }
                if (b->n_values >= total)
                        return fail(p, -EINVAL, "line %u: more data than NUMBER_OF_SETS (%zu) sets", line,
                                    b->t.n_sets);
                if (b->n_values % b->t.n_fields == 0)
                        b->t.set_lines[b->n_values / b->t.n_fields] = line;
                b->t.values[b->n_values++] = p->tok[i];
        }
        return 0;
}

static int finish_table(Parser *p, TableBuild *b, unsigned line) {
        Cgats *c = p->c;
        void *q;

        if (b->has_n_fields && b->declared_fields != b->t.n_fields)
                return fail(p, -EINVAL, "line %u: NUMBER_OF_FIELDS is %zu, the data format has %zu fields", line,
                            b->declared_fields, b->t.n_fields);
        if (c->n_tables >= CGATS_MAX_TABLES)
                return fail(p, -EFBIG, "line %u: more than %u tables", line, CGATS_MAX_TABLES);
        q = reallocarray(c->tables, c->n_tables + 1, sizeof(CgatsTable));
        if (!q)
                return -ENOMEM;
        c->tables = q;
        c->tables[c->n_tables++] = b->t;
        *b = (TableBuild) {};
        return 0;
}

int cgats_parse(const char *buf, size_t len, Cgats **ret, char **ret_error) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        Parser p = {};
        TableBuild b = {};
        State state = STATE_TYPE;
        unsigned line = 0;
        char *s;
        int r = 0;

        *ret = NULL;
        *ret_error = NULL;
        if (len > CGATS_MAX_SIZE) {
                if (asprintf(ret_error, "the file has %zu bytes, more than the %u this reader accepts", len,
                             CGATS_MAX_SIZE) < 0)
                        *ret_error = NULL;
                return -EFBIG;
        }
        if (memchr(buf, '\0', len)) {
                size_t at = (size_t) ((const char *) memchr(buf, '\0', len) - buf);
                unsigned l = 1;
                for (size_t i = 0; i < at; i++)
                        l += buf[i] == '\n';
                if (asprintf(ret_error, "line %u: a NUL byte (not a text file)", l) < 0)
                        *ret_error = NULL;
                return -EINVAL;
        }
        c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        c->text = malloc(len + 1);
        if (!c->text)
                return -ENOMEM;
        memcpy(c->text, buf, len);
        c->text[len] = '\0';
        p.c = c;

        /* One line at a time; the next line's start is taken before split_line() cuts
         * NULs into this one. */
        for (s = c->text; s < c->text + len;) {
                char *nl = memchr(s, '\n', (size_t) (c->text + len - s));
                char *line_start = s;
                size_t first = 0;

                if (nl)
                        *nl = '\0';
                s = nl ? nl + 1 : c->text + len;
                line++;
                r = split_line(&p, line_start, line);
                if (r < 0)
                        goto out;

                if (p.n_tok == 0)
                        continue;
                switch (state) {
                case STATE_TYPE:
                        if (p.n_tok != 1 || !is_file_identifier(p.tok[0]) || streq(p.tok[0], "BEGIN_DATA") ||
                            streq(p.tok[0], "BEGIN_DATA_FORMAT")) {
                                r = fail(&p, -EINVAL, "line %u: expected a file identifier such as CTI3%s", line,
                                         c->n_tables > 0 ? " or the end of the file" : "");
                                goto out;
                        }
                        b.t.type = p.tok[0];
                        b.begin_line = line;
                        state = STATE_HEADER;
                        continue;
                case STATE_HEADER:
                        r = header_line(&p, &b, &state, line);
                        if (r <= 0)
                                break;
                        first = 1;
                        if (state == STATE_FORMAT)
                                r = format_tokens(&p, &b, &state, first, line);
                        else
                                r = data_tokens(&p, &b, &state, first, line);
                        break;
                case STATE_FORMAT:
                        r = format_tokens(&p, &b, &state, 0, line);
                        break;
                case STATE_DATA:
                        r = data_tokens(&p, &b, &state, 0, line);
                        break;
                }
                if (r < 0)
                        goto out;
                if (r > 0 && state == STATE_TYPE) {
                        r = finish_table(&p, &b, line);
                        if (r < 0)
                                goto out;
                }
        }
        if (state != STATE_TYPE) {
                r = fail(&p, -EINVAL, "line %u: the file ends inside the table that starts on line %u (no END_DATA)",
                         line, b.begin_line);
                goto out;
        }
        if (c->n_tables == 0) {
                r = line == 0 ? fail(&p, -EINVAL, "the file is empty")
                              : fail(&p, -EINVAL, "line %u: no table in the file", line);
                goto out;
        }
        r = 0;
out:
        table_done(&b.t);
        free(p.tok);
        if (r < 0) {
                if (r != -ENOMEM && !p.error)
                        r = -ENOMEM;
                *ret_error = p.error;
                return r;
        }
        free(p.error);
        *ret = TAKE_PTR(c);
        return 0;
}

const char *cgats_table_keyword(const CgatsTable *t, const char *name) {
        for (size_t i = 0; i < t->n_keywords; i++)
                if (streq(t->keywords[2 * i], name))
                        return t->keywords[2 * i + 1];
        return NULL;
}

int cgats_table_field(const CgatsTable *t, const char *name) {
        for (size_t i = 0; i < t->n_fields; i++)
                if (streq(t->fields[i], name))
                        return (int) i;
        return -ENOENT;
}

int cgats_parse_number(const char *s, double *ret) {
        const char *q = s;
        char *end;
        double v;

        /* strtod also takes hex floats, "inf", "nan" and leading blanks: CGATS numbers are
         * plain decimals, so check the characters first. */
        if (*q == '+' || *q == '-')
                q++;
        if (!((*q >= '0' && *q <= '9') || (*q == '.' && q[1] >= '0' && q[1] <= '9')))
                return -EINVAL;
        for (const char *k = q; *k; k++)
                if (!((*k >= '0' && *k <= '9') || *k == '.' || *k == 'e' || *k == 'E' || *k == '+' || *k == '-'))
                        return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (*end != '\0' || !isfinite(v) || errno == ERANGE)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* --- Display measurements --- */

DisplaySamples *display_samples_free(DisplaySamples *s) {
        if (!s)
                return NULL;
        free(s->samples);
        free(s->instrument);
        free(s);
        return NULL;
}

int cgats_fail(char **ret_error, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return -EINVAL;
}

/* Largest magnitude accepted for an XYZ value (cd/m² in absolute files): far above any
 * display, small enough that sums of a few thousand stay finite and meaningful. */
#define DISPLAY_SAMPLES_MAX_XYZ 1e6

int display_samples_from_cgats(const Cgats *c, DisplaySamples **ret, char **ret_error) {
        static const char *const rgb_names[3] = { "RGB_R", "RGB_G", "RGB_B" };
        static const char *const xyz_names[3] = { "XYZ_X", "XYZ_Y", "XYZ_Z" };
        _cleanup_(display_samples_freep) DisplaySamples *s = NULL;
        const CgatsTable *t;
        const char *v;
        int rgb[3], xyz[3];

        *ret = NULL;
        *ret_error = NULL;
        if (c->n_tables == 0)
                return cgats_fail(ret_error, "no table");
        t = &c->tables[0];

        v = cgats_table_keyword(t, "DEVICE_CLASS");
        if (v && !streq(v, "DISPLAY"))
                return cgats_fail(ret_error, "DEVICE_CLASS is \"%s\": not display measurements", v);
        v = cgats_table_keyword(t, "COLOR_REP");
        if (!v)
                return cgats_fail(ret_error, "no COLOR_REP (expected \"RGB_XYZ\")");
        if (!streq(v, "RGB_XYZ"))
                return cgats_fail(ret_error, "COLOR_REP is \"%s\", expected \"RGB_XYZ\" (display RGB with XYZ readings)", v);
        for (size_t i = 0; i < 3; i++) {
                rgb[i] = cgats_table_field(t, rgb_names[i]);
                if (rgb[i] < 0)
                        return cgats_fail(ret_error, "no %s field", rgb_names[i]);
                xyz[i] = cgats_table_field(t, xyz_names[i]);
                if (xyz[i] < 0)
                        return cgats_fail(ret_error, "no %s field", xyz_names[i]);
        }
        if (t->n_sets == 0)
                return cgats_fail(ret_error, "no measurements (NUMBER_OF_SETS is 0)");

        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->samples = calloc(t->n_sets, sizeof(DisplaySample));
        if (!s->samples)
                return -ENOMEM;
        s->n_samples = t->n_sets;

        v = cgats_table_keyword(t, "NORMALIZED_TO_Y_100");
        s->absolute = v && streq(v, "NO");
        double scale = s->absolute ? 1.0 : 0.01;

        v = cgats_table_keyword(t, "LUMINANCE_XYZ_CDM2");
        if (v) {
                char *copy = strdup(v), *save = NULL, *w;
                size_t n = 0;

                if (!copy)
                        return -ENOMEM;
                for (w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                        if (n >= 3 || cgats_parse_number(w, &s->luminance[n]) < 0)
                                break;
                        n++;
                }
                free(copy);
                if (w || n != 3 || !(s->luminance[1] > 0.0) || s->luminance[1] > DISPLAY_SAMPLES_MAX_XYZ ||
                    s->luminance[0] < 0.0 || s->luminance[2] < 0.0 || s->luminance[0] > DISPLAY_SAMPLES_MAX_XYZ ||
                    s->luminance[2] > DISPLAY_SAMPLES_MAX_XYZ)
                        return cgats_fail(ret_error, "LUMINANCE_XYZ_CDM2 \"%s\" is not three numbers X Y Z with Y > 0", v);
                s->has_luminance = true;
        }
        v = cgats_table_keyword(t, "TARGET_INSTRUMENT");
        if (!isempty(v)) {
                s->instrument = strdup(v);
                if (!s->instrument)
                        return -ENOMEM;
        }

        for (size_t i = 0; i < t->n_sets; i++) {
                DisplaySample *d = &s->samples[i];
                const char *const *row = (const char *const *) t->values + i * t->n_fields;

                for (size_t k = 0; k < 3; k++) {
                        double x;

                        if (cgats_parse_number(row[rgb[k]], &x) < 0)
                                return cgats_fail(ret_error, "line %u: %s \"%s\" is not a number", t->set_lines[i],
                                             rgb_names[k], row[rgb[k]]);
                        /* Device values are percent; allow rounding just past the ends. */
                        if (x < -0.001 || x > 100.001)
                                return cgats_fail(ret_error, "line %u: %s %s is outside 0..100", t->set_lines[i],
                                             rgb_names[k], row[rgb[k]]);
                        d->rgb[k] = fmin(fmax(x / 100.0, 0.0), 1.0);

                        if (cgats_parse_number(row[xyz[k]], &x) < 0)
                                return cgats_fail(ret_error, "line %u: %s \"%s\" is not a number", t->set_lines[i],
                                             xyz_names[k], row[xyz[k]]);
                        if (fabs(x) > DISPLAY_SAMPLES_MAX_XYZ)
                                return cgats_fail(ret_error, "line %u: %s %s is out of range", t->set_lines[i],
                                             xyz_names[k], row[xyz[k]]);
                        d->xyz[k] = x * scale;
                }
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int display_samples_parse(const char *buf, size_t len, DisplaySamples **ret, char **ret_error) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        int r;

        r = cgats_parse(buf, len, &c, ret_error);
        if (r < 0) {
                *ret = NULL;
                return r;
        }
        return display_samples_from_cgats(c, ret, ret_error);
}
