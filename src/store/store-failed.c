/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Failed files in the profile cache's table (store-failed.h): the cache's own statements,
 * STORE_FAILED_MARK as the checksum, the reason in the description column, the device number
 * in the created column. */
#include "store-failed.h"

#include <assert.h>

#include "store-internal.h"

int store_failed_put(Store *s, const char *path, uint64_t dev, uint64_t size, int64_t mtime_ns, uint64_t inode,
                     const char *reason) {
        assert(path);
        /* store-cache.c's put: path, size, mtime_ns, inode, checksum, description, title,
         * copyright, kind, colorspace, has_vcgt, created (here the device), metadata, warnings,
         * tags_ignored. */
        return store_exec(s, &store_cache_sql_put, NULL, ARG_TEXT(path), ARG_INT(size), ARG_INT(mtime_ns),
                          ARG_INT(inode), ARG_TEXT(STORE_FAILED_MARK), ARG_TEXT(reason), ARG_TEXT(NULL),
                          ARG_TEXT(NULL), ARG_TEXT("unknown"), ARG_TEXT("unknown"), ARG_INT(0), ARG_INT(dev),
                          ARG_STRV(NULL), ARG_STRV(NULL), ARG_INT(0));
}

int store_failed_get(Store *s, const char *path, uint64_t dev, uint64_t size, int64_t mtime_ns, uint64_t inode,
                     char **ret_reason) {
        assert(path);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_cache_row(s, path, size, mtime_ns, inode, &st);
        if (r <= 0)
                return r;
        /* columns: 3 checksum, 4 description, 10 created (the device) */
        const char *checksum = (const char *) sqlite3_column_text(st, 3);
        if (!checksum || !streq(checksum, STORE_FAILED_MARK) || sqlite3_column_int64(st, 10) != (int64_t) dev)
                return 0;
        if (ret_reason) {
                r = store_column_strdup(st, 4, ret_reason);
                if (r < 0)
                        return r;
        }
        return 1;
}
