/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A profile as a display's response (see icc-display-model.h). The transform is built once;
 * each sample is one lcms2 call and a 3×3 matrix. */
#include "icc-display-model.h"
#include "mat3.h"

#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct IccDisplayModel {
        cmsContext ctx;
        cmsHPROFILE profile, xyz;
        cmsHTRANSFORM transform;
        double adapt[9];     /* PCS (D50-adapted) → the display's own XYZ */
        double white_y;      /* Y of white after adapt, to scale white to 1 */
        double luminance;    /* 'lumi' Y, 0 if none */
};

static int fail(char **ret_error, int r, const char *why) {
        if (ret_error)
                *ret_error = strdup(why);
        return r;
}

static void quiet_log(cmsContext ctx, cmsUInt32Number code, const char *text) {
        (void) ctx;
        (void) code;
        (void) text;
}

static void mat_mul(const double a[9], const double b[9], double r[9]) {
        for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++)
                        r[3 * i + k] = a[3 * i] * b[k] + a[3 * i + 1] * b[3 + k] + a[3 * i + 2] * b[6 + k];
}

static void mat_apply(const double m[9], const double v[3], double r[3]) {
        for (int i = 0; i < 3; i++)
                r[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

/* Bradford (the cone response ICC.1:2010 Annex E recommends) from white `from` to `to`. */
static int bradford(const double from[3], const double to[3], double r[9]) {
        static const double B[9] = { 0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296 };
        double inv[9], cf[3], ct[3], d[9] = { 0 }, t[9];
        if (mat3_invert(B, inv) < 0)
                return -EDOM;
        mat_apply(B, from, cf);
        mat_apply(B, to, ct);
        for (int i = 0; i < 3; i++) {
                if (!(fabs(cf[i]) > 1e-9))
                        return -EDOM;
                d[4 * i] = ct[i] / cf[i];
        }
        mat_mul(d, B, t);
        mat_mul(inv, t, r);
        return 0;
}

IccDisplayModel *icc_display_model_free(IccDisplayModel *m) {
        if (!m)
                return NULL;
        if (m->transform)
                cmsDeleteTransform(m->transform);
        if (m->xyz)
                cmsCloseProfile(m->xyz);
        if (m->profile)
                cmsCloseProfile(m->profile);
        if (m->ctx)
                cmsDeleteContext(m->ctx);
        free(m);
        return NULL;
}

static void pcs_of(const IccDisplayModel *m, const double rgb[3], double ret[3]) {
        double in[3], pcs[3];
        for (int i = 0; i < 3; i++)
                in[i] = isnan(rgb[i]) ? 0 : rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i];
        cmsDoTransform(m->transform, in, pcs, 1);
        mat_apply(m->adapt, pcs, ret);
}

int icc_display_model_new(const void *data, size_t size, IccDisplayModel **ret, char **ret_error) {
        _cleanup_(icc_display_model_freep) IccDisplayModel *m = calloc(1, sizeof *m);
        if (!m || !(m->ctx = cmsCreateContext(NULL, NULL)))
                return -ENOMEM;
        cmsSetLogErrorHandlerTHR(m->ctx, quiet_log);
        m->profile = cmsOpenProfileFromMemTHR(m->ctx, data, (cmsUInt32Number) size);
        if (!m->profile)
                return fail(ret_error, -EBADMSG, "not an ICC profile lcms2 can read");
        if (cmsGetColorSpace(m->profile) != cmsSigRgbData)
                return fail(ret_error, -EMEDIUMTYPE, "not an RGB profile");

        const double *chad = cmsReadTag(m->profile, cmsSigChromaticAdaptationTag);
        const cmsCIEXYZ *wtpt = cmsReadTag(m->profile, cmsSigMediaWhitePointTag);
        const cmsCIEXYZ *d50 = cmsD50_XYZ();
        memcpy(m->adapt, (double[9]) { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, sizeof m->adapt);
        if (chad) {
                if (mat3_invert(chad, m->adapt) < 0)
                        return fail(ret_error, -EBADMSG, "the chad matrix cannot be inverted");
        } else if (wtpt && (fabs(wtpt->X - d50->X) > 1e-4 || fabs(wtpt->Y - d50->Y) > 1e-4 ||
                            fabs(wtpt->Z - d50->Z) > 1e-4)) {
                if (!(wtpt->Y > 0) ||
                    bradford((double[3]) { d50->X, d50->Y, d50->Z },
                             (double[3]) { wtpt->X / wtpt->Y, 1, wtpt->Z / wtpt->Y }, m->adapt) < 0)
                        return fail(ret_error, -EBADMSG, "the media white point is unusable");
        }
        const cmsCIEXYZ *lumi = cmsReadTag(m->profile, cmsSigLuminanceTag);
        if (lumi && isfinite(lumi->Y) && lumi->Y > 0)
                m->luminance = lumi->Y;

        if (!(m->xyz = cmsCreateXYZProfileTHR(m->ctx)))
                return -ENOMEM;
        m->transform = cmsCreateTransformTHR(m->ctx, m->profile, TYPE_RGB_DBL, m->xyz, TYPE_XYZ_DBL,
                                             INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE | cmsFLAGS_NOOPTIMIZE);
        if (!m->transform)
                return fail(ret_error, -EBADMSG, "lcms2 cannot transform from this profile to XYZ");
        double white[3];
        pcs_of(m, (double[3]) { 1, 1, 1 }, white);
        if (!isfinite(white[1]) || !(white[1] > 1e-6))
                return fail(ret_error, -EBADMSG, "the profile's white has no light");
        m->white_y = white[1];
        *ret = TAKE_PTR(m);
        return 0;
}

void icc_display_model_xyz(const IccDisplayModel *m, const double rgb[3], double ret_xyz[3]) {
        double v[3];
        pcs_of(m, rgb, v);
        for (int i = 0; i < 3; i++)
                ret_xyz[i] = v[i] / m->white_y;
}

double icc_display_model_luminance(const IccDisplayModel *m) {
        return m->luminance;
}
