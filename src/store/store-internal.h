/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the store's own files (store.c, store-cache.c, store-colord.c, store-json.c) share:
 * the Store object, the table of prepared statements and the transaction helpers. Nothing
 * outside src/store includes this, apart from the store's unit test. */
#pragma once

#include <sqlite3.h>

#include "utf8.h"

#include "store.h"

/* Every statement the store runs more than once. Each is prepared on first use and kept for
 * the life of the connection (SQLITE_PREPARE_PERSISTENT). */
typedef enum StoreStatement {
        STMT_BEGIN_IMMEDIATE,
        STMT_BEGIN_DEFERRED,
        STMT_COMMIT,
        STMT_ROLLBACK,
        STMT_SAVEPOINT,
        STMT_RELEASE,
        STMT_ROLLBACK_TO,

        STMT_MAPPING_SET,
        STMT_MAPPING_UNSET,
        STMT_MAPPING_GET,
        STMT_MAPPING_PROFILES_FOR_DEVICE,
        STMT_MAPPING_DEVICES_FOR_PROFILE,
        STMT_MAPPING_INSERT_IF_MISSING,
        STMT_MAPPING_ALL,

        STMT_DEVICE_ADD,
        STMT_DEVICE_EXISTS,
        STMT_DEVICE_REMOVE,
        STMT_DEVICE_PROPERTY_SET,
        STMT_DEVICE_PROPERTY_DELETE,
        STMT_DEVICE_LIST,
        STMT_DEVICE_PROPERTIES,
        STMT_DEVICE_SET_OWNER,
        STMT_DEVICE_GET_OWNER,

        STMT_ENABLED_SET,
        STMT_ENABLED_INSERT_IF_MISSING,
        STMT_ENABLED_GET,
        STMT_ENABLED_DELETE,
        STMT_ENABLED_ALL,

        STMT_TITLE_SET,
        STMT_TITLE_INSERT_IF_MISSING,
        STMT_TITLE_GET,
        STMT_TITLE_ALL,

        STMT_INFO_SET,
        STMT_INFO_GET,
        STMT_INFO_ALL,

        STMT_CACHE_GET,
        STMT_CACHE_PUT,
        STMT_CACHE_SET_WARNINGS,
        STMT_CACHE_DELETE,
        STMT_CACHE_PATHS,
        STMT_CACHE_COUNT,

        STMT_CLEAR_MAPPINGS,
        STMT_CLEAR_DEVICES,
        STMT_CLEAR_ENABLED,
        STMT_CLEAR_TITLES,
        STMT_CLEAR_INFO,
        STMT_CLEAR_DISK_PROFILES,

        STMT_DISK_PROFILE_ADD,
        STMT_DISK_PROFILE_REMOVE,
        STMT_DISK_PROFILE_LIST,
        STMT_DISK_PROFILE_GET_PROPERTIES,
        STMT_DISK_PROFILE_SET_PROPERTIES,

        _STMT_MAX,
} StoreStatement;

struct Store {
        sqlite3 *db;
        char *state_dir;
        char *db_path;
        char *backup_dir;
        sqlite3_stmt *stmts[_STMT_MAX];
        bool in_transaction;      /* store_begin() was called */
        int64_t changes_at_backup; /* sqlite3_total_changes() when the last backup was made */
        int read_only_error;       /* 0, or the negative errno every write answers (store_open_read_only) */
};

/* Schema version this build writes; store_open() migrates older files up to it. */
#define STORE_SCHEMA_VERSION 5

/* Opens like store_open_full() but migrates only up to max_version (tests use it to make
 * files of an older schema). */
int store_open_version(const char *state_dir, StoreOpenFlags flags, int max_version, Store **ret);
/* PRAGMA user_version of the open file. */
int store_schema_version(Store *s);

/* Returns the cached statement, reset and with its bindings cleared. */
int store_stmt(Store *s, StoreStatement id, sqlite3_stmt **ret);
/* For _cleanup_: resets a statement so it releases its locks even on early returns. */
static inline void store_stmt_resetp(sqlite3_stmt **st) {
        if (*st)
                sqlite3_reset(*st);
}
#define _cleanup_stmt_reset_ _cleanup_(store_stmt_resetp)

/* String lists as one blob of NUL-terminated strings (SQL NULL is a NULL list, an empty
 * blob an empty one). column: -EBADMSG when the blob is not such a list of UTF-8 strings. */
int store_bind_strv(sqlite3_stmt *st, int idx, char *const *l);
int store_column_strv(sqlite3_stmt *st, int col, char ***ret);

/* Maps an SQLite result code (extended codes too) to a negative errno. */
int store_errno(int sqlite_rc);
/* sqlite3_step() for statements that return no rows: 0 or negative errno (logged at
 * debug level with SQLite's message, since the caller decides whether it is an error). */
int store_step_done(Store *s, sqlite3_stmt *st);
/* sqlite3_step() for queries: 1 on a row, 0 when done, or negative errno. */
int store_step_row(Store *s, sqlite3_stmt *st);

int store_bind_text(sqlite3_stmt *st, int idx, const char *text);
/* A column as a newly allocated string (NULL column → NULL with 0). */
int store_column_strdup(sqlite3_stmt *st, int col, char **ret);

/* A group of statements that must apply together. Opens a transaction (BEGIN IMMEDIATE, or
 * BEGIN DEFERRED for read-only work) when none is open, a savepoint inside the caller's
 * store_begin() otherwise; store_op_end() commits or releases on r >= 0 and undoes the
 * work otherwise. Returns r, or the commit error. */
typedef struct StoreOp {
        bool outer;
} StoreOp;
int store_op_begin(Store *s, bool write, StoreOp *ret);
int store_op_end(Store *s, StoreOp *op, int r);

/* store_info table: small key/value facts about the store itself. */
int store_info_set(Store *s, const char *key, const char *value);
int store_info_get(Store *s, const char *key, char **ret); /* -ENOENT if missing */

/* Opens an SQLite file read-only and runs PRAGMA quick_check on it (backups, colord's files).
 * -EBADMSG when damaged, with the reason in *ret_reason. */
int store_db_open_readonly(const char *path, sqlite3 **ret, char **ret_reason);

/* The parsed-ICC cache's rows (store-cache.c), shared with store-failed.c: parameters 1-4 of
 * STMT_CACHE_PUT and STMT_CACHE_SET_WARNINGS; and path's STMT_CACHE_GET row: 1 when it
 * describes this identity (*ret on it: columns 3.. are the cached facts), 0 when there is
 * none or the file changed, or negative errno. *ret is set in every case, for
 * _cleanup_stmt_reset_. */
int store_cache_bind_identity(sqlite3_stmt *st, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode);
int store_cache_row(Store *s, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode, sqlite3_stmt **ret);
