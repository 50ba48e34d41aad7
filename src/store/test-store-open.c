/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for opening the store: migrations from every older schema, recovery from damaged
 * files and backups, backup rotation, the read-only store, and the write-ahead log's checks. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "icc-info.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "store-internal.h"
#include "store-wal.h"
#include "strv.h"
#include "test-store-util.h"
#include "tinct-limits.h"
#include "tests.h"

static size_t count_corrupt_files(const char *dir) {
        _cleanup_free_ char *cmd = NULL;
        assert_se(asprintf(&cmd, "ls %s | grep -c '^tinct.db.corrupt-[0-9TZ-]*$'", dir) >= 0);
        FILE *p = popen(cmd, "r");
        assert_se(p);
        unsigned n = 0;
        assert_se(fscanf(p, "%u", &n) == 1);
        pclose(p);
        return n;
}

static void test_migration_from_v1(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        Store *s = NULL;

        assert_se(store_open_version(dir, 0, 1, &s) == 0);
        assert_se(store_schema_version(s) == 1);
        s = store_free(s);
        /* Written as a version-1 build wrote it: today's statements name columns v1 lacks. */
        raw_exec(db, "INSERT INTO mappings (device_id, profile_id, timestamp) VALUES ('dev', 'icc', 42)");
        raw_exec(db, "INSERT INTO device_enabled (device_id, enabled) VALUES ('dev', 0)");
        raw_exec(db, "INSERT INTO profile_titles (profile_id, uid, title) VALUES ('icc', 5, 'five')");
        assert_se(store_open_version(dir, 0, 1, &s) == 0);
        assert_se(store_device_add(s, "dev") == 0);
        assert_se(store_device_set_property(s, "dev", "Kind", "display") == 0);
        s = store_free(s);

        assert_se(store_open(dir, &s) == 0);
        assert_se(store_schema_version(s) == STORE_SCHEMA_VERSION);
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "dev", "icc", &ts) == 0 && ts == 42);
        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, "dev", &props) == 0);
        assert_streq(props[1], "display");
        bool e = true;
        assert_se(store_device_get_enabled(s, "dev", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        _cleanup_free_ char *title = NULL;
        assert_se(store_profile_title_get(s, "icc", 5, &title) == 0);
        assert_streq(title, "five");
        size_t n = 99;
        assert_se(store_profile_cache_count(s, &n) == 0 && n == 0); /* the v2 table exists */
        StoreDiskProfile *dp = NULL;
        assert_se(store_disk_profile_list(s, &dp, &n) == 0 && n == 0); /* and the v3 one */
        store_disk_profiles_free(dp, n);
        uid_t owner = 5;
        assert_se(store_device_get_owner(s, "dev", &owner) == 0 && owner == 0); /* v4: root's */
        s = store_free(s);

        /* The backup made before migrating is still at version 1. */
        _cleanup_free_ char *b = path_in(dir, "backups/tinct.db.1");
        sqlite3 *bdb = NULL;
        assert_se(store_db_open_readonly(b, &bdb, NULL) == 0);
        sqlite3_stmt *st = NULL;
        assert_se(sqlite3_prepare_v2(bdb, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK);
        assert_se(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1);
        sqlite3_finalize(st);
        sqlite3_close(bdb);

        /* A file from a newer build is refused and left alone, not treated as damage. */
        raw_exec(db, "PRAGMA user_version = 99");
        assert_se(store_open(dir, &s) == -EPROTONOSUPPORT);
        assert_se(count_corrupt_files(dir) == 0);
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
        raw_exec(db, pragma);
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "dev", "icc", &ts) == 0 && ts == 42);
        s = store_free(s);
        rm_rf(dir);
}

/* Schema 5 (mappings in layers) from every older version: each row, removals included,
 * becomes the system's, with its timestamp; no user layer appears; the new key works. */
static void test_migration_to_layers(int from) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        Store *s = NULL;

        assert_se(store_open_version(dir, 0, from, &s) == 0);
        assert_se(store_schema_version(s) == from);
        s = store_free(s);
        raw_exec(db, "INSERT INTO mappings (device_id, profile_id, timestamp) VALUES "
                     "('cups-Printer', 'icc-adobe', 42), ('cups-Printer', 'icc-blue', 0), ('xrandr-A', 'icc-adobe', 7)");

        assert_se(store_open(dir, &s) == 0);
        assert_se(store_schema_version(s) == STORE_SCHEMA_VERSION);
        uint64_t ts = 99;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "cups-Printer", "icc-adobe", &ts) == 0 && ts == 42);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "cups-Printer", "icc-blue", &ts) == 0 && ts == 0);
        /* a user's layer sees the system's rows until it has its own */
        assert_se(store_mapping_get(s, 65534, "cups-Printer", "icc-adobe", &ts) == 0 && ts == 42);
        _cleanup_free_ char *json = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&json, &size);
        assert_se(f && store_export_json(s, f) == 0);
        fclose(f);
        assert_se(!strstr(json, "\"owner\": 65534") && strstr(json, "\"timestamp\": 42"));
        /* the migrated key takes a second layer for the same pair */
        assert_se(store_mapping_set(s, 65534, "cups-Printer", "icc-adobe", 0) == 0);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "cups-Printer", "icc-adobe", &ts) == 0 && ts == 42);
        StoreMapping *m = NULL;
        size_t n = 0;
        assert_se(store_mapping_devices_for_profile(s, "icc-adobe", &m, &n) == 0 && n == 2);
        assert_streq(m[0].id, "xrandr-A");
        assert_streq(m[1].id, "cups-Printer");
        store_mappings_free(m, n);
        s = store_free(s);
        rm_rf(dir);
}

/* Schema 7 (a user's records bounded, tinct-limits.h; Enabled flags in layers) from every
 * older version: every row stays as it was, the Enabled flags become the system's, and a
 * user's older rows are the first to go once the user writes LIMIT_*_PER_UID new ones. */
static void test_migration_to_bounds(int from) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        Store *s = NULL;
        char id[32];

        assert_se(store_open_version(dir, 0, from, &s) == 0);
        s = store_free(s);
        raw_exec(db, "INSERT INTO device_enabled (device_id, enabled) VALUES ('xrandr-A', 0)");
        raw_exec(db, "INSERT INTO profile_titles (profile_id, uid, title) VALUES ('icc-a', 1000, 'old'), "
                     "('icc-a', 0, 'root''s')");
        if (from >= 5) /* the layers */
                raw_exec(db, "INSERT INTO mappings (device_id, profile_id, owner, timestamp) VALUES "
                             "('temp-old', 'icc-a', 1000, 5), ('temp-old', 'icc-a', 0, 6)");
        else
                raw_exec(db, "INSERT INTO mappings (device_id, profile_id, timestamp) VALUES ('temp-old', 'icc-a', 6)");

        assert_se(store_open(dir, &s) == 0);
        assert_se(store_schema_version(s) == STORE_SCHEMA_VERSION);
        uint64_t ts = 0;
        assert_se(store_mapping_get(s, 1000, "temp-old", "icc-a", &ts) == 0 && ts == (from >= 5 ? 5 : 6));
        _cleanup_free_ char *t = NULL;
        assert_se(store_profile_title_get(s, "icc-a", 1000, &t) == 0);
        assert_streq(t, "old");
        t = mfree(t);
        bool e = true;
        assert_se(store_device_get_enabled(s, "xrandr-A", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        e = true;
        assert_se(store_device_get_enabled(s, "xrandr-A", 1000, &e) == 0 && !e); /* the system's, seen by all */

        /* The user's new rows push the old ones out first; the system's stay. */
        for (unsigned i = 0; i < LIMIT_TITLES_PER_UID; i++) {
                snprintf(id, sizeof id, "icc-%u", i);
                assert_se(store_profile_title_set(s, id, 1000, "new") == 0);
        }
        for (unsigned i = 0; i < LIMIT_MAPPINGS_PER_UID; i++) {
                snprintf(id, sizeof id, "temp-%u", i);
                assert_se(store_mapping_set(s, 1000, id, "icc-a", 1) == 0);
        }
        for (unsigned i = 0; i < LIMIT_ENABLED_FLAGS_PER_UID; i++) {
                snprintf(id, sizeof id, "temp-%u", i);
                assert_se(store_device_set_enabled(s, id, 1000, false) == 0);
        }
        assert_se(store_profile_title_get(s, "icc-a", 1000, &t) == -ENOENT);
        assert_se(store_profile_title_get(s, "icc-a", 0, &t) == 0);
        assert_streq(t, "root's");
        assert_se(store_mapping_get(s, 1000, "temp-old", "icc-a", &ts) == 0 && ts == 6); /* the system's */
        assert_se(store_device_get_enabled(s, "xrandr-A", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        s = store_free(s);
        rm_rf(dir);
}

static void test_recovery(Damage how) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        Store *s = NULL;

        assert_se(store_open(dir, &s) == 0);
        populate(s);
        /* Enough rows that the file spans many pages. */
        assert_se(store_begin(s) == 0);
        for (int i = 0; i < 400; i++) {
                char id[64];
                snprintf(id, sizeof id, "bulk-device-%04d-with-a-longish-id-to-fill-pages", i);
                assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, id, "icc-bulk", 1000 + i) == 0);
        }
        assert_se(store_commit(s) == 0);
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0); /* backup .1 holds everything */
        s = store_free(s);

        damage_file(db, how);
        assert_se(store_open(dir, &s) == 0);
        check_populated(s);
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "bulk-device-0399-with-a-longish-id-to-fill-pages", "icc-bulk", &ts) == 0);
        assert_se(ts == 1399);
        s = store_free(s);
        assert_se(count_corrupt_files(dir) == 1);
        rm_rf(dir);
}

static void test_recovery_older_backup_and_none(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        _cleanup_free_ char *b1 = path_in(dir, "backups/tinct.db.1");
        _cleanup_free_ char *b2 = path_in(dir, "backups/tinct.db.2");
        Store *s = NULL;

        assert_se(store_open(dir, &s) == 0);
        populate(s);
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0); /* .1 */
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0); /* .1 → .2, new .1 */
        s = store_free(s);
        assert_se(exists(dir, "backups/tinct.db.2"));

        /* Newest backup damaged too: the older one is used. */
        damage_file(db, DAMAGE_HEADER);
        damage_file(b1, DAMAGE_TEXT);
        assert_se(store_open(dir, &s) == 0);
        check_populated(s);
        s = store_free(s);

        /* Every backup unusable: an empty store, said loudly. */
        damage_file(db, DAMAGE_TEXT);
        for (int i = 1; i <= STORE_BACKUPS; i++) {
                _cleanup_free_ char *name = NULL;
                assert_se(asprintf(&name, "backups/tinct.db.%d", i) >= 0);
                _cleanup_free_ char *b = path_in(dir, name);
                if (exists(dir, name))
                        damage_file(b, DAMAGE_TEXT);
        }
        assert_se(store_open(dir, &s) == 0);
        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0 && !ids[0]);
        assert_se(store_device_add(s, "after") == 0);
        s = store_free(s);
        assert_se(count_corrupt_files(dir) >= 2);
        (void) b2;
        rm_rf(dir);
}

static void test_backup_rotation(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_backup(s) == 1); /* a new file: first backup on the first call */
        assert_se(store_backup(s) == 0); /* nothing changed */
        for (int i = 0; i < 5; i++) {
                char id[16];
                snprintf(id, sizeof id, "d%d", i);
                assert_se(store_device_add(s, id) == 0);
                assert_se(store_backup(s) == 1);
        }
        assert_se(store_begin(s) == 0);
        assert_se(store_backup(s) == -EBUSY);
        store_rollback(s);
        s = store_free(s);
        assert_se(exists(dir, "backups/tinct.db.1"));
        assert_se(exists(dir, "backups/tinct.db.2"));
        assert_se(exists(dir, "backups/tinct.db.3"));
        assert_se(!exists(dir, "backups/tinct.db.4"));
        assert_se(!exists(dir, "backups/tinct.db.new"));
        assert_se(!exists(dir, "backups/tinct.db.1-wal"));

        struct stat st;
        _cleanup_free_ char *bd = path_in(dir, "backups"), *b1 = path_in(dir, "backups/tinct.db.1");
        assert_se(stat(bd, &st) == 0 && (st.st_mode & 07777) == 0700);
        assert_se(stat(b1, &st) == 0 && (st.st_mode & 07777) == 0600);

        /* .1 is the newest: it has all five devices, .2 has four. */
        sqlite3 *db = NULL;
        assert_se(store_db_open_readonly(b1, &db, NULL) == 0);
        sqlite3_stmt *q = NULL;
        assert_se(sqlite3_prepare_v2(db, "SELECT count(*) FROM devices", -1, &q, NULL) == SQLITE_OK);
        assert_se(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 5);
        sqlite3_finalize(q);
        assert_se(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL) == SQLITE_OK);
        assert_se(sqlite3_step(q) == SQLITE_ROW);
        assert_streq((const char *) sqlite3_column_text(q, 0), "delete");
        sqlite3_finalize(q);
        sqlite3_close(db);
        rm_rf(dir);
}

/* Every file of dir (one level) with its size and mtime, sorted: equal fingerprints mean
 * nothing in the directory was written. */
static char *dir_fingerprint(const char *dir) {
        struct dirent **list = NULL;
        int n = scandir(dir, &list, NULL, alphasort);
        assert_se(n >= 0);
        char *fp = strdup("");
        assert_se(fp);
        for (int i = 0; i < n; i++) {
                /* ".." is the shared temp directory: others' files change it. */
                if (streq(list[i]->d_name, "..")) {
                        free(list[i]);
                        continue;
                }
                _cleanup_free_ char *p = path_in(dir, list[i]->d_name);
                struct stat st;
                assert_se(lstat(p, &st) == 0);
                char *next;
                assert_se(asprintf(&next, "%s%s:%jd:%jd.%09ld;", fp, list[i]->d_name, (intmax_t) st.st_size,
                                   (intmax_t) st.st_mtim.tv_sec, st.st_mtim.tv_nsec) >= 0);
                free(fp);
                fp = next;
                free(list[i]);
        }
        free(list);
        return fp;
}

/* Every kind of write a read-only store must refuse, each with the error it was given. */
static void check_writes_refused(Store *s, int error) {
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-a", "icc-9", 5) == error);
        assert_se(store_device_add(s, "dev-new") == error);
        assert_se(store_device_set_property(s, "dev-z", "Model", "changed") == error);
        assert_se(store_device_set_owner(s, "dev-z", 5) == error);
        assert_se(store_device_remove(s, "dev-z") == error);
        assert_se(store_device_set_enabled(s, "dev-a", STORE_LAYER_SYSTEM, true) == error);
        assert_se(store_profile_title_set(s, "icc-1", 0, "New title") == error);
        assert_se(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "disk-new" }) == error);
        assert_se(store_disk_profile_remove(s, "disk-prof") == error);
        assert_se(store_disk_profile_set_property(s, "disk-prof", "Qualifier", "x") == error);
        assert_se(store_begin(s) == error);
        assert_se(store_import_colord(s, "/nonexistent") == error);
        assert_se(store_backup(s) == 0);
}

static void test_read_only(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        populate(s);
        s = store_free(s);
        _cleanup_free_ char *before = dir_fingerprint(dir);

        assert_se(store_open_read_only(dir, -EROFS, &s) == 0);
        assert_se(store_is_read_only(s));
        check_populated(s);
        check_writes_refused(s, -EROFS);
        check_populated(s);
        s = store_free(s);
        _cleanup_free_ char *after = dir_fingerprint(dir);
        assert_streq(before, after);

        /* The error given is the one every write answers (a full disk, here). */
        assert_se(store_open_read_only(dir, -ENOSPC, &s) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-a", "icc-9", 5) == -ENOSPC);
        s = store_free(s);

        /* No database file: an empty store with the schema, and still nothing written. */
        _cleanup_free_ char *empty = make_temp_dir();
        _cleanup_free_ char *empty_before = dir_fingerprint(empty);
        assert_se(store_open_read_only(empty, -EROFS, &s) == 0);
        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0 && strv_isempty(ids));
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "p", 1) == -EROFS);
        s = store_free(s);
        _cleanup_free_ char *empty_fp = dir_fingerprint(empty);
        assert_streq(empty_fp, empty_before);
        rm_rf(empty);

        /* An older schema is migrated in memory only; the file keeps its version. */
        _cleanup_free_ char *old = make_temp_dir();
        assert_se(store_open_version(old, 0, 1, &s) == 0);
        s = store_free(s);
        /* Written as a version-1 build wrote it: today's statements name columns v1 lacks. */
        _cleanup_free_ char *old_db = path_in(old, STORE_DB_NAME);
        raw_exec(old_db, "INSERT INTO mappings (device_id, profile_id, timestamp) VALUES ('dev', 'icc', 42)");
        _cleanup_free_ char *old_before = dir_fingerprint(old);
        assert_se(store_open_read_only(old, -EROFS, &s) == 0);
        assert_se(store_schema_version(s) == STORE_SCHEMA_VERSION);
        uint64_t ts = 0;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "dev", "icc", &ts) == 0 && ts == 42);
        s = store_free(s);
        _cleanup_free_ char *old_after = dir_fingerprint(old);
        assert_streq(old_before, old_after);

        /* A newer schema is refused, as by store_open(). */
        _cleanup_free_ char *db = path_in(old, STORE_DB_NAME);
        raw_exec(db, "PRAGMA user_version = 99");
        assert_se(store_open_read_only(old, -EROFS, &s) == -EPROTONOSUPPORT);
        rm_rf(old);
        rm_rf(dir);
}

static void copy_file_to(const char *from_dir, const char *to_dir, const char *name) {
        _cleanup_free_ char *from = path_in(from_dir, name), *to = path_in(to_dir, name);
        int in = open(from, O_RDONLY | O_CLOEXEC);
        if (in < 0) {
                assert_se(errno == ENOENT);
                return;
        }
        int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_se(out >= 0);
        char buf[65536];
        ssize_t n;
        while ((n = read(in, buf, sizeof buf)) > 0)
                assert_se(write(out, buf, n) == n);
        assert_se(n == 0);
        close(in);
        close(out);
}

/* A copy of dir's database files as a crash would leave them: -wal and -shm included. */
static char *crash_copy(const char *dir) {
        char *copy = make_temp_dir();
        copy_file_to(dir, copy, STORE_DB_NAME);
        copy_file_to(dir, copy, STORE_DB_NAME "-wal");
        copy_file_to(dir, copy, STORE_DB_NAME "-shm");
        return copy;
}

static size_t count_named(const char *dir, const char *part) {
        struct dirent **list = NULL;
        int n = scandir(dir, &list, NULL, alphasort);
        assert_se(n >= 0);
        size_t k = 0;
        for (int i = 0; i < n; i++) {
                if (strstr(list[i]->d_name, part))
                        k++;
                free(list[i]);
        }
        free(list);
        return k;
}

typedef enum WalDamage {
        WAL_INTACT,
        WAL_SHORT,        /* cut inside its header */
        WAL_HEADER,       /* a salt byte changed: the header checksum fails */
        WAL_FRAME,        /* a byte of the last frame's page changed */
        WAL_CUT,          /* the last frame cut short */
        WAL_DELETED,      /* gone, its -shm still there */
} WalDamage;

static void damage_wal(const char *dir, WalDamage how, uint32_t page_size) {
        _cleanup_free_ char *wal = path_in(dir, STORE_DB_NAME "-wal");
        struct stat st;
        assert_se(stat(wal, &st) == 0);
        off_t frame = 24 + page_size, last = 32 + ((st.st_size - 32) / frame - 1) * frame;
        int fd = open(wal, O_RDWR | O_CLOEXEC);
        assert_se(fd >= 0);
        uint8_t b;
        switch (how) {
        case WAL_INTACT:
                break;
        case WAL_SHORT:
                assert_se(ftruncate(fd, 20) == 0);
                break;
        case WAL_HEADER:
        case WAL_FRAME: {
                off_t at = how == WAL_HEADER ? 16 : last + 24 + 100;
                assert_se(pread(fd, &b, 1, at) == 1);
                b ^= 0x5a;
                assert_se(pwrite(fd, &b, 1, at) == 1);
                break;
        }
        case WAL_CUT:
                assert_se(ftruncate(fd, st.st_size - 100) == 0);
                break;
        case WAL_DELETED:
                assert_se(unlink(wal) == 0);
                break;
        }
        close(fd);
}

static const StoreWalState wal_expected[] = {
        [WAL_INTACT] = STORE_WAL_OK,
        [WAL_SHORT] = STORE_WAL_SHORT,
        [WAL_HEADER] = STORE_WAL_BAD_HEADER,
        [WAL_FRAME] = STORE_WAL_DAMAGED,
        [WAL_CUT] = STORE_WAL_DAMAGED,
        [WAL_DELETED] = STORE_WAL_MISSING,
};

/* Damage to the write-ahead log is seen before SQLite drops it: the finding (which the
 * store logs), a copy of the damaged log kept, the store still opens with what the main
 * file and the usable frames hold. */
static void test_wal_checks(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        populate(s);
        s = store_free(s);

        StoreWalReport w;
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        assert_se(store_wal_check(db, &w) == 0 && w.state == STORE_WAL_NONE); /* closed cleanly */

        /* Two changes after the last checkpoint live only in the log, one frame each. */
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-wal", "icc-w1", 11) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-wal", "icc-w2", 22) == 0);
        uint32_t page_size;
        {
                sqlite3_stmt *st = NULL;
                assert_se(sqlite3_prepare_v2(s->db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK);
                assert_se(sqlite3_step(st) == SQLITE_ROW);
                page_size = (uint32_t) sqlite3_column_int(st, 0);
                sqlite3_finalize(st);
        }

        for (WalDamage how = WAL_INTACT; how <= WAL_DELETED; how++) {
                _cleanup_free_ char *copy = crash_copy(dir);
                _cleanup_free_ char *copy_db = path_in(copy, STORE_DB_NAME);
                damage_wal(copy, how, page_size);
                assert_se(store_wal_check(copy_db, &w) == 0);
                fprintf(stderr, "wal damage %d: state %d, %u valid, %u committed, %u ignored, cut %d\n", how, w.state,
                        w.frames_valid, w.frames_committed, w.frames_ignored, w.cut);
                assert_se(w.state == wal_expected[how]);
                if (how == WAL_INTACT)
                        assert_se(w.frames_committed >= 2 && w.frames_ignored == 0 && !w.cut);
                if (how == WAL_FRAME)
                        assert_se(w.frames_ignored == 1 && w.frames_committed >= 1 && !w.cut);
                if (how == WAL_CUT)
                        assert_se(w.cut && w.frames_ignored == 0);

                Store *c = NULL;
                assert_se(store_open(copy, &c) == 0);
                check_populated(c); /* what the main file held is never lost */
                uint64_t ts = 0;
                bool first = store_mapping_get(c, STORE_LAYER_SYSTEM, "dev-wal", "icc-w1", &ts) == 0;
                bool second = store_mapping_get(c, STORE_LAYER_SYSTEM, "dev-wal", "icc-w2", &ts) == 0;
                assert_se(how == WAL_INTACT ? first && second : !second);
                assert_se(count_named(copy, "-wal.damaged-") ==
                          (how == WAL_INTACT || how == WAL_DELETED ? 0u : 1u));
                c = store_free(c);
                rm_rf(copy);
        }
        s = store_free(s);
        rm_rf(dir);
}

int main(void) {
        log_set_max_level(getenv("TEST_VERBOSE") ? LOG_DEBUG : LOG_INFO);
        test_migration_from_v1();
        for (int v = 1; v < STORE_SCHEMA_VERSION; v++)
                test_migration_to_layers(v);
        for (int v = 1; v < STORE_SCHEMA_VERSION; v++)
                test_migration_to_bounds(v);
        test_recovery(DAMAGE_PAGES);
        test_recovery(DAMAGE_HEADER);
        test_recovery(DAMAGE_TRUNCATE);
        test_recovery(DAMAGE_EMPTY);
        test_recovery(DAMAGE_TEXT);
        test_recovery_older_backup_and_none();
        test_backup_rotation();
        test_read_only();
        test_wal_checks();
        return 0;
}
