/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profile files that failed to parse, remembered by identity (path, size, mtime in ns, inode)
 * so that a rescan or a restart does not hand them to the parser again until they change
 * (issue 19: three hostile files once cost 30 s at every start and every rescan).
 *
 * They live in the parsed-ICC cache's table and are written and read in store-cache.c,
 * beside that table's SQL, one row per path like a parsed
 * file, marked by the checksum STORE_FAILED_MARK (never one of the 32 hex digits of a real
 * profile's), which the cache reads as a miss: a file that is fixed
 * gets a new identity and is parsed, parsed rows and failed rows replace each other, and
 * the cache's prune forgets a failure with its file. No schema change: the device number,
 * part of a failed file's identity, is kept in the row's `created` column, which only
 * parsed profiles use. */
#pragma once

#include <stdint.h>

#include "store.h"

#define STORE_FAILED_MARK "-"

/* Remembers that path, with this identity, failed for reason (may be NULL). */
int store_failed_put(Store *s, const char *path, uint64_t dev, uint64_t size, int64_t mtime_ns, uint64_t inode,
                     const char *reason);
/* 1 when path failed before with this very identity (*ret_reason gets the reason, may be
 * NULL), 0 when not, or when it has changed since; negative errno on a store error. */
int store_failed_get(Store *s, const char *path, uint64_t dev, uint64_t size, int64_t mtime_ns, uint64_t inode,
                     char **ret_reason);
