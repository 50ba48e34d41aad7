/* SPDX-License-Identifier: GPL-2.0-or-later */
/* store-failed.h on a real SQLite file: a failure is found only for the identity it was put
 * with (device, size, mtime, inode), reads as a miss of the parsed-ICC cache, and a parsed row and a failed row of one
 * path replace each other; the cache's prune forgets a failure with its file; all of it
 * survives a reopen. */
#include <ftw.h>
#include <stdio.h>

#include "icc-info.h"
#include "store-failed.h"
#include "tests.h"

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        (void) st;
        (void) ftw;
        return type == FTW_DP ? rmdir(path) : unlink(path);
}

int main(void) {
        char tmpl[] = "/tmp/test-store-failed-XXXXXX";
        assert_se(mkdtemp(tmpl));
        Store *s = NULL;
        assert_se(store_open(tmpl, &s) == 0);

        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 10, 20, 30, NULL) == 0);
        assert_se(store_failed_put(s, "/icc/bad.icc", 5, 10, 20, 30, "meta dict has 80000 entries") == 0);
        s = store_free(s);
        assert_se(store_open(tmpl, &s) == 0); /* across a restart */

        char *why = NULL;
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 10, 20, 30, &why) == 1);
        assert_streq(why, "meta dict has 80000 entries");
        free(why);
        /* any other identity is a file that changed: parse it */
        assert_se(store_failed_get(s, "/icc/bad.icc", 6, 10, 20, 30, NULL) == 0);
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 11, 20, 30, NULL) == 0);
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 10, 21, 30, NULL) == 0);
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 10, 20, 31, NULL) == 0);
        assert_se(store_failed_get(s, "/icc/other.icc", 5, 10, 20, 30, NULL) == 0);
        /* the cache reads it as a miss, never as a profile */
        IccInfo *got = NULL;
        assert_se(store_profile_cache_get(s, "/icc/bad.icc", 10, 20, 30, &got) == -ENOENT && !got);

        /* fixed: the parsed row replaces the failure, and back */
        IccInfo *info = calloc(1, sizeof(IccInfo));
        assert_se(info);
        snprintf(info->checksum, sizeof info->checksum, "%032x", 7);
        info->kind = "display-device";
        info->colorspace = "rgb";
        assert_se(store_profile_cache_put(s, "/icc/bad.icc", 12, 22, 30, info) == 0);
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 12, 22, 30, NULL) == 0);
        assert_se(store_profile_cache_get(s, "/icc/bad.icc", 12, 22, 30, &got) == 0);
        assert_streq(got->checksum, info->checksum);
        got = icc_info_free(got);
        assert_se(store_failed_put(s, "/icc/bad.icc", 5, 13, 23, 30, NULL) == 0);
        assert_se(store_profile_cache_get(s, "/icc/bad.icc", 13, 23, 30, &got) == -ENOENT);
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 13, 23, 30, &why) == 1 && !why);
        info = icc_info_free(info);

        /* the prune forgets it with its file */
        char *live[] = { (char *) "/icc/other.icc", NULL };
        assert_se(store_profile_cache_prune(s, live) == 1);
        assert_se(store_failed_get(s, "/icc/bad.icc", 5, 13, 23, 30, NULL) == 0);

        s = store_free(s);
        (void) nftw(tmpl, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        printf("test-store-failed: ok\n");
        return 0;
}
