/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's core: opening tinct.db (pragmas, integrity check, recovery from backups,
 * schema migrations), rotating backups, the prepared-statement cache and transactions, and
 * the small tables (mappings, disk devices, Enabled flags, per-user titles).
 *
 * Deliberately not here: the profile cache (store-cache.c), colord's databases
 * (store-colord.c), JSON (store-json.c). SQL text is constant; values are always bound. */
#include "store-internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "fileio.h"
#include "log.h"
#include "store-wal.h"
#include "strv.h"

/* Other processes (tinct export/import) may hold the write lock briefly. The daemon's loop
 * is single-threaded, so this is also the longest it may stall on such a lock. */
#define STORE_BUSY_TIMEOUT_MS 2000

static const char *const statement_sql[_STMT_MAX] = {
        [STMT_BEGIN_IMMEDIATE] = "BEGIN IMMEDIATE",
        [STMT_BEGIN_DEFERRED] = "BEGIN DEFERRED",
        [STMT_COMMIT] = "COMMIT",
        [STMT_ROLLBACK] = "ROLLBACK",
        [STMT_SAVEPOINT] = "SAVEPOINT store_op",
        [STMT_RELEASE] = "RELEASE store_op",
        [STMT_ROLLBACK_TO] = "ROLLBACK TO store_op",

        /* owner: STORE_LAYER_SYSTEM (0) or the uid whose own layer the row is in (store.h). */
        [STMT_MAPPING_SET] =
                "INSERT INTO mappings (device_id, profile_id, owner, timestamp) VALUES (?1, ?2, ?3, ?4) "
                "ON CONFLICT (device_id, profile_id, owner) DO UPDATE SET timestamp = excluded.timestamp",
        [STMT_MAPPING_UNSET] = "DELETE FROM mappings WHERE device_id = ?1 AND profile_id = ?2 AND owner = ?3",
        /* The layer's own row first (owner = 0 is false for it), else the system's. */
        [STMT_MAPPING_GET] =
                "SELECT timestamp FROM mappings WHERE device_id = ?1 AND profile_id = ?2 AND owner IN (0, ?3) "
                "ORDER BY owner = 0 LIMIT 1",
        /* A system row counts only where the layer has no row of its own for the pair. */
        [STMT_MAPPING_PROFILES_FOR_DEVICE] =
                "SELECT profile_id, timestamp FROM mappings AS m WHERE device_id = ?1 AND owner IN (0, ?2) "
                "AND timestamp > 0 AND NOT (owner = 0 AND ?2 != 0 AND EXISTS (SELECT 1 FROM mappings AS u "
                "WHERE u.device_id = m.device_id AND u.profile_id = m.profile_id AND u.owner = ?2)) "
                "ORDER BY timestamp, profile_id",
        [STMT_MAPPING_DEVICES_FOR_PROFILE] =
                "SELECT device_id, min(timestamp) FROM mappings WHERE profile_id = ?1 AND timestamp > 0 "
                "GROUP BY device_id ORDER BY 2, device_id",
        [STMT_MAPPING_INSERT_IF_MISSING] =
                "INSERT INTO mappings (device_id, profile_id, owner, timestamp) VALUES (?1, ?2, ?3, ?4) "
                "ON CONFLICT DO NOTHING",
        [STMT_MAPPING_ALL] =
                "SELECT device_id, profile_id, timestamp, owner FROM mappings ORDER BY device_id, profile_id, owner",

        [STMT_DEVICE_ADD] = "INSERT INTO devices (device_id) VALUES (?1)",
        [STMT_DEVICE_EXISTS] = "SELECT 1 FROM devices WHERE device_id = ?1",
        [STMT_DEVICE_REMOVE] = "DELETE FROM devices WHERE device_id = ?1",
        [STMT_DEVICE_PROPERTY_SET] =
                "INSERT INTO device_properties (device_id, key, value) VALUES (?1, ?2, ?3) "
                "ON CONFLICT (device_id, key) DO UPDATE SET value = excluded.value",
        [STMT_DEVICE_PROPERTY_DELETE] = "DELETE FROM device_properties WHERE device_id = ?1 AND key = ?2",
        [STMT_DEVICE_LIST] = "SELECT device_id FROM devices ORDER BY seq",
        /* An upsert keeps the rowid, so rowid order is the order keys were first set. */
        [STMT_DEVICE_PROPERTIES] = "SELECT key, value FROM device_properties WHERE device_id = ?1 ORDER BY rowid",
        [STMT_DEVICE_SET_OWNER] = "UPDATE devices SET owner = ?2 WHERE device_id = ?1",
        [STMT_DEVICE_GET_OWNER] = "SELECT owner FROM devices WHERE device_id = ?1",

        [STMT_ENABLED_SET] =
                "INSERT INTO device_enabled (device_id, enabled) VALUES (?1, ?2) "
                "ON CONFLICT (device_id) DO UPDATE SET enabled = excluded.enabled",
        [STMT_ENABLED_INSERT_IF_MISSING] =
                "INSERT INTO device_enabled (device_id, enabled) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        [STMT_ENABLED_GET] = "SELECT enabled FROM device_enabled WHERE device_id = ?1",
        [STMT_ENABLED_DELETE] = "DELETE FROM device_enabled WHERE device_id = ?1",
        [STMT_ENABLED_ALL] = "SELECT device_id, enabled FROM device_enabled ORDER BY device_id",

        [STMT_TITLE_SET] =
                "INSERT INTO profile_titles (profile_id, uid, title) VALUES (?1, ?2, ?3) "
                "ON CONFLICT (profile_id, uid) DO UPDATE SET title = excluded.title",
        [STMT_TITLE_INSERT_IF_MISSING] =
                "INSERT INTO profile_titles (profile_id, uid, title) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
        [STMT_TITLE_GET] = "SELECT title FROM profile_titles WHERE profile_id = ?1 AND uid = ?2",
        [STMT_TITLE_ALL] = "SELECT profile_id, uid, title FROM profile_titles ORDER BY profile_id, uid",

        [STMT_INFO_SET] =
                "INSERT INTO store_info (key, value) VALUES (?1, ?2) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [STMT_INFO_GET] = "SELECT value FROM store_info WHERE key = ?1",
        [STMT_INFO_ALL] = "SELECT key, value FROM store_info ORDER BY key",

        [STMT_CACHE_GET] =
                "SELECT size, mtime_ns, inode, checksum, description, title, copyright, kind, colorspace, "
                "has_vcgt, created, metadata, warnings, tags_ignored FROM profile_cache WHERE path = ?1",
        [STMT_CACHE_PUT] =
                "INSERT INTO profile_cache (path, size, mtime_ns, inode, checksum, description, title, "
                "copyright, kind, colorspace, has_vcgt, created, metadata, warnings, tags_ignored) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
                "ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, "
                "inode = excluded.inode, checksum = excluded.checksum, description = excluded.description, "
                "title = excluded.title, copyright = excluded.copyright, kind = excluded.kind, "
                "colorspace = excluded.colorspace, has_vcgt = excluded.has_vcgt, created = excluded.created, "
                "metadata = excluded.metadata, warnings = excluded.warnings, "
                "tags_ignored = excluded.tags_ignored",
        [STMT_CACHE_SET_WARNINGS] =
                "UPDATE profile_cache SET warnings = ?5 "
                "WHERE path = ?1 AND size = ?2 AND mtime_ns = ?3 AND inode = ?4",
        [STMT_CACHE_DELETE] = "DELETE FROM profile_cache WHERE path = ?1",
        [STMT_CACHE_PATHS] = "SELECT path FROM profile_cache",
        [STMT_CACHE_COUNT] = "SELECT count(*) FROM profile_cache",

        [STMT_CLEAR_MAPPINGS] = "DELETE FROM mappings",
        [STMT_CLEAR_DEVICES] = "DELETE FROM devices", /* properties go by ON DELETE CASCADE */
        [STMT_CLEAR_ENABLED] = "DELETE FROM device_enabled",
        [STMT_CLEAR_TITLES] = "DELETE FROM profile_titles",
        [STMT_CLEAR_INFO] = "DELETE FROM store_info",
        [STMT_CLEAR_DISK_PROFILES] = "DELETE FROM disk_profiles",

        [STMT_DISK_PROFILE_ADD] =
                "INSERT INTO disk_profiles (profile_id, owner, properties, data) VALUES (?1, ?2, ?3, ?4)",
        [STMT_DISK_PROFILE_REMOVE] = "DELETE FROM disk_profiles WHERE profile_id = ?1",
        [STMT_DISK_PROFILE_LIST] = "SELECT profile_id, owner, properties, data FROM disk_profiles ORDER BY seq",
        [STMT_DISK_PROFILE_GET_PROPERTIES] = "SELECT properties FROM disk_profiles WHERE profile_id = ?1",
        [STMT_DISK_PROFILE_SET_PROPERTIES] = "UPDATE disk_profiles SET properties = ?2 WHERE profile_id = ?1",
};

/* Forward migrations: entry v takes a file from user_version v to v + 1, in one transaction
 * together with the new user_version. Never edit a released entry; append a new one. */
static const char *const migrations[] = {
        /* 0 → 1: the initial schema. */
        "CREATE TABLE mappings ("
        "        device_id TEXT NOT NULL,"
        "        profile_id TEXT NOT NULL,"
        "        timestamp INTEGER NOT NULL DEFAULT 0," /* µs; 0 = removed by the user */
        "        PRIMARY KEY (device_id, profile_id)"
        ") WITHOUT ROWID, STRICT;"
        "CREATE INDEX mappings_by_profile ON mappings (profile_id, timestamp);"
        /* seq gives insertion order; AUTOINCREMENT so a deleted id's number is never reused. */
        "CREATE TABLE devices ("
        "        seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        "        device_id TEXT NOT NULL UNIQUE"
        ") STRICT;"
        "CREATE TABLE device_properties ("
        "        device_id TEXT NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,"
        "        key TEXT NOT NULL,"
        "        value TEXT NOT NULL,"
        "        PRIMARY KEY (device_id, key)"
        ") STRICT;"
        /* Per device id whatever the scope, as colord keeps it; not a property (colord §16.7). */
        "CREATE TABLE device_enabled ("
        "        device_id TEXT PRIMARY KEY NOT NULL,"
        "        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1))"
        ") WITHOUT ROWID, STRICT;"
        "CREATE TABLE profile_titles ("
        "        profile_id TEXT NOT NULL,"
        "        uid INTEGER NOT NULL,"
        "        title TEXT NOT NULL,"
        "        PRIMARY KEY (profile_id, uid)"
        ") WITHOUT ROWID, STRICT;"
        "PRAGMA user_version = 1;",

        /* 1 → 2: facts about the store itself (colord import done), and the ICC cache. */
        "CREATE TABLE store_info ("
        "        key TEXT PRIMARY KEY NOT NULL,"
        "        value TEXT NOT NULL"
        ") WITHOUT ROWID, STRICT;"
        /* A rowid table: rows carry metadata blobs, too wide for WITHOUT ROWID. metadata and
         * warnings are string lists, each string NUL-terminated; SQL NULL is a NULL list. */
        "CREATE TABLE profile_cache ("
        "        path TEXT NOT NULL UNIQUE,"
        "        size INTEGER NOT NULL,"
        "        mtime_ns INTEGER NOT NULL,"
        "        inode INTEGER NOT NULL,"
        "        checksum TEXT NOT NULL,"
        "        description TEXT,"
        "        title TEXT,"
        "        copyright TEXT,"
        "        kind TEXT NOT NULL,"
        "        colorspace TEXT NOT NULL,"
        "        has_vcgt INTEGER NOT NULL,"
        "        created INTEGER NOT NULL,"
        "        metadata BLOB,"
        "        warnings BLOB,"
        "        tags_ignored INTEGER NOT NULL DEFAULT 0"
        ") STRICT;"
        "PRAGMA user_version = 2;",

        /* 2 → 3: profiles of scope "disk" (colord refuses them), with the ICC bytes they were
         * created from, so they come back without the client's file. properties: key, value
         * pairs as a string list. */
        "CREATE TABLE disk_profiles ("
        "        seq INTEGER PRIMARY KEY,"
        "        profile_id TEXT NOT NULL UNIQUE,"
        "        owner INTEGER NOT NULL,"
        "        properties BLOB,"
        "        data BLOB"
        ") STRICT;"
        "PRAGMA user_version = 3;",

        /* 3 → 4: the uid that created a disk device, so it comes back with the same owner
         * and path (colord restores every one as root's, which under tinct's ownership
         * rule would lock a user out of their own device). Older rows: root's. */
        "ALTER TABLE devices ADD COLUMN owner INTEGER NOT NULL DEFAULT 0;"
        "PRAGMA user_version = 4;",

        /* 4 → 5: mappings in layers (store.h): owner 0 is the system's, a uid the choices that
         * user made without authorization, on their own temp devices, so that they never
         * replace or hide the system's (docs/compatibility.md row 64). The key changes, so the
         * table is rebuilt; every older row was made before the layers existed and becomes the
         * system's, as it acted for everyone until now. */
        "CREATE TABLE mappings_v5 ("
        "        device_id TEXT NOT NULL,"
        "        profile_id TEXT NOT NULL,"
        "        owner INTEGER NOT NULL DEFAULT 0,"
        "        timestamp INTEGER NOT NULL DEFAULT 0," /* µs; 0 = removed by the user */
        "        PRIMARY KEY (device_id, profile_id, owner)"
        ") WITHOUT ROWID, STRICT;"
        "INSERT INTO mappings_v5 (device_id, profile_id, owner, timestamp) "
        "        SELECT device_id, profile_id, 0, timestamp FROM mappings;"
        "DROP TABLE mappings;" /* and its index */
        "ALTER TABLE mappings_v5 RENAME TO mappings;"
        "CREATE INDEX mappings_by_profile ON mappings (profile_id, timestamp);"
        "PRAGMA user_version = 5;",
};
_Static_assert(ELEMENTSOF(migrations) == STORE_SCHEMA_VERSION, "one migration per schema version");

int store_bind_strv(sqlite3_stmt *st, int idx, char *const *l) {
        if (!l)
                return store_errno(sqlite3_bind_null(st, idx));
        size_t size = 0;
        STRV_FOREACH(i, l)
                size += strlen(*i) + 1;
        if (size == 0)
                return store_errno(sqlite3_bind_zeroblob(st, idx, 0));
        char *buf = malloc(size), *p = buf;
        if (!buf)
                return -ENOMEM;
        STRV_FOREACH(i, l)
                p = stpcpy(p, *i) + 1;
        return store_errno(sqlite3_bind_blob64(st, idx, buf, size, free));
}

/* -EBADMSG when the blob is not a list of NUL-terminated UTF-8 strings. */
int store_column_strv(sqlite3_stmt *st, int col, char ***ret) {
        int type = sqlite3_column_type(st, col);
        if (type == SQLITE_NULL) {
                *ret = NULL;
                return 0;
        }
        if (type != SQLITE_BLOB)
                return -EBADMSG;
        const char *p = sqlite3_column_blob(st, col);
        size_t size = sqlite3_column_bytes(st, col);
        if (size > 0 && !p)
                return -ENOMEM;
        if (size > 0 && p[size - 1] != '\0')
                return -EBADMSG;

        size_t n = 0;
        for (size_t i = 0; i < size; i++)
                if (p[i] == '\0')
                        n++;
        _cleanup_strv_free_ char **l = calloc(n + 1, sizeof(char *));
        if (!l)
                return -ENOMEM;
        for (size_t k = 0, off = 0; k < n; k++) {
                size_t len = strlen(p + off);
                if (!utf8_is_valid(p + off, len))
                        return -EBADMSG;
                l[k] = strdup(p + off);
                if (!l[k])
                        return -ENOMEM;
                off += len + 1;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int store_errno(int rc) {
        switch (rc & 0xff) {
        case SQLITE_OK:
        case SQLITE_ROW:
        case SQLITE_DONE:
                return 0;
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
                return -EBUSY;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
                return -EBADMSG;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_READONLY:
                return -EROFS;
        case SQLITE_PERM:
        case SQLITE_AUTH:
                return -EACCES;
        case SQLITE_CANTOPEN:
                return -ENOENT;
        case SQLITE_TOOBIG:
                return -E2BIG;
        case SQLITE_CONSTRAINT:
                if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
                        return -ENOENT;
                if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
                        return -EEXIST;
                return -EINVAL;
        case SQLITE_MISMATCH:
        case SQLITE_RANGE:
                return -EINVAL;
        default:
                return -EIO;
        }
}

int store_stmt(Store *s, StoreStatement id, sqlite3_stmt **ret) {
        if (!s->stmts[id]) {
                int rc = sqlite3_prepare_v3(s->db, statement_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
                                            &s->stmts[id], NULL);
                if (rc != SQLITE_OK) {
                        /* A bug or a damaged schema: worth a line even at the default level. */
                        log_error("Failed to prepare \"%s\": %s", statement_sql[id], sqlite3_errmsg(s->db));
                        return store_errno(rc);
                }
        } else {
                sqlite3_reset(s->stmts[id]);
                sqlite3_clear_bindings(s->stmts[id]);
        }
        *ret = s->stmts[id];
        return 0;
}

/* A read-only store refuses every statement that would write, before SQLite sees it: its
 * in-memory copy would accept the write and lose it at exit. */
static int refuse_write(Store *s, sqlite3_stmt *st) {
        if (s->read_only_error < 0 && !sqlite3_stmt_readonly(st))
                return s->read_only_error;
        return 0;
}

int store_step_done(Store *s, sqlite3_stmt *st) {
        int r = refuse_write(s, st);
        if (r < 0)
                return r;
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE || rc == SQLITE_ROW)
                return 0;
        log_debug("SQLite: \"%s\": %s", sqlite3_sql(st), sqlite3_errmsg(s->db));
        return store_errno(rc);
}

int store_step_row(Store *s, sqlite3_stmt *st) {
        int r = refuse_write(s, st);
        if (r < 0)
                return r;
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        log_debug("SQLite: \"%s\": %s", sqlite3_sql(st), sqlite3_errmsg(s->db));
        return store_errno(rc);
}

int store_bind_text(sqlite3_stmt *st, int idx, const char *text) {
        int rc;
        if (!text)
                rc = sqlite3_bind_null(st, idx);
        else
                rc = sqlite3_bind_text64(st, idx, text, strlen(text), SQLITE_STATIC, SQLITE_UTF8);
        return store_errno(rc);
}

int store_column_strdup(sqlite3_stmt *st, int col, char **ret) {
        const unsigned char *t = sqlite3_column_text(st, col);
        if (!t) {
                if (sqlite3_column_type(st, col) != SQLITE_NULL)
                        return -ENOMEM;
                *ret = NULL;
                return 0;
        }
        *ret = strdup((const char *) t);
        return *ret ? 0 : -ENOMEM;
}

static int store_run(Store *s, StoreStatement id) {
        sqlite3_stmt *st;
        int r = store_stmt(s, id, &st);
        if (r < 0)
                return r;
        r = store_step_done(s, st);
        sqlite3_reset(st);
        return r;
}

int store_op_begin(Store *s, bool write, StoreOp *ret) {
        ret->outer = sqlite3_get_autocommit(s->db);
        if (ret->outer)
                return store_run(s, write ? STMT_BEGIN_IMMEDIATE : STMT_BEGIN_DEFERRED);
        return store_run(s, STMT_SAVEPOINT);
}

int store_op_end(Store *s, StoreOp *op, int r) {
        if (r >= 0) {
                int q = store_run(s, op->outer ? STMT_COMMIT : STMT_RELEASE);
                if (q >= 0)
                        return r;
                r = q;
        }
        if (op->outer) {
                if (!sqlite3_get_autocommit(s->db))
                        (void) store_run(s, STMT_ROLLBACK);
        } else {
                (void) store_run(s, STMT_ROLLBACK_TO);
                (void) store_run(s, STMT_RELEASE);
        }
        return r;
}

int store_begin(Store *s) {
        if (s->in_transaction || !sqlite3_get_autocommit(s->db))
                return -EBUSY;
        int r = store_run(s, STMT_BEGIN_IMMEDIATE);
        if (r < 0)
                return r;
        s->in_transaction = true;
        return 0;
}

int store_commit(Store *s) {
        if (!s->in_transaction)
                return -ENOTCONN;
        int r = store_run(s, STMT_COMMIT);
        if (r < 0) {
                /* Rolled back, never left open: callers that only log a failed commit (a
                 * rescan's cache writes on a full disk) would otherwise leave every later
                 * write, acknowledged to a client, inside a transaction nothing commits. */
                store_rollback(s);
                return r;
        }
        s->in_transaction = false;
        return 0;
}

void store_rollback(Store *s) {
        if (!s->in_transaction)
                return;
        if (!sqlite3_get_autocommit(s->db))
                (void) store_run(s, STMT_ROLLBACK);
        s->in_transaction = false;
}

/* ---- files ---------------------------------------------------------------------------- */

static bool file_exists(const char *path) {
        struct stat st;
        return lstat(path, &st) == 0;
}

/* SQLite creates files with 0644 & ~umask. Creating the file first fixes its mode; the
 * -wal and -shm files then inherit it. 0600: only the daemon's user reads device serials,
 * CUPS queue names and per-user titles (colord's world-readable files leak them, colord §16.28).
 * Tools run as that user (or root) to export. */
static int precreate_private(const char *path) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return errno == EEXIST ? 0 : -errno;
        close(fd);
        return 0;
}

static int fsync_path(const char *path, bool directory) {
        _cleanup_close_ int fd = open(path, (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return fsync(fd) < 0 ? -errno : 0;
}

static char *path_join(const char *a, const char *b) {
        char *p;
        if (asprintf(&p, "%s/%s", a, b) < 0)
                return NULL;
        return p;
}

static char *backup_path(const Store *s, int n) {
        char *p;
        if (asprintf(&p, "%s/" STORE_DB_NAME ".%d", s->backup_dir, n) < 0)
                return NULL;
        return p;
}

/* Copies src to dst through a temporary file and rename(), so dst is whole or absent. */
static int copy_file_atomic(const char *src, const char *dst) {
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, "%s.tmp", dst) < 0)
                return -ENOMEM;
        _cleanup_close_ int in = open(src, O_RDONLY | O_CLOEXEC);
        if (in < 0)
                return -errno;
        (void) unlink(tmp);
        _cleanup_close_ int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (out < 0)
                return -errno;
        char buf[65536];
        int r = 0;
        for (;;) {
                ssize_t n = read(in, buf, sizeof buf);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                if (n == 0)
                        break;
                for (ssize_t off = 0; off < n;) {
                        ssize_t w = write(out, buf + off, n - off);
                        if (w < 0) {
                                if (errno == EINTR)
                                        continue;
                                r = -errno;
                                break;
                        }
                        off += w;
                }
                if (r < 0)
                        break;
        }
        if (r >= 0 && fsync(out) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, dst) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

/* ---- connections ---------------------------------------------------------------------- */

static int db_exec_text(sqlite3 *db, const char *sql, char **ret_first) {
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
static int db_quick_check(sqlite3 *db, char **ret_reason) {
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

static int db_user_version(sqlite3 *db, int *ret) {
        _cleanup_free_ char *v = NULL;
        int r = db_exec_text(db, "PRAGMA user_version", &v);
        if (r < 0)
                return r;
        *ret = v ? atoi(v) : 0;
        return 0;
}

static void db_configure_limits(sqlite3 *db) {
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

int store_db_open_readonly(const char *path, sqlite3 **ret, char **ret_reason) {
        sqlite3 *db = NULL;
        int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return db_open_failed(db, rc, ret_reason);
        db_configure_limits(db);
        int r = db_quick_check(db, ret_reason);
        if (r < 0) {
                sqlite3_close_v2(db);
                return r;
        }
        *ret = db;
        return 0;
}

/* Opens (creating if asked) the main database with our pragmas, checks it and reads its
 * version. -EBADMSG means damaged; *ret_reason then says how. */
static int db_open_main(const char *path, sqlite3 **ret, int *ret_version, char **ret_reason) {
        sqlite3 *db = NULL;
        int r = precreate_private(path);
        if (r < 0) {
                if (ret_reason)
                        *ret_reason = strdup(strerror(-r));
                return r;
        }
        int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return db_open_failed(db, rc, ret_reason);
        db_configure_limits(db);

        /* The first read happens here: "file is not a database" shows up as -EBADMSG. */
        _cleanup_free_ char *mode = NULL;
        r = db_exec_text(db, "PRAGMA journal_mode = WAL", &mode);
        if (r >= 0 && !streq_ptr(mode, "wal"))
                r = -EIO;
        if (r >= 0)
                r = db_exec_text(db, "PRAGMA synchronous = NORMAL", NULL);
        if (r >= 0)
                r = db_exec_text(db, "PRAGMA foreign_keys = ON", NULL);
        /* The -wal or -shm could not be made: the OS error says why (EROFS, ENOSPC, ...). */
        if (r == -ENOENT && sqlite3_system_errno(db) > 0)
                r = -sqlite3_system_errno(db);
        if (r < 0) {
                if (ret_reason)
                        *ret_reason = strdup(sqlite3_errmsg(db));
                sqlite3_close_v2(db);
                return r;
        }
        r = db_quick_check(db, ret_reason);
        if (r >= 0)
                r = db_user_version(db, ret_version);
        if (r < 0) {
                sqlite3_close_v2(db);
                return r;
        }
        *ret = db;
        return 0;
}

/* ---- backups -------------------------------------------------------------------------- */

static int backup_write(Store *s) {
        _cleanup_free_ char *new_path = NULL;
        int r;

        if (mkdir(s->backup_dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        if (asprintf(&new_path, "%s/" STORE_DB_NAME ".new", s->backup_dir) < 0)
                return -ENOMEM;
        (void) unlink(new_path);
        r = precreate_private(new_path);
        if (r < 0)
                return r;

        sqlite3 *dst = NULL;
        int rc = sqlite3_open_v2(new_path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc == SQLITE_OK) {
                sqlite3_backup *b = sqlite3_backup_init(dst, "main", s->db, "main");
                if (!b)
                        rc = sqlite3_errcode(dst);
                else {
                        rc = sqlite3_backup_step(b, -1);
                        int frc = sqlite3_backup_finish(b);
                        if (rc == SQLITE_DONE)
                                rc = frc;
                }
        }
        /* A backup is one self-contained file: no -wal beside it, readable read-only. */
        if (rc == SQLITE_OK && db_exec_text(dst, "PRAGMA journal_mode = DELETE", NULL) < 0)
                rc = SQLITE_IOERR;
        if (rc != SQLITE_OK)
                log_debug("Backup to %s failed: %s", new_path, dst ? sqlite3_errmsg(dst) : "cannot open");
        sqlite3_close_v2(dst);
        if (rc != SQLITE_OK) {
                (void) unlink(new_path);
                return store_errno(rc) ?: -EIO;
        }
        r = fsync_path(new_path, false);
        if (r < 0)
                return r;

        for (int i = STORE_BACKUPS - 1; i >= 1; i--) {
                _cleanup_free_ char *from = backup_path(s, i), *to = backup_path(s, i + 1);
                if (!from || !to)
                        return -ENOMEM;
                if (rename(from, to) < 0 && errno != ENOENT)
                        return -errno;
        }
        _cleanup_free_ char *first = backup_path(s, 1);
        if (!first)
                return -ENOMEM;
        if (rename(new_path, first) < 0)
                return -errno;
        (void) fsync_path(s->backup_dir, true);
        s->changes_at_backup = sqlite3_total_changes64(s->db);
        return 0;
}

int store_backup(Store *s) {
        if (s->read_only_error < 0)
                return 0; /* nothing was changed, and the disk takes no new file */
        if (s->in_transaction || !sqlite3_get_autocommit(s->db))
                return -EBUSY; /* a backup of half a change is no backup */
        if (sqlite3_total_changes64(s->db) == s->changes_at_backup)
                return 0;
        _cleanup_free_ char *reason = NULL;
        int r = db_quick_check(s->db, &reason);
        if (r < 0)
                return log_error_errno(r, "Database %s failed its check (%s); keeping the existing backups.",
                                       s->db_path, strempty(reason));
        r = backup_write(s);
        if (r < 0)
                return log_warning_errno(r, "Failed to back up %s: %m", s->db_path);
        log_debug("Backed up %s.", s->db_path);
        return 1;
}

static bool any_backup_exists(const Store *s) {
        for (int i = 1; i <= STORE_BACKUPS; i++) {
                _cleanup_free_ char *p = backup_path(s, i);
                if (p && file_exists(p))
                        return true;
        }
        return false;
}

/* Moves the damaged file (and its WAL) aside for inspection. */
static int move_aside(const Store *s) {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));

        _cleanup_free_ char *target = NULL;
        for (int n = 0; n < 100; n++) {
                free(target);
                target = NULL;
                int k = n == 0 ? asprintf(&target, "%s.corrupt-%s", s->db_path, stamp)
                               : asprintf(&target, "%s.corrupt-%s-%d", s->db_path, stamp, n);
                if (k < 0)
                        return -ENOMEM;
                if (!file_exists(target))
                        break;
        }
        if (rename(s->db_path, target) < 0 && errno != ENOENT)
                return log_error_errno(-errno, "Failed to move damaged %s aside: %m", s->db_path);

        static const char *const suffixes[] = { "-wal", "-shm" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                _cleanup_free_ char *from = NULL, *to = NULL;
                if (asprintf(&from, "%s%s", s->db_path, suffixes[i]) < 0 ||
                    asprintf(&to, "%s%s", target, suffixes[i]) < 0)
                        return -ENOMEM;
                if (i == 1)
                        (void) unlink(from); /* shared memory index: worthless without its db */
                else
                        (void) rename(from, to);
        }
        log_error("Moved the damaged database to %s.", target);
        return 0;
}

/* Replaces a damaged main file with the newest usable backup, or with an empty database. */
static int store_recover(Store *s, const char *reason, int *ret_version) {
        log_error("Database %s is damaged: %s", s->db_path, reason);
        int r = move_aside(s);
        if (r < 0)
                return r;

        for (int i = 1; i <= STORE_BACKUPS; i++) {
                _cleanup_free_ char *b = backup_path(s, i), *why = NULL;
                if (!b)
                        return -ENOMEM;
                if (!file_exists(b))
                        continue;

                sqlite3 *bdb = NULL;
                int version = 0;
                r = store_db_open_readonly(b, &bdb, &why);
                if (r >= 0) {
                        r = db_user_version(bdb, &version);
                        sqlite3_close_v2(bdb);
                        if (r >= 0 && (version <= 0 || version > STORE_SCHEMA_VERSION))
                                r = -EPROTONOSUPPORT;
                }
                if (r < 0) {
                        log_warning_errno(r, "Backup %s is not usable (%s), trying an older one.", b,
                                          why ?: strerror(-r));
                        continue;
                }

                r = copy_file_atomic(b, s->db_path);
                if (r < 0) {
                        log_warning_errno(r, "Failed to copy backup %s: %m", b);
                        continue;
                }
                free(why);
                why = NULL;
                r = db_open_main(s->db_path, &s->db, ret_version, &why);
                if (r < 0) {
                        log_warning_errno(r, "Restored copy of %s does not open (%s).", b, strempty(why));
                        (void) unlink(s->db_path);
                        continue;
                }

                struct stat st;
                char when[64] = "unknown time";
                struct tm tm;
                if (stat(b, &st) == 0)
                        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&st.st_mtime, &tm));
                log_warning("Restored %s from backup %s (made %s). Changes made after that are lost.",
                            s->db_path, b, when);
                return 0;
        }

        _cleanup_free_ char *why = NULL;
        r = db_open_main(s->db_path, &s->db, ret_version, &why);
        if (r < 0)
                return log_error_errno(r, "Failed to create a new database %s: %s", s->db_path, strempty(why));
        log_error("No usable backup in %s: starting with an EMPTY database. Mappings, disk devices and "
                  "titles are lost.", s->backup_dir);
        return 0;
}

/* ---- migrations ----------------------------------------------------------------------- */

static int store_migrate(Store *s, int from, int to) {
        for (int v = from; v < to; v++) {
                char *err = NULL;
                int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, &err);
                if (rc == SQLITE_OK)
                        rc = sqlite3_exec(s->db, migrations[v], NULL, NULL, &err);
                if (rc == SQLITE_OK)
                        rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, &err);
                if (rc != SQLITE_OK) {
                        int r = store_errno(rc) ?: -EIO;
                        log_error_errno(r, "Failed to migrate %s from schema %d to %d: %s", s->db_path, v, v + 1,
                                        err ?: sqlite3_errmsg(s->db));
                        sqlite3_free(err);
                        if (!sqlite3_get_autocommit(s->db))
                                (void) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
                        return r;
                }
                if (from > 0)
                        log_info("Migrated %s from schema %d to %d.", s->db_path, v, v + 1);
        }
        return 0;
}

int store_schema_version(Store *s) {
        int v = 0;
        int r = db_user_version(s->db, &v);
        return r < 0 ? r : v;
}

/* Why the state directory takes no data, when it takes none: SQLite reports a full disk as a
 * bare I/O error on its -shm, and a read-only one as a file it cannot open. An unnamed
 * file (O_TMPFILE) given some space asks the filesystem itself and leaves nothing behind. */
static int probe_unwritable(const char *dir) {
        _cleanup_close_ int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
                return errno == EOPNOTSUPP || errno == EISDIR || errno == ENOENT ? 0 : -errno;
        int r = posix_fallocate(fd, 0, 65536);
        return r == ENOSPC || r == EDQUOT || r == EIO ? -r : 0;
}

/* ---- open / close --------------------------------------------------------------------- */

Store *store_free(Store *s) {
        if (!s)
                return NULL;
        if (s->db && s->in_transaction) {
                log_warning("Closing %s with a transaction open; committing it.", s->db_path);
                if (store_commit(s) < 0)
                        store_rollback(s);
        }
        for (size_t i = 0; i < _STMT_MAX; i++)
                sqlite3_finalize(s->stmts[i]);
        if (s->db)
                sqlite3_close_v2(s->db);
        free(s->state_dir);
        free(s->db_path);
        free(s->backup_dir);
        free(s);
        return NULL;
}

/* A copy of a log SQLite is about to ignore, beside it: SQLite overwrites it at the next
 * write, and the frames in it may still be read by hand. */
static void keep_wal_copy(const Store *s) {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
        _cleanup_free_ char *wal = NULL, *copy = NULL;
        if (asprintf(&wal, "%s-wal", s->db_path) < 0 || asprintf(&copy, "%s-wal.damaged-%s", s->db_path, stamp) < 0) {
                log_oom();
                return;
        }
        int r = copy_file_atomic(wal, copy);
        if (r < 0)
                log_error_errno(r, "Failed to keep a copy of %s: %m", wal);
        else
                log_error("Kept a copy of the damaged log as %s.", copy);
}

/* Says what SQLite would not: a write-ahead log it is going to ignore, in part or whole,
 * and with it changes that were acknowledged (docs/durability.md). */
static void check_wal(const Store *s) {
        StoreWalReport w;
        int r = store_wal_check(s->db_path, &w);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the write-ahead log of %s: %m", s->db_path);
                return;
        }
        switch (w.state) {
        case STORE_WAL_NONE:
        case STORE_WAL_EMPTY:
        case STORE_WAL_OK:
                return;
        case STORE_WAL_MISSING:
                log_error("%s-wal is missing while %s-shm is there: the database was in use when it was last "
                          "closed (a crash?) and its write-ahead log has been deleted since. Changes not yet "
                          "copied into %s, if there were any, are lost.", s->db_path, s->db_path, s->db_path);
                return;
        case STORE_WAL_SHORT:
                log_error("%s-wal is %" PRIu64 " bytes, shorter than its header: the write-ahead log was cut, "
                          "and SQLite ignores it. The changes it held are lost.", s->db_path, w.size);
                break;
        case STORE_WAL_BAD_HEADER:
                log_error("%s-wal has a damaged header: SQLite ignores all %" PRIu64 " bytes of the write-ahead "
                          "log. Changes not yet copied into %s are lost.", s->db_path, w.size, s->db_path);
                break;
        case STORE_WAL_DAMAGED:
                log_error("%s-wal is damaged: SQLite applies its first %u frames and ignores the rest "
                          "(%u frames from one that fails its checksum on, %u of a transaction without its "
                          "commit%s). The changes in those are lost (damage to the file, or a crash while "
                          "it was written).", s->db_path, w.frames_committed, w.frames_ignored,
                          w.frames_valid - w.frames_committed, w.cut ? ", and a frame cut short at the end" : "");
                break;
        }
        keep_wal_copy(s);
}

/* A Store with its paths and nothing open yet (NULL: out of memory). */
static Store *store_alloc(const char *state_dir) {
        _cleanup_(store_freep) Store *s = calloc(1, sizeof(Store));
        if (!s)
                return NULL;
        s->state_dir = strdup(state_dir);
        s->db_path = path_join(state_dir, STORE_DB_NAME);
        s->backup_dir = path_join(state_dir, "backups");
        if (!s->state_dir || !s->db_path || !s->backup_dir)
                return NULL;
        return TAKE_PTR(s);
}

int store_open_version(const char *state_dir, StoreOpenFlags flags, int max_version, Store **ret) {
        int r;

        if (isempty(state_dir) || max_version < 1 || max_version > STORE_SCHEMA_VERSION)
                return -EINVAL;

        _cleanup_(store_freep) Store *s = store_alloc(state_dir);
        if (!s)
                return -ENOMEM;

        bool existed = file_exists(s->db_path);
        if (!existed && (flags & STORE_OPEN_NO_CREATE))
                return -ENOENT;
        if (!existed) {
                r = mkdir_parents(state_dir, 0755);
                if (r < 0)
                        return log_error_errno(r, "Failed to create state directory %s: %m", state_dir);
                /* A missing file is taken as a deliberate reset (unlike a damaged or emptied
                 * one), but say how to undo it. */
                if (any_backup_exists(s))
                        log_warning("%s does not exist but backups do; starting with an empty database. "
                                    "To go back, stop tinctd and copy %s/" STORE_DB_NAME ".1 to %s.",
                                    s->db_path, s->backup_dir, s->db_path);
        }

        /* Before SQLite sees the log: it drops a damaged one silently. Tools open a store a
         * running daemon may be writing, whose log is live: not theirs to judge. */
        if (existed && !(flags & STORE_OPEN_NO_CREATE))
                check_wal(s);

        int version = 0;
        _cleanup_free_ char *reason = NULL;
        struct stat st;
        /* An emptied file is damage too; recover before SQLite writes a fresh header into it,
         * so the file kept aside is exactly what was found. */
        if (existed && stat(s->db_path, &st) >= 0 && st.st_size == 0 && any_backup_exists(s))
                r = store_recover(s, "the file is empty (truncated?)", &version);
        else
                r = db_open_main(s->db_path, &s->db, &version, &reason);
        if (r == -EBADMSG)
                r = store_recover(s, strempty(reason), &version);
        else if (r >= 0 && version == 0 && existed && any_backup_exists(s)) {
                /* An existing file without our schema while backups exist: it was truncated
                 * or replaced. A store we created ourselves never stays at version 0. */
                sqlite3_close_v2(s->db);
                s->db = NULL;
                r = store_recover(s, "the file holds no schema (truncated?)", &version);
        } else if (r < 0) {
                if (store_open_error_is_unwritable(r) && probe_unwritable(state_dir) < 0)
                        r = probe_unwritable(state_dir);
                return log_error_errno(r, "Failed to open %s: %m (%s)", s->db_path, strempty(reason));
        }
        if (r < 0)
                return r;

        if (version < 0 || version > STORE_SCHEMA_VERSION)
                return log_error_errno(-EPROTONOSUPPORT,
                                       "%s has schema version %d; this build knows up to %d. Refusing to touch it.",
                                       s->db_path, version, STORE_SCHEMA_VERSION);

        /* Backed up before migrating, so a failed migration can always go back. */
        if (version > 0 && !(flags & STORE_OPEN_NO_BACKUP)) {
                r = backup_write(s);
                if (r < 0)
                        log_warning_errno(r, "Failed to back up %s: %m", s->db_path);
        }

        if (version < max_version) {
                r = store_migrate(s, version, max_version);
                if (r < 0)
                        return r;
        }
        if (version == 0)
                s->changes_at_backup = -1; /* a new file gets its first backup from store_backup() */

        *ret = TAKE_PTR(s);
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
static int db_open_source_readonly(const char *path, sqlite3 **ret, bool *ret_immutable, char **ret_reason) {
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
        int r;
        _cleanup_free_ char *uri = uri_of_path(path, "?immutable=1");
        if (!uri)
                return -ENOMEM;
        sqlite3 *db = NULL;
        int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return db_open_failed(db, rc, ret_reason);
        db_configure_limits(db);
        r = db_quick_check(db, ret_reason);
        if (r < 0) {
                sqlite3_close_v2(db);
                return r;
        }
        *ret = db;
        *ret_immutable = true;
        return 0;
}

/* Copies what the file holds into the in-memory database. -EPROTONOSUPPORT for a newer
 * schema; other errors mean nothing could be read (logged). */
static int read_only_load(Store *s, int *ret_version, bool *ret_immutable) {
        sqlite3 *src = NULL;
        _cleanup_free_ char *reason = NULL;
        int r = db_open_source_readonly(s->db_path, &src, ret_immutable, &reason);
        if (r < 0)
                return log_error_errno(r, "Cannot read %s either: %m (%s).", s->db_path, strempty(reason));
        r = db_user_version(src, ret_version);
        if (r >= 0 && (*ret_version < 0 || *ret_version > STORE_SCHEMA_VERSION))
                r = log_error_errno(-EPROTONOSUPPORT, "%s has schema version %d; this build knows up to %d.",
                                    s->db_path, *ret_version, STORE_SCHEMA_VERSION);
        if (r >= 0) {
                sqlite3_backup *b = sqlite3_backup_init(s->db, "main", src, "main");
                int rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(s->db);
                int frc = b ? sqlite3_backup_finish(b) : SQLITE_OK;
                if (rc == SQLITE_DONE)
                        rc = frc;
                if (rc != SQLITE_OK)
                        r = log_error_errno(store_errno(rc) ?: -EIO, "Cannot copy %s into memory: %s", s->db_path,
                                            sqlite3_errmsg(s->db));
        }
        sqlite3_close_v2(src);
        return r;
}

int store_open_read_only(const char *state_dir, int write_error, Store **ret) {
        if (isempty(state_dir) || write_error >= 0)
                return -EINVAL;

        _cleanup_(store_freep) Store *s = store_alloc(state_dir);
        if (!s)
                return -ENOMEM;

        /* Everything is served from a copy in memory: no lock, no -shm, nothing written to
         * the state directory, and the daemon's reads behave as with the real file. */
        int rc = sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                 NULL);
        if (rc != SQLITE_OK)
                return store_errno(rc) ?: -ENOMEM;
        db_configure_limits(s->db);
        int r = db_exec_text(s->db, "PRAGMA foreign_keys = ON", NULL);
        if (r < 0)
                return r;

        int version = 0;
        bool immutable = false;
        const char *what = "nothing (no database file)";
        if (file_exists(s->db_path)) {
                r = read_only_load(s, &version, &immutable);
                if (r == -EPROTONOSUPPORT || r == -ENOMEM)
                        return r;
                _cleanup_free_ char *wal = NULL;
                struct stat st;
                if (asprintf(&wal, "%s-wal", s->db_path) < 0)
                        return -ENOMEM;
                bool wal_unread = immutable && stat(wal, &st) >= 0 && st.st_size > 0;
                what = r < 0 ? "nothing (the file cannot be read)" :
                       wal_unread ? "what the file holds, WITHOUT the changes in its write-ahead log (SQLite cannot "
                                    "read that log without writing beside it; they are kept, not lost)" :
                                    "what the file holds";
                if (r < 0)
                        version = 0;
        }
        if (version < STORE_SCHEMA_VERSION) {
                r = store_migrate(s, version, STORE_SCHEMA_VERSION); /* in memory only */
                if (r < 0)
                        return r;
        }
        r = probe_unwritable(state_dir);
        s->read_only_error = r < 0 ? r : write_error;
        s->changes_at_backup = sqlite3_total_changes64(s->db);

        /* The one line that says why nothing will be stored. */
        log_error("READ-ONLY: %s cannot be written (%s). Serving %s; every change that must be stored is "
                  "refused with this error until tinctd is restarted with a writable state directory.",
                  s->db_path, strerror(-s->read_only_error), what);
        *ret = TAKE_PTR(s);
        return 0;
}

bool store_open_error_is_unwritable(int error) {
        /* -ENOENT: SQLite's "unable to open database file" when it cannot create the -wal or
         * -shm beside the file. -EIO: what a full disk looks like when the -shm cannot grow. */
        switch (error) {
        case -EROFS:
        case -ENOSPC:
        case -EDQUOT:
        case -EIO:
        case -EACCES:
        case -EPERM:
        case -ENOENT:
                return true;
        default:
                return false;
        }
}

bool store_is_read_only(const Store *s) {
        return s->read_only_error < 0;
}

int store_open_full(const char *state_dir, StoreOpenFlags flags, Store **ret) {
        return store_open_version(state_dir, flags, STORE_SCHEMA_VERSION, ret);
}

int store_open(const char *state_dir, Store **ret) {
        return store_open_full(state_dir, 0, ret);
}

/* ---- store_info ----------------------------------------------------------------------- */

int store_info_set(Store *s, const char *key, const char *value) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_INFO_SET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, key);
        if (r >= 0)
                r = store_bind_text(st, 2, value);
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_info_get(Store *s, const char *key, char **ret) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_INFO_GET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, key);
        if (r >= 0)
                r = store_step_row(s, st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        return store_column_strdup(st, 0, ret);
}

/* ---- mappings ------------------------------------------------------------------------- */

int store_mapping_set(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                      uint64_t timestamp_us) {
        if (!device_id || !profile_id)
                return -EINVAL;
        if (timestamp_us > INT64_MAX)
                return -ERANGE;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_MAPPING_SET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_bind_text(st, 2, profile_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 3, layer));
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 4, (int64_t) timestamp_us));
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_mapping_unset(Store *s, uid_t layer, const char *device_id, const char *profile_id) {
        if (!device_id || !profile_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_MAPPING_UNSET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_bind_text(st, 2, profile_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 3, layer));
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_mapping_get(Store *s, uid_t layer, const char *device_id, const char *profile_id,
                      uint64_t *ret_timestamp_us) {
        if (!device_id || !profile_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_MAPPING_GET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_bind_text(st, 2, profile_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 3, layer));
        if (r >= 0)
                r = store_step_row(s, st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        int64_t t = sqlite3_column_int64(st, 0);
        if (ret_timestamp_us)
                *ret_timestamp_us = t < 0 ? 0 : (uint64_t) t;
        return 0;
}

void store_mappings_free(StoreMapping *m, size_t n) {
        if (!m)
                return;
        for (size_t i = 0; i < n; i++)
                free(m[i].id);
        free(m);
}

/* layer < 0: the statement takes no layer. */
static int mapping_query(Store *s, StoreStatement id, const char *key, int64_t layer, StoreMapping **ret,
                         size_t *ret_n) {
        if (!key || !ret || !ret_n)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, id, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, key);
        if (r >= 0 && layer >= 0)
                r = store_errno(sqlite3_bind_int64(st, 2, layer));
        if (r < 0)
                return r;

        StoreMapping *m = NULL;
        size_t n = 0, allocated = 0;
        while ((r = store_step_row(s, st)) > 0) {
                if (n == allocated) {
                        size_t na = allocated ? allocated * 2 : 8;
                        StoreMapping *t = reallocarray(m, na, sizeof(StoreMapping));
                        if (!t) {
                                r = -ENOMEM;
                                break;
                        }
                        m = t;
                        allocated = na;
                }
                r = store_column_strdup(st, 0, &m[n].id);
                if (r < 0 || !m[n].id) {
                        r = r < 0 ? r : -ENOMEM;
                        break;
                }
                m[n].timestamp = (uint64_t) sqlite3_column_int64(st, 1);
                n++;
        }
        if (r < 0) {
                store_mappings_free(m, n);
                return r;
        }
        *ret = m;
        *ret_n = n;
        return 0;
}

int store_mapping_profiles_for_device(Store *s, uid_t layer, const char *device_id, StoreMapping **ret,
                                      size_t *ret_n) {
        return mapping_query(s, STMT_MAPPING_PROFILES_FOR_DEVICE, device_id, layer, ret, ret_n);
}

int store_mapping_devices_for_profile(Store *s, const char *profile_id, StoreMapping **ret, size_t *ret_n) {
        return mapping_query(s, STMT_MAPPING_DEVICES_FOR_PROFILE, profile_id, -1, ret, ret_n);
}

/* ---- devices -------------------------------------------------------------------------- */

static int device_exists(Store *s, const char *device_id) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DEVICE_EXISTS, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_step_row(s, st);
        return r;
}

int store_device_add(Store *s, const char *device_id) {
        if (!device_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DEVICE_ADD, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_device_remove(Store *s, const char *device_id) {
        if (!device_id)
                return -EINVAL;
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_DEVICE_REMOVE, &st);
                if (r >= 0)
                        r = store_bind_text(st, 1, device_id);
                if (r >= 0)
                        r = store_step_done(s, st);
                if (r >= 0 && sqlite3_changes(s->db) == 0)
                        r = -ENOENT;
        }
        if (r >= 0) {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_ENABLED_DELETE, &st);
                if (r >= 0)
                        r = store_bind_text(st, 1, device_id);
                if (r >= 0)
                        r = store_step_done(s, st);
        }
        return store_op_end(s, &op, r);
}

int store_device_set_property(Store *s, const char *device_id, const char *key, const char *value) {
        if (!device_id || !key)
                return -EINVAL;
        if (streq(key, "Enabled"))
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, value ? STMT_DEVICE_PROPERTY_SET : STMT_DEVICE_PROPERTY_DELETE, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_bind_text(st, 2, key);
        if (r >= 0 && value)
                r = store_bind_text(st, 3, value);
        if (r >= 0)
                r = store_step_done(s, st);
        if (r >= 0 && !value && sqlite3_changes(s->db) == 0) {
                /* Deleting a key that is not there is fine, but not on a device that is not. */
                sqlite3_reset(st);
                r = device_exists(s, device_id);
                if (r >= 0)
                        r = r > 0 ? 0 : -ENOENT;
        }
        return r;
}

/* Collects column 0 (and 1 when pairs) of every row into a NULL-terminated list. */
static int collect_strings(Store *s, sqlite3_stmt *st, bool pairs, char ***ret) {
        char **l = NULL;
        size_t n = 0, allocated = 0;
        int r;
        while ((r = store_step_row(s, st)) > 0) {
                if (n + 3 > allocated) {
                        size_t na = allocated ? allocated * 2 : 16;
                        char **t = reallocarray(l, na, sizeof(char *));
                        if (!t) {
                                r = -ENOMEM;
                                break;
                        }
                        l = t;
                        allocated = na;
                }
                for (int c = 0; c < (pairs ? 2 : 1); c++) {
                        const unsigned char *t = sqlite3_column_text(st, c);
                        l[n] = strdup(t ? (const char *) t : "");
                        if (!l[n]) {
                                r = -ENOMEM;
                                break;
                        }
                        l[++n] = NULL;
                }
                if (r < 0)
                        break;
        }
        if (r >= 0 && !l) {
                l = calloc(1, sizeof(char *));
                if (!l)
                        r = -ENOMEM;
        }
        if (r < 0) {
                if (l)
                        l[n] = NULL;
                strv_free(l);
                return r;
        }
        *ret = l;
        return 0;
}

int store_device_list(Store *s, char ***ret_ids) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DEVICE_LIST, &st);
        if (r < 0)
                return r;
        return collect_strings(s, st, false, ret_ids);
}

int store_device_get_properties(Store *s, const char *device_id, char ***ret_pairs) {
        if (!device_id)
                return -EINVAL;
        StoreOp op;
        int r = store_op_begin(s, false, &op); /* existence and rows from one snapshot */
        if (r < 0)
                return r;
        r = device_exists(s, device_id);
        if (r == 0)
                r = -ENOENT;
        if (r >= 0) {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_DEVICE_PROPERTIES, &st);
                if (r >= 0)
                        r = store_bind_text(st, 1, device_id);
                if (r >= 0)
                        r = collect_strings(s, st, true, ret_pairs);
        }
        return store_op_end(s, &op, r);
}

int store_device_set_enabled(Store *s, const char *device_id, bool enabled) {
        if (!device_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_ENABLED_SET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int(st, 2, enabled));
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_device_get_enabled(Store *s, const char *device_id, bool *ret) {
        if (!device_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_ENABLED_GET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_step_row(s, st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        if (ret)
                *ret = sqlite3_column_int(st, 0) != 0;
        return 0;
}

int store_device_set_owner(Store *s, const char *device_id, uid_t owner) {
        if (!device_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DEVICE_SET_OWNER, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 2, (int64_t) owner));
        if (r >= 0)
                r = store_step_done(s, st);
        if (r >= 0 && sqlite3_changes(s->db) == 0)
                r = -ENOENT;
        return r;
}

int store_device_get_owner(Store *s, const char *device_id, uid_t *ret) {
        if (!device_id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DEVICE_GET_OWNER, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, device_id);
        if (r >= 0)
                r = store_step_row(s, st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        int64_t v = sqlite3_column_int64(st, 0);
        if (v < 0 || v > UINT32_MAX)
                return -EBADMSG;
        if (ret)
                *ret = (uid_t) v;
        return 0;
}

/* ---- titles --------------------------------------------------------------------------- */

int store_profile_title_set(Store *s, const char *profile_id, uid_t uid, const char *title) {
        if (!profile_id || !title)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_TITLE_SET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, profile_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 2, (int64_t) uid));
        if (r >= 0)
                r = store_bind_text(st, 3, title);
        if (r >= 0)
                r = store_step_done(s, st);
        return r;
}

int store_profile_title_get(Store *s, const char *profile_id, uid_t uid, char **ret) {
        if (!profile_id || !ret)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_TITLE_GET, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, profile_id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 2, (int64_t) uid));
        if (r >= 0)
                r = store_step_row(s, st);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        return store_column_strdup(st, 0, ret);
}

/* ---- text ----------------------------------------------------------------------------- */

