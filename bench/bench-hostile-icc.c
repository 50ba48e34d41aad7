/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Writes issue 19's hostile profile: sRGB with a description and a 'meta' dict of N distinct
 * keys (80 000 keys: about 4 MB).
 *
 *         tinct-bench-hostile-icc N FILE.icc
 *
 * Deliberately not here: anything but making the file (bench-hostile.c measures). */
#include <lcms2.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: tinct-bench-hostile-icc N FILE.icc\n");
                return 2;
        }
        size_t n = strtoul(argv[1], NULL, 10);
        cmsHPROFILE h = cmsCreate_sRGBProfile();
        cmsMLU *mlu = cmsMLUalloc(NULL, 1);
        cmsHANDLE dict = cmsDictAlloc(NULL);
        if (!h || !mlu || !dict || !cmsMLUsetASCII(mlu, "en", "US", "hostile meta") ||
            !cmsWriteTag(h, cmsSigProfileDescriptionTag, mlu))
                return 1;
        for (size_t i = 0; i < n; i++) {
                wchar_t k[32], v[32];
                swprintf(k, 32, L"key%zu", i);
                swprintf(v, 32, L"value%zu", i);
                if (!cmsDictAddEntry(dict, k, v, NULL, NULL))
                        return 1;
        }
        if (!cmsWriteTag(h, cmsSigMetaTag, dict) || !cmsSaveProfileToFile(h, argv[2]))
                return 1;
        cmsDictFree(dict);
        cmsMLUfree(mlu);
        cmsCloseProfile(h);
        return 0;
}
