/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include "chain-index.h"

#include <errno.h>
#include <stdint.h>

static const char *key_of(const ChainIndex *ci, const void *obj) {
        return *(char *const *) ((const uint8_t *) obj + ci->key_offset);
}

static void **link_of(const ChainIndex *ci, const void *obj) {
        return (void **) ((uint8_t *) obj + ci->next_offset);
}

int chain_index_init(ChainIndex *ci) {
        ci->map = hashmap_new();
        return ci->map ? 0 : -ENOMEM;
}

void chain_index_done(ChainIndex *ci) {
        ci->map = hashmap_free(ci->map);
}

int chain_index_add(ChainIndex *ci, void *obj) {
        const char *key = key_of(ci, obj);
        if (!key)
                return 0;
        *link_of(ci, obj) = NULL;
        void *o = hashmap_get(ci->map, key);
        if (!o)
                return hashmap_put(ci->map, key, obj);
        while (*link_of(ci, o))
                o = *link_of(ci, o);
        *link_of(ci, o) = obj;
        return 0;
}

void chain_index_remove(ChainIndex *ci, void *obj) {
        const char *key = key_of(ci, obj);
        if (!key)
                return;
        void *o = hashmap_get(ci->map, key), *next = *link_of(ci, obj);
        *link_of(ci, obj) = NULL;
        if (o == obj) {
                /* The map borrows the key from the first object: replace re-keys the entry
                 * on the next one without allocating. */
                if (next)
                        (void) hashmap_replace(ci->map, key_of(ci, next), next);
                else
                        hashmap_remove(ci->map, key);
                return;
        }
        for (; o; o = *link_of(ci, o))
                if (*link_of(ci, o) == obj) {
                        *link_of(ci, o) = next;
                        return;
                }
        assert(!next); /* an object that is not in the chain of its key links nowhere */
}

void *chain_index_first(const ChainIndex *ci, const char *key) {
        return key ? hashmap_get(ci->map, key) : NULL;
}

void *chain_index_next(const ChainIndex *ci, const void *obj) {
        return *link_of(ci, obj);
}
