/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parsed-ICC cache: one row per file path holding the file's identity (size, mtime in
 * ns, inode) and the fields of its IccInfo, so a restart re-parses only files that changed.
 *
 * Deliberate limits: the cache trusts the identity triple (a file rewritten in place with
 * the same size within one mtime tick would be missed; nanosecond mtimes make that
 * unlikely). It never parses anything itself, and an unusable row is reported as a miss so
 * the caller simply parses the file again. String lists are stored as blobs of
 * NUL-terminated strings, which is compact and needs no per-entry rows. */
#include "store-internal.h"
#include "store-failed.h"

#include "icc-info.h"
#include "log.h"
#include "names.h"
#include "hashmap.h"
#include "strv.h"

/* size and inode are stored bit for bit in SQLite's signed 64-bit integers. */
int store_cache_bind_identity(sqlite3_stmt *st, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode) {
        int r = store_bind_text(st, 1, path);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 2, (int64_t) size));
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 3, mtime_ns));
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 4, (int64_t) inode));
        return r;
}

int store_profile_cache_put(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode,
                            const IccInfo *info) {
        if (!path || !info)
                return -EINVAL;
        if (strv_length(info->metadata) % 2 != 0)
                return -EINVAL;

        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_CACHE_PUT, &st);
        if (r < 0)
                return r;
        char checksum[sizeof info->checksum];
        memcpy(checksum, info->checksum, sizeof checksum);
        checksum[sizeof checksum - 1] = '\0';
        if (r >= 0)
                r = store_cache_bind_identity(st, path, size, mtime_ns, inode);
        if (r >= 0)
                r = store_bind_text(st, 5, checksum);
        if (r >= 0)
                r = store_bind_text(st, 6, info->description);
        if (r >= 0)
                r = store_bind_text(st, 7, info->title);
        if (r >= 0)
                r = store_bind_text(st, 8, info->copyright);
        if (r >= 0)
                r = store_bind_text(st, 9, info->kind ?: "unknown");
        if (r >= 0)
                r = store_bind_text(st, 10, info->colorspace ?: "unknown");
        if (r >= 0)
                r = store_errno(sqlite3_bind_int(st, 11, info->has_vcgt));
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 12, info->created));
        if (r >= 0)
                r = store_bind_strv(st, 13, info->metadata);
        if (r >= 0)
                r = store_bind_strv(st, 14, info->warnings);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 15, info->tags_ignored));
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_profile_cache_set_warnings(Store *s, const char *path, uint64_t size, int64_t mtime_ns,
                                     uint64_t inode, char *const *warnings) {
        if (!path || !warnings)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_CACHE_SET_WARNINGS, &st);
        if (r >= 0)
                r = store_cache_bind_identity(st, path, size, mtime_ns, inode);
        if (r >= 0)
                r = store_bind_strv(st, 5, warnings);
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_cache_row(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode, sqlite3_stmt **ret) {
        sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_CACHE_GET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, path);
        if (r >= 0)
                r = store_step_row(s, st);
        *ret = st; /* the caller resets it, whatever came */
        if (r <= 0)
                return r;
        return sqlite3_column_int64(st, 0) == (int64_t) size && sqlite3_column_int64(st, 1) == mtime_ns &&
               sqlite3_column_int64(st, 2) == (int64_t) inode;
}

static int column_text_checked(sqlite3_stmt *st, int col, char **ret) {
        int r = store_column_strdup(st, col, ret);
        if (r < 0)
                return r;
        if (*ret && !utf8_is_valid(*ret, strlen(*ret))) {
                *ret = mfree(*ret);
                return -EBADMSG;
        }
        return 0;
}

int store_profile_cache_get(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode,
                            IccInfo **ret) {
        if (!path || !ret)
                return -EINVAL;

        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_cache_row(s, path, size, mtime_ns, inode, &st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT; /* unknown, or the file changed: the caller re-parses and puts */

        _cleanup_(icc_info_freep) IccInfo *info = calloc(1, sizeof(IccInfo));
        if (!info)
                return -ENOMEM;

        const char *checksum = (const char *) sqlite3_column_text(st, 3);
        if (!checksum || strlen(checksum) >= sizeof info->checksum)
                r = -EBADMSG;
        else if (streq(checksum, STORE_FAILED_MARK))
                return -ENOENT; /* a file that failed to parse (store-failed.h) */
        else
                strcpy(info->checksum, checksum);
        if (r >= 0)
                r = column_text_checked(st, 4, &info->description);
        if (r >= 0)
                r = column_text_checked(st, 5, &info->title);
        if (r >= 0)
                r = column_text_checked(st, 6, &info->copyright);
        if (r >= 0) {
                /* Back to the static strings IccInfo promises; unknown names map to "unknown". */
                info->kind = names_profile_kind_parse((const char *) sqlite3_column_text(st, 7));
                info->colorspace = names_colorspace_parse((const char *) sqlite3_column_text(st, 8));
                info->has_vcgt = sqlite3_column_int(st, 9) != 0;
                info->created = sqlite3_column_int64(st, 10);
                r = store_column_strv(st, 11, &info->metadata);
        }
        if (r >= 0 && strv_length(info->metadata) % 2 != 0)
                r = -EBADMSG;
        if (r >= 0)
                r = store_column_strv(st, 12, &info->warnings);
        if (r >= 0) {
                int64_t t = sqlite3_column_int64(st, 13);
                info->tags_ignored = t < 0 || t > UINT32_MAX ? 0 : (unsigned) t;
        }
        if (r == -EBADMSG) {
                log_debug("Cached entry for %s is unusable; treating it as a miss.", path);
                return -ENOENT;
        }
        if (r < 0)
                return r;

        *ret = TAKE_PTR(info);
        return 0;
}

int store_profile_cache_prune(Store *s, char *const *live_paths) {
        _cleanup_(hashmap_freep) Hashmap *live = hashmap_new();
        if (!live)
                return -ENOMEM;
        STRV_FOREACH(p, live_paths) {
                int r = hashmap_put(live, *p, (void *) *p);
                if (r < 0 && r != -EEXIST)
                        return r;
        }

        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;

        /* Collect first: deleting rows of the table a statement is still walking is not
         * something to rely on. */
        _cleanup_strv_free_ char **dead = NULL;
        size_t n_dead = 0;
        {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_CACHE_PATHS, &st);
                while (r >= 0 && (r = store_step_row(s, st)) > 0) {
                        const char *path = (const char *) sqlite3_column_text(st, 0);
                        if (!path || hashmap_get(live, path))
                                continue;
                        r = strv_extend(&dead, path);
                        n_dead++;
                }
        }
        STRV_FOREACH(p, dead) {
                if (r < 0)
                        break;
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_CACHE_DELETE, &st);
                if (r >= 0)
                        r = store_bind_text(st, 1, *p);
                if (r >= 0)
                        r = store_step_done(s, st);
        }
        r = store_op_end(s, &op, r);
        if (r < 0)
                return r;
        return (int) (n_dead > INT32_MAX ? INT32_MAX : n_dead);
}

int store_profile_cache_count(Store *s, size_t *ret) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_CACHE_COUNT, &st);
        if (r >= 0)
                r = store_step_row(s, st);
        if (r < 0)
                return r;
        *ret = r > 0 ? (size_t) sqlite3_column_int64(st, 0) : 0;
        return 0;
}
