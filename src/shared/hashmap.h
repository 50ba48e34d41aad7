/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A string-keyed hash table (separate chaining, seeded hash so clients cannot choose
 * colliding ids). Keys are borrowed: the caller keeps each key alive while it is stored,
 * normally because the key is a field of the stored value. */
#pragma once

#include <stddef.h>
#include <stdbool.h>

typedef struct Hashmap Hashmap;

Hashmap *hashmap_new(void);
Hashmap *hashmap_free(Hashmap *h);

/* -EEXIST if the key is present, -ENOMEM on allocation failure. */
int hashmap_put(Hashmap *h, const char *key, void *value);
/* Replaces any existing value, and the borrowed key pointer with this one (no allocation then). */
int hashmap_replace(Hashmap *h, const char *key, void *value);
void *hashmap_get(const Hashmap *h, const char *key);
/* Returns the removed value or NULL. */
void *hashmap_remove(Hashmap *h, const char *key);
/* Removes the key only if it maps to this value. */
bool hashmap_remove_value(Hashmap *h, const char *key, void *value);
size_t hashmap_size(const Hashmap *h);

/* Iteration: `void *i = NULL; const char *k; void *v; while (hashmap_iterate(h, &i, &k, &v))`.
 * The map must not be modified while iterating. */
bool hashmap_iterate(const Hashmap *h, void **state, const char **ret_key, void **ret_value);

#include "macro.h"
DEFINE_TRIVIAL_CLEANUP_FUNC(Hashmap *, hashmap_free);
