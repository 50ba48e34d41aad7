/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Several objects under one string key, found in O(1): devices that share an id (one per
 * owner), profiles that name the same file, profiles that ask for the same device. The
 * hashmap holds the first object of each key; each object links to the next, so the chain
 * keeps creation order and removal costs the chain's length, not the registry's size. */
#pragma once

#include <stddef.h>

#include "hashmap.h"

typedef struct ChainIndex {
        Hashmap *map;
        size_t key_offset;  /* of the object's `char *` key: alive and unchanged while indexed */
        size_t next_offset; /* of the object's `void *` link, NULL when not indexed */
} ChainIndex;

#define CHAIN_INDEX_INIT(type, key_field, next_field) \
        ((ChainIndex) { .key_offset = offsetof(type, key_field), .next_offset = offsetof(type, next_field) })

/* -ENOMEM. */
int chain_index_init(ChainIndex *ci);
void chain_index_done(ChainIndex *ci);

/* Appends obj to its key's chain; objects with a NULL key are not indexed. */
int chain_index_add(ChainIndex *ci, void *obj);
/* Unlinks obj if indexed; its key must be the one it was added with. */
void chain_index_remove(ChainIndex *ci, void *obj);

void *chain_index_first(const ChainIndex *ci, const char *key);
void *chain_index_next(const ChainIndex *ci, const void *obj);
