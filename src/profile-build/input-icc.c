/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Input profiles on lcms2 (input-icc.h). */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icc-write.h"
#include "input-icc.h"
#include "profile-build.h"

#define CURVE_ENTRIES 1024u

static void pipeline_freep(cmsPipeline **p) {
        if (*p)
                cmsPipelineFree(*p);
}

static void transform_freep(cmsHTRANSFORM *t) {
        if (*t)
                cmsDeleteTransform(*t);
}

/* The shaper as a non-decreasing 16-bit table (a TRC must be invertible). */
static cmsToneCurve *curve_build(const ProfileFitCurve *c) {
        uint16_t table[CURVE_ENTRIES], prev = 0;

        for (unsigned i = 0; i < CURVE_ENTRIES; i++) {
                long q = lround(profile_fit_curve_eval(c, (double) i / (CURVE_ENTRIES - 1)) * 65535.0);
                uint16_t v = (uint16_t) (q < 0 ? 0 : q > 65535 ? 65535 : q);
                if (v < prev)
                        v = prev;
                table[i] = prev = v;
        }
        return cmsBuildTabulatedToneCurve16(NULL, CURVE_ENTRIES, table);
}

static int write_lut(cmsHPROFILE h, const InputFit *f, cmsToneCurve *curves[3]) {
        _cleanup_(pipeline_freep) cmsPipeline *p = cmsPipelineAlloc(NULL, 3, 3);
        _cleanup_free_ uint16_t *table = calloc((size_t) INPUT_FIT_GRID * INPUT_FIT_GRID * INPUT_FIT_GRID * 3,
                                                sizeof(uint16_t));
        if (!p || !table)
                return -ENOMEM;
        /* ICC.1:2010 §10.8: the CLUT's first input varies slowest; XYZ PCS values are
         * u1Fixed15 (1.0 = 0x8000). */
        for (size_t n = 0; n < (size_t) INPUT_FIT_GRID * INPUT_FIT_GRID * INPUT_FIT_GRID; n++) {
                double v[3];
                input_fit_node(f, n, v);
                for (size_t c = 0; c < 3; c++)
                        table[3 * n + c] = (uint16_t) lround(v[c] * 65535.0);
        }
        /* lutAtoBType (ICC.1:2010 §10.10): A curves (the shaper), CLUT (t → t'), M curves
         * (identity), matrix, B curves (identity). Its output is the 16-bit PCS encoding
         * scaled to 0..1, so the matrix gives XYZ · 32768/65535 (u1Fixed15). */
        double m[12] = {};
        for (size_t k = 0; k < 9; k++)
                m[k] = f->matrix[k] * (32768.0 / 65535.0);
        cmsStage *stages[5] = { cmsStageAllocToneCurves(NULL, 3, curves),
                                cmsStageAllocCLut16bit(NULL, INPUT_FIT_GRID, 3, 3, table),
                                cmsStageAllocToneCurves(NULL, 3, NULL),
                                cmsStageAllocMatrix(NULL, 3, 3, m, m + 9),
                                cmsStageAllocToneCurves(NULL, 3, NULL) };
        for (size_t i = 0; i < 5; i++)
                if (!stages[i] || !cmsPipelineInsertStage(p, cmsAT_END, stages[i])) {
                        for (size_t j = i; j < 5; j++)
                                if (stages[j])
                                        cmsStageFree(stages[j]);
                        return -ENOMEM;
                }
        return cmsWriteTag(h, cmsSigAToB0Tag, p) ? 0 : -EIO;
}

static int build(const InputFit *f, const InputIccOptions *o, const char *const *meta, uint8_t **ret,
                 size_t *ret_len, const char **ret_reason) {
        static const cmsTagSignature colorant_tags[3] = { cmsSigRedColorantTag, cmsSigGreenColorantTag,
                                                           cmsSigBlueColorantTag };
        static const cmsTagSignature trc_tags[3] = { cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag };
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, h2 = NULL;
        _cleanup_(tone_curve_freep) cmsToneCurve *c0 = NULL, *c1 = NULL, *c2 = NULL;
        _cleanup_free_ uint8_t *first = NULL;
        size_t first_len = 0;
        int r;

        *ret_reason = "lcms2 could not write the profile";
        h = cmsCreateProfilePlaceholder(NULL);
        c0 = curve_build(&f->curve[0]);
        c1 = curve_build(&f->curve[1]);
        c2 = curve_build(&f->curve[2]);
        if (!h || !c0 || !c1 || !c2)
                return -ENOMEM;
        cmsToneCurve *curves[3] = { c0, c1, c2 };
        cmsSetProfileVersion(h, o->v2 ? 2.4 : 4.3);
        cmsSetDeviceClass(h, cmsSigInputClass);
        cmsSetColorSpace(h, cmsSigRgbData);
        cmsSetPCS(h, cmsSigXYZData);
        cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);
        /* The chart's reference is D50 relative to the perfect diffuser: the media white is
         * the PCS white, and no adaptation is needed. */
        if (!cmsWriteTag(h, cmsSigMediaWhitePointTag, cmsD50_XYZ()))
                return -EIO;
        if (f->model == INPUT_MODEL_LUT) {
                if (o->v2) {
                        *ret_reason = "a LUT profile needs ICC v4 (lutAtoBType: the matrix after the CLUT)";
                        return -EINVAL;
                }
                r = write_lut(h, f, curves);
                if (r < 0)
                        return r;
        } else
                for (size_t c = 0; c < 3; c++) {
                        cmsCIEXYZ col = { f->matrix[c], f->matrix[3 + c], f->matrix[6 + c] };
                        if (!cmsWriteTag(h, colorant_tags[c], &col) || !cmsWriteTag(h, trc_tags[c], curves[c]))
                                return -EIO;
                }
        r = icc_write_text_tag(h, cmsSigProfileDescriptionTag,
                               !isempty(o->description) ? o->description : "Input profile (tinct profile-build)");
        if (r >= 0)
                r = icc_write_text_tag(h, cmsSigCopyrightTag,
                                       !isempty(o->copyright) ? o->copyright : PROFILE_BUILD_DEFAULT_COPYRIGHT);
        if (r >= 0)
                r = icc_write_meta_tag(h, meta);
        if (r >= 0)
                r = icc_save_to_mem(h, &first, &first_len);
        if (r < 0)
                return r;
        icc_set_fixed_date(first);
        h2 = cmsOpenProfileFromMem(first, (cmsUInt32Number) first_len);
        if (!h2)
                return -EIO;
        /* ICC.1:2010 §7.2.18: the profile ID (MD5); v2 headers keep those bytes reserved. */
        if (!o->v2 && !cmsMD5computeID(h2))
                return -EIO;
        return icc_save_to_mem(h2, ret, ret_len);
}

static int check(const uint8_t *icc, size_t len, const InputSample *s, size_t n, double *ret_mean,
                 double *ret_max) {
        _cleanup_(profile_closep) cmsHPROFILE h = cmsOpenProfileFromMem(icc, (cmsUInt32Number) len);
        _cleanup_(profile_closep) cmsHPROFILE lab = cmsCreateLab4Profile(NULL);
        _cleanup_(transform_freep) cmsHTRANSFORM t = NULL;
        double sum = 0.0, max = 0.0;

        if (!h || !lab)
                return -EIO;
        t = cmsCreateTransform(h, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC,
                               cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
        if (!t)
                return -EIO;
        for (size_t i = 0; i < n; i++) {
                double want[3];
                cmsCIELab got;
                xyz_to_lab_d50(s[i].xyz, want);
                cmsDoTransform(t, s[i].rgb, &got, 1);
                double e = ciede2000((double[3]) { got.L, got.a, got.b }, want);
                sum += e;
                max = fmax(max, e);
        }
        *ret_mean = sum / n;
        *ret_max = max;
        return 0;
}

int input_icc_build(const InputFit *f, const InputSample *s, size_t n, const InputIccOptions *o, uint8_t **ret,
                    size_t *ret_len, double *ret_self_mean, double *ret_self_max, const char **ret_reason) {
        _cleanup_free_ uint8_t *draft = NULL;
        char patches[32], model[16], self_avg[32] = "", self_max[32] = "", cv_avg[32], cv_max[32];
        double mean = 0, max = 0;
        size_t draft_len = 0;
        int r;

        snprintf(patches, sizeof patches, "%zu", f->n_samples);
        snprintf(model, sizeof model, "%s", f->model == INPUT_MODEL_LUT ? "lut" : "matrix-shaper");
        snprintf(cv_avg, sizeof cv_avg, "%.3f", f->cv_mean);
        snprintf(cv_max, sizeof cv_max, "%.3f", f->cv_max);
        for (unsigned pass = 0; pass < 2; pass++) {
                /* colord's keys (colord §4.6) and ours for the chart (docs/profile-build.md) */
                const char *all[] = {
                        "DATA_source", "calib",
                        "CMF_product", "tinct",
                        "CMF_binary", !isempty(o->cmf_binary) ? o->cmf_binary : "tinct",
                        "CMF_version", TINCT_VERSION,
                        "CHART_layout", o->chart,
                        "CHART_reference", o->reference,
                        "CHART_patches", patches,
                        "PROFILE_model", model,
                        "ACCURACY_dE2000_self_avg", self_avg,
                        "ACCURACY_dE2000_self_max", self_max,
                        "ACCURACY_dE2000_cv_avg", cv_avg,
                        "ACCURACY_dE2000_cv_max", cv_max,
                };
                const char *meta[ELEMENTSOF(all) + 1];
                size_t k = 0;
                for (size_t i = 0; i < ELEMENTSOF(all); i += 2)
                        if (!isempty(all[i + 1])) {
                                meta[k++] = all[i];
                                meta[k++] = all[i + 1];
                        }
                meta[k] = NULL;
                free(draft);
                draft = NULL;
                r = build(f, o, meta, &draft, &draft_len, ret_reason);
                if (r < 0)
                        return r;
                r = check(draft, draft_len, s, n, &mean, &max);
                if (r < 0) {
                        *ret_reason = "lcms2 could not read back the profile it wrote";
                        return r;
                }
                snprintf(self_avg, sizeof self_avg, "%.3f", mean);
                snprintf(self_max, sizeof self_max, "%.3f", max);
        }
        if (ret_self_mean)
                *ret_self_mean = mean;
        if (ret_self_max)
                *ret_self_max = max;
        *ret = TAKE_PTR(draft);
        *ret_len = draft_len;
        return 0;
}
