/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parsed-ICC cache: one row per file path holding the file's identity (size, mtime in
 * ns, inode) and the fields of its IccInfo, so a restart re-parses only files that changed.
 *
 * Deliberate limits: the cache trusts the identity triple (a file rewritten in place with
 * the same size within one mtime tick would be missed; nanosecond mtimes make that
 * unlikely). It never parses anything itself, and an unusable row is reported as a miss so
 * the caller simply parses the file again. Files that failed to parse are rows of the same
 * table (store-failed.h), written and read here so the table's SQL has one home. String lists are stored as blobs of
 * NUL-terminated strings, which is compact and needs no per-entry rows. */
#include "store-internal.h"
#include "store-failed.h"

#include <assert.h>

#include "icc-info.h"
#include "log.h"
#include "names.h"
#include "hashmap.h"
#include "strv.h"

static const StoreSql sql_get = {
        STMT_CACHE_GET,
        "SELECT size, mtime_ns, inode, checksum, description, title, copyright, kind, colorspace, "
        "has_vcgt, created, metadata, warnings, tags_ignored FROM profile_cache WHERE path = ?1",
};
static const StoreSql sql_put = {
        STMT_CACHE_PUT,
        "INSERT INTO profile_cache (path, size, mtime_ns, inode, checksum, description, title, "
        "copyright, kind, colorspace, has_vcgt, created, metadata, warnings, tags_ignored) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
        "ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
        "inode = excluded.inode, checksum = excluded.checksum, description = excluded.description, "
        "title = excluded.title, copyright = excluded.copyright, kind = excluded.kind, "
        "colorspace = excluded.colorspace, has_vcgt = excluded.has_vcgt, created = excluded.created, "
        "metadata = excluded.metadata, warnings = excluded.warnings, "
        "tags_ignored = excluded.tags_ignored",
};
static const StoreSql sql_set_warnings = {
        STMT_CACHE_SET_WARNINGS,
        "UPDATE profile_cache SET warnings = ?5 WHERE path = ?1 AND size = ?2 AND mtime_ns = ?3 AND inode = ?4",
};
static const StoreSql sql_delete = { STMT_CACHE_DELETE, "DELETE FROM profile_cache WHERE path = ?1" };
static const StoreSql sql_paths = { STMT_CACHE_PATHS, "SELECT path FROM profile_cache" };
static const StoreSql sql_count = { STMT_CACHE_COUNT, "SELECT count(*) FROM profile_cache" };

/* size and inode are stored bit for bit in SQLite's signed 64-bit integers. */
int store_profile_cache_put(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode,
                            const IccInfo *info) {
        assert(path && info);
        assert(strv_length(info->metadata) % 2 == 0); /* key, value, ... (the parser's reply is checked) */

        char checksum[sizeof info->checksum];
        memcpy(checksum, info->checksum, sizeof checksum);
        checksum[sizeof checksum - 1] = '\0';
        return store_exec(s, &sql_put, NULL, ARG_TEXT(path), ARG_INT(size), ARG_INT(mtime_ns), ARG_INT(inode),
                          ARG_TEXT(checksum), ARG_TEXT(info->description), ARG_TEXT(info->title),
                          ARG_TEXT(info->copyright), ARG_TEXT(info->kind ?: "unknown"),
                          ARG_TEXT(info->colorspace ?: "unknown"), ARG_INT(info->has_vcgt), ARG_INT(info->created),
                          ARG_STRV(info->metadata), ARG_STRV(info->warnings), ARG_INT(info->tags_ignored));
}

int store_profile_cache_set_warnings(Store *s, const char *path, uint64_t size, int64_t mtime_ns,
                                     uint64_t inode, char *const *warnings) {
        assert(path && warnings);
        return store_exec(s, &sql_set_warnings, NULL, ARG_TEXT(path), ARG_INT(size), ARG_INT(mtime_ns),
                          ARG_INT(inode), ARG_STRV(warnings));
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

/* The row's IccInfo; -EBADMSG when a field is not what put() writes. */
static int info_from_row(sqlite3_stmt *st, IccInfo **ret) {
        _cleanup_(icc_info_freep) IccInfo *info = calloc(1, sizeof(IccInfo));
        if (!info)
                return -ENOMEM;

        const char *checksum = (const char *) sqlite3_column_text(st, 3);
        if (!checksum || strlen(checksum) >= sizeof info->checksum)
                return -EBADMSG;
        strcpy(info->checksum, checksum);
        int r = column_text_checked(st, 4, &info->description);
        if (r < 0)
                return r;
        r = column_text_checked(st, 5, &info->title);
        if (r < 0)
                return r;
        r = column_text_checked(st, 6, &info->copyright);
        if (r < 0)
                return r;
        /* Back to the static strings IccInfo promises; unknown names map to "unknown". */
        info->kind = names_profile_kind_parse((const char *) sqlite3_column_text(st, 7));
        info->colorspace = names_colorspace_parse((const char *) sqlite3_column_text(st, 8));
        info->has_vcgt = sqlite3_column_int(st, 9) != 0;
        info->created = sqlite3_column_int64(st, 10);
        r = store_column_strv(st, 11, &info->metadata);
        if (r < 0)
                return r;
        if (strv_length(info->metadata) % 2 != 0)
                return -EBADMSG;
        r = store_column_strv(st, 12, &info->warnings);
        if (r < 0)
                return r;
        int64_t t = sqlite3_column_int64(st, 13);
        info->tags_ignored = t < 0 || t > UINT32_MAX ? 0 : (unsigned) t;
        *ret = TAKE_PTR(info);
        return 0;
}

/* path's row, 1 when it describes this identity (*ret on it: columns 3.. are the cached
 * facts), 0 when there is none or the file changed; *ret is set for _cleanup_stmt_reset_. */
static int cache_row(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode, sqlite3_stmt **ret) {
        int r = store_exec(s, &sql_get, ret, ARG_TEXT(path));
        if (r <= 0)
                return r;
        return sqlite3_column_int64(*ret, 0) == (int64_t) size && sqlite3_column_int64(*ret, 1) == mtime_ns &&
               sqlite3_column_int64(*ret, 2) == (int64_t) inode;
}

int store_profile_cache_get(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode,
                            IccInfo **ret) {
        assert(path && ret);

        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = cache_row(s, path, size, mtime_ns, inode, &st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT; /* unknown, or the file changed: the caller re-parses and puts */
        const char *checksum = (const char *) sqlite3_column_text(st, 3);
        if (checksum && streq(checksum, STORE_FAILED_MARK))
                return -ENOENT; /* a file that failed to parse (store-failed.h) */

        r = info_from_row(st, ret);
        if (r == -EBADMSG) {
                log_debug("Cached entry for %s is unusable; treating it as a miss.", path);
                return -ENOENT;
        }
        return r;
}

/* A failed file's row (store-failed.h): STORE_FAILED_MARK as the checksum, the reason in
 * the description column, the device number in the created column. */
int store_failed_put(Store *s, const char *path, uint64_t dev, uint64_t size, int64_t mtime_ns, uint64_t inode,
                     const char *reason) {
        assert(path);
        return store_exec(s, &sql_put, NULL, ARG_TEXT(path), ARG_INT(size), ARG_INT(mtime_ns), ARG_INT(inode),
                          ARG_TEXT(STORE_FAILED_MARK), ARG_TEXT(reason), ARG_TEXT(NULL), ARG_TEXT(NULL),
                          ARG_TEXT("unknown"), ARG_TEXT("unknown"), ARG_INT(0), ARG_INT(dev), ARG_STRV(NULL),
                          ARG_STRV(NULL), ARG_INT(0));
}

int store_failed_get(Store *s, const char *path, uint64_t dev, uint64_t size, int64_t mtime_ns, uint64_t inode,
                     char **ret_reason) {
        assert(path);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = cache_row(s, path, size, mtime_ns, inode, &st);
        if (r <= 0)
                return r;
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

/* The cached paths not in live. Collected before deleting: deleting rows of the table a
 * statement is still walking is not something to rely on. */
static int dead_paths(Store *s, Hashmap *live, char ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **dead = NULL;
        size_t n = 0;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r;
        for (r = store_exec(s, &sql_paths, &st); r > 0; r = store_step(s, st)) {
                const char *path = (const char *) sqlite3_column_text(st, 0);
                if (!path || hashmap_get(live, path))
                        continue;
                r = strv_extend(&dead, path);
                if (r < 0)
                        return r;
                n++;
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(dead);
        *ret_n = n;
        return 0;
}

/* Inside the caller's transaction; the number of rows removed. */
static int prune_rows(Store *s, Hashmap *live) {
        _cleanup_strv_free_ char **dead = NULL;
        size_t n_dead = 0;
        int r = dead_paths(s, live, &dead, &n_dead);
        if (r < 0)
                return r;
        STRV_FOREACH(p, dead) {
                r = store_exec(s, &sql_delete, NULL, ARG_TEXT(*p));
                if (r < 0)
                        return r;
        }
        return (int) (n_dead > INT32_MAX ? INT32_MAX : n_dead);
}

int store_profile_cache_prune(Store *s, char *const *live_paths) {
        assert(s);
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

        r = prune_rows(s, live);
        return store_op_end(s, &op, r);
}

int store_profile_cache_count(Store *s, size_t *ret) {
        assert(ret);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_count, &st);
        if (r < 0)
                return r;
        *ret = r > 0 ? (size_t) sqlite3_column_int64(st, 0) : 0;
        return 0;
}
