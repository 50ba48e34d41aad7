/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/store's tables on real SQLite files in temporary directories: every call
 * of mappings (in layers), disk devices, Enabled flags, titles and disk profiles, persistence
 * across a reopen, transactions, oversized values, verifications, and the per-uid bounds on
 * what a user writes without authorization. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
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
        assert_se(store_device_get_enabled(s, "a", STORE_LAYER_SYSTEM, &e) == -ENOENT);
        assert_se(store_device_set_enabled(s, "a", STORE_LAYER_SYSTEM, false) == 0);
        assert_se(store_device_get_enabled(s, "a", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        assert_se(store_device_set_enabled(s, "a", STORE_LAYER_SYSTEM, true) == 0);
        assert_se(store_device_get_enabled(s, "a", STORE_LAYER_SYSTEM, &e) == 0 && e);
        /* in layers: a user's own flag shows on that user's devices only, and never changes
         * the system's (a user's temp device of the id of the system's printer) */
        assert_se(store_device_set_enabled(s, "a", 1000, false) == 0);
        assert_se(store_device_get_enabled(s, "a", 1000, &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "a", STORE_LAYER_SYSTEM, &e) == 0 && e);
        assert_se(store_device_get_enabled(s, "a", 2000, &e) == 0 && e);
        assert_se(store_device_set_enabled(s, "b", 1000, false) == 0);
        assert_se(store_device_get_enabled(s, "b", STORE_LAYER_SYSTEM, &e) == -ENOENT);

        assert_se(store_device_remove(s, "a") == 0);
        assert_se(store_device_remove(s, "a") == -ENOENT);
        assert_se(store_device_get_properties(s, "a", &props) == -ENOENT);
        assert_se(store_device_get_enabled(s, "a", STORE_LAYER_SYSTEM, &e) == -ENOENT);
        assert_se(store_device_get_enabled(s, "a", 1000, &e) == 0 && !e); /* the user's own stays */
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

/* Disk profiles: bytes exact, creation order, a damaged row loses only that profile. */
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

/* store_exec()'s binder: every kind of value, NULLs, and the programming errors it asserts
 * (a wrong number of values, two SQL texts for one cache slot). */
static void test_bind_args(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);

        sqlite3_stmt *st = NULL;
        assert_se(sqlite3_prepare_v2(s->db, "SELECT ?1, ?2, ?3, ?4, ?5, typeof(?6), typeof(?7), typeof(?8)", -1, &st,
                                     NULL) == SQLITE_OK);
        char *list[] = { "a", "", "ü", NULL }, *empty[] = { NULL };
        static const uint8_t blob[] = { 0, 1, 0xff };
        const StoreArg args[] = {
                ARG_TEXT("text ü"), ARG_INT(INT64_MIN), ARG_STRV(list), ARG_BLOB(blob, sizeof blob), ARG_STRV(empty),
                ARG_TEXT(NULL), ARG_STRV(NULL), ARG_BLOB(NULL, 0),
        };
        assert_se(store_bind_args(st, args, ELEMENTSOF(args)) == 0);
        assert_se(sqlite3_step(st) == SQLITE_ROW);
        assert_streq((const char *) sqlite3_column_text(st, 0), "text ü");
        assert_se(sqlite3_column_int64(st, 1) == INT64_MIN);
        _cleanup_strv_free_ char **back = NULL, **none = NULL;
        assert_se(store_column_strv(st, 2, &back) == 0 && strv_length(back) == 3);
        assert_streq(back[1], "");
        assert_streq(back[2], "ü");
        assert_se(sqlite3_column_bytes(st, 3) == 3 && memcmp(sqlite3_column_blob(st, 3), blob, 3) == 0);
        assert_se(store_column_strv(st, 4, &none) == 0 && none && !none[0]); /* empty, not NULL */
        for (int c = 5; c <= 7; c++)
                assert_streq((const char *) sqlite3_column_text(st, c), "null");
        sqlite3_reset(st);
        assert_aborts(store_bind_args(st, args, 2));
        sqlite3_finalize(st);

        /* A statement's slot holds one SQL text. */
        _cleanup_free_ char *v = NULL;
        assert_se(store_info_get(s, "nothing", &v) == -ENOENT);
        static const StoreSql other = { STMT_INFO_GET, "SELECT 1 WHERE ?1 IS NULL" };
        assert_aborts(store_exec(s, &other, NULL, ARG_TEXT(NULL)));
        s = store_free(s);
        rm_rf(dir);
}

static StoreVerification verification(const char *source, const char *when, double mean) {
        return (StoreVerification) { .source = (char *) source, .when = (char *) when, .mean = mean, .max = 2 * mean,
                                     .patches = 27, .profile_id = (char *) "icc-p" };
}

/* Newest first, per source; only the newest STORE_VERIFICATIONS_KEPT of a device and source
 * stay; bad records are refused whole; they outlive a reopen and a migration from schema 5;
 * a user's layer sees its rows over the system's, the system's not the user's; a read-only
 * store refuses to record one. */
static void test_verifications(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        StoreVerification *l = NULL, v;
        size_t n = 99;
        Store *s = NULL;
        char when[32];

        assert_se(store_open_version(dir, 0, 5, &s) == 0);
        s = store_free(s);
        assert_se(store_open(dir, &s) == 0); /* migrated: the table exists */
        assert_se(store_verification_list(s, STORE_LAYER_SYSTEM, "xrandr-A", NULL, &l, &n) == 0 && n == 0);
        store_verifications_free(l, n);

        v = verification(STORE_VERIFICATION_CALIBRATION, "2026-11-02T10:00:00Z", 0.3);
        assert_se(store_verification_add(s, STORE_LAYER_SYSTEM, "xrandr-A", &v) == 0);
        for (unsigned i = 0; i < STORE_VERIFICATIONS_KEPT + 8; i++) {
                snprintf(when, sizeof when, "2026-12-%02uT00:00:00Z", 1 + i % 28);
                v = verification(STORE_VERIFICATION_VERIFY, when, i);
                assert_se(store_verification_add(s, STORE_LAYER_SYSTEM, "xrandr-A", &v) == 0);
        }
        v = verification(STORE_VERIFICATION_VERIFY, "2026-12-05T00:00:00Z", 9.5);
        assert_se(store_verification_add(s, STORE_LAYER_SYSTEM, "xrandr-B", &v) == 0);

        /* refused whole */
        const StoreVerification bad[] = {
                verification("display", "2026-12-05T00:00:00Z", 1),
                verification(STORE_VERIFICATION_VERIFY, "2026-12-05", 1),
                verification(STORE_VERIFICATION_VERIFY, "2026-12-05T00:00:00Z+", 1),
                verification(STORE_VERIFICATION_VERIFY, "2026-12-05T00:00:00Z", NAN),
                verification(STORE_VERIFICATION_VERIFY, "2026-12-05T00:00:00Z", -1),
                verification(STORE_VERIFICATION_VERIFY, "2026-12-05T00:00:00Z", INFINITY),
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_se(store_verification_add(s, STORE_LAYER_SYSTEM, "xrandr-A", &bad[i]) == -EINVAL);
        s = store_free(s);

        assert_se(store_open(dir, &s) == 0);
        assert_se(store_verification_list(s, STORE_LAYER_SYSTEM, "xrandr-A", STORE_VERIFICATION_VERIFY, &l, &n) == 0);
        assert_se(n == STORE_VERIFICATIONS_KEPT);
        assert_se(l[0].mean == STORE_VERIFICATIONS_KEPT + 7 && l[0].max == 2 * l[0].mean && l[0].patches == 27);
        assert_se(l[n - 1].mean == 8); /* the 8 oldest went */
        assert_streq(l[0].profile_id, "icc-p");
        assert_streq(l[0].source, STORE_VERIFICATION_VERIFY);
        store_verifications_free(l, n);
        /* the calibration's is kept apart from 40 verifications */
        assert_se(store_verification_list(s, STORE_LAYER_SYSTEM, "xrandr-A", NULL, &l, &n) == 0 && n == STORE_VERIFICATIONS_KEPT + 1);
        assert_streq(l[n - 1].source, STORE_VERIFICATION_CALIBRATION);
        assert_streq(l[n - 1].when, "2026-11-02T10:00:00Z");
        assert_se(l[n - 1].mean == 0.3);
        store_verifications_free(l, n);
        assert_se(store_verification_list(s, STORE_LAYER_SYSTEM, "xrandr-B", NULL, &l, &n) == 0 && n == 1 && l[0].mean == 9.5);
        store_verifications_free(l, n);
        /* a user's layer: their own rows over the system's; the system never sees them */
        v = verification(STORE_VERIFICATION_VERIFY, "2026-12-06T00:00:00Z", 4.5);
        assert_se(store_verification_add(s, 1000, "xrandr-B", &v) == 0);
        assert_se(store_verification_list(s, 1000, "xrandr-B", NULL, &l, &n) == 0 && n == 2 && l[0].mean == 4.5 &&
                  l[1].mean == 9.5);
        store_verifications_free(l, n);
        assert_se(store_verification_list(s, STORE_LAYER_SYSTEM, "xrandr-B", NULL, &l, &n) == 0 && n == 1 &&
                  l[0].mean == 9.5);
        store_verifications_free(l, n);
        assert_se(store_verification_list(s, 1001, "xrandr-B", NULL, &l, &n) == 0 && n == 1 && l[0].mean == 9.5);
        store_verifications_free(l, n);
        s = store_free(s);

        assert_se(store_open_read_only(dir, -EROFS, &s) == 0);
        v = verification(STORE_VERIFICATION_VERIFY, "2026-12-06T00:00:00Z", 1);
        assert_se(store_verification_add(s, STORE_LAYER_SYSTEM, "xrandr-B", &v) == -EROFS);
        assert_se(store_verification_list(s, STORE_LAYER_SYSTEM, "xrandr-B", NULL, &l, &n) == 0 && n == 1);
        store_verifications_free(l, n);
        s = store_free(s);
        rm_rf(dir);
}

/* A user's layer keeps the results of its LIMIT_VERIFIED_DEVICES_PER_UID devices verified
 * last, the whole history of an older one going; one verified again counts as new; the
 * system's layer keeps every device's. */
static void test_verifications_per_uid(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        StoreVerification *l = NULL, v;
        size_t n;
        Store *s = NULL;
        char id[32];
        const unsigned extra = 4;

        assert_se(store_open(dir, &s) == 0);
        for (unsigned i = 0; i < LIMIT_VERIFIED_DEVICES_PER_UID + extra; i++) {
                snprintf(id, sizeof id, "temp-%u", i);
                v = verification(STORE_VERIFICATION_VERIFY, "2026-12-05T00:00:00Z", i);
                assert_se(store_verification_add(s, 1000, id, &v) == 0);
                v = verification(STORE_VERIFICATION_CALIBRATION, "2026-12-05T00:00:00Z", i);
                assert_se(store_verification_add(s, 1000, id, &v) == 0);
                assert_se(store_verification_add(s, STORE_LAYER_SYSTEM, id, &v) == 0);
                if (i == LIMIT_VERIFIED_DEVICES_PER_UID - 1) {
                        /* verified again before the cap is reached: the newest for now */
                        v = verification(STORE_VERIFICATION_VERIFY, "2026-12-06T00:00:00Z", 99);
                        assert_se(store_verification_add(s, 1000, "temp-1", &v) == 0);
                }
        }
        for (unsigned i = 0; i < LIMIT_VERIFIED_DEVICES_PER_UID + extra; i++) {
                snprintf(id, sizeof id, "temp-%u", i);
                assert_se(store_verification_list(s, 2000, id, NULL, &l, &n) == 0 && n == 1); /* the system's */
                store_verifications_free(l, n);
                assert_se(store_verification_list(s, 1000, id, NULL, &l, &n) == 0);
                bool kept = i == 1 || i > extra;
                assert_se(n == (kept ? (i == 1 ? 4 : 3) : 1));
                store_verifications_free(l, n);
        }
        s = store_free(s);
        rm_rf(dir);
}

/* Writes record `kind` of the test below: a mapping, a title or an Enabled flag. */
static void write_record(Store *s, unsigned kind, const char *id, uid_t uid, unsigned i) {
        if (kind == 0)
                assert_se(store_mapping_set(s, uid, id, "icc-a", i) == 0);
        else if (kind == 1)
                assert_se(store_profile_title_set(s, id, uid, "a title") == 0);
        else
                assert_se(store_device_set_enabled(s, id, uid, i % 2) == 0);
}

/* Whether uid's own record of `kind` for id is there. */
static bool has_record(Store *s, unsigned kind, const char *id, uid_t uid) {
        if (kind == 0) {
                StoreMapping *m = NULL;
                size_t n;
                assert_se(store_mapping_profiles_for_device(s, uid, id, &m, &n) == 0);
                store_mappings_free(m, n);
                return n > 0;
        }
        if (kind == 1) {
                _cleanup_free_ char *t = NULL;
                return store_profile_title_get(s, id, uid, &t) == 0;
        }
        return store_device_get_enabled(s, id, uid, NULL) == 0;
}

/* A user's mappings, titles and Enabled flags: the newest LIMIT_*_PER_UID of each, the
 * oldest written going first, a rewrite making a row the newest; another user's and the
 * system's (root's) untouched whatever their number. */
static void test_records_per_uid(void) {
        const unsigned caps[] = { LIMIT_MAPPINGS_PER_UID, LIMIT_TITLES_PER_UID, LIMIT_ENABLED_FLAGS_PER_UID };
        const unsigned extra = 4;
        char id[32];

        for (unsigned kind = 0; kind < ELEMENTSOF(caps); kind++) {
                _cleanup_free_ char *dir = make_temp_dir();
                Store *s = NULL;
                const unsigned cap = caps[kind];
                assert_se(store_open(dir, &s) == 0);
                write_record(s, kind, "other-0", 2000, 1);
                write_record(s, kind, "other-1", 2000, 1);
                for (unsigned i = 0; i < cap + extra; i++) {
                        snprintf(id, sizeof id, "sys-%u", i);
                        write_record(s, kind, id, STORE_LAYER_SYSTEM, i + 1);
                        snprintf(id, sizeof id, "user-%u", i);
                        write_record(s, kind, id, 1000, i + 1);
                        if (i == cap - 1) /* written again before the cap is reached: the newest for now */
                                write_record(s, kind, "user-1", 1000, 7);
                }
                for (unsigned i = 0; i < cap + extra; i++) {
                        snprintf(id, sizeof id, "user-%u", i);
                        assert_se(has_record(s, kind, id, 1000) == (i == 1 || i > extra));
                        snprintf(id, sizeof id, "sys-%u", i);
                        assert_se(has_record(s, kind, id, STORE_LAYER_SYSTEM));
                }
                assert_se(has_record(s, kind, "other-0", 2000) && has_record(s, kind, "other-1", 2000));
                s = store_free(s);
                rm_rf(dir);
        }
}

int main(void) {
        log_set_max_level(getenv("TEST_VERBOSE") ? LOG_DEBUG : LOG_INFO);
        test_basics();
        test_bind_args();
        test_persistence();
        test_mapping_layers();
        test_disk_profiles();
        test_bounds();
        test_disk_profile_set_property();
        test_failed_commit_leaves_no_transaction();
        test_verifications();
        test_verifications_per_uid();
        test_records_per_uid();
        return 0;
}
