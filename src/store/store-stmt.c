/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How the store runs SQL: the statement cache, binding values and stepping (store_exec()),
 * reading columns back, and transactions (store_begin() for a caller's group of writes,
 * store_op_begin() for the store's own).
 *
 * Deliberately not here: any table's SQL (each table's file keeps its own) and opening a
 * connection (store-db.c). */
#include "store-internal.h"

#include <assert.h>

#include "log.h"
#include "strv.h"

static const StoreSql sql_begin_immediate = { STMT_BEGIN_IMMEDIATE, "BEGIN IMMEDIATE" };
static const StoreSql sql_begin_deferred = { STMT_BEGIN_DEFERRED, "BEGIN DEFERRED" };
static const StoreSql sql_commit = { STMT_COMMIT, "COMMIT" };
static const StoreSql sql_rollback = { STMT_ROLLBACK, "ROLLBACK" };
static const StoreSql sql_savepoint = { STMT_SAVEPOINT, "SAVEPOINT store_op" };
static const StoreSql sql_release = { STMT_RELEASE, "RELEASE store_op" };
static const StoreSql sql_rollback_to = { STMT_ROLLBACK_TO, "ROLLBACK TO store_op" };

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

/* The cached statement of a slot, reset and with its bindings cleared. */
static int stmt_get(Store *s, const StoreSql *sql, sqlite3_stmt **ret) {
        assert(s);
        assert(sql && sql->slot < _STMT_MAX && sql->text);

        StoreStatement id = sql->slot;
        if (s->stmts[id]) {
                /* Two SQL texts for one slot would run the wrong statement: a bug. */
                assert(s->stmt_sql[id] == sql->text);
                sqlite3_reset(s->stmts[id]);
                sqlite3_clear_bindings(s->stmts[id]);
                *ret = s->stmts[id];
                return 0;
        }
        int rc = sqlite3_prepare_v3(s->db, sql->text, -1, SQLITE_PREPARE_PERSISTENT, &s->stmts[id], NULL);
        if (rc != SQLITE_OK) {
                /* A bug or a damaged schema: worth a line even at the default level. */
                log_error("Failed to prepare \"%s\": %s", sql->text, sqlite3_errmsg(s->db));
                return store_errno(rc);
        }
        s->stmt_sql[id] = sql->text;
        *ret = s->stmts[id];
        return 0;
}

static int bind_strv(sqlite3_stmt *st, int idx, char *const *l) {
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

static int bind_one(sqlite3_stmt *st, int idx, const StoreArg *a) {
        switch (a->type) {
        case STORE_ARG_TEXT:
                if (!a->text)
                        return store_errno(sqlite3_bind_null(st, idx));
                return store_errno(sqlite3_bind_text64(st, idx, a->text, strlen(a->text), SQLITE_STATIC, SQLITE_UTF8));
        case STORE_ARG_INT:
                return store_errno(sqlite3_bind_int64(st, idx, a->integer));
        case STORE_ARG_REAL:
                return store_errno(sqlite3_bind_double(st, idx, a->real));
        case STORE_ARG_STRV:
                return bind_strv(st, idx, a->strv);
        case STORE_ARG_BLOB:
                if (!a->blob.data)
                        return store_errno(sqlite3_bind_null(st, idx));
                return store_errno(sqlite3_bind_blob64(st, idx, a->blob.data, a->blob.size, SQLITE_STATIC));
        }
        assert(!"unknown StoreArgType");
        return -EINVAL;
}

int store_bind_args(sqlite3_stmt *st, const StoreArg *args, size_t n) {
        assert(st);
        /* As many values as the SQL has parameters: a mismatch is a bug, not input. */
        assert(n == (size_t) sqlite3_bind_parameter_count(st));
        for (size_t i = 0; i < n; i++) {
                int r = bind_one(st, (int) i + 1, &args[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A read-only store refuses every statement that would write, before SQLite sees it: its
 * in-memory copy would accept the write and lose it at exit. */
static int refuse_write(Store *s, sqlite3_stmt *st) {
        if (s->read_only_error < 0 && !sqlite3_stmt_readonly(st))
                return s->read_only_error;
        return 0;
}

int store_step(Store *s, sqlite3_stmt *st) {
        assert(s);
        assert(st);
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

int store_exec_args(Store *s, const StoreSql *sql, sqlite3_stmt **ret, const StoreArg *args, size_t n) {
        sqlite3_stmt *st = NULL;
        int r = stmt_get(s, sql, &st);
        if (r < 0)
                return r;
        if (ret)
                *ret = st; /* the caller's _cleanup_stmt_reset_ resets it, errors included */
        r = store_bind_args(st, args, n);
        if (r < 0)
                return r;
        r = store_step(s, st);
        if (!ret)
                sqlite3_reset(st);
        return r;
}

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

int store_collect_strings(Store *s, sqlite3_stmt *st, int r, bool pairs, char ***ret) {
        _cleanup_strv_free_ char **l = calloc(16, sizeof(char *));
        if (!l)
                return -ENOMEM;
        size_t n = 0, allocated = 16; /* grows by doubling: a list of thousands stays linear */
        for (; r > 0; r = store_step(s, st))
                for (int c = 0; c < (pairs ? 2 : 1); c++) {
                        if (n + 2 > allocated) {
                                char **t = reallocarray(l, allocated * 2, sizeof(char *));
                                if (!t)
                                        return -ENOMEM;
                                l = t;
                                allocated *= 2;
                        }
                        const unsigned char *t = sqlite3_column_text(st, c);
                        l[n] = strdup(t ? (const char *) t : "");
                        if (!l[n])
                                return -ENOMEM;
                        l[++n] = NULL;
                }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
}

static int run(Store *s, const StoreSql *sql) {
        return store_exec(s, sql, NULL);
}

int store_op_begin(Store *s, bool write, StoreOp *ret) {
        assert(s);
        ret->outer = sqlite3_get_autocommit(s->db);
        if (ret->outer)
                return run(s, write ? &sql_begin_immediate : &sql_begin_deferred);
        return run(s, &sql_savepoint);
}

int store_op_end(Store *s, StoreOp *op, int r) {
        if (r >= 0) {
                int q = run(s, op->outer ? &sql_commit : &sql_release);
                if (q >= 0)
                        return r;
                r = q;
        }
        if (op->outer) {
                if (!sqlite3_get_autocommit(s->db))
                        (void) run(s, &sql_rollback);
        } else {
                (void) run(s, &sql_rollback_to);
                (void) run(s, &sql_release);
        }
        return r;
}

int store_begin(Store *s) {
        assert(s);
        if (s->in_transaction || !sqlite3_get_autocommit(s->db))
                return -EBUSY;
        int r = run(s, &sql_begin_immediate);
        if (r < 0)
                return r;
        s->in_transaction = true;
        return 0;
}

int store_commit(Store *s) {
        assert(s);
        if (!s->in_transaction)
                return -ENOTCONN;
        int r = run(s, &sql_commit);
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
        assert(s);
        if (!s->in_transaction)
                return;
        if (!sqlite3_get_autocommit(s->db))
                (void) run(s, &sql_rollback);
        s->in_transaction = false;
}
