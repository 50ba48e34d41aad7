/* SPDX-License-Identifier: GPL-2.0-or-later */
/* calib-patches: white and black first, every value in range, no repeats, full ramps, and
 * more patches at each higher quality. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "calib-patches.h"
#include "tests.h"

static size_t count_ramp(const CalibPatch *p, size_t n, int channel) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                bool only = p[i].rgb[channel] > 0;
                for (int c = 0; c < 3; c++)
                        if (c != channel && p[i].rgb[c] != 0)
                                only = false;
                k += only;
        }
        return k;
}

int main(void) {
        size_t last = 0;
        for (unsigned q = 0; q <= CALIB_QUALITY_MAX; q++) {
                CalibPatch *p;
                size_t n;
                assert_se(calib_patches(q, &p, &n) == 0);
                assert_se(n > last);
                last = n;
                assert_se(p[0].rgb[0] == 1 && p[0].rgb[1] == 1 && p[0].rgb[2] == 1);
                assert_se(p[1].rgb[0] == 0 && p[1].rgb[1] == 0 && p[1].rgb[2] == 0);
                for (size_t i = 0; i < n; i++) {
                        for (int c = 0; c < 3; c++)
                                assert_se(p[i].rgb[c] >= 0 && p[i].rgb[c] <= 1);
                        for (size_t j = 0; j < i; j++)
                                assert_se(p[i].rgb[0] != p[j].rgb[0] || p[i].rgb[1] != p[j].rgb[1] ||
                                          p[i].rgb[2] != p[j].rgb[2]);
                }
                /* each channel's ramp: at least 8 non-zero steps even at low quality */
                for (int c = 0; c < 3; c++)
                        assert_se(count_ramp(p, n, c) >= 8);
                free(p);
        }
        CalibPatch *p = NULL;
        size_t n = 0;
        assert_se(calib_patches(CALIB_QUALITY_MAX + 1, &p, &n) == -EINVAL && !p);
        return 0;
}
