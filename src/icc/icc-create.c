/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ICC v4 display profile creation (ICC.1:2010) from primaries, white point and gamma, with
 * lcms2 doing the matrix/shaper maths (including the Bradford adaptation to the D50 PCS and
 * the 'chad' tag) and the serialisation.
 *
 * Determinism: lcms stamps the current time into the header when a profile is created, and
 * offers no setter. We save once, overwrite the date bytes with a fixed date, reopen, let
 * cmsMD5computeID() compute the profile ID over the final header, and save again; reopening
 * carries the fixed date through, so the result depends on the input only.
 *
 * Not here: reading profiles (icc-info.c), EDID knowledge, files. */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icc-create.h"
#include "icc-write.h"

static bool xy_in_unit_square(IccXY c) {
        return isfinite(c.x) && isfinite(c.y) && c.x >= 0.0 && c.x <= 1.0 && c.y >= 0.0 && c.y <= 1.0;
}

/* Twice the signed area of the triangle red-green-blue in the xy plane. */
static double gamut_area2(const IccDisplayParams *p) {
        return (p->green.x - p->red.x) * (p->blue.y - p->red.y) -
               (p->blue.x - p->red.x) * (p->green.y - p->red.y);
}

int icc_display_params_check(const IccDisplayParams *p, const char **ret_reason) {
        const IccXY all[] = { p->red, p->green, p->blue, p->white };
        bool all_zero = true;

        /* The same kind of sanity test mutter applies before trusting EDID colorimetry: an
         * EDID with zeroed or garbage chromaticity must not become a profile that makes
         * every colour wrong. */
        for (size_t i = 0; i < ELEMENTSOF(all); i++) {
                if (!xy_in_unit_square(all[i])) {
                        *ret_reason = "chromaticity coordinates outside [0, 1]";
                        return -EINVAL;
                }
                if (all[i].x != 0.0 || all[i].y != 0.0)
                        all_zero = false;
        }
        if (all_zero) {
                *ret_reason = "all chromaticity coordinates are zero";
                return -EINVAL;
        }
        /* z = 1 - x - y must not be negative, but real EDIDs put red a little past the
         * x + y = 1 line (10-bit rounding, sloppy data: 1.003 is in the corpus), so allow a
         * small tolerance and refuse only what no display can be. */
        for (size_t i = 0; i < ELEMENTSOF(all); i++)
                if (all[i].x + all[i].y > 1.0 + ICC_CREATE_XY_SUM_TOLERANCE) {
                        *ret_reason = "a chromaticity has x + y > 1 (outside the spectral locus)";
                        return -EINVAL;
                }
        /* XYZ = (x/y, 1, (1-x-y)/y): y == 0 has no XYZ. */
        if (p->white.y <= 0.0) {
                *ret_reason = "white point y is zero";
                return -EINVAL;
        }
        if (p->red.y <= 0.0 || p->green.y <= 0.0 || p->blue.y <= 0.0) {
                *ret_reason = "a primary has y = 0";
                return -EINVAL;
        }
        /* Collinear (or nearly) primaries give a singular RGB→XYZ matrix. 1e-4 is far below
         * any real display (sRGB: 0.22) and far above rounding noise. */
        if (fabs(gamut_area2(p)) < 1e-4) {
                *ret_reason = "primaries do not span a gamut (collinear or coincident)";
                return -EINVAL;
        }
        if (!isfinite(p->gamma) || p->gamma < ICC_CREATE_GAMMA_MIN || p->gamma > ICC_CREATE_GAMMA_MAX) {
                *ret_reason = "gamma outside [1.0, 5.0]";
                return -EINVAL;
        }
        if (p->has_luminance && (!isfinite(p->luminance) || p->luminance <= 0.0 || p->luminance > 100000.0)) {
                *ret_reason = "luminance outside (0, 100000] cd/m²";
                return -EINVAL;
        }
        if (isempty(p->description)) {
                *ret_reason = "no description";
                return -EINVAL;
        }
        return 0;
}

int icc_create_display_profile(const IccDisplayParams *p, void **ret_data, size_t *ret_size,
                               const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, h2 = NULL;
        _cleanup_(tone_curve_freep) cmsToneCurve *trc = NULL;
        _cleanup_free_ uint8_t *first = NULL;
        uint8_t *out = NULL;
        size_t first_size = 0, out_size = 0;
        int r;

        r = icc_display_params_check(p, ret_reason);
        if (r < 0)
                return r;

        const cmsCIExyY white = { p->white.x, p->white.y, 1.0 };
        const cmsCIExyYTRIPLE primaries = {
                { p->red.x, p->red.y, 1.0 },
                { p->green.x, p->green.y, 1.0 },
                { p->blue.x, p->blue.y, 1.0 },
        };

        trc = cmsBuildGamma(NULL, p->gamma);
        if (!trc) {
                *ret_reason = "out of memory";
                return -ENOMEM;
        }
        cmsToneCurve *curves[3] = { trc, trc, trc };

        /* Writes rXYZ/gXYZ/bXYZ adapted to D50, 'chad', wtpt, the TRCs; display class. */
        h = cmsCreateRGBProfile(&white, &primaries, curves);
        if (!h) {
                *ret_reason = "lcms2 could not build a matrix from these primaries";
                return -EIO;
        }
        cmsSetProfileVersion(h, 4.3);
        cmsSetDeviceClass(h, cmsSigDisplayClass);
        cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);

        r = icc_write_text_tag(h, cmsSigProfileDescriptionTag, p->description);
        if (r >= 0)
                r = icc_write_text_tag(h, cmsSigDeviceMfgDescTag, p->manufacturer);
        if (r >= 0)
                r = icc_write_text_tag(h, cmsSigDeviceModelDescTag, p->model);
        if (r >= 0)
                r = icc_write_text_tag(h, cmsSigCopyrightTag, p->copyright);
        if (r >= 0)
                r = icc_write_meta_tag(h, p->metadata);
        if (r >= 0 && p->has_luminance) {
                /* ICC.1 §9.2.32: 'lumi' is XYZ with Y the absolute luminance of the white in
                 * cd/m²; X and Z follow the white's chromaticity. */
                cmsCIEXYZ lumi = {
                        p->white.x / p->white.y * p->luminance,
                        p->luminance,
                        (1.0 - p->white.x - p->white.y) / p->white.y * p->luminance,
                };
                if (!cmsWriteTag(h, cmsSigLuminanceTag, &lumi))
                        r = -EIO;
        }
        if (r < 0) {
                *ret_reason = r == -ENOMEM ? "out of memory" : "lcms2 could not write a tag";
                return r;
        }

        r = icc_save_to_mem(h, &first, &first_size);
        if (r < 0) {
                *ret_reason = "lcms2 could not serialise the profile";
                return r;
        }
        icc_set_fixed_date(first);

        h2 = cmsOpenProfileFromMem(first, (cmsUInt32Number) first_size);
        if (!h2) {
                *ret_reason = "lcms2 could not reread the profile it wrote";
                return -EIO;
        }
        /* ICC.1 §7.2.18: MD5 over the profile with flags, intent and ID zeroed. */
        if (!cmsMD5computeID(h2)) {
                *ret_reason = "lcms2 could not compute the profile ID";
                return -EIO;
        }
        r = icc_save_to_mem(h2, &out, &out_size);
        if (r < 0) {
                *ret_reason = "lcms2 could not serialise the profile";
                return r;
        }

        *ret_data = out;
        *ret_size = out_size;
        return 0;
}
