/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A display's readings against its profile (display-verify.h). */
#include <assert.h>
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "display-verify.h"
#include "icc-write.h"
#include "macro.h"
#include "profile-fit.h"

/* White first (the luminance reference), the neutrals, the primaries and secondaries, and
 * the X-Rite ColorChecker's chromatic patches as sRGB values (their published 8-bit sRGB
 * coordinates): colours people judge a display by. */
static const struct {
        const char *name;
        uint8_t rgb[3];
} patch_set[] = {
        { "white", { 255, 255, 255 } },   { "black", { 0, 0, 0 } },
        { "grey 20%", { 51, 51, 51 } },   { "grey 40%", { 102, 102, 102 } },
        { "grey 60%", { 153, 153, 153 } }, { "grey 80%", { 204, 204, 204 } },
        { "red", { 255, 0, 0 } },         { "green", { 0, 255, 0 } },
        { "blue", { 0, 0, 255 } },        { "cyan", { 0, 255, 255 } },
        { "magenta", { 255, 0, 255 } },   { "yellow", { 255, 255, 0 } },
        { "red 50%", { 128, 0, 0 } },     { "green 50%", { 0, 128, 0 } },
        { "blue 50%", { 0, 0, 128 } },
        { "dark skin", { 115, 82, 68 } },  { "light skin", { 194, 150, 130 } },
        { "blue sky", { 98, 122, 157 } },  { "foliage", { 87, 108, 67 } },
        { "blue flower", { 133, 128, 177 } }, { "bluish green", { 103, 189, 170 } },
        { "orange", { 214, 126, 44 } },    { "purplish blue", { 80, 91, 166 } },
        { "moderate red", { 193, 90, 99 } }, { "purple", { 94, 60, 108 } },
        { "yellow green", { 157, 188, 64 } }, { "orange yellow", { 224, 163, 46 } },
};

_Static_assert(ELEMENTSOF(patch_set) <= DISPLAY_VERIFY_MAX_PATCHES, "patch set too large");

size_t display_verify_n_patches(void) {
        return ELEMENTSOF(patch_set);
}

void display_verify_patch_rgb(size_t i, double ret_rgb[3]) {
        assert(i < ELEMENTSOF(patch_set));
        for (size_t c = 0; c < 3; c++)
                ret_rgb[c] = patch_set[i].rgb[c] / 255.0;
}

static void transform_freep(cmsHTRANSFORM *t) {
        if (*t)
                cmsDeleteTransform(*t);
}

int display_verify_prepare(const uint8_t *icc, size_t len, DisplayVerify *ret, const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, lab = NULL;
        _cleanup_(transform_freep) cmsHTRANSFORM t = NULL;
        const double *chad;
        const cmsCIEXYZ *wtpt;

        *ret = (DisplayVerify) {};
        h = cmsOpenProfileFromMem(icc, (cmsUInt32Number) len);
        if (!h) {
                *ret_reason = "not an ICC profile lcms2 can read";
                return -EINVAL;
        }
        if (cmsGetColorSpace(h) != cmsSigRgbData) {
                *ret_reason = "not an RGB profile";
                return -EINVAL;
        }
        lab = cmsCreateLab4Profile(NULL); /* D50 */
        if (!lab)
                return -ENOMEM;
        t = cmsCreateTransform(h, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC,
                               cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
        if (!t) {
                *ret_reason = "lcms2 cannot make a transform from the profile";
                return -EINVAL;
        }
        /* ICC.1:2010 Annex E / v2 practice: the adaptation the profile's colorimetry used */
        chad = cmsReadTag(h, cmsSigChromaticAdaptationTag);
        wtpt = cmsReadTag(h, cmsSigMediaWhitePointTag);
        if (chad)
                memcpy(ret->adapt, chad, sizeof ret->adapt);
        else if (wtpt && wtpt->Y > 0.0) {
                double w[3] = { wtpt->X / wtpt->Y, 1.0, wtpt->Z / wtpt->Y };
                bradford_matrix(w, profile_fit_d50, ret->adapt);
        } else
                bradford_matrix(profile_fit_d50, profile_fit_d50, ret->adapt);

        ret->n = ELEMENTSOF(patch_set);
        for (size_t i = 0; i < ret->n; i++) {
                DisplayVerifyPatch *p = &ret->patches[i];
                cmsCIELab out;

                p->name = patch_set[i].name;
                display_verify_patch_rgb(i, p->rgb);
                cmsDoTransform(t, p->rgb, &out, 1);
                p->expected_lab[0] = out.L;
                p->expected_lab[1] = out.a;
                p->expected_lab[2] = out.b;
        }
        return 0;
}

int display_verify_compare(DisplayVerify *v, const char **ret_reason) {
        double white_y = v->patches[0].measured_xyz[1], sum = 0.0;

        if (!(white_y > 0.0) || !isfinite(white_y)) {
                *ret_reason = "the white patch reads no light: is the sensor on the screen?";
                return -EINVAL;
        }
        v->max = 0.0;
        for (size_t i = 0; i < v->n; i++) {
                DisplayVerifyPatch *p = &v->patches[i];
                double x[3], a[3];

                for (size_t c = 0; c < 3; c++)
                        x[c] = fmax(p->measured_xyz[c], 0.0) / white_y;
                for (size_t c = 0; c < 3; c++)
                        a[c] = v->adapt[3 * c] * x[0] + v->adapt[3 * c + 1] * x[1] + v->adapt[3 * c + 2] * x[2];
                xyz_to_lab_d50(a, p->measured_lab);
                p->de2000 = ciede2000(p->expected_lab, p->measured_lab);
                sum += p->de2000;
                v->max = fmax(v->max, p->de2000);
        }
        v->mean = sum / (double) v->n;
        return 0;
}

void display_verify_lab_to_srgb8(const double lab[3], uint8_t ret[3]) {
        /* IEC 61966-2-1 sRGB from XYZ D50 via the Bradford-adapted matrix (D50 → D65). */
        static const double m[9] = {
                3.1338561, -1.6168667, -0.4906146,
                -0.9787684, 1.9161415, 0.0334540,
                0.0719453, -0.2289914, 1.4052427,
        };
        double fy = (lab[0] + 16.0) / 116.0, f[3] = { fy + lab[1] / 500.0, fy, fy - lab[2] / 200.0 }, xyz[3];

        for (size_t c = 0; c < 3; c++) {
                double t = f[c] > 6.0 / 29.0 ? f[c] * f[c] * f[c] : 3.0 * (6.0 / 29.0) * (6.0 / 29.0) * (f[c] - 4.0 / 29.0);
                xyz[c] = t * profile_fit_d50[c];
        }
        for (size_t c = 0; c < 3; c++) {
                double v = m[3 * c] * xyz[0] + m[3 * c + 1] * xyz[1] + m[3 * c + 2] * xyz[2];
                v = fmin(fmax(v, 0.0), 1.0);
                v = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1.0 / 2.4) - 0.055;
                ret[c] = (uint8_t) lround(v * 255.0);
        }
}

void display_verify_format_time(time_t when, char buf[32]) {
        struct tm tm;

        if (!gmtime_r(&when, &tm) || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                snprintf(buf, 32, "1970-01-01T00:00:00Z");
}

void display_verify_record(const DisplayVerify *v, const char *prefix, const char *profile_id, time_t when,
                           DisplayVerifyRecord *ret) {
        static const char *const suffix[DISPLAY_VERIFY_N_KEYS] = { VERIFY_KEY_MEAN, VERIFY_KEY_MAX, VERIFY_KEY_PROFILE,
                                                                   VERIFY_KEY_PATCHES, VERIFY_KEY_DATE };
        char date[32];

        display_verify_format_time(when, date);
        for (size_t i = 0; i < DISPLAY_VERIFY_N_KEYS; i++)
                snprintf(ret->keys[i], sizeof ret->keys[i], "%s%s", prefix, suffix[i]);
        snprintf(ret->values[0], sizeof ret->values[0], "%.3f", v->mean);
        snprintf(ret->values[1], sizeof ret->values[1], "%.3f", v->max);
        snprintf(ret->values[2], sizeof ret->values[2], "%s", profile_id ? profile_id : "");
        snprintf(ret->values[3], sizeof ret->values[3], "%zu", v->n);
        snprintf(ret->values[4], sizeof ret->values[4], "%s", date);
}
