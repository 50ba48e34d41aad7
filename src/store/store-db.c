/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Connections: opening SQLite files with the store's pragmas and limits, the integrity check
 * and the schema version, for the live database, its backups, colord's files and a read-only
 * source. Works on SQLite handles, before there is a Store.
 *
 * Deliberately not here: what to do with a damaged file (store-recover.c), which file to open
 * (store-open.c). */
#include "store-internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Other processes (tinct export/import) may hold the write lock briefly. The daemon's loop
 * is single-threaded, so this is also the longest it may stall on such a lock. */
#define STORE_BUSY_TIMEOUT_MS 2000

/* SQLite creates files with 0644 & ~umask. Creating the file first fixes its mode; the
 * -wal and -shm files then inherit it. 0600: only the daemon's user reads device serials,
 * CUPS queue names and per-user titles (colord's world-readable files leak them, colord §16.28).
 * Tools run as that user (or root) to export. */
int store_precreate_private(const char *path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return errno == EEXIST ? 0 : -errno;
        close(fd);
        return 0;
}

int store_db_exec_text(sqlite3 *db, const char *sql, char **ret_first) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
        if (rc != SQLITE_OK)
                return store_errno(rc);
        rc = sqlite3_step(st);
        int r = 0;
        if (rc == SQLITE_ROW) {
                if (ret_first) {
                        const unsigned char *t = sqlite3_column_text(st, 0);
                        *ret_first = strdup(t ? (const char *) t : "");
                        if (!*ret_first)
                                r = -ENOMEM;
                }
        } else if (rc != SQLITE_DONE)
                r = store_errno(rc);
        else if (ret_first)
                *ret_first = NULL;
        sqlite3_finalize(st);
        return r;
}

/* quick_check may list hundreds of problems, one per line: keep the first few for the log. */
static char *summarize_check(const char *t) {
        if (!t)
                return strdup("(no answer)");
        size_t max = 240;
        char *r = strndup(t, max);
        if (!r)
                return NULL;
        for (char *c = r; *c; c++)
                if (*c == '\n')
                        *c = ' ';
        if (strlen(t) > max && strlen(r) >= 3)
                strcpy(r + strlen(r) - 3, "...");
        return r;
}

/* 0 if PRAGMA quick_check says "ok", -EBADMSG if it reports damage (its first complaint is
 * returned in *ret_reason), other negative errno when it could not run. */
int store_db_quick_check(sqlite3 *db, char **ret_reason) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL);
        if (rc != SQLITE_OK) {
                if (ret_reason)
                        *ret_reason = strdup(sqlite3_errmsg(db));
                return store_errno(rc);
        }
        rc = sqlite3_step(st);
        int r = 0;
        if (rc == SQLITE_ROW) {
                const char *t = (const char *) sqlite3_column_text(st, 0);
                if (!t || !streq(t, "ok")) {
                        if (ret_reason)
                                *ret_reason = summarize_check(t);
                        r = -EBADMSG;
                }
        } else {
                if (ret_reason)
                        *ret_reason = strdup(sqlite3_errmsg(db));
                r = rc == SQLITE_DONE ? -EBADMSG : store_errno(rc);
        }
        sqlite3_finalize(st);
        return r;
}

int store_db_user_version(sqlite3 *db, int *ret) {
        _cleanup_free_ char *v = NULL;
        int r = store_db_exec_text(db, "PRAGMA user_version", &v);
        if (r < 0)
                return r;
        *ret = v ? atoi(v) : 0;
        return 0;
}

void store_db_configure(sqlite3 *db) {
        sqlite3_extended_result_codes(db, 1);
        sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, STORE_MAX_VALUE_SIZE);
        /* Our own file only: no schema tricks, no functions called from views or triggers. */
        sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
}

/* SQLITE_CANTOPEN says little; the OS error behind it (EACCES, ENOENT, ...) says more. */
static int db_open_failed(sqlite3 *db, int rc, char **ret_reason) {
        int r = store_errno(rc);
        if (db && (rc & 0xff) == SQLITE_CANTOPEN && sqlite3_system_errno(db) > 0)
                r = -sqlite3_system_errno(db);
        if (ret_reason)
                *ret_reason = strdup(db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close_v2(db);
        return r;
}

/* Opens name (a path or a file: URI) read-only and checks it. */
static int open_checked(const char *name, int flags, sqlite3 **ret, char **ret_reason) {
        _cleanup_(store_db_closep) sqlite3 *db = NULL;
        int rc = sqlite3_open_v2(name, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | flags, NULL);
        if (rc != SQLITE_OK)
                return db_open_failed(TAKE_PTR(db), rc, ret_reason);
        store_db_configure(db);
        int r = store_db_quick_check(db, ret_reason);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(db);
        return 0;
}

int store_db_open_readonly(const char *path, sqlite3 **ret, char **ret_reason) {
        return open_checked(path, 0, ret, ret_reason);
}

/* The pragmas of the live database. The first read happens here: "file is not a database"
 * shows up as -EBADMSG. */
static int set_pragmas(sqlite3 *db) {
        _cleanup_free_ char *mode = NULL;
        int r = store_db_exec_text(db, "PRAGMA journal_mode = WAL", &mode);
        if (r < 0)
                return r;
        if (!streq_ptr(mode, "wal"))
                return -EIO;
        r = store_db_exec_text(db, "PRAGMA synchronous = NORMAL", NULL);
        if (r < 0)
                return r;
        return store_db_exec_text(db, "PRAGMA foreign_keys = ON", NULL);
}

int store_db_open_main(const char *path, sqlite3 **ret, int *ret_version, char **ret_reason) {
        int r = store_precreate_private(path);
        if (r < 0) {
                if (ret_reason)
                        *ret_reason = strdup(strerror(-r));
                return r;
        }
        _cleanup_(store_db_closep) sqlite3 *db = NULL;
        int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return db_open_failed(TAKE_PTR(db), rc, ret_reason);
        store_db_configure(db);

        r = set_pragmas(db);
        /* The -wal or -shm could not be made: the OS error says why (EROFS, ENOSPC, ...). */
        if (r == -ENOENT && sqlite3_system_errno(db) > 0)
                r = -sqlite3_system_errno(db);
        if (r < 0) {
                if (ret_reason)
                        *ret_reason = strdup(sqlite3_errmsg(db));
                return r;
        }
        r = store_db_quick_check(db, ret_reason);
        if (r < 0)
                return r;
        r = store_db_user_version(db, ret_version);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(db);
        return 0;
}

/* The URI form of a path for SQLite: '%', '?' and '#' would otherwise end or escape it. */
static char *uri_of_path(const char *path, const char *query) {
        size_t n = strlen(path), extra = 0;
        for (size_t i = 0; i < n; i++)
                if (strchr("%?#", path[i]))
                        extra += 2;
        char *uri = malloc(strlen("file:") + n + extra + strlen(query) + 1);
        if (!uri)
                return NULL;
        char *p = stpcpy(uri, "file:");
        for (size_t i = 0; i < n; i++)
                if (strchr("%?#", path[i]))
                        p += sprintf(p, "%%%02X", (unsigned char) path[i]);
                else
                        *p++ = path[i];
        strcpy(p, query);
        return uri;
}

/* Opens the database file for reading. Without a -wal holding changes it is read as
 * immutable: SQLite then writes nothing beside it (a read-only WAL connection would make a
 * -shm and an empty -wal). With one, SQLite reads the log only when it can open or make the
 * -shm index; on a read-only or full filesystem it cannot, and the file is read as immutable
 * without the log's changes (the caller says so). */
int store_db_open_source(const char *path, sqlite3 **ret, bool *ret_immutable, char **ret_reason) {
        _cleanup_free_ char *wal = NULL;
        struct stat st;
        if (asprintf(&wal, "%s-wal", path) < 0)
                return -ENOMEM;
        if (stat(wal, &st) >= 0 && st.st_size > 0) {
                _cleanup_free_ char *first_reason = NULL;
                int r = store_db_open_readonly(path, ret, &first_reason);
                if (r >= 0 || r == -EBADMSG) {
                        *ret_immutable = false;
                        if (r < 0 && ret_reason)
                                *ret_reason = TAKE_PTR(first_reason);
                        return r;
                }
        }
        _cleanup_free_ char *uri = uri_of_path(path, "?immutable=1");
        if (!uri)
                return -ENOMEM;
        int r = open_checked(uri, SQLITE_OPEN_URI, ret, ret_reason);
        if (r < 0)
                return r;
        *ret_immutable = true;
        return 0;
}
