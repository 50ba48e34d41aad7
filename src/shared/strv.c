/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "strv.h"

#include <stdlib.h>
#include <string.h>

char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **s = l; *s; s++)
                free(*s);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l) {
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

int strv_consume(char ***l, char *s) {
        size_t n = strv_length(*l);
        char **t = realloc(*l, sizeof(char *) * (n + 2));
        if (!t)
                return -ENOMEM;
        t[n] = s;
        t[n + 1] = NULL;
        *l = t;
        return 0;
}

int strv_extend(char ***l, const char *s) {
        char *c = strdup(s);
        if (!c)
                return -ENOMEM;
        int r = strv_consume(l, c);
        if (r < 0)
                free(c);
        return r;
}

bool strv_contains(char *const *l, const char *s) {
        STRV_FOREACH(i, l)
                if (streq(*i, s))
                        return true;
        return false;
}

char **strv_copy(char *const *l) {
        char **r = calloc(strv_length(l) + 1, sizeof(char *));
        if (!r)
                return NULL;
        size_t n = 0;
        STRV_FOREACH(i, l) {
                r[n] = strdup(*i);
                if (!r[n])
                        return strv_free(r);
                n++;
        }
        return r;
}

bool strv_remove(char **l, const char *s) {
        bool removed = false;
        char **w = l;
        if (!l)
                return false;
        for (char **r = l; *r; r++) {
                if (streq(*r, s)) {
                        free(*r);
                        removed = true;
                } else
                        *w++ = *r;
        }
        *w = NULL;
        return removed;
}
