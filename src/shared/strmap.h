/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small ordered string→string dictionary for object metadata (a{ss} on the bus).
 * Insertion order is kept so replies are stable; lookups are linear because metadata
 * dictionaries are bounded to a few dozen entries by the daemon. */
#pragma once

#include <stddef.h>
#include "macro.h"

typedef struct StrMapEntry {
        char *key;
        char *value;
} StrMapEntry;

typedef struct StrMap {
        StrMapEntry *entries;
        size_t n;
} StrMap;

void strmap_clear(StrMap *m);
/* Copies key and value; replaces the value of an existing key in place. */
int strmap_set(StrMap *m, const char *key, const char *value);
const char *strmap_get(const StrMap *m, const char *key);
bool strmap_remove(StrMap *m, const char *key);
/* Merges key,value,...,NULL pairs (as IccInfo.metadata holds them). */
int strmap_set_pairs(StrMap *m, char *const *pairs);
