/* SPDX-License-Identifier: GPL-2.0-or-later */
/* See mat3.h: the inverse by the adjugate, which is exact enough for colour matrices. */
#include "mat3.h"

#include <errno.h>
#include <math.h>

double mat3_det(const double m[9]) {
        return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
               m[2] * (m[3] * m[7] - m[4] * m[6]);
}

int mat3_invert(const double m[9], double r[9]) {
        double d = mat3_det(m);
        if (!isfinite(d) || fabs(d) < 1e-12)
                return -EDOM;
        double t[9] = {
                (m[4] * m[8] - m[5] * m[7]) / d, (m[2] * m[7] - m[1] * m[8]) / d, (m[1] * m[5] - m[2] * m[4]) / d,
                (m[5] * m[6] - m[3] * m[8]) / d, (m[0] * m[8] - m[2] * m[6]) / d, (m[2] * m[3] - m[0] * m[5]) / d,
                (m[3] * m[7] - m[4] * m[6]) / d, (m[1] * m[6] - m[0] * m[7]) / d, (m[0] * m[4] - m[1] * m[3]) / d,
        };
        for (int i = 0; i < 9; i++)
                r[i] = t[i];
        return 0;
}
