/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/store on real SQLite files in temporary directories: every API,
 * persistence, the v1 → v2 migration, recovery from damaged files, colord's real databases
 * (tests/data/colord-db, written by Debian's colord 1.4.6), the ICC cache, JSON export and
 * import, and oversized values. */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "icc-info.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "store-internal.h"
#include "store-wal.h"
#include "strv.h"
#include "tests.h"

/* A programming error (a NULL argument, a malformed list) stops the caller with assert(),
 * as docs/CODING_STYLE.md asks: run expr in a child and expect SIGABRT. */
static void silence_stderr(void) {
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0)
                (void) dup2(fd, STDERR_FILENO);
}

static bool child_aborted(pid_t pid) {
        int status;
        assert_se(waitpid(pid, &status, 0) == pid);
        return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

#define assert_aborts(expr)                                                                            \
        do {                                                                                           \
                pid_t pid_ = fork();                                                                   \
                assert_se(pid_ >= 0);                                                                  \
                if (pid_ == 0) {                                                                       \
                        silence_stderr();                                                              \
                        (void) (expr);                                                                 \
                        _exit(0);                                                                      \
                }                                                                                      \
                assert_se(child_aborted(pid_));                                                        \
        } while (0)

static char *make_temp_dir(void) {
        char tmpl[] = "/tmp/test-store-XXXXXX";
        char *d = mkdtemp(tmpl);
        assert_se(d);
        return strdup(d);
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) st;
        (void) ftw;
        return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void rm_rf(const char *path) {
        (void) nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *path_in(const char *dir, const char *name) {
        char *p;
        assert_se(asprintf(&p, "%s/%s", dir, name) >= 0);
        return p;
}

static bool exists(const char *dir, const char *name) {
        _cleanup_free_ char *p = path_in(dir, name);
        struct stat st;
        return lstat(p, &st) == 0;
}

static void raw_exec(const char *db_path, const char *sql) {
        sqlite3 *db = NULL;
        assert_se(sqlite3_open(db_path, &db) == SQLITE_OK);
        char *err = NULL;
        if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
                fprintf(stderr, "raw_exec: %s\n", err);
                abort();
        }
        sqlite3_close(db);
}

/* Fills a store with one of everything. */
static void populate(Store *s) {
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-a", "icc-1", 1000) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-a", "icc-2", 2000) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-a", "icc-3", 0) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev-b", "icc-1", 1500) == 0);
        /* uid 1000's own layer: a choice over the system's and a removal hiding one */
        assert_se(store_mapping_set(s, 1000, "dev-a", "icc-4", 3000) == 0);
        assert_se(store_mapping_set(s, 1000, "dev-a", "icc-1", 0) == 0);
        assert_se(store_device_add(s, "dev-z") == 0);
        assert_se(store_device_add(s, "dev-a") == 0);
        assert_se(store_device_set_property(s, "dev-z", "Kind", "printer") == 0);
        assert_se(store_device_set_property(s, "dev-z", "Model", "Z \"quoted\" \\ ü 😀") == 0);
        assert_se(store_device_set_property(s, "dev-a", "Vendor", "Vendor\nwith\tcontrol\x01") == 0);
        assert_se(store_device_set_owner(s, "dev-a", 1000) == 0);
        assert_se(store_device_set_enabled(s, "dev-a", false) == 0);
        assert_se(store_device_set_enabled(s, "temp-dev", true) == 0);
        assert_se(store_profile_title_set(s, "icc-1", 0, "Root's") == 0);
        assert_se(store_profile_title_set(s, "icc-1", 1000, "User's") == 0);
        static uint8_t icc[] = { 0x00, 0x7f, 0x80, 0xff, 'a', 'c', 's', 'p' };
        char *props[] = { "Qualifier", "RGB.Plain.*", "Metadata \"key\"", "ü", NULL };
        assert_se(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "disk-prof", .owner = 1000, .properties = props,
                                                                   .data = icc, .size = sizeof icc }) == 0);
        assert_se(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "disk-virtual" }) == 0);
}

static void check_populated(Store *s) {
        StoreDiskProfile *dp = NULL;
        size_t dn = 0;
        assert_se(store_disk_profile_list(s, &dp, &dn) == 0 && dn == 2);
        assert_streq(dp[0].id, "disk-prof");
        assert_se(dp[0].owner == 1000 && dp[0].size == 8 && dp[0].data[3] == 0xff && memcmp(dp[0].data + 4, "acsp", 4) == 0);
        assert_se(strv_length(dp[0].properties) == 4);
        assert_streq(dp[0].properties[2], "Metadata \"key\"");
        assert_streq(dp[1].id, "disk-virtual");
        assert_se(!dp[1].data);
        store_disk_profiles_free(dp, dn);
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "dev-a", "icc-2", &ts) == 0 && ts == 2000);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "dev-a", "icc-3", &ts) == 0 && ts == 0);
        StoreMapping *m = NULL;
        size_t n = 0;
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "dev-a", &m, &n) == 0);
        assert_se(n == 2);
        assert_streq(m[0].id, "icc-1");
        assert_se(m[0].timestamp == 1000);
        assert_streq(m[1].id, "icc-2");
        store_mappings_free(m, n);
        assert_se(store_mapping_profiles_for_device(s, 1000, "dev-a", &m, &n) == 0);
        assert_se(n == 2);
        assert_streq(m[0].id, "icc-2");
        assert_streq(m[1].id, "icc-4");
        store_mappings_free(m, n);

        _cleanup_strv_free_ char **ids = NULL;
        uid_t owner = 7;
        assert_se(store_device_get_owner(s, "dev-a", &owner) == 0 && owner == 1000);
        assert_se(store_device_get_owner(s, "dev-z", &owner) == 0 && owner == 0);
        assert_se(store_device_list(s, &ids) == 0);
        assert_se(strv_length(ids) >= 2);
        assert_streq(ids[0], "dev-z");
        assert_streq(ids[1], "dev-a");

        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, "dev-z", &props) == 0);
        assert_se(strv_length(props) == 4);
        assert_streq(props[0], "Kind");
        assert_streq(props[1], "printer");
        assert_streq(props[3], "Z \"quoted\" \\ ü 😀");

        bool e;
        assert_se(store_device_get_enabled(s, "dev-a", &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "temp-dev", &e) == 0 && e);

        _cleanup_free_ char *t = NULL;
        assert_se(store_profile_title_get(s, "icc-1", 1000, &t) == 0);
        assert_streq(t, "User's");
}

static size_t count_corrupt_files(const char *dir);

static void test_basics(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *state = path_in(dir, "state/nested");
        Store *s = NULL;
        uint64_t ts;

        assert_se(store_open_full(state, STORE_OPEN_NO_CREATE, &s) == -ENOENT);
        assert_se(store_open(state, &s) == 0);

        struct stat st;
        _cleanup_free_ char *db = path_in(state, STORE_DB_NAME);
        assert_se(stat(state, &st) == 0 && (st.st_mode & 07777) == 0755);
        assert_se(stat(db, &st) == 0 && (st.st_mode & 07777) == 0600);
        assert_se(store_schema_version(s) == STORE_SCHEMA_VERSION);

        /* mappings */
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "p", &ts) == -ENOENT);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "p", 5) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "p", 7) == 0); /* replace */
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "p", &ts) == 0 && ts == 7);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "p", UINT64_MAX) == -ERANGE);
        assert_aborts(store_mapping_set(s, STORE_LAYER_SYSTEM, NULL, "p", 1));
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "q", 3) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "removed", 0) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "e", "p", 1) == 0);
        StoreMapping *m = NULL;
        size_t n = 99;
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "d", &m, &n) == 0);
        assert_se(n == 2);
        assert_streq(m[0].id, "q"); /* oldest first */
        assert_streq(m[1].id, "p");
        store_mappings_free(m, n);
        assert_se(store_mapping_devices_for_profile(s, "p", &m, &n) == 0);
        assert_se(n == 2);
        assert_streq(m[0].id, "e");
        assert_streq(m[1].id, "d");
        store_mappings_free(m, n);
        assert_se(store_mapping_devices_for_profile(s, "removed", &m, &n) == 0);
        assert_se(n == 0 && !m);

        /* devices */
        assert_se(store_device_add(s, "b") == 0);
        assert_se(store_device_add(s, "a") == 0);
        assert_se(store_device_add(s, "c") == 0);
        assert_se(store_device_add(s, "a") == -EEXIST);
        assert_se(store_device_set_property(s, "a", "Model", "M1") == 0);
        assert_se(store_device_set_property(s, "a", "Kind", "display") == 0);
        assert_se(store_device_set_property(s, "a", "Model", "M2") == 0); /* keeps its place */
        assert_se(store_device_set_property(s, "a", "Enabled", "False") == -EINVAL);
        assert_se(store_device_set_property(s, "nope", "Model", "x") == -ENOENT);
        assert_se(store_device_set_property(s, "nope", "Model", NULL) == -ENOENT);
        assert_se(store_device_set_property(s, "a", "Serial", NULL) == 0);
        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, "a", &props) == 0);
        assert_se(strv_length(props) == 4);
        assert_streq(props[0], "Model");
        assert_streq(props[1], "M2");
        assert_streq(props[2], "Kind");
        assert_streq(props[3], "display");
        props = strv_free(props);
        assert_se(store_device_set_property(s, "a", "Model", NULL) == 0);
        assert_se(store_device_get_properties(s, "a", &props) == 0);
        assert_se(strv_length(props) == 2);
        props = strv_free(props);
        assert_se(store_device_get_properties(s, "b", &props) == 0);
        assert_se(props && !props[0]);
        props = strv_free(props);
        assert_se(store_device_get_properties(s, "nope", &props) == -ENOENT);

        uid_t owner = 9;
        assert_se(store_device_get_owner(s, "a", &owner) == 0 && owner == 0); /* root's unless set */
        assert_se(store_device_set_owner(s, "a", 65534) == 0);
        assert_se(store_device_get_owner(s, "a", &owner) == 0 && owner == 65534);
        assert_se(store_device_set_owner(s, "nope", 1) == -ENOENT);
        assert_se(store_device_get_owner(s, "nope", &owner) == -ENOENT);

        bool e = true;
        assert_se(store_device_get_enabled(s, "a", &e) == -ENOENT);
        assert_se(store_device_set_enabled(s, "a", false) == 0);
        assert_se(store_device_get_enabled(s, "a", &e) == 0 && !e);
        assert_se(store_device_set_enabled(s, "a", true) == 0);
        assert_se(store_device_get_enabled(s, "a", &e) == 0 && e);

        assert_se(store_device_remove(s, "a") == 0);
        assert_se(store_device_remove(s, "a") == -ENOENT);
        assert_se(store_device_get_properties(s, "a", &props) == -ENOENT);
        assert_se(store_device_get_enabled(s, "a", &e) == -ENOENT);
        /* Re-adding gives a new place at the end, with no old properties. */
        assert_se(store_device_add(s, "a") == 0);
        assert_se(store_device_get_properties(s, "a", &props) == 0 && !props[0]);
        assert_se(store_device_get_owner(s, "a", &owner) == 0 && owner == 0);
        props = strv_free(props);
        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0);
        assert_se(strv_length(ids) == 3);
        assert_streq(ids[0], "b");
        assert_streq(ids[1], "c");
        assert_streq(ids[2], "a");

        /* titles */
        _cleanup_free_ char *t = NULL;
        assert_se(store_profile_title_get(s, "p", 0, &t) == -ENOENT);
        assert_se(store_profile_title_set(s, "p", 0, "zero") == 0);
        assert_se(store_profile_title_set(s, "p", 1000, "thousand") == 0);
        assert_se(store_profile_title_set(s, "p", 1000, "thousand 2") == 0);
        assert_se(store_profile_title_get(s, "p", 0, &t) == 0);
        assert_streq(t, "zero");
        t = mfree(t);
        assert_se(store_profile_title_get(s, "p", 1000, &t) == 0);
        assert_streq(t, "thousand 2");
        t = mfree(t);
        assert_se(store_profile_title_get(s, "p", 1, &t) == -ENOENT);

        /* transactions */
        assert_se(store_commit(s) == -ENOTCONN);
        assert_se(store_begin(s) == 0);
        assert_se(store_begin(s) == -EBUSY);
        assert_se(store_device_add(s, "in-tx") == 0);
        assert_se(store_device_remove(s, "b") == 0); /* a savepoint inside our transaction */
        assert_se(store_device_remove(s, "never") == -ENOENT); /* undoes only itself */
        store_rollback(s);
        assert_se(store_device_get_properties(s, "in-tx", &props) == -ENOENT);
        assert_se(store_device_get_properties(s, "b", &props) == 0);
        props = strv_free(props);
        assert_se(store_begin(s) == 0);
        assert_se(store_device_add(s, "in-tx") == 0);
        assert_se(store_commit(s) == 0);
        assert_se(store_device_get_properties(s, "in-tx", &props) == 0);
        props = strv_free(props);
        /* left open at close: committed */
        assert_se(store_begin(s) == 0);
        assert_se(store_device_add(s, "at-close") == 0);
        s = store_free(s);

        assert_se(store_open(state, &s) == 0);
        assert_se(store_device_get_properties(s, "at-close", &props) == 0);
        props = strv_free(props);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "p", &ts) == 0 && ts == 7);
        s = store_free(s);
        rm_rf(dir);
}

static void test_persistence(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        populate(s);
        check_populated(s);
        s = store_free(s);
        /* A fresh file is not backed up at open (nothing in it yet); the second open is. */
        assert_se(!exists(dir, "backups/tinct.db.1"));
        assert_se(store_open(dir, &s) == 0);
        check_populated(s);
        s = store_free(s);
        assert_se(exists(dir, "backups/tinct.db.1"));
        assert_se(!exists(dir, "tinct.db-wal")); /* checkpointed at close */
        rm_rf(dir);
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
        assert_se(store_open_version(dir, 0, 1, &s) == 0);
        assert_se(store_device_add(s, "dev") == 0);
        assert_se(store_device_set_property(s, "dev", "Kind", "display") == 0);
        assert_se(store_device_set_enabled(s, "dev", false) == 0);
        assert_se(store_profile_title_set(s, "icc", 5, "five") == 0);
        s = store_free(s);

        assert_se(store_open(dir, &s) == 0);
        assert_se(store_schema_version(s) == STORE_SCHEMA_VERSION);
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "dev", "icc", &ts) == 0 && ts == 42);
        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, "dev", &props) == 0);
        assert_streq(props[1], "display");
        bool e = true;
        assert_se(store_device_get_enabled(s, "dev", &e) == 0 && !e);
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

/* The layers (store.h): a user's layer over the system's, never the other way round. */
static void test_mapping_layers(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        uint64_t ts;
        StoreMapping *m = NULL;
        size_t n = 0;
        const uid_t user = 65534, other = 1000;

        assert_se(store_open(dir, &s) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "cups-Printer", "adobe", 100) == 0);
        assert_se(store_mapping_set(s, user, "cups-Printer", "bluish", 200) == 0); /* the user's default */
        assert_se(store_mapping_set(s, user, "cups-Printer", "adobe", 0) == 0);    /* and a removal */

        /* the system sees its own row alone */
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "cups-Printer", "adobe", &ts) == 0 && ts == 100);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "cups-Printer", "bluish", &ts) == -ENOENT);
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "cups-Printer", &m, &n) == 0 && n == 1);
        assert_streq(m[0].id, "adobe");
        store_mappings_free(m, n);
        /* the user sees theirs over it: the removal hides adobe, bluish is there */
        assert_se(store_mapping_get(s, user, "cups-Printer", "adobe", &ts) == 0 && ts == 0);
        assert_se(store_mapping_profiles_for_device(s, user, "cups-Printer", &m, &n) == 0 && n == 1);
        assert_streq(m[0].id, "bluish");
        store_mappings_free(m, n);
        /* another user sees the system's */
        assert_se(store_mapping_get(s, other, "cups-Printer", "bluish", &ts) == -ENOENT);
        assert_se(store_mapping_profiles_for_device(s, other, "cups-Printer", &m, &n) == 0 && n == 1);
        assert_streq(m[0].id, "adobe");
        store_mappings_free(m, n);
        /* a profile only one layer maps still names its device id */
        assert_se(store_mapping_devices_for_profile(s, "bluish", &m, &n) == 0 && n == 1);
        assert_streq(m[0].id, "cups-Printer");
        store_mappings_free(m, n);

        /* unset drops the layer's own row only */
        assert_se(store_mapping_unset(s, user, "cups-Printer", "adobe") == 0);
        assert_se(store_mapping_get(s, user, "cups-Printer", "adobe", &ts) == 0 && ts == 100);
        assert_se(store_mapping_unset(s, user, "cups-Printer", "nothing") == 0);
        assert_se(store_mapping_unset(s, STORE_LAYER_SYSTEM, "cups-Printer", "adobe") == 0);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "cups-Printer", "adobe", &ts) == -ENOENT);
        assert_se(store_mapping_get(s, user, "cups-Printer", "bluish", &ts) == 0 && ts == 200);
        assert_aborts(store_mapping_unset(s, user, NULL, "adobe"));
        s = store_free(s);
        rm_rf(dir);
}

typedef enum Damage {
        DAMAGE_PAGES,      /* garbage over every page but the first */
        DAMAGE_HEADER,     /* garbage over the file header */
        DAMAGE_TRUNCATE,   /* cut in the middle */
        DAMAGE_EMPTY,      /* truncated to zero bytes */
        DAMAGE_TEXT,       /* replaced by a text file */
} Damage;

static void damage_file(const char *path, Damage how) {
        struct stat st;
        assert_se(stat(path, &st) == 0);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        assert_se(fd >= 0);
        char garbage[4096];
        for (size_t i = 0; i < sizeof garbage; i++)
                garbage[i] = (char) (i * 131 + 7);
        switch (how) {
        case DAMAGE_PAGES:
                for (off_t off = 4096; off < st.st_size; off += sizeof garbage)
                        assert_se(pwrite(fd, garbage, sizeof garbage, off) == (ssize_t) sizeof garbage);
                break;
        case DAMAGE_HEADER:
                assert_se(pwrite(fd, garbage, 100, 0) == 100);
                break;
        case DAMAGE_TRUNCATE:
                assert_se(st.st_size > 8192);
                assert_se(ftruncate(fd, st.st_size / 2) == 0);
                break;
        case DAMAGE_EMPTY:
                assert_se(ftruncate(fd, 0) == 0);
                break;
        case DAMAGE_TEXT: {
                static const char text[] = "this is not a database\n";
                assert_se(ftruncate(fd, 0) == 0);
                assert_se(pwrite(fd, text, sizeof text - 1, 0) == (ssize_t) sizeof text - 1);
                break;
        }
        }
        close(fd);
}

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

static void sha_of(const char *path, char out[128]) {
        _cleanup_free_ char *cmd = NULL;
        assert_se(asprintf(&cmd, "sha256sum '%s'", path) >= 0);
        FILE *p = popen(cmd, "r");
        assert_se(p && fgets(out, 128, p));
        pclose(p);
}

static void test_colord_import(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *map = path_in(COLORD_FIXTURES, "mapping.db"),
                            *sto = path_in(COLORD_FIXTURES, "storage.db");
        char map_sum[128], sto_sum[128], after[128];
        sha_of(map, map_sum);
        sha_of(sto, sto_sum);

        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        /* Ours win over colord's. */
        assert_se(store_profile_title_set(s, "icc-a07f28226c40f0319868fa0890ccc8e4", 104, "ours") == 0);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 1);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 0); /* once only */

        static const char srgb[] = "icc-6209e0eee05d1da9df7b4e3c2da33f62", adobe[] = "icc-a07f28226c40f0319868fa0890ccc8e4",
                          bluish[] = "icc-a7c3b105758efd9fa9c99123d23237db";
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "xrandr-Fixture-Display", bluish, &ts) == 0 && ts == 0); /* removed */
        StoreMapping *m = NULL;
        size_t n = 0;
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "xrandr-Fixture-Display", &m, &n) == 0);
        assert_se(n == 2);
        assert_streq(m[0].id, adobe);
        assert_streq(m[1].id, srgb); /* MakeProfileDefault made it the newest */
        assert_se(m[0].timestamp > 1600000000000000ULL && m[1].timestamp > m[0].timestamp);
        store_mappings_free(m, n);
        assert_se(store_mapping_devices_for_profile(s, adobe, &m, &n) == 0);
        assert_se(n == 2);
        store_mappings_free(m, n);

        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0);
        assert_se(strv_length(ids) == 2);
        assert_streq(ids[0], "xrandr-Fixture-Display");
        assert_streq(ids[1], "cups-Fixture-Printer");

        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, "xrandr-Fixture-Display", &props) == 0);
        assert_se(strv_length(props) == 8); /* OwnerCmdline, Vendor, Model, Serial; no Enabled */
        assert_streq(props[0], "OwnerCmdline");
        assert_streq(props[2], "Vendor");
        assert_streq(props[3], "Fixture Vendor");
        assert_streq(props[7], "SN-0001");
        assert_se(!strv_contains(props, "Enabled"));
        props = strv_free(props);
        assert_se(store_device_get_properties(s, "cups-Fixture-Printer", &props) == 0);
        assert_se(strv_contains(props, "Kind") && strv_contains(props, "printer"));
        props = strv_free(props);
        assert_se(store_device_get_properties(s, "xrandr-Fixture-Gone", &props) == -ENOENT);
        assert_se(store_device_get_properties(s, "sane-Fixture-Scanner", &props) == -ENOENT);

        bool e = true;
        assert_se(store_device_get_enabled(s, "xrandr-Fixture-Display", &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "sane-Fixture-Scanner", &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "cups-Fixture-Printer", &e) == -ENOENT);

        _cleanup_free_ char *t = NULL;
        assert_se(store_profile_title_get(s, srgb, 0, &t) == 0);
        assert_streq(t, "sRGB for root");
        t = mfree(t);
        assert_se(store_profile_title_get(s, srgb, 104, &t) == 0);
        assert_streq(t, "sRGB für colord");
        t = mfree(t);
        assert_se(store_profile_title_get(s, adobe, 104, &t) == 0);
        assert_streq(t, "ours");
        t = mfree(t);

        _cleanup_free_ char *note = NULL;
        assert_se(store_info_get(s, "colord-import", &note) == 0);
        assert_se(strstr(note, "4 mappings, 2 devices"));
        s = store_free(s);

        /* Recorded across a restart too, and colord's files were not touched. */
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 0);
        s = store_free(s);
        sha_of(map, after);
        assert_streq(after, map_sum);
        sha_of(sto, after);
        assert_streq(after, sto_sum);
        rm_rf(dir);

        /* No colord at all: recorded as done, nothing imported. */
        dir = mfree(dir);
        dir = make_temp_dir();
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_import_colord(s, "/nonexistent/colord") == 1);
        assert_se(store_import_colord(s, "/nonexistent/colord") == 0);
        s = store_free(s);
        rm_rf(dir);
}

/* Files shaped like older colord versions: only the legacy mappings table, with and without
 * its timestamp column, and a damaged storage.db. */
static void test_colord_import_legacy(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *cdir = path_in(dir, "colord"), *state = path_in(dir, "state");
        assert_se(mkdir(cdir, 0755) == 0);
        _cleanup_free_ char *map = path_in(cdir, "mapping.db"), *sto = path_in(cdir, "storage.db");
        raw_exec(map,
                 "CREATE TABLE mappings (device TEXT, profile TEXT);"
                 "INSERT INTO mappings VALUES ('old-dev', 'old-icc');"
                 "INSERT INTO mappings VALUES ('old-dev', 'old-icc');"
                 "INSERT INTO mappings VALUES (NULL, 'x');"
                 "INSERT INTO mappings VALUES ('bad-utf8', CAST(X'ff' AS TEXT));");
        raw_exec(sto, "CREATE TABLE t (x);");
        damage_file(sto, DAMAGE_TEXT);

        Store *s = NULL;
        assert_se(store_open(state, &s) == 0);
        assert_se(store_import_colord(s, cdir) == 1);
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "old-dev", "old-icc", &ts) == 0 && ts == 1);
        StoreMapping *m = NULL;
        size_t n = 0;
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "bad-utf8", &m, &n) == 0 && n == 0);
        _cleanup_free_ char *note = NULL;
        assert_se(store_info_get(s, "colord-import", &note) == 0);
        assert_se(strstr(note, "1 mappings") && strstr(note, "2 rows skipped"));
        s = store_free(s);
        rm_rf(state);

        unlink(map);
        unlink(sto);
        raw_exec(map,
                 "CREATE TABLE mappings (timestamp INTEGER DEFAULT 0, device TEXT, profile TEXT);"
                 "CREATE TABLE mappings_v2 (timestamp INTEGER DEFAULT 0, device TEXT, profile TEXT,"
                 "                          PRIMARY KEY (device, profile));"
                 "INSERT INTO mappings_v2 VALUES (500, 'd', 'p');"
                 "INSERT INTO mappings VALUES (900, 'd', 'p');"   /* v2 wins */
                 "INSERT INTO mappings VALUES (10, 'd', 'q');"
                 "INSERT INTO mappings VALUES (20, 'd', 'q');");  /* newest legacy wins */
        assert_se(store_open(state, &s) == 0);
        assert_se(store_import_colord(s, cdir) == 1);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "p", &ts) == 0 && ts == 500);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "q", &ts) == 0 && ts == 20);
        s = store_free(s);
        rm_rf(dir);
}

static IccInfo *make_info(int i) {
        IccInfo *info = calloc(1, sizeof(IccInfo));
        assert_se(info);
        snprintf(info->checksum, sizeof info->checksum, "%032x", i);
        assert_se(asprintf(&info->description, "Profile %d", i) >= 0);
        assert_se(asprintf(&info->title, "Title %d ü", i) >= 0);
        info->copyright = i % 2 ? strdup("No copyright") : NULL;
        info->kind = "display-device";
        info->colorspace = "rgb";
        info->has_vcgt = i % 3 == 0;
        info->created = 1600000000 + i;
        if (i % 4 != 1) {
                assert_se(strv_extend(&info->metadata, "DATA_source") == 0);
                assert_se(strv_extend(&info->metadata, i % 4 == 0 ? "edid" : "calib") == 0);
                assert_se(strv_extend(&info->metadata, "EDID_md5") == 0);
                assert_se(strv_extend(&info->metadata, "") == 0); /* empty values survive */
        }
        info->warnings = calloc(1, sizeof(char *));
        if (i % 5 == 0)
                assert_se(strv_extend(&info->warnings, "vcgt-non-monotonic") == 0);
        info->tags_ignored = i % 7;
        return info;
}

static void assert_info_equal(const IccInfo *a, const IccInfo *b) {
        assert_streq(a->checksum, b->checksum);
        assert_se(streq_ptr(a->description, b->description));
        assert_se(streq_ptr(a->title, b->title));
        assert_se(streq_ptr(a->copyright, b->copyright));
        assert_se(a->kind == b->kind || streq(a->kind, b->kind));
        assert_se(a->colorspace == b->colorspace || streq(a->colorspace, b->colorspace));
        assert_se(a->has_vcgt == b->has_vcgt);
        assert_se(a->created == b->created);
        assert_se(!a->metadata == !b->metadata);
        assert_se(strv_length(a->metadata) == strv_length(b->metadata));
        for (size_t i = 0; a->metadata && a->metadata[i]; i++)
                assert_streq(a->metadata[i], b->metadata[i]);
        assert_se(!a->warnings == !b->warnings);
        assert_se(strv_length(a->warnings) == strv_length(b->warnings));
        for (size_t i = 0; a->warnings && a->warnings[i]; i++)
                assert_streq(a->warnings[i], b->warnings[i]);
        assert_se(a->tags_ignored == b->tags_ignored);
}

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_profile_cache(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        IccInfo *got = NULL;
        assert_se(store_open(dir, &s) == 0);

        _cleanup_(icc_info_freep) IccInfo *a = make_info(4);
        assert_se(store_profile_cache_get(s, "/icc/a.icc", 10, 20, 30, &got) == -ENOENT);
        assert_se(store_profile_cache_put(s, "/icc/a.icc", 10, 20, 30, a) == 0);
        assert_se(store_profile_cache_get(s, "/icc/a.icc", 10, 20, 30, &got) == 0);
        assert_info_equal(a, got);
        /* static strings again, not copies */
        assert_se(got->kind == names_profile_kind_parse("display-device"));
        assert_se(got->colorspace == names_colorspace_parse("rgb"));
        got = icc_info_free(got);
        /* any part of the identity changed: a miss */
        assert_se(store_profile_cache_get(s, "/icc/a.icc", 11, 20, 30, &got) == -ENOENT);
        assert_se(store_profile_cache_get(s, "/icc/a.icc", 10, 21, 30, &got) == -ENOENT);
        assert_se(store_profile_cache_get(s, "/icc/a.icc", 10, 20, 31, &got) == -ENOENT);
        assert_se(store_profile_cache_get(s, "/icc/b.icc", 10, 20, 30, &got) == -ENOENT);
        /* identity values beyond INT64_MAX survive the signed column */
        assert_se(store_profile_cache_put(s, "/icc/big.icc", UINT64_MAX, -5, UINT64_MAX - 1, a) == 0);
        assert_se(store_profile_cache_get(s, "/icc/big.icc", UINT64_MAX, -5, UINT64_MAX - 1, &got) == 0);
        got = icc_info_free(got);

        /* NULL lists and NULL strings stay NULL; empty lists stay empty */
        _cleanup_(icc_info_freep) IccInfo *bare = calloc(1, sizeof(IccInfo));
        bare->kind = "no-such-kind";
        bare->colorspace = "cmyk";
        assert_se(store_profile_cache_put(s, "/icc/bare.icc", 1, 2, 3, bare) == 0);
        assert_se(store_profile_cache_get(s, "/icc/bare.icc", 1, 2, 3, &got) == 0);
        assert_streq(got->checksum, "");
        assert_se(!got->description && !got->title && !got->copyright && !got->metadata && !got->warnings);
        assert_streq(got->kind, "unknown");
        assert_streq(got->colorspace, "cmyk");
        got = icc_info_free(got);
        /* warnings filled in later, only for the identity they were computed from */
        char *late[] = { "vcgt-non-monotonic", NULL };
        assert_se(store_profile_cache_set_warnings(s, "/icc/bare.icc", 1, 2, 99, late) == 0);
        assert_se(store_profile_cache_get(s, "/icc/bare.icc", 1, 2, 3, &got) == 0);
        assert_se(!got->warnings);
        got = icc_info_free(got);
        assert_se(store_profile_cache_set_warnings(s, "/icc/bare.icc", 1, 2, 3, late) == 0);
        assert_se(store_profile_cache_get(s, "/icc/bare.icc", 1, 2, 3, &got) == 0);
        assert_se(strv_length(got->warnings) == 1);
        assert_streq(got->warnings[0], "vcgt-non-monotonic");
        got = icc_info_free(got);
        assert_aborts(store_profile_cache_set_warnings(s, "/icc/bare.icc", 1, 2, 3, NULL));
        bare->warnings = calloc(1, sizeof(char *));
        bare->metadata = calloc(1, sizeof(char *));
        assert_se(store_profile_cache_put(s, "/icc/bare.icc", 1, 2, 4, bare) == 0);
        assert_se(store_profile_cache_get(s, "/icc/bare.icc", 1, 2, 3, &got) == -ENOENT); /* replaced */
        assert_se(store_profile_cache_get(s, "/icc/bare.icc", 1, 2, 4, &got) == 0);
        assert_se(got->warnings && !got->warnings[0] && got->metadata && !got->metadata[0]);
        got = icc_info_free(got);
        /* an odd metadata list is a caller bug */
        assert_se(strv_extend(&bare->metadata, "lonely-key") == 0);
        assert_aborts(store_profile_cache_put(s, "/icc/odd.icc", 1, 2, 3, bare));

        /* a damaged row reads as a miss */
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        s = store_free(s);
        raw_exec(db, "UPDATE profile_cache SET warnings = X'41' WHERE path = '/icc/a.icc'");
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_profile_cache_get(s, "/icc/a.icc", 10, 20, 30, &got) == -ENOENT);

        /* prune */
        size_t n;
        assert_se(store_profile_cache_count(s, &n) == 0 && n == 3);
        char *live[] = { "/icc/bare.icc", "/icc/not-cached.icc", NULL };
        assert_se(store_profile_cache_prune(s, live) == 2);
        assert_se(store_profile_cache_count(s, &n) == 0 && n == 1);
        assert_se(store_profile_cache_get(s, "/icc/bare.icc", 1, 2, 4, &got) == 0);
        got = icc_info_free(got);
        assert_se(store_profile_cache_prune(s, NULL) == 1);
        assert_se(store_profile_cache_count(s, &n) == 0 && n == 0);

        /* 5000 entries: one transaction of puts, then point lookups as a restart does. */
        enum { N = 5000 };
        IccInfo **infos = calloc(N, sizeof(IccInfo *));
        char **paths = calloc(N + 1, sizeof(char *));
        for (int i = 0; i < N; i++) {
                infos[i] = make_info(i);
                assert_se(asprintf(&paths[i], "/usr/share/color/icc/vendor/profile-%05d.icc", i) >= 0);
        }
        double t0 = now_ms();
        assert_se(store_begin(s) == 0);
        for (int i = 0; i < N; i++)
                assert_se(store_profile_cache_put(s, paths[i], 1000 + i, 1700000000000000000LL + i, 50000 + i,
                                                  infos[i]) == 0);
        assert_se(store_commit(s) == 0);
        double t1 = now_ms();
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0);
        double t2 = now_ms();
        for (int i = 0; i < N; i++) {
                assert_se(store_profile_cache_get(s, paths[i], 1000 + i, 1700000000000000000LL + i, 50000 + i,
                                                  &got) == 0);
                assert_info_equal(infos[i], got);
                got = icc_info_free(got);
        }
        double t3 = now_ms();
        assert_se(store_profile_cache_prune(s, paths) == 0);
        free(paths[N - 1]);
        paths[N - 1] = NULL;
        assert_se(store_profile_cache_prune(s, paths) == 1);
        double t4 = now_ms();
        fprintf(stderr, "profile cache, %d entries: put %.1f ms (one transaction), get %.1f ms, prune %.1f ms\n", N,
                t1 - t0, t3 - t2, t4 - t3);
        for (int i = 0; i < N; i++)
                icc_info_free(infos[i]);
        free(infos);
        strv_free(paths);
        s = store_free(s);
        rm_rf(dir);
}

/* Real parser output through the cache: what icc_info_parse() builds comes back equal. */
static void test_disk_profiles(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        StoreDiskProfile *l = NULL;
        size_t n = 99;
        assert_se(store_open(dir, &s) == 0);

        uint8_t bytes[] = { 0, 1, 2, 0, 255 };
        char *props[] = { "Qualifier", "RGB.Glossy.*", "MAPPING_device_id", "dev-1", NULL };
        StoreDiskProfile a = { .id = "disk-a", .owner = 1000, .properties = props, .data = bytes, .size = sizeof bytes };
        StoreDiskProfile b = { .id = "disk-b", .owner = 0 }; /* no file, no properties */
        StoreDiskProfile empty = { .id = "disk-empty", .owner = 4294967294u, .data = bytes, .size = 0 };
        assert_se(store_disk_profile_add(s, &a) == 0);
        assert_se(store_disk_profile_add(s, &b) == 0);
        assert_se(store_disk_profile_add(s, &empty) == 0);
        assert_se(store_disk_profile_add(s, &a) == -EEXIST);
        char *odd[] = { "lonely", NULL };
        assert_aborts(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "odd", .properties = odd }));
        assert_aborts(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "x", .size = 3 }));

        /* survives a reopen, in creation order, bytes exact */
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_disk_profile_list(s, &l, &n) == 0 && n == 3);
        assert_streq(l[0].id, "disk-a");
        assert_se(l[0].owner == 1000 && l[0].size == sizeof bytes && memcmp(l[0].data, bytes, sizeof bytes) == 0);
        assert_se(strv_length(l[0].properties) == 4);
        assert_streq(l[0].properties[1], "RGB.Glossy.*");
        assert_streq(l[0].properties[3], "dev-1");
        assert_streq(l[1].id, "disk-b");
        assert_se(l[1].owner == 0 && !l[1].data && l[1].size == 0 && !l[1].properties);
        assert_se(l[2].owner == 4294967294u && l[2].data && l[2].size == 0);
        store_disk_profiles_free(l, n);

        assert_se(store_disk_profile_remove(s, "disk-b") == 0);
        assert_se(store_disk_profile_remove(s, "disk-b") == -ENOENT);

        /* a damaged row loses that profile only */
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        s = store_free(s);
        raw_exec(db, "UPDATE disk_profiles SET properties = X'41' WHERE profile_id = 'disk-empty'");
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_disk_profile_list(s, &l, &n) == 1 && n == 1);
        assert_streq(l[0].id, "disk-a");
        store_disk_profiles_free(l, n);
        s = store_free(s);
        rm_rf(dir);
}

static void test_profile_cache_real_files(void) {
        static const char *const dirs[] = { "/usr/share/color/icc/colord", "/usr/share/color/icc" };
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        unsigned n = 0;
        assert_se(store_open(dir, &s) == 0);
        for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                _cleanup_free_ char *cmd = NULL;
                assert_se(asprintf(&cmd, "ls %s/*.ic[cm] 2>/dev/null", dirs[d]) >= 0);
                FILE *p = popen(cmd, "r");
                char line[4096];
                while (p && fgets(line, sizeof line, p)) {
                        line[strcspn(line, "\n")] = '\0';
                        FILE *f = fopen(line, "re");
                        if (!f)
                                continue;
                        char *buf = malloc(8 * 1024 * 1024);
                        size_t size = fread(buf, 1, 8 * 1024 * 1024, f);
                        fclose(f);
                        struct stat st;
                        assert_se(stat(line, &st) == 0);
                        int64_t mtime = (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
                        _cleanup_(icc_info_freep) IccInfo *parsed = NULL, *got = NULL;
                        if (icc_info_parse(buf, size, &parsed, NULL) >= 0) {
                                assert_se(store_profile_cache_put(s, line, st.st_size, mtime, st.st_ino, parsed) == 0);
                                assert_se(store_profile_cache_get(s, line, st.st_size, mtime, st.st_ino, &got) == 0);
                                assert_info_equal(parsed, got);
                                n++;
                        }
                        free(buf);
                }
                if (p)
                        pclose(p);
        }
        fprintf(stderr, "profile cache: %u real profiles round-tripped\n", n);
        s = store_free(s);
        rm_rf(dir);
}

static char *export_to_string(Store *s) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        assert_se(f);
        assert_se(store_export_json(s, f) == 0);
        fclose(f);
        return buf;
}

static void test_json_roundtrip(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *a = path_in(dir, "a"), *b = path_in(dir, "b");
        Store *s = NULL;
        assert_se(store_open(a, &s) == 0);
        populate(s);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 1);
        _cleanup_free_ char *first = export_to_string(s);
        s = store_free(s);

        assert_se(store_open(b, &s) == 0);
        _cleanup_free_ char *err = NULL;
        assert_se(store_import_json(s, first, strlen(first), &err) == 0);
        check_populated(s);
        _cleanup_free_ char *second = export_to_string(s);
        assert_streq(first, second);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 0); /* the record came along */

        /* Import replaces: a second import of the same document gives the same store. */
        assert_se(store_device_add(s, "extra") == 0);
        assert_se(store_import_json(s, first, strlen(first), &err) == 0);
        _cleanup_free_ char *third = export_to_string(s);
        assert_streq(first, third);

        /* Bad documents change nothing and say why. */
        static const char *const bad[] = {
                "",
                "{",
                "[]",
                "{\"format\": \"tinct-store\", \"version\": 1}",
                "{\"format\": \"other\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 3, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": \"abc\"}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": \"AB\"}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": 12}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": -1, \"properties\": {}, \"data\": null}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": null}, {\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": null}]}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"x\": 1}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {}}, {\"id\": \"a\", \"properties\": {}}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {\"Enabled\": \"False\"}}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {}, \"owner\": -1}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {}, \"owner\": \"1000\"}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": -1}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1.5}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1}, {\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 2}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1, \"owner\": -1}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1, \"owner\": \"1000\"}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1, \"owner\": 1000}, {\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 2, \"owner\": 1000}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [{\"profile\": \"p\", \"uid\": 4294967295, \"title\": \"t\"}]}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [{\"device\": \"d\", \"enabled\": \"yes\"}], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": []} x",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err = mfree(err);
                assert_se(store_import_json(s, bad[i], strlen(bad[i]), &err) == -EBADMSG);
                assert_se(err && *err);
                fprintf(stderr, "  rejected as expected: %s\n", err);
                _cleanup_free_ char *now = export_to_string(s);
                assert_streq(now, first);
        }
        /* The minimal valid document (version 1, older builds wrote it) empties the store. */
        static const char empty[] =
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], "
                "\"mappings\": [], \"titles\": []}";
        assert_se(store_import_json(s, empty, strlen(empty), &err) == 0);
        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0 && !ids[0]);
        StoreDiskProfile *dp = NULL;
        size_t dn = 9;
        assert_se(store_disk_profile_list(s, &dp, &dn) == 0 && dn == 0);
        store_disk_profiles_free(dp, dn);
        s = store_free(s);
        rm_rf(dir);
}

static void test_json_parser(void) {
        static const char *const good[] = {
                "0", "-0", "1e5", "-1.25E-3", "true", "null", "\"\"", " [ ] ", "{}",
                "\"\\u00fc\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"ü😀\"", "[1, [2, {\"a\": [3]}]]",
        };
        static const char *const bad[] = {
                "", " ", "01", "1.", ".5", "-", "1e", "+1", "[1,]", "{\"a\":1,}", "{a:1}", "[1 2]",
                "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"",
                "\"a\tb\"", "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
                "\"unterminated", "{\"a\": 1, \"a\": 2}", "tru", "nul", "[1] [2]", "\xef\xbb\xbf{}",
                "// comment\n{}", "NaN", "Infinity",
        };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                JsonValue *v = NULL;
                char *err = NULL;
                if (json_parse(good[i], strlen(good[i]), &v, &err) < 0) {
                        fprintf(stderr, "refused good JSON %s: %s\n", good[i], err);
                        abort();
                }
                json_value_free(v);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                JsonValue *v = NULL;
                char *err = NULL;
                if (json_parse(bad[i], strlen(bad[i]), &v, &err) != -EBADMSG) {
                        fprintf(stderr, "accepted bad JSON %s\n", bad[i]);
                        abort();
                }
                assert_se(err);
                free(err);
        }
        /* an embedded NUL byte in the input is not whitespace */
        JsonValue *v = NULL;
        char *err = NULL;
        assert_se(json_parse("[1]\0", 4, &v, &err) == -EBADMSG);
        free(err);

        /* depth bound */
        char deep[2 * JSON_MAX_DEPTH + 8];
        size_t k = 0;
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
                deep[k++] = '[';
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
                deep[k++] = ']';
        assert_se(json_parse(deep, k, &v, &err) == -EBADMSG);
        assert_se(strstr(err, "nested"));
        free(err);
        assert_se(json_parse(deep + 1, k - 2, &v, NULL) == 0);
        json_value_free(v);

        /* escapes decode to the right bytes */
        static const char esc[] = "\"\\u00fc\\ud83d\\ude00\"";
        assert_se(json_parse(esc, strlen(esc), &v, NULL) == 0);
        assert_streq(v->text, "ü😀");
        json_value_free(v);

        int64_t x;
        assert_se(json_parse("9223372036854775807", 19, &v, NULL) == 0);
        assert_se(json_value_get_int64(v, &x) == 0 && x == INT64_MAX);
        json_value_free(v);
        assert_se(json_parse("9223372036854775808", 19, &v, NULL) == 0);
        assert_se(json_value_get_int64(v, &x) == -ERANGE);
        json_value_free(v);

        /* writer: escaping, and refusing invalid UTF-8 */
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        JsonWriter w;
        json_writer_init(&w, f);
        json_write_begin_object(&w);
        json_write_key(&w, "k\"");
        json_write_string(&w, "a\x01\n\\ü");
        json_write_end_object(&w);
        assert_se(json_writer_finish(&w) == 0);
        fclose(f);
        assert_streq(buf, "{\n  \"k\\\"\": \"a\\u0001\\n\\\\ü\"\n}\n");
        free(buf);
        f = open_memstream(&buf, &size);
        json_writer_init(&w, f);
        json_write_string(&w, "\xff");
        assert_se(json_writer_finish(&w) == -EILSEQ);
        fclose(f);
        free(buf);
}

static void test_bounds(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);

        size_t big = 1024 * 1024;
        char *value = malloc(big + 1);
        memset(value, 'x', big);
        value[big] = '\0';
        assert_se(store_device_add(s, value) == 0); /* a 1 MiB id works */
        assert_se(store_device_set_property(s, value, "Model", value) == 0);
        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, value, &props) == 0);
        assert_se(strlen(props[1]) == big);
        free(value);

        size_t huge = STORE_MAX_VALUE_SIZE + 16;
        value = malloc(huge + 1);
        memset(value, 'y', huge);
        value[huge] = '\0';
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, value, "p", 1) == -E2BIG);
        assert_se(store_profile_title_set(s, "p", 0, value) == -E2BIG);
        assert_se(store_device_add(s, value) == -E2BIG);
        free(value);
        /* still fine afterwards */
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "d", "p", 1) == 0);
        s = store_free(s);
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
        assert_se(store_device_set_enabled(s, "dev-a", true) == error);
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
/* Properties set on a disk profile after its creation are stored with it. */
static void test_disk_profile_set_property(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        populate(s);
        assert_se(store_disk_profile_set_property(s, "disk-prof", "Qualifier", "RGB.Glossy.*") == 0);
        assert_se(store_disk_profile_set_property(s, "disk-virtual", "MAPPING_device_id", "dev-a") == 0);
        assert_se(store_disk_profile_set_property(s, "no-such", "Qualifier", "x") == -ENOENT);
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0);
        StoreDiskProfile *dp = NULL;
        size_t n = 0;
        assert_se(store_disk_profile_list(s, &dp, &n) == 0 && n == 2);
        assert_se(strv_length(dp[0].properties) == 4); /* replaced in place */
        assert_streq(dp[0].properties[0], "Qualifier");
        assert_streq(dp[0].properties[1], "RGB.Glossy.*");
        assert_se(strv_length(dp[1].properties) == 2); /* added */
        assert_streq(dp[1].properties[0], "MAPPING_device_id");
        assert_streq(dp[1].properties[1], "dev-a");
        store_disk_profiles_free(dp, n);
        s = store_free(s);
        rm_rf(dir);
}

/* A commit that fails (here a deferred foreign key; on a full disk, the write of the log)
 * leaves no transaction open, so the next acknowledged write is committed at once. */
static void test_failed_commit_leaves_no_transaction(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *db = path_in(dir, STORE_DB_NAME);
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_begin(s) == 0);
        assert_se(sqlite3_exec(s->db, "PRAGMA defer_foreign_keys = ON; INSERT INTO device_properties "
                                      "(device_id, key, value) VALUES ('ghost', 'k', 'v')",
                               NULL, NULL, NULL) == SQLITE_OK);
        assert_se(store_commit(s) < 0);
        assert_se(sqlite3_get_autocommit(s->db));
        assert_se(store_begin(s) == 0);
        assert_se(store_commit(s) == 0);
        assert_se(store_mapping_set(s, STORE_LAYER_SYSTEM, "dev", "icc", 7) == 0);

        /* Another connection sees it: it is in the files, not in an open transaction. */
        sqlite3 *other = NULL;
        sqlite3_stmt *st = NULL;
        assert_se(sqlite3_open_v2(db, &other, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
        assert_se(sqlite3_prepare_v2(other, "SELECT timestamp FROM mappings WHERE device_id = 'dev'", -1, &st,
                                     NULL) == SQLITE_OK);
        assert_se(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == 7);
        sqlite3_finalize(st);
        sqlite3_close(other);
        s = store_free(s);
        rm_rf(dir);
}

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
        test_basics();
        test_persistence();
        test_migration_from_v1();
        for (int v = 1; v < STORE_SCHEMA_VERSION; v++)
                test_migration_to_layers(v);
        test_mapping_layers();
        test_recovery(DAMAGE_PAGES);
        test_recovery(DAMAGE_HEADER);
        test_recovery(DAMAGE_TRUNCATE);
        test_recovery(DAMAGE_EMPTY);
        test_recovery(DAMAGE_TEXT);
        test_recovery_older_backup_and_none();
        test_backup_rotation();
        test_colord_import();
        test_colord_import_legacy();
        test_profile_cache();
        test_profile_cache_real_files();
        test_disk_profiles();
        test_json_parser();
        test_json_roundtrip();
        test_bounds();
        test_read_only();
        test_wal_checks();
        test_disk_profile_set_property();
        test_failed_commit_leaves_no_transaction();
        return 0;
}
