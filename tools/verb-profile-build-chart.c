/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct profile-build --chart LAYOUT.cht --reference REF.cie IMAGE -o OUT.icc: an input
 * (scanner, camera) profile from a TIFF or PNG of a chart (src/profile-build: image-read,
 * cht, chart-ref, chart-find, chart-sample, input-fit, input-icc; docs/profile-build.md).
 * Offline. Refuses, with exit status 1 and nothing written, an image without the chart, a
 * reference that is not the chart's (or the other ColorChecker edition), a truncated or
 * huge image; warns about an image that was colour-converted, clipped and uneven patches. */
#include <errno.h>
#include <lcms2.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-find.h"
#include "chart-ref.h"
#include "chart-sample.h"
#include "cht.h"
#include "fileio.h"
#include "icc-write.h"
#include "image-read.h"
#include "input-fit.h"
#include "input-icc.h"
#include "log.h"
#include "macro.h"
#include "verbs.h"

#define MAX_LISTED 8    /* patches named in one warning */
#define GARBAGE_DE 10.0 /* a cross-validated mean above this: the patches do not follow the reference */

static int read_text(const char *path, size_t max, uint8_t **ret, size_t *ret_size) {
        int r = read_file_capped(path, max, READ_REGULAR_ONLY, ret, ret_size, NULL);
        if (r == -EFBIG)
                log_error("%s: larger than %zu bytes", path, max);
        else if (r < 0)
                log_error("%s: cannot read: %s", path, strerror(-r));
        return r;
}

/* A chart must be captured without colour management: the profile describes the device's
 * own numbers. An embedded profile other than an input profile, or PNG's sRGB chunk, says
 * the pixels were converted to a working space on the way. */
static void warn_converted(const char *path, const Image *img) {
        char desc[256] = "";

        if (img->icc) {
                _cleanup_(profile_closep) cmsHPROFILE h = cmsOpenProfileFromMem(img->icc, (cmsUInt32Number) img->icc_len);
                if (h && cmsGetDeviceClass(h) == cmsSigInputClass)
                        return;
                if (h)
                        cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", desc, sizeof desc);
                log_warning("%s: warning: it embeds the profile \"%s\", which says it was colour-converted on the "
                            "way; a chart must be captured without colour management (the device's raw values), "
                            "else the profile describes the conversion, not the device", path,
                            *desc ? desc : "(unreadable)");
        } else if (img->srgb_chunk)
                log_warning("%s: warning: its sRGB chunk says it was colour-converted to sRGB on the way; a chart must "
                            "be captured without colour management (the device's raw values)", path);
}

static int parse_corners(const char *s, double ret[8]) {
        char *end = NULL;

        for (size_t i = 0; i < 8; i++) {
                errno = 0;
                ret[i] = strtod(s, &end);
                if (errno != 0 || end == s || !isfinite(ret[i]) || *end != (i == 7 ? '\0' : ','))
                        return -EINVAL;
                s = end + 1;
        }
        return 0;
}

/* For each layout patch, its reference index; the counts must agree and every name pair. */
static int pair_reference(const char *ref_path, const Cht *cht, const ChartRef *ref, size_t *idx) {
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
        if (ref->n != cht->n_patches || missing > 0) {
                log_error("%s: %zu patches, the layout has %zu%s%s%s: not this chart's reference", ref_path, ref->n,
                          cht->n_patches, missing ? " (no value for patch " : "", missing ? first_missing : "",
                          missing ? ")" : "");
                return -EINVAL;
        }
        return 0;
}

static void warn_patches(const char *path, const Cht *cht, const PatchSample *ps, const char *what,
                         bool (*pick)(const PatchSample *)) {
        char list[256] = "";
        size_t n = 0;

        for (size_t i = 0; i < cht->n_patches; i++)
                if (pick(&ps[i])) {
                        if (n++ < MAX_LISTED) {
                                size_t l = strlen(list);
                                snprintf(list + l, sizeof list - l, "%s%s", l ? " " : "", cht->patches[i].name);
                        }
                }
        if (n > 0)
                log_warning("%s: warning: %zu patch%s %s: %s%s", path, n, n == 1 ? "" : "es", what, list,
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
static int check_edition(const char *ref_path, const InputSample *s, size_t n, const double (*lab)[3]) {
        ColorCheckerEdition e = colorchecker_edition(lab, n), other;
        _cleanup_free_ InputFit *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
        InputSample alt[24];
        const char *reason = NULL;
        int r;

        if (e == COLORCHECKER_NONE)
                return 0;
        if (!a || !b)
                return log_oom();
        other = e == COLORCHECKER_PRE_2014 ? COLORCHECKER_POST_2014 : COLORCHECKER_PRE_2014;
        for (size_t i = 0; i < 24; i++) {
                alt[i] = s[i];
                colorchecker_xyz(other, i, alt[i].xyz);
        }
        r = input_fit(s, n, INPUT_MODEL_MATRIX, a, &reason);
        if (r >= 0)
                r = input_fit(alt, n, INPUT_MODEL_MATRIX, b, &reason);
        if (r < 0)
                return 0; /* the real fit below says why */
        if (b->cv_mean < 0.8 * a->cv_mean && a->cv_mean - b->cv_mean > 0.2) {
                log_error("%s: wrong reference for this chart: it holds %s, but the chart in the image matches %s "
                          "(cross-validated dE2000 mean %.2f against %.2f); likely a ColorChecker made %s "
                          "November 2014: use its reference values",
                          ref_path, colorchecker_edition_name(e), colorchecker_edition_name(other), a->cv_mean,
                          b->cv_mean, other == COLORCHECKER_POST_2014 ? "after" : "before");
                return -EINVAL;
        }
        return 0;
}

int verb_profile_build_chart(Invocation *inv) {
        _cleanup_free_ uint8_t *cht_data = NULL, *ref_data = NULL, *icc = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_(cht_freep) Cht *cht = NULL;
        _cleanup_(chart_ref_freep) ChartRef *ref = NULL;
        _cleanup_(image_freep) Image *img = NULL;
        _cleanup_free_ size_t *idx = NULL;
        _cleanup_free_ double *lightness = NULL;
        _cleanup_free_ double(*lab)[3] = NULL;
        _cleanup_free_ PatchSample *ps = NULL;
        _cleanup_free_ InputSample *samples = NULL;
        _cleanup_free_ InputFit *fit = NULL;
        _cleanup_free_ char *chart_copy = NULL, *ref_copy = NULL;
        const char *path = inv->args[0], *chart_path = inv->opts.chart, *ref_path = inv->opts.reference;
        const char *reason = NULL;
        double corners[8], self_mean = 0, self_max = 0;
        ChartPlacement place = {};
        InputModel model = INPUT_MODEL_AUTO;
        size_t size = 0, icc_len = 0, n = 0;
        int r;

        if (!chart_path || !ref_path) {
                log_error("profile-build from an image needs both --chart LAYOUT.cht and --reference REF");
                return EXIT_USAGE;
        }
        if (inv->opts.model) {
                if (streq(inv->opts.model, "matrix"))
                        model = INPUT_MODEL_MATRIX;
                else if (streq(inv->opts.model, "lut"))
                        model = INPUT_MODEL_LUT;
                else if (!streq(inv->opts.model, "auto")) {
                        log_error("--model: '%s' is not auto, matrix or lut", inv->opts.model);
                        return EXIT_USAGE;
                }
        }
        if (model == INPUT_MODEL_LUT && inv->opts.v2) {
                log_error("--model lut: a LUT input profile needs ICC v4 (its matrix follows the CLUT); drop --v2");
                return EXIT_USAGE;
        }
        if (inv->opts.v2)
                model = INPUT_MODEL_MATRIX; /* the only model v2 carries */
        if (inv->opts.corners && parse_corners(inv->opts.corners, corners) < 0) {
                log_error("--corners: '%s' is not 8 numbers x1,y1,...,x4,y4", inv->opts.corners);
                return EXIT_USAGE;
        }

        if (read_text(chart_path, CHT_MAX_SIZE, &cht_data, &size) < 0)
                return 1;
        r = cht_parse((const char *) cht_data, size, &cht, &error);
        if (r < 0) {
                log_error("%s: %s", chart_path, error ? error : strerror(-r));
                return 1;
        }
        free(error);
        error = NULL;
        if (read_text(ref_path, CGATS_MAX_SIZE, &ref_data, &size) < 0)
                return 1;
        r = chart_ref_parse((const char *) ref_data, size, &ref, &error);
        if (r < 0) {
                log_error("%s: %s", ref_path, error ? error : strerror(-r));
                return 1;
        }
        free(error);
        error = NULL;

        n = cht->n_patches;
        idx = calloc(n, sizeof *idx);
        lightness = calloc(n, sizeof *lightness);
        lab = calloc(n, sizeof *lab);
        ps = calloc(n, sizeof *ps);
        samples = calloc(n, sizeof *samples);
        fit = calloc(1, sizeof *fit);
        if (!idx || !lightness || !lab || !ps || !samples || !fit)
                return log_oom(), 1;
        if (pair_reference(ref_path, cht, ref, idx) < 0)
                return 1;
        for (size_t i = 0; i < n; i++) {
                xyz_to_lab_d50(ref->xyz[idx[i]], lab[i]);
                lightness[i] = lab[i][0];
        }

        r = image_read(path, &img, &error);
        if (r < 0) {
                log_error("%s: %s", path, error ? error : strerror(-r));
                return 1;
        }
        warn_converted(path, img);

        r = chart_find(img, cht, lightness, inv->opts.corners ? corners : NULL, &place);
        if (r < 0)
                return log_oom(), 1;
        if (!place.found) {
                log_error("%s: the chart %s was not found (the patches' values explain the reference's L* with r = %.2f, "
                          "at least %.2f needed; spread inside the patches %.3f, at most %.2f allowed). If it is "
                          "there, give its corners: --corners x1,y1,x2,y2,x3,y3,x4,y4 (top-left, top-right, "
                          "bottom-right, bottom-left, pixels)",
                          path, chart_path, place.correlation, CHART_FIND_MIN_CORRELATION, place.uniformity,
                          CHART_FIND_MAX_UNIFORMITY);
                return 1;
        }
        r = chart_sample(img, cht, place.h, ps);
        if (r == -ERANGE) {
                log_error("%s: the chart runs off the image", path);
                return 1;
        }
        if (r < 0)
                return log_oom(), 1;
        warn_patches(path, cht, ps, "clipped (left out of the fit)", is_clipped);
        warn_patches(path, cht, ps, "uneven (glare, a shadow or dust?)", is_uneven);

        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                if (is_clipped(&ps[i]))
                        continue;
                memcpy(samples[m].rgb, ps[i].rgb, sizeof samples[m].rgb);
                memcpy(samples[m].xyz, ref->xyz[idx[i]], sizeof samples[m].xyz);
                memcpy(lab[m], lab[i], sizeof lab[m]);
                m++;
        }
        if (m == n && check_edition(ref_path, samples, m, (const double(*)[3]) lab) < 0)
                return 1;
        r = input_fit(samples, m, model, fit, &reason);
        if (r == -ENOMEM)
                return log_oom(), 1;
        if (r < 0) {
                log_error("%s: cannot make a profile: %s", path, reason);
                return 1;
        }
        if (fit->cv_mean > GARBAGE_DE) {
                log_error("%s: the patches do not follow the reference (cross-validated dE2000 mean %.1f): a wrong "
                          "reference, or not this chart", path, fit->cv_mean);
                return 1;
        }

        chart_copy = strdup(chart_path);
        ref_copy = strdup(ref_path);
        if (!chart_copy || !ref_copy)
                return log_oom(), 1;
        InputIccOptions o = {
                .v2 = inv->opts.v2,
                .description = inv->opts.description,
                .copyright = inv->opts.copyright,
                .cmf_binary = "tinct profile-build",
                .chart = basename(chart_copy),
                .reference = basename(ref_copy),
        };
        r = input_icc_build(fit, samples, m, &o, &icc, &icc_len, &self_mean, &self_max, &reason);
        if (profile_build_save(inv, path, r, reason, icc, icc_len) < 0)
                return 1;
        if (!inv->opts.quiet) {
                printf("chart %s found: corners (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f); r = %.3f\n",
                       o.chart, place.corners[0], place.corners[1], place.corners[2], place.corners[3],
                       place.corners[4], place.corners[5], place.corners[6], place.corners[7], place.correlation);
                printf("%zu patches used of %zu\n", m, n);
                if (inv->opts.v2)
                        printf("--v2: matrix/shaper (a LUT needs ICC v4)\n");
                else if (fit->lut_too_sparse)
                        printf("too sparse for a LUT: %zu patches (a LUT needs at least %u); matrix/shaper\n", m,
                               INPUT_FIT_LUT_MIN_PATCHES);
                else if (!isnan(fit->cv_lut_mean))
                        printf("cross-validated dE2000 mean: matrix/shaper %.3f, LUT %.3f: %s chosen\n",
                               fit->cv_matrix_mean, fit->cv_lut_mean,
                               fit->model == INPUT_MODEL_LUT ? "LUT" : "matrix/shaper");
                printf("model: %s; curve knots %u\n", fit->model == INPUT_MODEL_LUT ? "LUT (A2B0)" : "matrix/shaper",
                       fit->curve[0].n_intervals + 1);
                printf("self-fit dE2000: mean %.3f max %.3f\n", self_mean, self_max);
                printf("cross-validated dE2000: mean %.3f max %.3f\n", fit->cv_mean, fit->cv_max);
        }
        return 0;
}
