/* SPDX-License-Identifier: GPL-2.0-or-later */
/* See calib-patches.h. The sizes are chosen so a matrix/shaper fit has enough ramp points to
 * follow a display's tone curve (the largest error source) and enough mixed colours to pin
 * the primaries, while a run at medium quality stays around 120 readings. */
#include "calib-patches.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

static const struct {
        unsigned ramp_steps; /* per channel and grey, including 0 and 1 */
        unsigned cube_steps; /* per axis */
} levels[CALIB_QUALITY_MAX + 1] = {
        { 9, 3 },
        { 17, 4 },
        { 33, 5 },
};

static bool same(const CalibPatch *a, const double rgb[3]) {
        return a->rgb[0] == rgb[0] && a->rgb[1] == rgb[1] && a->rgb[2] == rgb[2];
}

static void add(CalibPatch *p, size_t *n, double r, double g, double b) {
        const double rgb[3] = { r, g, b };
        for (size_t i = 0; i < *n; i++)
                if (same(&p[i], rgb))
                        return;
        p[(*n)++] = (CalibPatch) { { r, g, b } };
}

int calib_patches(unsigned quality, CalibPatch **ret, size_t *ret_n) {
        if (quality > CALIB_QUALITY_MAX)
                return -EINVAL;
        unsigned rs = levels[quality].ramp_steps, cs = levels[quality].cube_steps;
        size_t cap = 2 + 4 * (size_t) rs + (size_t) cs * cs * cs, n = 0;
        CalibPatch *p = calloc(cap, sizeof *p);
        if (!p)
                return -ENOMEM;
        add(p, &n, 1, 1, 1);
        add(p, &n, 0, 0, 0);
        for (unsigned i = 1; i < rs; i++) {
                double v = (double) i / (rs - 1);
                add(p, &n, v, 0, 0);
                add(p, &n, 0, v, 0);
                add(p, &n, 0, 0, v);
                add(p, &n, v, v, v);
        }
        for (unsigned r = 0; r < cs; r++)
                for (unsigned g = 0; g < cs; g++)
                        for (unsigned b = 0; b < cs; b++)
                                add(p, &n, (double) r / (cs - 1), (double) g / (cs - 1), (double) b / (cs - 1));
        *ret = p;
        *ret_n = n;
        return 0;
}
