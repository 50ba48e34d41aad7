/* SPDX-License-Identifier: GPL-2.0-or-later */
/* NULL-terminated string arrays. */
#pragma once

#include <stddef.h>
#include "macro.h"

char **strv_free(char **l);
size_t strv_length(char *const *l);
/* Appends a copy of s; -ENOMEM on failure (the array is unchanged then). */
int strv_extend(char ***l, const char *s);
/* Appends s itself (ownership taken on success). */
int strv_consume(char ***l, char *s);
bool strv_contains(char *const *l, const char *s);
char **strv_copy(char *const *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);
#define _cleanup_strv_free_ _cleanup_(strv_freep)
#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
/* Removes every entry equal to s (in place). Returns true if any was removed. */
bool strv_remove(char **l, const char *s);
static inline bool strv_isempty(char *const *l) {
        return !l || !l[0];
}
