/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Opening and closing a Store: the state directory, the checks before SQLite sees the file,
 * recovery when it is damaged, the backup and migrations at open, and the read-only copy in
 * memory for a state directory that takes no writes (docs/durability.md).
 *
 * Deliberately not here: the SQL of any table, how a connection is configured (store-db.c),
 * how backups are made and restored (store-recover.c). */
#include "store-internal.h"

#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"

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

/* Opens s->db_path into s->db, or puts the newest good backup in place of a damaged file.
 * Logs why it fails. */
static int open_or_recover(Store *s, bool existed, int *ret_version) {
        /* An emptied file is damage too; recover before SQLite writes a fresh header into it,
         * so the file kept aside is exactly what was found. */
        struct stat st;
        if (existed && stat(s->db_path, &st) >= 0 && st.st_size == 0 && store_any_backup_exists(s))
                return store_recover(s, "the file is empty (truncated?)", ret_version);

        _cleanup_free_ char *reason = NULL;
        int r = store_db_open_main(s->db_path, &s->db, ret_version, &reason);
        if (r == -EBADMSG)
                return store_recover(s, strempty(reason), ret_version);
        if (r < 0) {
                if (store_open_error_is_unwritable(r)) {
                        int q = probe_unwritable(s->state_dir);
                        if (q < 0)
                                r = q; /* the filesystem's own reason, not SQLite's guess */
                }
                return log_error_errno(r, "Failed to open %s: %m (%s)", s->db_path, strempty(reason));
        }
        if (*ret_version == 0 && existed && store_any_backup_exists(s)) {
                /* An existing file without our schema while backups exist: it was truncated
                 * or replaced. A store we created ourselves never stays at version 0. */
                sqlite3_close_v2(s->db);
                s->db = NULL;
                return store_recover(s, "the file holds no schema (truncated?)", ret_version);
        }
        return 0;
}

int store_open_version(const char *state_dir, StoreOpenFlags flags, int max_version, Store **ret) {
        int r;

        assert(state_dir);
        assert(max_version >= 1 && max_version <= STORE_SCHEMA_VERSION);
        assert(ret);
        if (isempty(state_dir))
                return -EINVAL; /* from a command line: "--state-dir=" */

        _cleanup_(store_freep) Store *s = store_alloc(state_dir);
        if (!s)
                return -ENOMEM;

        bool existed = path_exists(s->db_path);
        if (!existed && (flags & STORE_OPEN_NO_CREATE))
                return -ENOENT;
        if (!existed) {
                r = mkdir_parents(state_dir, 0755);
                if (r < 0)
                        return log_error_errno(r, "Failed to create state directory %s: %m", state_dir);
                /* A missing file is taken as a deliberate reset (unlike a damaged or emptied
                 * one), but say how to undo it. */
                if (store_any_backup_exists(s))
                        log_warning("%s does not exist but backups do; starting with an empty database. "
                                    "To go back, stop tinctd and copy %s/" STORE_DB_NAME ".1 to %s.",
                                    s->db_path, s->backup_dir, s->db_path);
        }

        /* Before SQLite sees the log: it drops a damaged one silently. Tools open a store a
         * running daemon may be writing, whose log is live: not theirs to judge. */
        if (existed && !(flags & STORE_OPEN_NO_CREATE))
                store_check_wal(s);

        int version = 0;
        r = open_or_recover(s, existed, &version);
        if (r < 0)
                return r;

        if (version < 0 || version > STORE_SCHEMA_VERSION)
                return log_error_errno(-EPROTONOSUPPORT,
                                       "%s has schema version %d; this build knows up to %d. Refusing to touch it.",
                                       s->db_path, version, STORE_SCHEMA_VERSION);

        /* Backed up before migrating, so a failed migration can always go back. */
        if (version > 0 && !(flags & STORE_OPEN_NO_BACKUP)) {
                r = store_backup_write(s);
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

/* Copies what the file holds into the in-memory database. -EPROTONOSUPPORT for a newer
 * schema; other errors mean nothing could be read (logged). */
static int read_only_load(Store *s, int *ret_version, bool *ret_immutable) {
        _cleanup_(store_db_closep) sqlite3 *src = NULL;
        _cleanup_free_ char *reason = NULL;
        int r = store_db_open_source(s->db_path, &src, ret_immutable, &reason);
        if (r < 0)
                return log_error_errno(r, "Cannot read %s either: %m (%s).", s->db_path, strempty(reason));
        r = store_db_user_version(src, ret_version);
        if (r < 0)
                return r;
        if (*ret_version < 0 || *ret_version > STORE_SCHEMA_VERSION)
                return log_error_errno(-EPROTONOSUPPORT, "%s has schema version %d; this build knows up to %d.",
                                       s->db_path, *ret_version, STORE_SCHEMA_VERSION);
        sqlite3_backup *b = sqlite3_backup_init(s->db, "main", src, "main");
        int rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(s->db);
        int frc = b ? sqlite3_backup_finish(b) : SQLITE_OK;
        if (rc == SQLITE_DONE)
                rc = frc;
        if (rc != SQLITE_OK)
                return log_error_errno(store_errno(rc) ?: -EIO, "Cannot copy %s into memory: %s", s->db_path,
                                       sqlite3_errmsg(s->db));
        return 0;
}

int store_open_read_only(const char *state_dir, int write_error, Store **ret) {
        assert(state_dir);
        assert(write_error < 0);
        assert(ret);
        if (isempty(state_dir))
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
        store_db_configure(s->db);
        int r = store_db_exec_text(s->db, "PRAGMA foreign_keys = ON", NULL);
        if (r < 0)
                return r;

        int version = 0;
        bool immutable = false;
        const char *what = "nothing (no database file)";
        if (path_exists(s->db_path)) {
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
        assert(s);
        return s->read_only_error < 0;
}

int store_read_only_error(const Store *s) {
        assert(s);
        return s->read_only_error;
}

int store_open_full(const char *state_dir, StoreOpenFlags flags, Store **ret) {
        return store_open_version(state_dir, flags, STORE_SCHEMA_VERSION, ret);
}

int store_open(const char *state_dir, Store **ret) {
        return store_open_full(state_dir, 0, ret);
}
