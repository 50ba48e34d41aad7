/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualifier.h"

#include <stddef.h>
#include <string.h>

typedef struct Part {
        const char *s;
        size_t len;
        bool present;
} Part;

/* Splits into at most three parts without copying; the last part keeps any further dots. */
static void split3(const char *s, Part parts[3]) {
        for (int i = 0; i < 3; i++) {
                if (!s) {
                        parts[i] = (Part) { 0 };
                        continue;
                }
                const char *dot = i < 2 ? strchr(s, '.') : NULL;
                size_t len = dot ? (size_t) (dot - s) : strlen(s);
                parts[i] = (Part) { .s = s, .len = len, .present = true };
                s = dot ? dot + 1 : NULL;
        }
}

static bool is_star(const Part *p) {
        return p->present && p->len == 1 && p->s[0] == '*';
}

bool qualifier_match(const char *query, const char *profile_qualifier) {
        if (!query)
                return false;
        if (strcmp(query, "*") == 0)
                return true;
        if (!profile_qualifier)
                return false;

        Part q[3], p[3];
        split3(query, q);
        split3(profile_qualifier, p);
        for (int i = 0; i < 3; i++) {
                if (!q[i].present && !p[i].present)
                        continue;
                if (!q[i].present || !p[i].present)
                        return false;
                if (is_star(&q[i]) || is_star(&p[i]))
                        continue;
                if (q[i].len != p[i].len || memcmp(q[i].s, p[i].s, q[i].len) != 0)
                        return false;
        }
        return true;
}
