/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Backups and recovery: rotating backups/tinct.db.1..3 (at open and from store_backup()),
 * putting the newest good backup in place of a damaged file (kept aside for inspection), and
 * saying what SQLite would not about a damaged write-ahead log (docs/durability.md).
 *
 * Deliberately not here: deciding that a file is damaged (store-db.c checks, store-open.c
 * decides) and reading the log's frames (store-wal.c). */
#include "store-internal.h"

#include <assert.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "store-wal.h"

static char *backup_path(const Store *s, int n) {
        char *p;
        if (asprintf(&p, "%s/" STORE_DB_NAME ".%d", s->backup_dir, n) < 0)
                return NULL;
        return p;
}


/* "20261205T234804Z", for the names of files kept aside. */
static void utc_stamp(char stamp[static 32]) {
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, 32, "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
}

/* The live database into path, as one self-contained file (no -wal beside it: readable
 * read-only, copied back as it is). */
static int backup_copy(Store *s, const char *path) {
        _cleanup_(store_db_closep) sqlite3 *dst = NULL;
        int rc = sqlite3_open_v2(path, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK) {
                log_debug("Backup to %s failed: %s", path, dst ? sqlite3_errmsg(dst) : "cannot open");
                return store_errno(rc) ?: -EIO;
        }
        sqlite3_backup *b = sqlite3_backup_init(dst, "main", s->db, "main");
        if (!b)
                rc = sqlite3_errcode(dst);
        else {
                rc = sqlite3_backup_step(b, -1);
                int frc = sqlite3_backup_finish(b);
                if (rc == SQLITE_DONE)
                        rc = frc;
        }
        if (rc != SQLITE_OK) {
                log_debug("Backup to %s failed: %s", path, sqlite3_errmsg(dst));
                return store_errno(rc) ?: -EIO;
        }
        int r = store_db_exec_text(dst, "PRAGMA journal_mode = DELETE", NULL);
        if (r < 0) {
                log_debug("Backup to %s failed: %s", path, sqlite3_errmsg(dst));
                return -EIO;
        }
        return 0;
}

/* .2 → .3, .1 → .2: the oldest is overwritten. */
static int backups_shift(const Store *s) {
        for (int i = STORE_BACKUPS - 1; i >= 1; i--) {
                _cleanup_free_ char *from = backup_path(s, i), *to = backup_path(s, i + 1);
                if (!from || !to)
                        return -ENOMEM;
                if (rename(from, to) < 0 && errno != ENOENT)
                        return -errno;
        }
        return 0;
}

int store_backup_write(Store *s) {
        assert(s);
        if (mkdir(s->backup_dir, 0700) < 0 && errno != EEXIST)
                return -errno;
        _cleanup_free_ char *new_path = path_join(s->backup_dir, STORE_DB_NAME ".new");
        if (!new_path)
                return -ENOMEM;
        (void) unlink(new_path);
        int r = store_precreate_private(new_path);
        if (r < 0)
                return r;
        r = backup_copy(s, new_path);
        if (r < 0) {
                (void) unlink(new_path);
                return r;
        }
        r = fsync_path(new_path);
        if (r < 0)
                return r;

        r = backups_shift(s);
        if (r < 0)
                return r;
        _cleanup_free_ char *first = backup_path(s, 1);
        if (!first)
                return -ENOMEM;
        if (rename(new_path, first) < 0)
                return -errno;
        (void) fsync_path(s->backup_dir);
        s->changes_at_backup = sqlite3_total_changes64(s->db);
        return 0;
}

int store_backup(Store *s) {
        assert(s);
        if (s->read_only_error < 0)
                return 0; /* nothing was changed, and the disk takes no new file */
        if (s->in_transaction || !sqlite3_get_autocommit(s->db))
                return -EBUSY; /* a backup of half a change is no backup */
        if (sqlite3_total_changes64(s->db) == s->changes_at_backup)
                return 0;
        _cleanup_free_ char *reason = NULL;
        int r = store_db_quick_check(s->db, &reason);
        if (r < 0)
                return log_error_errno(r, "Database %s failed its check (%s); keeping the existing backups.",
                                       s->db_path, strempty(reason));
        r = store_backup_write(s);
        if (r < 0)
                return log_warning_errno(r, "Failed to back up %s: %m", s->db_path);
        log_debug("Backed up %s.", s->db_path);
        return 1;
}

bool store_any_backup_exists(const Store *s) {
        for (int i = 1; i <= STORE_BACKUPS; i++) {
                _cleanup_free_ char *p = backup_path(s, i);
                if (p && path_exists(p))
                        return true;
        }
        return false;
}

/* Moves the damaged file (and its WAL) aside for inspection. */
static int move_aside(const Store *s) {
        char stamp[32];
        utc_stamp(stamp);

        _cleanup_free_ char *target = NULL;
        for (int n = 0; n < 100; n++) {
                free(target);
                target = NULL;
                int k = n == 0 ? asprintf(&target, "%s.corrupt-%s", s->db_path, stamp)
                               : asprintf(&target, "%s.corrupt-%s-%d", s->db_path, stamp, n);
                if (k < 0)
                        return -ENOMEM;
                if (!path_exists(target))
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

/* A backup that passes its check and has a schema this build knows. */
static int backup_usable(const char *path, char **ret_reason) {
        _cleanup_(store_db_closep) sqlite3 *db = NULL;
        int r = store_db_open_readonly(path, &db, ret_reason);
        if (r < 0)
                return r;
        int version = 0;
        r = store_db_user_version(db, &version);
        if (r < 0)
                return r;
        if (version <= 0 || version > STORE_SCHEMA_VERSION)
                return -EPROTONOSUPPORT;
        return 0;
}

int store_recover(Store *s, const char *reason, int *ret_version) {
        assert(s);
        assert(!s->db);
        log_error("Database %s is damaged: %s", s->db_path, reason);
        int r = move_aside(s);
        if (r < 0)
                return r;

        for (int i = 1; i <= STORE_BACKUPS; i++) {
                _cleanup_free_ char *b = backup_path(s, i), *why = NULL;
                if (!b)
                        return -ENOMEM;
                if (!path_exists(b))
                        continue;

                r = backup_usable(b, &why);
                if (r < 0) {
                        log_warning_errno(r, "Backup %s is not usable (%s), trying an older one.", b,
                                          why ?: strerror(-r));
                        continue;
                }

                r = copy_file_atomic(b, s->db_path, 0600, 0);
                if (r < 0) {
                        log_warning_errno(r, "Failed to copy backup %s: %m", b);
                        continue;
                }
                free(why);
                why = NULL;
                r = store_db_open_main(s->db_path, &s->db, ret_version, &why);
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
        r = store_db_open_main(s->db_path, &s->db, ret_version, &why);
        if (r < 0)
                return log_error_errno(r, "Failed to create a new database %s: %s", s->db_path, strempty(why));
        log_error("No usable backup in %s: starting with an EMPTY database. Mappings, disk devices and "
                  "titles are lost.", s->backup_dir);
        return 0;
}

/* A copy of a log SQLite is about to ignore, beside it: SQLite overwrites it at the next
 * write, and the frames in it may still be read by hand. */
static void keep_wal_copy(const Store *s) {
        char stamp[32];
        utc_stamp(stamp);
        _cleanup_free_ char *wal = NULL, *copy = NULL;
        if (asprintf(&wal, "%s-wal", s->db_path) < 0 || asprintf(&copy, "%s-wal.damaged-%s", s->db_path, stamp) < 0) {
                log_oom();
                return;
        }
        int r = copy_file_atomic(wal, copy, 0600, 0);
        if (r < 0)
                log_error_errno(r, "Failed to keep a copy of %s: %m", wal);
        else
                log_error("Kept a copy of the damaged log as %s.", copy);
}

/* Says what SQLite would not: a write-ahead log it is going to ignore, in part or whole,
 * and with it changes that were acknowledged (docs/durability.md). */
void store_check_wal(const Store *s) {
        assert(s);
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

