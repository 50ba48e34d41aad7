/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-bench-icc DIR COUNT [FIRST]: writes COUNT distinct, valid ICC profiles into DIR
 * (bench-NNNNNN.icc, numbered from FIRST), for the startup benchmark's profile
 * directories.
 *
 * Each file is lcms2's built-in sRGB display profile with its own description
 * ("tinct bench profile N") and a freshly computed embedded Profile ID, so every file
 * has a different checksum and both daemons count it as a separate profile (colord and
 * tinctd drop duplicates by checksum). The files are small (well under 1 KiB each), so
 * the benchmark measures per-profile work (open, parse, checksum, warnings, object
 * export), not disk bandwidth. Deliberately not measured here: anything; this only
 * prepares input. */

#include <errno.h>
#include <fcntl.h>
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench-util.h"
#include "macro.h"

static void profile_closep(cmsHPROFILE *p) {
        if (*p)
                cmsCloseProfile(*p);
}

static void mlu_freep(cmsMLU **p) {
        if (*p)
                cmsMLUfree(*p);
}

static int write_all(const char *path, const void *buf, size_t len) {
        _cleanup_close_ int fd = -1;
        const uint8_t *p = buf;

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += k;
                len -= (size_t) k;
        }
        return 0;
}

static int write_profile(cmsHPROFILE h, const char *dir, size_t number) {
        _cleanup_(mlu_freep) cmsMLU *mlu = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        char desc[64], path[4096];
        cmsUInt32Number len = 0;

        snprintf(desc, sizeof desc, "tinct bench profile %zu", number);
        mlu = cmsMLUalloc(NULL, 1);
        if (!mlu || !cmsMLUsetASCII(mlu, "en", "US", desc))
                return -ENOMEM;
        if (!cmsWriteTag(h, cmsSigProfileDescriptionTag, mlu))
                return -EIO;
        /* The embedded ID is what both daemons use as the checksum (icc-<id>). */
        if (!cmsMD5computeID(h))
                return -EIO;
        if (!cmsSaveProfileToMem(h, NULL, &len) || len == 0)
                return -EIO;
        buf = malloc(len);
        if (!buf)
                return -ENOMEM;
        if (!cmsSaveProfileToMem(h, buf, &len))
                return -EIO;

        snprintf(path, sizeof path, "%s/bench-%06zu.icc", dir, number);
        return write_all(path, buf, len);
}

int main(int argc, char **argv) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL;
        size_t count, first = 0;
        int r;

        if (argc < 3 || argc > 4 || parse_size(argv[2], &count) < 0 ||
            (argc == 4 && parse_size(argv[3], &first) < 0)) {
                fprintf(stderr, "usage: %s DIR COUNT [FIRST]\n", argv[0]);
                return 2;
        }
        if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
                fprintf(stderr, "mkdir %s: %m\n", argv[1]);
                return 1;
        }

        h = cmsCreate_sRGBProfile();
        if (!h) {
                fprintf(stderr, "cmsCreate_sRGBProfile failed\n");
                return 1;
        }
        for (size_t i = 0; i < count; i++) {
                r = write_profile(h, argv[1], first + i);
                if (r < 0) {
                        fprintf(stderr, "writing profile %zu into %s: %s\n", first + i, argv[1], strerror(-r));
                        return 1;
                }
        }
        return 0;
}
