/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

void strmap_clear(StrMap *m) {
        for (size_t i = 0; i < m->n; i++) {
                free(m->entries[i].key);
                free(m->entries[i].value);
        }
        free(m->entries);
        *m = (StrMap) { 0 };
}

static StrMapEntry *find(const StrMap *m, const char *key) {
        for (size_t i = 0; i < m->n; i++)
                if (streq(m->entries[i].key, key))
                        return &m->entries[i];
        return NULL;
}

int strmap_set(StrMap *m, const char *key, const char *value) {
        _cleanup_free_ char *v = strdup(value);
        if (!v)
                return -ENOMEM;
        StrMapEntry *e = find(m, key);
        if (e) {
                free(e->value);
                e->value = TAKE_PTR(v);
                return 0;
        }
        _cleanup_free_ char *k = strdup(key);
        if (!k)
                return -ENOMEM;
        StrMapEntry *n = realloc(m->entries, sizeof *n * (m->n + 1));
        if (!n)
                return -ENOMEM;
        m->entries = n;
        m->entries[m->n++] = (StrMapEntry) { .key = TAKE_PTR(k), .value = TAKE_PTR(v) };
        return 0;
}

const char *strmap_get(const StrMap *m, const char *key) {
        StrMapEntry *e = find(m, key);
        return e ? e->value : NULL;
}

bool strmap_remove(StrMap *m, const char *key) {
        StrMapEntry *e = find(m, key);
        if (!e)
                return false;
        free(e->key);
        free(e->value);
        size_t i = (size_t) (e - m->entries);
        memmove(e, e + 1, sizeof *e * (m->n - i - 1));
        m->n--;
        return true;
}

int strmap_set_pairs(StrMap *m, char *const *pairs) {
        for (size_t i = 0; pairs && pairs[i] && pairs[i + 1]; i += 2) {
                int r = strmap_set(m, pairs[i], pairs[i + 1]);
                if (r < 0)
                        return r;
        }
        return 0;
}
