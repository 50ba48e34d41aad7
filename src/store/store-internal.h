/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the store's own files (store-*.c) share: the Store object, the statement slots and
 * the one way to run a statement (store_exec), transactions, and each file's functions the
 * others call. Nothing outside src/store includes this, apart from the store's unit tests. */
#pragma once

#include <sqlite3.h>

#include "utf8.h"

#include "store.h"

/* The slots of the statement cache: every statement the store runs more than once. Each is
 * prepared on first use and kept for the life of the connection (SQLITE_PREPARE_PERSISTENT).
 * The SQL text lives beside the code that runs it (a StoreSql in that file). */
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
        STMT_MAPPING_TRIM_LAYER,

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
        STMT_ENABLED_TRIM_OWNER,

        STMT_TITLE_SET,
        STMT_TITLE_INSERT_IF_MISSING,
        STMT_TITLE_GET,
        STMT_TITLE_TRIM_UID,

        STMT_INFO_SET,
        STMT_INFO_GET,

        STMT_CACHE_GET,
        STMT_CACHE_PUT,
        STMT_CACHE_SET_WARNINGS,
        STMT_CACHE_DELETE,
        STMT_CACHE_PATHS,
        STMT_CACHE_COUNT,

        STMT_DISK_PROFILE_ADD,
        STMT_DISK_PROFILE_REMOVE,
        STMT_DISK_PROFILE_LIST,
        STMT_DISK_PROFILE_GET_PROPERTIES,
        STMT_DISK_PROFILE_SET_PROPERTIES,

        STMT_VERIFICATION_ADD,
        STMT_VERIFICATION_TRIM,
        STMT_VERIFICATION_TRIM_LAYER,
        STMT_VERIFICATION_LIST,

        STMT_EXPORT_INFO,
        STMT_EXPORT_ENABLED,
        STMT_EXPORT_MAPPINGS,
        STMT_EXPORT_TITLES,

        STMT_CLEAR_MAPPINGS,
        STMT_CLEAR_DEVICES,
        STMT_CLEAR_ENABLED,
        STMT_CLEAR_TITLES,
        STMT_CLEAR_INFO,
        STMT_CLEAR_DISK_PROFILES,

        _STMT_MAX,
} StoreStatement;

/* One statement: its cache slot and its constant SQL (values are always bound). A slot holds
 * one SQL text for the life of the connection (asserted). */
typedef struct StoreSql {
        StoreStatement slot;
        const char *text;
} StoreSql;

struct Store {
        sqlite3 *db;
        char *state_dir;
        char *db_path;
        char *backup_dir;
        sqlite3_stmt *stmts[_STMT_MAX];
        const char *stmt_sql[_STMT_MAX]; /* the text each slot was prepared from */
        bool in_transaction;      /* store_begin() was called */
        int64_t changes_at_backup; /* sqlite3_total_changes() when the last backup was made */
        int read_only_error;       /* 0, or the negative errno every write answers (store_open_read_only) */
};

/* Schema version this build writes; store_open() migrates older files up to it. */
#define STORE_SCHEMA_VERSION 7

/* Opens like store_open_full() but migrates only up to max_version (tests use it to make
 * files of an older schema). */
int store_open_version(const char *state_dir, StoreOpenFlags flags, int max_version, Store **ret);
/* PRAGMA user_version of the open file. */
int store_schema_version(Store *s);

/* The values of one statement's parameters, in order (?1, ?2, ...). A NULL text, string
 * list or blob binds SQL NULL. Text is bound without a copy: it must live until the step. */
typedef enum StoreArgType {
        STORE_ARG_TEXT,
        STORE_ARG_INT,
        STORE_ARG_REAL,
        STORE_ARG_STRV, /* a string list as one blob of NUL-terminated strings */
        STORE_ARG_BLOB,
} StoreArgType;

typedef struct StoreArg {
        StoreArgType type;
        union {
                const char *text;
                int64_t integer;
                double real;
                char *const *strv;
                struct {
                        const void *data;
                        size_t size;
                } blob;
        };
} StoreArg;

#define ARG_TEXT(v) ((StoreArg) { .type = STORE_ARG_TEXT, .text = (v) })
#define ARG_INT(v) ((StoreArg) { .type = STORE_ARG_INT, .integer = (int64_t) (v) })
#define ARG_REAL(v) ((StoreArg) { .type = STORE_ARG_REAL, .real = (double) (v) })
#define ARG_STRV(v) ((StoreArg) { .type = STORE_ARG_STRV, .strv = (v) })
#define ARG_BLOB(d, n) ((StoreArg) { .type = STORE_ARG_BLOB, .blob = { .data = (d), .size = (n) } })

/* Binds args to parameters 1..n of st (the store's statements or a query on colord's files). */
int store_bind_args(sqlite3_stmt *st, const StoreArg *args, size_t n);

/* The one way the store runs a statement: takes it from the cache (reset, bindings cleared),
 * binds args and steps once. Returns 1 when that gave a row, 0 when the statement is done,
 * or a negative errno. With ret, the statement goes to the caller, who reads the row, steps
 * on with store_step() and resets it (_cleanup_stmt_reset_); *ret is set whenever the
 * statement was prepared, errors included. Without ret it is reset here.
 *     r = store_exec(s, &sql, NULL, ARG_TEXT(id), ARG_INT(uid)); */
int store_exec_args(Store *s, const StoreSql *sql, sqlite3_stmt **ret, const StoreArg *args, size_t n);
#define store_exec(s, sql, ret, ...)                                                                    \
        store_exec_args(s, sql, ret, (const StoreArg[]) { __VA_ARGS__ },                                \
                        sizeof((const StoreArg[]) { __VA_ARGS__ }) / sizeof(StoreArg))

/* sqlite3_step() on a statement store_exec() handed over: 1 on a row, 0 when done, or a
 * negative errno (logged at debug level with SQLite's message, since the caller decides
 * whether it is an error). A read-only store refuses a statement that writes. */
int store_step(Store *s, sqlite3_stmt *st);

/* For _cleanup_: resets a statement so it releases its locks even on early returns. */
static inline void store_stmt_resetp(sqlite3_stmt **st) {
        if (*st)
                sqlite3_reset(*st);
}
#define _cleanup_stmt_reset_ _cleanup_(store_stmt_resetp)
/* For _cleanup_ on a statement of one's own (colord's files): finalizes it. */
static inline void store_stmt_finalizep(sqlite3_stmt **st) {
        sqlite3_finalize(*st); /* NULL is fine */
}

/* A string list column (see STORE_ARG_STRV): NULL for SQL NULL; -EBADMSG when the blob is
 * not such a list of UTF-8 strings. */
int store_column_strv(sqlite3_stmt *st, int col, char ***ret);
/* A column as a newly allocated string (NULL column → NULL with 0). */
int store_column_strdup(sqlite3_stmt *st, int col, char **ret);
/* Column 0 (and 1 when pairs) of the current row and every further one into a
 * NULL-terminated list (empty, not NULL, when there is none). r is store_exec()'s answer. */
int store_collect_strings(Store *s, sqlite3_stmt *st, int r, bool pairs, char ***ret);

/* Maps an SQLite result code (extended codes too) to a negative errno. */
int store_errno(int sqlite_rc);

/* A group of statements that must apply together. Opens a transaction (BEGIN IMMEDIATE, or
 * BEGIN DEFERRED for read-only work) when none is open, a savepoint inside the caller's
 * store_begin() otherwise; store_op_end() commits or releases on r >= 0 and undoes the
 * work otherwise. Returns r, or the commit error. */
typedef struct StoreOp {
        bool outer;
} StoreOp;
int store_op_begin(Store *s, bool write, StoreOp *ret);
int store_op_end(Store *s, StoreOp *op, int r);

/* store_info table: small key/value facts about the store itself (store-info.c). */
int store_info_set(Store *s, const char *key, const char *value);
int store_info_get(Store *s, const char *key, char **ret); /* -ENOENT if missing */

/* Inserts unless the key already has a row (imports, where the store's rows win): 1 when
 * inserted, 0 when one was there, or a negative errno. */
int store_mapping_insert_if_missing(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                                    int64_t timestamp_us);
int store_device_enabled_insert_if_missing(Store *s, uid_t layer, const char *device_id, bool enabled);
int store_profile_title_insert_if_missing(Store *s, const char *profile_id, uid_t uid, const char *title);

/* The JSON export's format (store-export.c, store-import.c). Version 1 had no
 * "disk_profiles" and is still read. */
#define STORE_EXPORT_FORMAT "tinct-store"
#define STORE_EXPORT_VERSION 2

/* Connections (store-db.c). SQLite's own handles, before or beside a Store. */

static inline void store_db_closep(sqlite3 **db) {
        sqlite3_close_v2(*db); /* NULL is fine */
}

/* Opens an SQLite file read-only and runs PRAGMA quick_check on it (backups, colord's files).
 * -EBADMSG when damaged, with the reason in *ret_reason. */
int store_db_open_readonly(const char *path, sqlite3 **ret, char **ret_reason);
/* Opens (creating if asked) the main database with the store's pragmas, checks it and reads
 * its version. -EBADMSG means damaged; *ret_reason then says how. */
int store_db_open_main(const char *path, sqlite3 **ret, int *ret_version, char **ret_reason);
/* Opens the database file for reading without writing beside it (store_open_read_only):
 * *ret_immutable says whether the write-ahead log was left unread. */
int store_db_open_source(const char *path, sqlite3 **ret, bool *ret_immutable, char **ret_reason);
/* The limits and defences every connection gets. */
void store_db_configure(sqlite3 *db);
/* Runs one statement of constant SQL; its first column of the first row in *ret_first
 * (may be NULL; NULL when there is no row). */
int store_db_exec_text(sqlite3 *db, const char *sql, char **ret_first);
/* 0 if PRAGMA quick_check says "ok", -EBADMSG if it reports damage (the first complaints in
 * *ret_reason), other negative errno when it could not run. */
int store_db_quick_check(sqlite3 *db, char **ret_reason);
int store_db_user_version(sqlite3 *db, int *ret);
/* Creates path empty with mode 0600 unless it exists (SQLite would apply the umask). */
int store_precreate_private(const char *path);

/* Migrations (store-migrate.c): from one schema version up to another, one transaction each. */
int store_migrate(Store *s, int from, int to);

/* Backups and recovery (store-recover.c). */
/* Writes backups/tinct.db.1 from the live database, shifting older ones. */
int store_backup_write(Store *s);
bool store_any_backup_exists(const Store *s);
/* Replaces a damaged main file with the newest usable backup, or an empty database; the
 * damaged one is moved aside. Logs what it did. */
int store_recover(Store *s, const char *reason, int *ret_version);
/* Logs what SQLite would drop silently from the write-ahead log, and keeps a copy of it. */
void store_check_wal(const Store *s);
