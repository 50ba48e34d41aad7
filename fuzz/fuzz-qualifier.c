/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for qualifier matching (src/shared/qualifier.c). The input is split at
 * its first NUL byte into a query and a profile qualifier (no NUL: the profile has none).
 * Checked against the rules of qualifier.h: results are deterministic; a qualifier always
 * matches itself and "*"; a NULL query matches nothing; a profile without a qualifier
 * matches only "*"; matching is symmetric (both sides follow the same part rules); and
 * replacing any one part of a matching query by "*" still matches. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qualifier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The query with part i (0-2, split as qualifier.h says) replaced by "*"; NULL if it has
 * no part i. */
static char *star_part(const char *q, int i) {
        const char *start = q;
        for (int k = 0; k < i; k++) {
                start = strchr(start, '.');
                if (!start)
                        return NULL;
                start++;
        }
        const char *end = i < 2 ? strchr(start, '.') : NULL;
        if (!end)
                end = start + strlen(start);
        size_t head = (size_t) (start - q), tail = strlen(end);
        char *r = malloc(head + 1 + tail + 1);
        if (!r)
                abort();
        memcpy(r, q, head);
        r[head] = '*';
        memcpy(r + head + 1, end, tail + 1);
        return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *nul = memchr(data, 0, size);
        size_t qlen = nul ? (size_t) (nul - data) : size;
        char *query = strndup((const char *) data, qlen);
        char *profile = nul ? strndup((const char *) nul + 1, size - qlen - 1) : NULL;
        if (!query || (nul && !profile))
                abort();

        bool m = qualifier_match(query, profile);
        if (qualifier_match(query, profile) != m)
                abort();
        if (!qualifier_match("*", profile) || qualifier_match(NULL, profile))
                abort();
        if (!qualifier_match(query, query))
                abort();
        if (!profile && m != (strcmp(query, "*") == 0))
                abort();
        /* Symmetric, except for the whole-query "*" which has no profile-side meaning. */
        if (profile && strcmp(query, "*") != 0 && strcmp(profile, "*") != 0 &&
            qualifier_match(profile, query) != m)
                abort();
        if (m)
                for (int i = 0; i < 3; i++) {
                        char *s = star_part(query, i);
                        if (s && !qualifier_match(s, profile))
                                abort();
                        free(s);
                }
        free(query);
        free(profile);
        return 0;
}
