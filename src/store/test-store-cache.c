/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the parsed-ICC cache: round trips of every field, misses on a changed file
 * identity, unusable rows, pruning, and rows made from the real ICC corpus. */
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
#include "tests.h"

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

int main(void) {
        log_set_max_level(getenv("TEST_VERBOSE") ? LOG_DEBUG : LOG_INFO);
        test_profile_cache();
        test_profile_cache_real_files();
        return 0;
}
