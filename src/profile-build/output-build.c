/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Printer measurements → output-class ICC bytes, and the check of those bytes
 * (output-build.h). Like profile-build.c, the profile is encoded twice: the draft is read
 * back through lcms2 and scored, the final one carries the scores in 'meta'. */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icc-write.h"
#include "output-build.h"
#include "output-fit.h"
#include "output-invert.h"
#include "profile-fit.h"

static void transform_freep(cmsHTRANSFORM *t) {
        if (*t)
                cmsDeleteTransform(*t);
}

static void pipeline_freep(cmsPipeline **p) {
        if (*p)
                cmsPipelineFree(*p);
}

static uint16_t quantise(double v) {
        long q = lround(v);
        return (uint16_t) (q < 0 ? 0 : q > 65535 ? 65535 : q);
}

/* CIELAB in the 16-bit PCS encoding of the tag: lutAtoB/lutBtoA (v4) use ICC.1:2010 Table 12
 * (L* 0..100 → 0..65535, a*, b* −128..127 → 0..65535); lut16Type (v2) the legacy one
 * (L* 0..100 → 0..65280, a*, b* → 256 · (v + 128)). */
static void lab_encode(const double lab[3], bool v2, uint16_t out[3]) {
        if (v2) {
                out[0] = quantise(lab[0] * 652.8);
                out[1] = quantise((lab[1] + 128.0) * 256.0);
                out[2] = quantise((lab[2] + 128.0) * 256.0);
        } else {
                out[0] = quantise(lab[0] * 655.35);
                out[1] = quantise((lab[1] + 128.0) * 257.0);
                out[2] = quantise((lab[2] + 128.0) * 257.0);
        }
}

/* The CIELAB of a grid node of a Lab-input tag, u in 0..1 per axis, in the same encodings. */
static void lab_decode(const double u[3], bool v2, double lab[3]) {
        if (v2) {
                lab[0] = u[0] * 65535.0 / 652.8;
                lab[1] = u[1] * 65535.0 / 256.0 - 128.0;
                lab[2] = u[2] * 65535.0 / 256.0 - 128.0;
        } else {
                lab[0] = u[0] * 100.0;
                lab[1] = u[1] * 255.0 - 128.0;
                lab[2] = u[2] * 255.0 - 128.0;
        }
}

/* Identity curves, a 16-bit CLUT, identity curves: the layout both lut16Type and
 * lutAtoB/lutBtoA (curves "A"/"B" around the CLUT) carry. Takes table. */
static cmsPipeline *clut_pipeline(unsigned n_in, unsigned n_out, unsigned grid, const uint16_t *table) {
        _cleanup_(pipeline_freep) cmsPipeline *p = cmsPipelineAlloc(NULL, n_in, n_out);
        cmsStage *in, *clut, *out;

        if (!p)
                return NULL;
        in = cmsStageAllocToneCurves(NULL, n_in, NULL);
        if (!in || !cmsPipelineInsertStage(p, cmsAT_END, in))
                return NULL;
        clut = cmsStageAllocCLut16bit(NULL, grid, n_in, n_out, table);
        if (!clut || !cmsPipelineInsertStage(p, cmsAT_END, clut))
                return NULL;
        out = cmsStageAllocToneCurves(NULL, n_out, NULL);
        if (!out || !cmsPipelineInsertStage(p, cmsAT_END, out))
                return NULL;
        return TAKE_PTR(p);
}

typedef struct Tables {
        unsigned n_dev, a2b_grid, b2a_grid;
        size_t a2b_nodes, b2a_nodes;
        uint16_t *a2b;          /* a2b_nodes × 3 */
        uint16_t *b2a_col;      /* b2a_nodes × n_dev: colorimetric */
        uint16_t *b2a_per;      /* b2a_nodes × n_dev: perceptual */
        uint16_t *gamut;        /* b2a_nodes: 0 in gamut, 65535 out */
} Tables;

static void tables_done(Tables *t) {
        free(t->a2b);
        free(t->b2a_col);
        free(t->b2a_per);
        free(t->gamut);
}

static int tables_make(const OutputLut *lut, const OutputInverter *inv, bool v2, Tables *t, double *ret_max_ink) {
        unsigned n = lut->n_in, g = OUTPUT_B2A_GRID;

        *t = (Tables) { .n_dev = n, .a2b_grid = lut->grid, .b2a_grid = g, .a2b_nodes = lut->n_nodes,
                        .b2a_nodes = (size_t) g * g * g };
        t->a2b = calloc(t->a2b_nodes * 3, sizeof(uint16_t));
        t->b2a_col = calloc(t->b2a_nodes * n, sizeof(uint16_t));
        t->b2a_per = calloc(t->b2a_nodes * n, sizeof(uint16_t));
        t->gamut = calloc(t->b2a_nodes, sizeof(uint16_t));
        if (!t->a2b || !t->b2a_col || !t->b2a_per || !t->gamut)
                return -ENOMEM;
        for (size_t k = 0; k < lut->n_nodes; k++)
                lab_encode(lut->node + 3 * k, v2, t->a2b + 3 * k);

        *ret_max_ink = 0.0;
        for (size_t k = 0; k < t->b2a_nodes; k++) {
                double u[3] = { (double) (k / (g * g)) / (g - 1), (double) (k / g % g) / (g - 1),
                                (double) (k % g) / (g - 1) };
                double lab[3], mapped[3], d[OUTPUT_MAX_CHANNELS], err, ink = 0.0;

                lab_decode(u, v2, lab);
                output_invert(inv, lab, d, &err);
                for (unsigned c = 0; c < n; c++) {
                        t->b2a_col[n * k + c] = quantise(d[c] * 65535.0);
                        ink += d[c];
                }
                *ret_max_ink = fmax(*ret_max_ink, ink);
                /* ICC.1:2010 gamutTag: 0 in gamut, anything else out */
                t->gamut[k] = err <= OUTPUT_GAMUT_TOLERANCE ? 0 : 65535;
                output_map_perceptual(inv, lab, mapped);
                output_invert(inv, mapped, d, NULL);
                for (unsigned c = 0; c < n; c++)
                        t->b2a_per[n * k + c] = quantise(d[c] * 65535.0);
        }
        return 0;
}

static int write_lut_tag(cmsHPROFILE h, cmsTagSignature sig, unsigned n_in, unsigned n_out, unsigned grid,
                         const uint16_t *table) {
        _cleanup_(pipeline_freep) cmsPipeline *p = clut_pipeline(n_in, n_out, grid, table);

        if (!p)
                return -ENOMEM;
        return cmsWriteTag(h, sig, p) ? 0 : -EIO;
}

static int build_icc(const OutputSamples *s, const ProfileBuildOptions *o, const Tables *t,
                     const char *const *metadata, uint8_t **ret, size_t *ret_len, const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL;
        int r;

        h = cmsCreateProfilePlaceholder(NULL);
        if (!h) {
                *ret_reason = "out of memory";
                return -ENOMEM;
        }
        cmsSetProfileVersion(h, o->v2 ? 2.4 : 4.3);
        cmsSetDeviceClass(h, cmsSigOutputClass);
        cmsSetColorSpace(h, s->space == OUTPUT_SPACE_CMYK ? cmsSigCmykData : cmsSigRgbData);
        cmsSetPCS(h, cmsSigLabData);
        cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);

        /* ICC.1:2010 §9.2.36: the media white, here the paper as measured (under D50, so no
         * 'chad' is needed); the A2B/B2A tags are media-relative. */
        cmsCIEXYZ wtpt = { s->white[0], s->white[1], s->white[2] };
        if (!cmsWriteTag(h, cmsSigMediaWhitePointTag, &wtpt))
                goto io_error;
        r = write_lut_tag(h, cmsSigAToB0Tag, t->n_dev, 3, t->a2b_grid, t->a2b);
        if (r >= 0)
                r = write_lut_tag(h, cmsSigBToA0Tag, 3, t->n_dev, t->b2a_grid, t->b2a_per);
        if (r >= 0)
                r = write_lut_tag(h, cmsSigBToA1Tag, 3, t->n_dev, t->b2a_grid, t->b2a_col);
        if (r >= 0)
                r = write_lut_tag(h, cmsSigGamutTag, 3, 1, t->b2a_grid, t->gamut);
        if (r < 0) {
                *ret_reason = r == -ENOMEM ? "out of memory" : "lcms2 could not write a LUT tag";
                return r;
        }
        /* One forward table serves every intent: it is colorimetric; the perceptual B2A0
         * maps into the gamut, and saturation (B2A2) shares it. */
        if (!cmsLinkTag(h, cmsSigAToB1Tag, cmsSigAToB0Tag) || !cmsLinkTag(h, cmsSigAToB2Tag, cmsSigAToB0Tag) ||
            !cmsLinkTag(h, cmsSigBToA2Tag, cmsSigBToA0Tag))
                goto io_error;
        return profile_build_finish(h, o, OUTPUT_BUILD_DEFAULT_DESCRIPTION, metadata, ret, ret_len, ret_reason);

io_error:
        *ret_reason = "lcms2 could not write a tag";
        return -EIO;
}

/* lcms2's floating-point device encodings: CMYK in percent, RGB in 0..1. */
static double device_scale(const OutputSamples *s) {
        return s->space == OUTPUT_SPACE_CMYK ? 100.0 : 1.0;
}

/* The draft through lcms2: device → Lab (relative colorimetric) against the measurements,
 * and Lab → device → Lab for the measured colours within the ink limit. */
static int check_icc(const uint8_t *icc, size_t len, const OutputSamples *s, double ink_limit, OutputBuildReport *rep,
                     const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, lab = NULL;
        _cleanup_(transform_freep) cmsHTRANSFORM fwd = NULL, back = NULL;
        cmsUInt32Number dev_type = s->space == OUTPUT_SPACE_CMYK ? TYPE_CMYK_DBL : TYPE_RGB_DBL;
        double s00 = 0.0, m00 = 0.0, s76 = 0.0, s76_2 = 0.0, m76 = 0.0, srt = 0.0, mrt = 0.0;
        size_t n_rt = 0;

        h = cmsOpenProfileFromMem(icc, (cmsUInt32Number) len);
        lab = cmsCreateLab4Profile(NULL);
        if (!h || !lab) {
                *ret_reason = "lcms2 could not open the profile it wrote";
                return -EIO;
        }
        fwd = cmsCreateTransform(h, dev_type, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC,
                                 cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
        back = cmsCreateTransform(lab, TYPE_Lab_DBL, h, dev_type, INTENT_RELATIVE_COLORIMETRIC,
                                  cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
        if (!fwd || !back) {
                *ret_reason = "lcms2 could not make a transform from the profile it wrote";
                return -EIO;
        }
        for (size_t i = 0; i < s->n_samples; i++) {
                const double *want = s->lab + 3 * i;
                double dev[OUTPUT_MAX_CHANNELS], dev2[OUTPUT_MAX_CHANNELS], ink = 0.0;
                cmsCIELab got, ref = { want[0], want[1], want[2] }, in = ref, again;

                for (unsigned c = 0; c < s->n_channels; c++) {
                        dev[c] = s->device[s->n_channels * i + c] * device_scale(s);
                        ink += s->device[s->n_channels * i + c];
                }
                cmsDoTransform(fwd, dev, &got, 1);
                double e00 = cmsCIE2000DeltaE(&ref, &got, 1.0, 1.0, 1.0), e76 = cmsDeltaE(&ref, &got);
                s00 += e00;
                m00 = fmax(m00, e00);
                s76 += e76;
                s76_2 += e76 * e76;
                m76 = fmax(m76, e76);
                if (s->space == OUTPUT_SPACE_CMYK && ink > ink_limit + 1e-6)
                        continue;
                cmsDoTransform(back, &in, dev2, 1);
                cmsDoTransform(fwd, dev2, &again, 1);
                double ert = cmsCIE2000DeltaE(&ref, &again, 1.0, 1.0, 1.0);
                srt += ert;
                mrt = fmax(mrt, ert);
                n_rt++;
        }
        double n = (double) s->n_samples;
        rep->de2000_mean = s00 / n;
        rep->de2000_max = m00;
        rep->de76_mean = s76 / n;
        rep->de76_rms = sqrt(s76_2 / n);
        rep->de76_max = m76;
        rep->round_trip_mean = n_rt > 0 ? srt / (double) n_rt : 0.0;
        rep->round_trip_max = mrt;
        return 0;
}

int output_build(const OutputSamples *samples, const ProfileBuildOptions *options, double ink_limit,
                 OutputBlack black, uint8_t **ret_icc, size_t *ret_len, OutputBuildReport *ret_report,
                 const char **ret_reason) {
        static const ProfileBuildOptions defaults = {};
        const ProfileBuildOptions *o = options ? options : &defaults;
        unsigned grid = samples->space == OUTPUT_SPACE_CMYK ? OUTPUT_A2B_GRID_CMYK : OUTPUT_A2B_GRID_RGB;
        _cleanup_(output_inverter_freep) OutputInverter *inv = NULL;
        _cleanup_free_ const char **meta = NULL;
        _cleanup_free_ uint8_t *draft = NULL;
        OutputBuildReport rep = { .a2b_grid = grid, .b2a_grid = OUTPUT_B2A_GRID };
        OutputFitReport fit = {};
        OutputLut lut = {};
        Tables t = {};
        ProfileBuildAccuracy accuracy;
        size_t draft_len = 0, n_caller = 0;
        int r;

        if (ink_limit <= 0.0)
                ink_limit = 4.0;
        if (samples->space == OUTPUT_SPACE_CMYK && (ink_limit < 1.0 || ink_limit > 4.0)) {
                *ret_reason = "the total ink limit must be between 100% and 400%";
                return -EINVAL;
        }
        for (const char *const *kv = o->metadata; kv && kv[0] && kv[1]; kv += 2)
                n_caller++;
        meta = calloc(2 * (PROFILE_BUILD_OWN_KEYS + n_caller) + 1, sizeof(char *));
        if (!meta) {
                *ret_reason = "out of memory";
                return -ENOMEM;
        }

        r = output_lut_fit(samples->n_channels, grid, samples->device, samples->lab, samples->n_samples, &lut, &fit,
                           ret_reason);
        if (r < 0) {
                if (r == -ENOMEM)
                        *ret_reason = "out of memory";
                return r;
        }
        rep.smoothness = fit.smoothness;
        rep.cv_mean = fit.cv_mean;
        r = output_inverter_new(&lut, samples->space, ink_limit, black, &inv);
        if (r >= 0)
                r = output_inverter_make_boundary(inv);
        if (r >= 0)
                r = tables_make(&lut, inv, o->v2, &t, &rep.max_ink);
        if (r < 0) {
                *ret_reason = "out of memory";
                goto finish;
        }
        rep.black_lightness = output_black_lightness(inv);

        profile_build_metadata(meta, o, samples->instrument, NULL, NULL, NULL);
        r = build_icc(samples, o, &t, meta, &draft, &draft_len, ret_reason);
        if (r >= 0)
                r = check_icc(draft, draft_len, samples, ink_limit, &rep, ret_reason);
        if (r < 0)
                goto finish;
        profile_build_metadata_accurate(meta, o, samples->instrument, rep.de76_mean, rep.de76_max, rep.de76_rms,
                                        &accuracy);
        r = build_icc(samples, o, &t, meta, ret_icc, ret_len, ret_reason);
        if (r >= 0 && ret_report)
                *ret_report = rep;
finish:
        tables_done(&t);
        output_lut_done(&lut);
        return r;
}
