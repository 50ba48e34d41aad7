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
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_CACHE_PUT, &st);
        if (r < 0)
                return r;
        /* ?1 path, ?2 size, ?3 mtime_ns, ?4 inode, ?5 checksum, ?6 description, ?7 title,
         * ?8 copyright, ?9 kind, ?10 colorspace, ?11 has_vcgt, ?12 created, ?13 metadata,
         * ?14 warnings, ?15 tags_ignored (store.c's STMT_CACHE_PUT) */
        r = store_cache_bind_identity(st, path, size, mtime_ns, inode);
        if (r >= 0)
                r = store_bind_text(st, 5, STORE_FAILED_MARK);
        if (r >= 0)
                r = store_bind_text(st, 6, reason);
        if (r >= 0)
                r = store_bind_text(st, 9, "unknown");
        if (r >= 0)
                r = store_bind_text(st, 10, "unknown");
        if (r >= 0)
                r = store_errno(sqlite3_bind_int(st, 11, 0));
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 12, (int64_t) dev)); /* created: the device */
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 15, 0));
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
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
