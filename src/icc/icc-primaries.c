/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RGB primaries of a profile (see icc-primaries.h). Pure red, green and blue go through the
 * profile to XYZ with lcms2 (so matrix and LUT profiles are read alike), then the inverse of
 * 'chad' takes them back from D50. */
#include "icc-primaries.h"
#include "mat3.h"

#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int fail(char **ret_error, int r, const char *why) {
        if (ret_error)
                *ret_error = strdup(why);
        return r;
}

int icc_rgb_primaries(const void *data, size_t size, double ret_xy[3][2], char **ret_error) {
        cmsHPROFILE p = cmsOpenProfileFromMem(data, (cmsUInt32Number) size);
        if (!p)
                return fail(ret_error, -EBADMSG, "not an ICC profile lcms2 can read");
        if (cmsGetColorSpace(p) != cmsSigRgbData) {
                cmsCloseProfile(p);
                return fail(ret_error, -EMEDIUMTYPE, "not an RGB profile");
        }
        double inv[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
        const double *chad = cmsReadTag(p, cmsSigChromaticAdaptationTag);
        if (chad && mat3_invert(chad, inv) < 0) {
                cmsCloseProfile(p);
                return fail(ret_error, -EBADMSG, "the chad matrix cannot be inverted");
        }
        cmsHPROFILE xyz = cmsCreateXYZProfile();
        cmsHTRANSFORM t = xyz ? cmsCreateTransform(p, TYPE_RGB_DBL, xyz, TYPE_XYZ_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                                   cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE) : NULL;
        int r = 0;
        if (!t)
                r = fail(ret_error, -EBADMSG, "lcms2 cannot transform from this profile");
        for (int i = 0; r == 0 && i < 3; i++) {
                double rgb[3] = { i == 0, i == 1, i == 2 }, pcs[3], v[3];
                cmsDoTransform(t, rgb, pcs, 1);
                for (int k = 0; k < 3; k++)
                        v[k] = inv[3 * k] * pcs[0] + inv[3 * k + 1] * pcs[1] + inv[3 * k + 2] * pcs[2];
                double s = v[0] + v[1] + v[2];
                if (!(s > 0)) {
                        r = fail(ret_error, -EBADMSG, "a primary has no light");
                        break;
                }
                ret_xy[i][0] = v[0] / s;
                ret_xy[i][1] = v[1] / s;
        }
        if (t)
                cmsDeleteTransform(t);
        if (xyz)
                cmsCloseProfile(xyz);
        cmsCloseProfile(p);
        return r;
}
