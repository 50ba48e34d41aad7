/* SPDX-License-Identifier: GPL-2.0-or-later */
/* .cht layouts (cht.h, docs/cht-format.md). A line-oriented text: keywords at the start of a
 * line, their data on the following lines. Only BOXES and BOX_SHRINK are needed; the other
 * sections (REF_ROTATION, XLIST, YLIST, EXPECTED) are skipped line by line. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cht.h"

#define MAX_TOKENS 16

typedef struct Line {
        unsigned number;
        size_t n;
        char *tok[MAX_TOKENS];
} Line;

static int fail(char **ret_error, int r, unsigned line, const char *fmt, ...) _printf_(4, 5);
static int fail(char **ret_error, int r, unsigned line, const char *fmt, ...) {
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (asprintf(ret_error, "line %u: %s", line, msg) < 0)
                *ret_error = NULL;
        return r;
}

static int number(const char *s, double *ret) {
        char *end = NULL;
        double v;

        if (!s || !*s || !(isdigit((unsigned char) *s) || *s == '-' || *s == '+' || *s == '.'))
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (errno != 0 || *end != '\0' || !isfinite(v))
                return -EINVAL;
        *ret = v;
        return 0;
}

/* The next label of a range, as an odometer: digits 0-9 and letters A-Z each carry into the
 * character before ("A9" → "B0", "Z" → "AA"). -ERANGE when it would grow past the bound. */
static int label_next(char *s) {
        size_t n = strlen(s);

        for (size_t i = n; i > 0; i--) {
                char *c = &s[i - 1];
                if (*c == '9')
                        *c = '0';
                else if (*c == 'Z')
                        *c = 'A';
                else if (*c == 'z')
                        *c = 'a';
                else if (isalnum((unsigned char) *c)) {
                        (*c)++;
                        return 0;
                } else
                        return -EINVAL;
        }
        if (n + 1 > CHT_MAX_LABEL)
                return -ERANGE;
        memmove(s + 1, s, n + 1);
        s[0] = isdigit((unsigned char) s[1]) ? '1' : s[1] == 'a' ? 'a' : 'A';
        return 0;
}

typedef char Label[CHT_MAX_LABEL + 1];

/* The labels from first to last inclusive, at most max; "_" is one empty label. Returns
 * their count with *ret (caller frees). */
static int label_range(const char *first, const char *last, size_t max, Label **ret) {
        _cleanup_free_ Label *out = NULL;
        Label cur;
        size_t n = 0, cap = 0;

        if (streq(first, "_") || streq(last, "_")) {
                if (!streq(first, last))
                        return -EINVAL;
                out = calloc(1, sizeof(Label));
                if (!out)
                        return -ENOMEM;
                *ret = TAKE_PTR(out);
                return 1;
        }
        if (strlen(first) > CHT_MAX_LABEL || strlen(last) > CHT_MAX_LABEL)
                return -ERANGE;
        strcpy(cur, first);
        for (;;) {
                if (n >= max)
                        return -ERANGE;
                if (n == cap) {
                        Label *m = realloc(out, (cap = cap ? 2 * cap : 16) * sizeof(Label));
                        if (!m)
                                return -ENOMEM;
                        out = m;
                }
                strcpy(out[n++], cur);
                if (streq(cur, last)) {
                        *ret = TAKE_PTR(out);
                        return (int) n;
                }
                int r = label_next(cur);
                if (r < 0)
                        return r;
                if (strlen(cur) > strlen(last))
                        return -EINVAL; /* never reaches the last label */
        }
}

static int add_box(Cht *c, const Line *l, char **ret_error) {
        _cleanup_free_ Label *xl = NULL, *yl = NULL;
        double v[6];
        int nx, ny;

        /* kind xfirst xlast yfirst ylast w h x0 y0 xstep ystep; 'X': names are x label then
         * y label, 'Y': y label then x label. */
        if (l->n != 11)
                return fail(ret_error, -EINVAL, l->number, "a patch box needs 11 fields, not %zu", l->n);
        for (size_t i = 0; i < 6; i++)
                if (number(l->tok[5 + i], &v[i]) < 0)
                        return fail(ret_error, -EINVAL, l->number, "'%s' is not a number", l->tok[5 + i]);
        if (!(v[0] > 0 && v[1] > 0))
                return fail(ret_error, -EINVAL, l->number, "a patch box must have a positive size");
        nx = label_range(l->tok[1], l->tok[2], CHT_MAX_PATCHES, &xl);
        ny = label_range(l->tok[3], l->tok[4], CHT_MAX_PATCHES, &yl);
        if (nx == -ENOMEM || ny == -ENOMEM)
                return -ENOMEM;
        if (nx < 0 || ny < 0)
                return fail(ret_error, nx == -ERANGE || ny == -ERANGE ? -EFBIG : -EINVAL, l->number,
                            "bad label range %s..%s / %s..%s", l->tok[1], l->tok[2], l->tok[3], l->tok[4]);
        if (c->n_patches + (size_t) nx * (size_t) ny > CHT_MAX_PATCHES)
                return fail(ret_error, -EFBIG, l->number, "more than %u patches", CHT_MAX_PATCHES);
        ChtPatch *p = realloc(c->patches, (c->n_patches + (size_t) nx * (size_t) ny) * sizeof *p);
        if (!p)
                return -ENOMEM;
        c->patches = p;
        for (int j = 0; j < ny; j++)
                for (int i = 0; i < nx; i++) {
                        ChtPatch *q = &c->patches[c->n_patches++];
                        const char *a = l->tok[0][0] == 'X' ? xl[i] : yl[j], *b = l->tok[0][0] == 'X' ? yl[j] : xl[i];
                        snprintf(q->name, sizeof q->name, "%s%s", a, b);
                        q->x = v[2] + i * v[4];
                        q->y = v[3] + j * v[5];
                        q->w = v[0];
                        q->h = v[1];
                }
        return 0;
}

/* BOXES n, then box lines up to the next keyword: n counts the boxes they make (patches and
 * diagnostic areas; the fiducial line is not counted). */
static int read_boxes(Cht *c, const Line *lines, size_t n_lines, size_t *i, char **ret_error) {
        const Line *head = &lines[*i];
        size_t made = 0;
        double count;
        int r;

        if (head->n != 2 || number(head->tok[1], &count) < 0 || count < 1 || count > CHT_MAX_PATCHES)
                return fail(ret_error, -EINVAL, head->number, "BOXES needs a count");
        while (*i + 1 < n_lines) {
                const Line *l = &lines[*i + 1];
                if (streq(l->tok[0], "F")) {
                        /* F _ _ x0 y0 x1 y1 x2 y2 x3 y3: the fiducial marks */
                        if (l->n != 11)
                                return fail(ret_error, -EINVAL, l->number, "F needs 11 fields");
                        for (size_t j = 0; j < 8; j++)
                                if (number(l->tok[3 + j], &c->corners[j]) < 0)
                                        return fail(ret_error, -EINVAL, l->number, "'%s' is not a number",
                                                    l->tok[3 + j]);
                        c->has_fiducials = true;
                } else if (streq(l->tok[0], "D"))
                        made++; /* a diagnostic area: not sampled */
                else if (streq(l->tok[0], "X") || streq(l->tok[0], "Y")) {
                        size_t before = c->n_patches;
                        r = add_box(c, l, ret_error);
                        if (r < 0)
                                return r;
                        made += c->n_patches - before;
                } else
                        break;
                ++*i;
        }
        if (made != (size_t) count)
                return fail(ret_error, -EINVAL, head->number, "BOXES says %.0f boxes, its lines make %zu", count, made);
        return 0;
}

static int tokenize(char *text, Line **ret, size_t *ret_n, char **ret_error) {
        _cleanup_free_ Line *lines = NULL;
        size_t n = 0, cap = 0;
        unsigned number = 0;

        for (char *s = text; s && *s;) {
                char *eol = strchr(s, '\n');
                Line l = { .number = ++number };

                if (eol)
                        *eol = '\0';
                for (char *t = strtok(s, " \t\r"); t; t = strtok(NULL, " \t\r")) {
                        if (l.n == MAX_TOKENS)
                                return fail(ret_error, -EINVAL, l.number, "more than %u fields", MAX_TOKENS);
                        l.tok[l.n++] = t;
                }
                s = eol ? eol + 1 : NULL;
                if (l.n == 0)
                        continue;
                if (n == cap) {
                        Line *m = realloc(lines, (cap = cap ? 2 * cap : 256) * sizeof *m);
                        if (!m)
                                return -ENOMEM;
                        lines = m;
                }
                lines[n++] = l;
        }
        *ret = TAKE_PTR(lines);
        *ret_n = n;
        return 0;
}

int cht_parse(const char *buf, size_t len, Cht **ret, char **ret_error) {
        _cleanup_(cht_freep) Cht *c = NULL;
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ Line *lines = NULL;
        size_t n_lines = 0;
        bool boxes = false;
        int r;

        *ret_error = NULL;
        if (len > CHT_MAX_SIZE)
                return fail(ret_error, -EFBIG, 0, "larger than %u bytes", CHT_MAX_SIZE);
        if (memchr(buf, '\0', len))
                return fail(ret_error, -EINVAL, 0, "a NUL byte: not a chart layout");
        text = strndup(buf, len);
        c = calloc(1, sizeof *c);
        if (!text || !c)
                return -ENOMEM;
        r = tokenize(text, &lines, &n_lines, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_lines; i++) {
                const Line *l = &lines[i];
                if (streq(l->tok[0], "BOXES")) {
                        if (boxes)
                                return fail(ret_error, -EINVAL, l->number, "a second BOXES");
                        boxes = true;
                        r = read_boxes(c, lines, n_lines, &i, ret_error);
                        if (r < 0)
                                return r;
                } else if (streq(l->tok[0], "BOX_SHRINK")) {
                        if (l->n != 2 || number(l->tok[1], &c->shrink) < 0 || c->shrink < 0)
                                return fail(ret_error, -EINVAL, l->number, "BOX_SHRINK needs a number");
                }
        }
        if (!boxes || c->n_patches == 0)
                return fail(ret_error, -EINVAL, n_lines ? lines[n_lines - 1].number : 0,
                            "no BOXES with patches: not a .cht chart layout");
        for (size_t i = 0; i < c->n_patches; i++)
                if (2 * c->shrink >= c->patches[i].w || 2 * c->shrink >= c->patches[i].h)
                        return fail(ret_error, -EINVAL, 0, "BOX_SHRINK %.3g leaves nothing of patch %s",
                                    c->shrink, c->patches[i].name);
        if (!c->has_fiducials) {
                double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
                for (size_t i = 0; i < c->n_patches; i++) {
                        const ChtPatch *p = &c->patches[i];
                        x0 = fmin(x0, p->x);
                        y0 = fmin(y0, p->y);
                        x1 = fmax(x1, p->x + p->w);
                        y1 = fmax(y1, p->y + p->h);
                }
                double k[8] = { x0, y0, x1, y0, x1, y1, x0, y1 };
                memcpy(c->corners, k, sizeof k);
        }
        *ret = TAKE_PTR(c);
        return 0;
}

Cht *cht_free(Cht *c) {
        if (c) {
                free(c->patches);
                free(c);
        }
        return NULL;
}

bool cht_names_equal(const char *a, const char *b) {
        while (*a && *b) {
                if (isdigit((unsigned char) *a) && isdigit((unsigned char) *b)) {
                        while (*a == '0' && isdigit((unsigned char) a[1]))
                                a++;
                        while (*b == '0' && isdigit((unsigned char) b[1]))
                                b++;
                        size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
                        if (na != nb || strncmp(a, b, na) != 0)
                                return false;
                        a += na;
                        b += nb;
                } else {
                        if (toupper((unsigned char) *a) != toupper((unsigned char) *b))
                                return false;
                        a++;
                        b++;
                }
        }
        return *a == *b;
}

int cht_find_patch(const Cht *c, const char *name) {
        for (size_t i = 0; i < c->n_patches; i++)
                if (cht_names_equal(c->patches[i].name, name))
                        return (int) i;
        return -ENOENT;
}
