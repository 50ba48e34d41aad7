/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tests/cli helper: device values through an ICC profile with lcms2, as a CMM uses it.
 * Usage: icc-eval PROFILE < "r g b" lines (0..1) > "L a b" lines (D50, absolute
 * colorimetric: the chart's reference is absolute, and a profile whose white point is D50
 * gives the same with either intent). For test-profile-build-chart.py, which scores tinct's
 * v4 profiles (Debian's Argyll cannot read v4) and Argyll's v2 ones the same way. */
#include <lcms2.h>
#include <stdio.h>

int main(int argc, char **argv) {
        cmsHPROFILE h, lab;
        cmsHTRANSFORM t;
        double rgb[3];

        if (argc != 2) {
                fprintf(stderr, "usage: icc-eval PROFILE\n");
                return 2;
        }
        h = cmsOpenProfileFromFile(argv[1], "r");
        lab = cmsCreateLab4Profile(NULL);
        if (!h || !lab) {
                fprintf(stderr, "%s: cannot open\n", argv[1]);
                return 1;
        }
        t = cmsCreateTransform(h, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_ABSOLUTE_COLORIMETRIC,
                               cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
        if (!t) {
                fprintf(stderr, "%s: no transform\n", argv[1]);
                return 1;
        }
        while (scanf("%lf %lf %lf", &rgb[0], &rgb[1], &rgb[2]) == 3) {
                cmsCIELab out;
                cmsDoTransform(t, rgb, &out, 1);
                printf("%.6f %.6f %.6f\n", out.L, out.a, out.b);
        }
        cmsDeleteTransform(t);
        cmsCloseProfile(h);
        cmsCloseProfile(lab);
        return 0;
}
