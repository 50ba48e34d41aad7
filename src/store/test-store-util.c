/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the store's unit tests share: temporary directories, raw SQL on a file, a store
 * filled with one of everything and its check, and expecting an assert() to fire. */
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store-internal.h"
#include "strv.h"
#include "test-store-util.h"
#include "tests.h"

/* assert_aborts()'s child: an abort message is expected, not worth printing. */
void silence_stderr(void) {
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (fd >= 0)
                (void) dup2(fd, STDERR_FILENO);
}

bool child_aborted(pid_t pid) {
        int status;
        assert_se(waitpid(pid, &status, 0) == pid);
        return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

char *make_temp_dir(void) {
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

void rm_rf(const char *path) {
        (void) nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *path_in(const char *dir, const char *name) {
        char *p;
        assert_se(asprintf(&p, "%s/%s", dir, name) >= 0);
        return p;
}

bool exists(const char *dir, const char *name) {
        _cleanup_free_ char *p = path_in(dir, name);
        struct stat st;
        return lstat(p, &st) == 0;
}

void raw_exec(const char *db_path, const char *sql) {
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
void populate(Store *s) {
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
        assert_se(store_device_set_enabled(s, "dev-a", STORE_LAYER_SYSTEM, false) == 0);
        assert_se(store_device_set_enabled(s, "temp-dev", STORE_LAYER_SYSTEM, true) == 0);
        /* uid 1000's own flag over the system's */
        assert_se(store_device_set_enabled(s, "temp-dev", 1000, false) == 0);
        assert_se(store_profile_title_set(s, "icc-1", 0, "Root's") == 0);
        assert_se(store_profile_title_set(s, "icc-1", 1000, "User's") == 0);
        static uint8_t icc[] = { 0x00, 0x7f, 0x80, 0xff, 'a', 'c', 's', 'p' };
        char *props[] = { "Qualifier", "RGB.Plain.*", "Metadata \"key\"", "ü", NULL };
        assert_se(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "disk-prof", .owner = 1000, .properties = props,
                                                                   .data = icc, .size = sizeof icc }) == 0);
        assert_se(store_disk_profile_add(s, &(StoreDiskProfile) { .id = "disk-virtual" }) == 0);
}

void check_populated(Store *s) {
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
        assert_se(store_device_get_enabled(s, "dev-a", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "temp-dev", STORE_LAYER_SYSTEM, &e) == 0 && e);
        assert_se(store_device_get_enabled(s, "temp-dev", 1000, &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "temp-dev", 2000, &e) == 0 && e);
        assert_se(store_device_get_enabled(s, "dev-a", 1000, &e) == 0 && !e);

        _cleanup_free_ char *t = NULL;
        assert_se(store_profile_title_get(s, "icc-1", 1000, &t) == 0);
        assert_streq(t, "User's");
}

void damage_file(const char *path, Damage how) {
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
