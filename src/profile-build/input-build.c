/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An input profile from an image of a chart: the steps of input-build.h in order, each
 * refusal said once, in a sentence naming the file it is about. Not here: the command line,
 * logging, writing the profile. */
#include <errno.h>
#include <lcms2.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-ref.h"
#include "chart-sample.h"
#include "cht.h"
#include "fileio.h"
#include "icc-write.h"
#include "image-read.h"
#include "input-build.h"
#include "input-icc.h"
#include "strv.h"

#define MAX_LISTED 8 /* patches named in one warning */

/* Sets r->error (the first one said wins) and returns err. */
_printf_(3, 4) static int fail(InputBuildResult *r, int err, const char *fmt, ...) {
        va_list ap;

        if (!r->error) {
                va_start(ap, fmt);
                if (vasprintf(&r->error, fmt, ap) < 0)
                        r->error = NULL;
                va_end(ap);
        }
        return r->error ? err : -ENOMEM;
}

_printf_(2, 3) static int warn(InputBuildResult *r, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;
        int k;

        va_start(ap, fmt);
        k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        k = strv_consume(&r->warnings, s);
        if (k < 0)
                free(s);
        return k;
}

/* A reader's failure: its message, else the errno's (out of memory is said by the caller). */
static int parse_failed(InputBuildResult *res, int r, const char *path, const char *error) {
        if (r == -ENOMEM && !error)
                return r;
        return fail(res, r, "%s: %s", path, error ? error : strerror(-r));
}

static int read_text(InputBuildResult *res, const char *path, size_t max, uint8_t **ret, size_t *ret_size) {
        int r = read_file_capped(path, max, READ_REGULAR_ONLY, ret, ret_size, NULL);
        if (r == -EFBIG)
                return fail(res, r, "%s: larger than %zu bytes", path, max);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(res, r, "%s: cannot read: %s", path, strerror(-r));
        return 0;
}

/* A chart must be captured without colour management: the profile describes the device's
 * own numbers. An embedded profile other than an input profile, or PNG's sRGB chunk, says
 * the pixels were converted to a working space on the way. */
static int warn_converted(InputBuildResult *res, const char *path, const Image *img) {
        char desc[256] = "";

        if (img->icc) {
                _cleanup_(profile_closep) cmsHPROFILE h = cmsOpenProfileFromMem(img->icc, (cmsUInt32Number) img->icc_len);
                if (h && cmsGetDeviceClass(h) == cmsSigInputClass)
                        return 0;
                if (h)
                        cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", desc, sizeof desc);
                return warn(res, "%s: warning: it embeds the profile \"%s\", which says it was colour-converted on "
                            "the way; a chart must be captured without colour management (the device's raw "
                            "values), else the profile describes the conversion, not the device", path,
                            *desc ? desc : "(unreadable)");
        }
        if (img->srgb_chunk)
                return warn(res, "%s: warning: its sRGB chunk says it was colour-converted to sRGB on the way; a "
                            "chart must be captured without colour management (the device's raw values)", path);
        return 0;
}

/* For each layout patch, its reference index; the counts must agree and every name pair. */
static int pair_reference(InputBuildResult *res, const char *ref_path, const Cht *cht, const ChartRef *ref,
                          size_t *idx) {
        size_t missing = 0;
        const char *first_missing = NULL;

        for (size_t i = 0; i < cht->n_patches; i++) {
                idx[i] = SIZE_MAX;
                for (size_t k = 0; k < ref->n; k++)
                        if (cht_names_equal(cht->patches[i].name, ref->names[k])) {
                                idx[i] = k;
                                break;
                        }
                if (idx[i] == SIZE_MAX && missing++ == 0)
                        first_missing = cht->patches[i].name;
        }
        if (ref->n != cht->n_patches || missing > 0)
                return fail(res, -EINVAL, "%s: %zu patches, the layout has %zu%s%s%s: not this chart's reference",
                            ref_path, ref->n, cht->n_patches, missing ? " (no value for patch " : "",
                            missing ? first_missing : "", missing ? ")" : "");
        return 0;
}

static int warn_patches(InputBuildResult *res, const char *path, const Cht *cht, const PatchSample *ps,
                        const char *what, bool (*pick)(const PatchSample *)) {
        char list[256] = "";
        size_t n = 0;

        for (size_t i = 0; i < cht->n_patches; i++)
                if (pick(&ps[i])) {
                        if (n++ < MAX_LISTED) {
                                size_t l = strlen(list);
                                snprintf(list + l, sizeof list - l, "%s%s", l ? " " : "", cht->patches[i].name);
                        }
                }
        if (n == 0)
                return 0;
        return warn(res, "%s: warning: %zu patch%s %s: %s%s", path, n, n == 1 ? "" : "es", what, list,
                    n > MAX_LISTED ? " ..." : "");
}

static bool is_clipped(const PatchSample *p) {
        return p->clipped_high || p->clipped_low;
}

static bool is_uneven(const PatchSample *p) {
        return p->uneven;
}

/* The ColorChecker editions: the reference given against the other one, both fitted with
 * the same matrix/shaper. Refuses when the other one fits clearly better. */
static int check_edition(InputBuildResult *res, const char *ref_path, const InputSample *s, size_t n,
                         const double (*lab)[3]) {
        ColorCheckerEdition e = colorchecker_edition(lab, n), other;
        _cleanup_free_ InputFit *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
        InputSample alt[24];
        const char *reason = NULL;
        int r;

        if (e == COLORCHECKER_NONE)
                return 0;
        if (!a || !b)
                return -ENOMEM;
        other = e == COLORCHECKER_PRE_2014 ? COLORCHECKER_POST_2014 : COLORCHECKER_PRE_2014;
        for (size_t i = 0; i < 24; i++) {
                alt[i] = s[i];
                colorchecker_xyz(other, i, alt[i].xyz);
        }
        r = input_fit(s, n, INPUT_MODEL_MATRIX, a, &reason);
        if (r >= 0)
                r = input_fit(alt, n, INPUT_MODEL_MATRIX, b, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* the real fit says why */
        if (b->cv_mean < 0.8 * a->cv_mean && a->cv_mean - b->cv_mean > 0.2)
                return fail(res, -EINVAL,
                            "%s: wrong reference for this chart: it holds %s, but the chart in the image matches %s "
                            "(cross-validated dE2000 mean %.2f against %.2f); likely a ColorChecker made %s "
                            "November 2014: use its reference values",
                            ref_path, colorchecker_edition_name(e), colorchecker_edition_name(other), a->cv_mean,
                            b->cv_mean, other == COLORCHECKER_POST_2014 ? "after" : "before");
        return 0;
}

int input_build(const InputBuildRequest *req, InputBuildResult *res) {
        _cleanup_free_ uint8_t *cht_data = NULL, *ref_data = NULL;
        _cleanup_free_ char *error = NULL, *chart_copy = NULL, *ref_copy = NULL;
        _cleanup_(cht_freep) Cht *cht = NULL;
        _cleanup_(chart_ref_freep) ChartRef *ref = NULL;
        _cleanup_(image_freep) Image *img = NULL;
        _cleanup_free_ size_t *idx = NULL;
        _cleanup_free_ double *lightness = NULL;
        _cleanup_free_ double(*lab)[3] = NULL;
        _cleanup_free_ PatchSample *ps = NULL;
        _cleanup_free_ InputSample *samples = NULL;
        const char *reason = NULL;
        size_t size = 0, n, m = 0;
        int r;

        *res = (InputBuildResult) {};
        if (req->v2 && req->model == INPUT_MODEL_LUT)
                return fail(res, -EINVAL, "a LUT input profile needs ICC v4 (its matrix follows the CLUT)");

        r = read_text(res, req->chart, CHT_MAX_SIZE, &cht_data, &size);
        if (r < 0)
                return r;
        r = cht_parse((const char *) cht_data, size, &cht, &error);
        if (r < 0)
                return parse_failed(res, r, req->chart, error);
        error = mfree(error);
        r = read_text(res, req->reference, CGATS_MAX_SIZE, &ref_data, &size);
        if (r < 0)
                return r;
        r = chart_ref_parse((const char *) ref_data, size, &ref, &error);
        if (r < 0)
                return parse_failed(res, r, req->reference, error);
        error = mfree(error);

        n = res->n_patches = cht->n_patches;
        idx = calloc(n, sizeof *idx);
        lightness = calloc(n, sizeof *lightness);
        lab = calloc(n, sizeof *lab);
        ps = calloc(n, sizeof *ps);
        samples = calloc(n, sizeof *samples);
        if (!idx || !lightness || !lab || !ps || !samples)
                return -ENOMEM;
        r = pair_reference(res, req->reference, cht, ref, idx);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                xyz_to_lab_d50(ref->xyz[idx[i]], lab[i]);
                lightness[i] = lab[i][0];
        }

        r = image_read(req->image, &img, &error);
        if (r < 0)
                return parse_failed(res, r, req->image, error);
        r = warn_converted(res, req->image, img);
        if (r < 0)
                return r;

        r = chart_find(img, cht, lightness, req->corners, &res->place);
        if (r < 0)
                return r;
        if (!res->place.found)
                return fail(res, -ENOENT,
                            "%s: the chart %s was not found (the patches' values explain the reference's L* with "
                            "r = %.2f, at least %.2f needed; spread inside the patches %.3f, at most %.2f allowed). "
                            "If it is there, give its corners: --corners x1,y1,x2,y2,x3,y3,x4,y4 (top-left, "
                            "top-right, bottom-right, bottom-left, pixels)",
                            req->image, req->chart, res->place.correlation, CHART_FIND_MIN_CORRELATION,
                            res->place.uniformity, CHART_FIND_MAX_UNIFORMITY);
        r = chart_sample(img, cht, res->place.h, ps);
        if (r == -ERANGE)
                return fail(res, r, "%s: the chart runs off the image", req->image);
        if (r < 0)
                return r;
        r = warn_patches(res, req->image, cht, ps, "clipped (left out of the fit)", is_clipped);
        if (r < 0)
                return r;
        r = warn_patches(res, req->image, cht, ps, "uneven (glare, a shadow or dust?)", is_uneven);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n; i++) {
                if (is_clipped(&ps[i]))
                        continue;
                memcpy(samples[m].rgb, ps[i].rgb, sizeof samples[m].rgb);
                memcpy(samples[m].xyz, ref->xyz[idx[i]], sizeof samples[m].xyz);
                memcpy(lab[m], lab[i], sizeof lab[m]);
                m++;
        }
        res->n_used = m;
        if (m == n) {
                r = check_edition(res, req->reference, samples, m, (const double(*)[3]) lab);
                if (r < 0)
                        return r;
        }
        r = input_fit(samples, m, req->v2 ? INPUT_MODEL_MATRIX : req->model, &res->fit, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(res, r, "%s: cannot make a profile: %s", req->image, reason);
        if (res->fit.cv_mean > INPUT_BUILD_GARBAGE_DE)
                return fail(res, -EINVAL,
                            "%s: the patches do not follow the reference (cross-validated dE2000 mean %.1f): a "
                            "wrong reference, or not this chart", req->image, res->fit.cv_mean);

        chart_copy = strdup(req->chart);
        ref_copy = strdup(req->reference);
        if (!chart_copy || !ref_copy)
                return -ENOMEM;
        InputIccOptions o = {
                .v2 = req->v2,
                .description = req->description,
                .copyright = req->copyright,
                .cmf_binary = req->cmf_binary,
                .chart = basename(chart_copy),
                .reference = basename(ref_copy),
        };
        r = input_icc_build(&res->fit, samples, m, &o, &res->icc, &res->icc_len, &res->self_mean, &res->self_max,
                            &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(res, r, "%s: cannot make a profile: %s", req->image, reason ? reason : strerror(-r));
        return 0;
}

void input_build_result_done(InputBuildResult *r) {
        r->icc = mfree(r->icc);
        r->error = mfree(r->error);
        r->warnings = strv_free(r->warnings);
}
