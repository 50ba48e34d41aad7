/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Chained hash table with power-of-two bucket counts, grown at load factor 1. */
#include <assert.h>
#include "hashmap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

typedef struct Entry {
        struct Entry *next;
        const char *key;
        void *value;
        uint64_t hash;
} Entry;

struct Hashmap {
        Entry **buckets;
        size_t n_buckets;
        size_t size;
        uint64_t seed;
};

static uint64_t hash_string(const char *s, uint64_t seed) {
        /* FNV-1a over the bytes, mixed with a per-map random seed and a final avalanche. */
        uint64_t h = 0xcbf29ce484222325ULL ^ seed;
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= 0x100000001b3ULL;
        }
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        return h;
}

Hashmap *hashmap_new(void) {
        Hashmap *h = calloc(1, sizeof *h);
        if (!h)
                return NULL;
        h->n_buckets = 16;
        h->buckets = calloc(h->n_buckets, sizeof *h->buckets);
        if (!h->buckets) {
                free(h);
                return NULL;
        }
        if (getrandom(&h->seed, sizeof h->seed, GRND_NONBLOCK) != sizeof h->seed)
                h->seed = (uint64_t) (uintptr_t) h;
        return h;
}

Hashmap *hashmap_free(Hashmap *h) {
        if (!h)
                return NULL;
        for (size_t i = 0; i < h->n_buckets; i++)
                for (Entry *e = h->buckets[i], *n; e; e = n) {
                        n = e->next;
                        free(e);
                }
        free(h->buckets);
        free(h);
        return NULL;
}

static Entry **find_slot(const Hashmap *h, const char *key, uint64_t hash) {
        Entry **p = &h->buckets[hash & (h->n_buckets - 1)];
        for (; *p; p = &(*p)->next)
                if ((*p)->hash == hash && strcmp((*p)->key, key) == 0)
                        break;
        return p;
}

static void grow(Hashmap *h) {
        size_t n = h->n_buckets * 2;
        Entry **b = calloc(n, sizeof *b);
        if (!b)
                return; /* stay at the old size: slower, still correct */
        for (size_t i = 0; i < h->n_buckets; i++)
                for (Entry *e = h->buckets[i], *next; e; e = next) {
                        next = e->next;
                        Entry **slot = &b[e->hash & (n - 1)];
                        e->next = *slot;
                        *slot = e;
                }
        free(h->buckets);
        h->buckets = b;
        h->n_buckets = n;
}

static int put(Hashmap *h, const char *key, void *value, bool replace) {
        assert(h && key); /* the map borrows the key: it must outlive the entry */
        uint64_t hash = hash_string(key, h->seed);
        Entry **slot = find_slot(h, key, hash);
        if (*slot) {
                if (!replace)
                        return -EEXIST;
                (*slot)->key = key;
                (*slot)->value = value;
                return 0;
        }
        Entry *e = malloc(sizeof *e);
        if (!e)
                return -ENOMEM;
        *e = (Entry) { .key = key, .value = value, .hash = hash };
        *slot = e;
        if (++h->size > h->n_buckets)
                grow(h);
        return 0;
}

int hashmap_put(Hashmap *h, const char *key, void *value) {
        return put(h, key, value, false);
}

int hashmap_replace(Hashmap *h, const char *key, void *value) {
        return put(h, key, value, true);
}

void *hashmap_get(const Hashmap *h, const char *key) {
        if (!h || !key)
                return NULL;
        Entry *e = *find_slot(h, key, hash_string(key, h->seed));
        return e ? e->value : NULL;
}

static void *remove_entry(Hashmap *h, const char *key, void *match, bool use_match) {
        if (!h || !key)
                return NULL;
        Entry **slot = find_slot(h, key, hash_string(key, h->seed));
        Entry *e = *slot;
        if (!e || (use_match && e->value != match))
                return NULL;
        void *v = e->value;
        *slot = e->next;
        free(e);
        assert(h->size > 0);
        h->size--;
        return v;
}

void *hashmap_remove(Hashmap *h, const char *key) {
        return remove_entry(h, key, NULL, false);
}

bool hashmap_remove_value(Hashmap *h, const char *key, void *value) {
        return remove_entry(h, key, value, true) != NULL;
}

size_t hashmap_size(const Hashmap *h) {
        return h ? h->size : 0;
}

bool hashmap_iterate(const Hashmap *h, void **state, const char **ret_key, void **ret_value) {
        /* state encodes (bucket index + 1) in the low part and the entry pointer; keep it
         * simple: state points at the last returned entry, and we find its successor. */
        if (!h)
                return false;
        Entry *e = *state;
        size_t b;
        if (e) {
                if (e->next) {
                        e = e->next;
                        goto found;
                }
                b = (e->hash & (h->n_buckets - 1)) + 1;
        } else
                b = 0;
        for (; b < h->n_buckets; b++)
                if (h->buckets[b]) {
                        e = h->buckets[b];
                        goto found;
                }
        return false;
found:
        *state = e;
        if (ret_key)
                *ret_key = e->key;
        if (ret_value)
                *ret_value = e->value;
        return true;
}
