/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Measurements → fitted model → ICC bytes, and the check of those bytes (profile-build.h).
 *
 * The profile is written twice: once to measure it through lcms2 exactly as a CMM will use
 * it (sampled curves, s15Fixed16 colorants), and again with those figures in the 'meta'
 * dictionary (colord's ACCURACY_dE76_* keys). Colour tags are identical in both.
 *
 * Not here: files, logging, the fit's numerics (profile-fit.c). */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icc-write.h"
#include "profile-build.h"

static void transform_freep(cmsHTRANSFORM *t) {
        if (*t)
                cmsDeleteTransform(*t);
}

/* The curve as a 16-bit table, non-decreasing (a TRC must be invertible for the reverse
 * direction; the spline can wiggle by a hair where the data is flat). */
static cmsToneCurve *curve_build(const ProfileFitCurve *c) {
        uint16_t table[PROFILE_BUILD_CURVE_ENTRIES];
        uint16_t prev = 0;

        for (unsigned i = 0; i < PROFILE_BUILD_CURVE_ENTRIES; i++) {
                double t = profile_fit_curve_eval(c, (double) i / (PROFILE_BUILD_CURVE_ENTRIES - 1));
                long q = lround(t * 65535.0);
                uint16_t v = (uint16_t) (q < 0 ? 0 : q > 65535 ? 65535 : q);
                if (i == PROFILE_BUILD_CURVE_ENTRIES - 1)
                        v = 65535; /* t(1) = 1 by construction: the white anchor */
                if (v < prev)
                        v = prev;
                table[i] = prev = v;
        }
        return cmsBuildTabulatedToneCurve16(NULL, PROFILE_BUILD_CURVE_ENTRIES, table);
}

int profile_build_finish(cmsHPROFILE h, const ProfileBuildOptions *o, const char *default_description,
                         const char *const *metadata, uint8_t **ret, size_t *ret_len, const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h2 = NULL;
        _cleanup_free_ uint8_t *first = NULL;
        size_t first_len = 0;
        int r;

        r = icc_write_text_tag(h, cmsSigProfileDescriptionTag,
                               !isempty(o->description) ? o->description : default_description);
        if (r >= 0)
                r = icc_write_text_tag(h, cmsSigCopyrightTag,
                                       !isempty(o->copyright) ? o->copyright : PROFILE_BUILD_DEFAULT_COPYRIGHT);
        if (r >= 0)
                r = icc_write_meta_tag(h, metadata);
        if (r < 0) {
                *ret_reason = r == -ENOMEM ? "out of memory" : "lcms2 could not write a tag";
                return r;
        }

        r = icc_save_to_mem(h, &first, &first_len);
        if (r < 0) {
                *ret_reason = "lcms2 could not serialise the profile";
                return r;
        }
        icc_set_fixed_date(first);
        h2 = cmsOpenProfileFromMem(first, (cmsUInt32Number) first_len);
        if (!h2) {
                *ret_reason = "lcms2 could not reread the profile it wrote";
                return -EIO;
        }
        /* ICC.1:2010 §7.2.18: the profile ID (MD5); v2 headers keep those bytes reserved. */
        if (!o->v2 && !cmsMD5computeID(h2)) {
                *ret_reason = "lcms2 could not compute the profile ID";
                return -EIO;
        }
        r = icc_save_to_mem(h2, ret, ret_len);
        if (r < 0) {
                *ret_reason = "lcms2 could not serialise the profile";
                return r;
        }
        return 0;
}

static int build_icc(const ProfileFit *f, const ProfileBuildOptions *o, const ProfileBuildReport *lumi,
                     const char *const *metadata, uint8_t **ret, size_t *ret_len, const char **ret_reason) {
        static const cmsTagSignature colorant_tags[3] = { cmsSigRedColorantTag, cmsSigGreenColorantTag,
                                                           cmsSigBlueColorantTag };
        static const cmsTagSignature trc_tags[3] = { cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag };
        _cleanup_(profile_closep) cmsHPROFILE h = NULL;

        h = cmsCreateProfilePlaceholder(NULL);
        if (!h) {
                *ret_reason = "out of memory";
                return -ENOMEM;
        }
        cmsSetProfileVersion(h, o->v2 ? 2.4 : 4.3);
        cmsSetDeviceClass(h, cmsSigDisplayClass);
        cmsSetColorSpace(h, cmsSigRgbData);
        cmsSetPCS(h, cmsSigXYZData);
        cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);

        /* ICC.1:2010 mediaWhitePointTag: a v4 display's media white is the PCS white, and
         * 'chad' says how the measured white was adapted to it. v2 readers (ICC.1:2001)
         * expect the measured white in 'wtpt'; 'chad' is kept for those that read it. */
        cmsCIEXYZ wtpt = o->v2 ? (cmsCIEXYZ) { f->white[0], f->white[1], f->white[2] }
                               : (cmsCIEXYZ) { profile_fit_d50[0], profile_fit_d50[1], profile_fit_d50[2] };
        double chad[9];
        memcpy(chad, f->chad, sizeof chad);
        if (!cmsWriteTag(h, cmsSigMediaWhitePointTag, &wtpt) || !cmsWriteTag(h, cmsSigChromaticAdaptationTag, chad))
                goto io_error;
        for (size_t c = 0; c < 3; c++) {
                cmsCIEXYZ col = { f->matrix[c], f->matrix[3 + c], f->matrix[6 + c] };
                _cleanup_(tone_curve_freep) cmsToneCurve *trc = curve_build(&f->curve[c]);

                if (!trc) {
                        *ret_reason = "out of memory";
                        return -ENOMEM;
                }
                if (!cmsWriteTag(h, colorant_tags[c], &col) || !cmsWriteTag(h, trc_tags[c], trc))
                        goto io_error;
        }
        if (lumi->has_luminance) {
                /* ICC.1:2010 §9.2.32: the white's absolute XYZ in cd/m². */
                cmsCIEXYZ l = { lumi->luminance[0], lumi->luminance[1], lumi->luminance[2] };
                if (!cmsWriteTag(h, cmsSigLuminanceTag, &l))
                        goto io_error;
        }
        return profile_build_finish(h, o, PROFILE_BUILD_DEFAULT_DESCRIPTION, metadata, ret, ret_len, ret_reason);

io_error:
        *ret_reason = "lcms2 could not write a tag";
        return -EIO;
}

/* Each measurement through the profile as lcms2 reads it, against the measured colour. */
static int check_icc(const uint8_t *icc, size_t len, const DisplaySamples *s, const ProfileFit *f,
                     ProfileBuildReport *rep, const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, lab = NULL;
        _cleanup_(transform_freep) cmsHTRANSFORM t = NULL;
        double s00 = 0.0, s00_2 = 0.0, m00 = 0.0, s76 = 0.0, s76_2 = 0.0, m76 = 0.0;

        h = cmsOpenProfileFromMem(icc, (cmsUInt32Number) len);
        lab = cmsCreateLab4Profile(NULL); /* D50 */
        if (!h || !lab) {
                *ret_reason = "lcms2 could not open the profile it wrote";
                return -EIO;
        }
        t = cmsCreateTransform(h, TYPE_RGB_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC,
                               cmsFLAGS_NOOPTIMIZE | cmsFLAGS_NOCACHE);
        if (!t) {
                *ret_reason = "lcms2 could not make a transform from the profile it wrote";
                return -EIO;
        }
        for (size_t i = 0; i < s->n_samples; i++) {
                const DisplaySample *d = &s->samples[i];
                double rgb[3], x[3], xyz[3], want[3];
                cmsCIELab got, ref;

                for (size_t k = 0; k < 3; k++) {
                        rgb[k] = d->rgb[k];
                        x[k] = d->xyz[k] / f->luminance_scale;
                }
                for (size_t k = 0; k < 3; k++)
                        xyz[k] = f->chad[3 * k] * x[0] + f->chad[3 * k + 1] * x[1] + f->chad[3 * k + 2] * x[2];
                xyz_to_lab_d50(xyz, want);
                cmsDoTransform(t, rgb, &got, 1);
                ref = (cmsCIELab) { want[0], want[1], want[2] };
                double e00 = cmsCIE2000DeltaE(&ref, &got, 1.0, 1.0, 1.0), e76 = cmsDeltaE(&ref, &got);
                s00 += e00;
                s00_2 += e00 * e00;
                m00 = fmax(m00, e00);
                s76 += e76;
                s76_2 += e76 * e76;
                m76 = fmax(m76, e76);
        }
        double n = (double) s->n_samples;
        rep->de2000_mean = s00 / n;
        rep->de2000_rms = sqrt(s00_2 / n);
        rep->de2000_max = m00;
        rep->de76_mean = s76 / n;
        rep->de76_rms = sqrt(s76_2 / n);
        rep->de76_max = m76;
        return 0;
}

/* Our keys first, then the caller's; a caller's key replaces ours. Values that are NULL or
 * empty are left out (a NULL would end the list). Returns the number of strings written. */

static bool caller_has(const char *const *metadata, const char *key) {
        for (const char *const *kv = metadata; kv && kv[0] && kv[1]; kv += 2)
                if (streq(kv[0], key))
                        return true;
        return false;
}

void profile_build_metadata(const char **meta, const ProfileBuildOptions *o, const char *instrument,
                            const char *avg, const char *max, const char *rms) {
        const char *own[] = {
                "DATA_source", "calib",
                "CMF_product", "tinct",
                "CMF_binary", !isempty(o->cmf_binary) ? o->cmf_binary : "tinct",
                "CMF_version", TINCT_VERSION,
                "MEASUREMENT_device", instrument,
                "ACCURACY_dE76_avg", avg,
                "ACCURACY_dE76_max", max,
                "ACCURACY_dE76_rms", rms,
        };
        size_t k = 0;

        for (size_t i = 0; i < ELEMENTSOF(own); i += 2)
                if (!isempty(own[i + 1]) && !caller_has(o->metadata, own[i])) {
                        meta[k++] = own[i];
                        meta[k++] = own[i + 1];
                }
        for (const char *const *kv = o->metadata; kv && kv[0] && kv[1]; kv += 2)
                if (!isempty(kv[0]) && !isempty(kv[1])) {
                        meta[k++] = kv[0];
                        meta[k++] = kv[1];
                }
        meta[k] = NULL;
}

void profile_build_metadata_accurate(const char **meta, const ProfileBuildOptions *o, const char *instrument,
                                     double mean, double max, double rms, ProfileBuildAccuracy *text) {
        snprintf(text->avg, sizeof text->avg, "%.3f", mean);
        snprintf(text->max, sizeof text->max, "%.3f", max);
        snprintf(text->rms, sizeof text->rms, "%.3f", rms);
        profile_build_metadata(meta, o, instrument, text->avg, text->max, text->rms);
}

int profile_build(const DisplaySamples *samples, const ProfileBuildOptions *options, uint8_t **ret_icc,
                  size_t *ret_len, ProfileBuildReport *ret_report, const char **ret_reason) {
        static const ProfileBuildOptions defaults = {};
        const ProfileBuildOptions *o = options ? options : &defaults;
        _cleanup_free_ uint8_t *draft = NULL;
        _cleanup_free_ const char **meta = NULL;
        ProfileBuildReport rep = {};
        ProfileBuildAccuracy accuracy;
        size_t draft_len = 0, n_caller = 0;
        int r;

        r = profile_fit(samples->samples, samples->n_samples, &rep.fit, ret_reason);
        if (r < 0)
                return r;
        if (samples->has_luminance) {
                rep.has_luminance = true;
                memcpy(rep.luminance, samples->luminance, sizeof rep.luminance);
        } else if (samples->absolute) {
                rep.has_luminance = true;
                for (size_t c = 0; c < 3; c++)
                        rep.luminance[c] = rep.fit.white[c] * rep.fit.luminance_scale;
        }

        for (const char *const *kv = o->metadata; kv && kv[0] && kv[1]; kv += 2)
                n_caller++;
        meta = calloc(2 * (PROFILE_BUILD_OWN_KEYS + n_caller) + 1, sizeof(char *));
        if (!meta) {
                *ret_reason = "out of memory";
                return -ENOMEM;
        }

        profile_build_metadata(meta, o, samples->instrument, NULL, NULL, NULL);
        r = build_icc(&rep.fit, o, &rep, meta, &draft, &draft_len, ret_reason);
        if (r < 0)
                return r;
        r = check_icc(draft, draft_len, samples, &rep.fit, &rep, ret_reason);
        if (r < 0)
                return r;

        /* The final profile: the same with the measured accuracy in its metadata. */
        profile_build_metadata_accurate(meta, o, samples->instrument, rep.de76_mean, rep.de76_max, rep.de76_rms,
                                        &accuracy);
        r = build_icc(&rep.fit, o, &rep, meta, ret_icc, ret_len, ret_reason);
        if (r < 0)
                return r;
        if (ret_report)
                *ret_report = rep;
        return 0;
}
