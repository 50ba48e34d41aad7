/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct profile-build --chart LAYOUT.cht --reference REF.cie IMAGE -o OUT.icc: an input
 * (scanner, camera) profile from a TIFF or PNG of a chart. The command line's part only:
 * its options checked, the pipeline (src/profile-build/input-build.c: the chart found, its
 * patches read, the model fitted; docs/profile-build.md) called, its warnings and its
 * refusal printed, the profile written, the report printed. Refusals exit 1 with nothing
 * written. */
#include <assert.h>
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input-build.h"
#include "log.h"
#include "macro.h"
#include "strv.h"
#include "verbs.h"

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

static int parse_model(const char *s, InputModel *ret) {
        if (!s || streq(s, "auto"))
                *ret = INPUT_MODEL_AUTO;
        else if (streq(s, "matrix"))
                *ret = INPUT_MODEL_MATRIX;
        else if (streq(s, "lut"))
                *ret = INPUT_MODEL_LUT;
        else
                return -EINVAL;
        return 0;
}

int verb_profile_build_chart_check(const Invocation *inv) {
        InputModel model;
        double corners[8];

        if (!inv->opts.chart || !inv->opts.reference)
                return verb_usage_error(inv, "an input profile from an image needs both --chart LAYOUT.cht and "
                                        "--reference REF");
        if (inv->opts.ink_limit || inv->opts.black)
                return verb_usage_error(inv, "--%s is for printer profiles (a .ti3 file), not for an input "
                                        "profile (--chart)", inv->opts.ink_limit ? "ink-limit" : "black");
        if (parse_model(inv->opts.model, &model) < 0)
                return verb_usage_error(inv, "--model: '%s' is not auto, matrix or lut", inv->opts.model);
        if (model == INPUT_MODEL_LUT && inv->opts.v2)
                return verb_usage_error(inv, "--model lut: a LUT input profile needs ICC v4 (its matrix follows the "
                                        "CLUT); drop --v2");
        if (inv->opts.corners && parse_corners(inv->opts.corners, corners) < 0)
                return verb_usage_error(inv, "--corners: '%s' is not 8 numbers x1,y1,...,x4,y4", inv->opts.corners);
        return 0;
}

static int print_report(const Invocation *inv, const InputBuildResult *res) {
        _cleanup_free_ char *chart = strdup(inv->opts.chart); /* basename() may write to it */
        const InputFit *fit = &res->fit;
        const double *c = res->place.corners;

        if (!chart)
                return log_oom();
        printf("chart %s found: corners (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f) (%.1f,%.1f); r = %.3f\n",
               basename(chart), c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], res->place.correlation);
        printf("%zu patches used of %zu\n", res->n_used, res->n_patches);
        if (inv->opts.v2)
                printf("--v2: matrix/shaper (a LUT needs ICC v4)\n");
        else if (fit->lut_too_sparse)
                printf("too sparse for a LUT: %zu patches (a LUT needs at least %u); matrix/shaper\n", res->n_used,
                       INPUT_FIT_LUT_MIN_PATCHES);
        else if (!isnan(fit->cv_lut_mean))
                printf("cross-validated dE2000 mean: matrix/shaper %.3f, LUT %.3f: %s chosen\n", fit->cv_matrix_mean,
                       fit->cv_lut_mean, fit->model == INPUT_MODEL_LUT ? "LUT" : "matrix/shaper");
        printf("model: %s; curve knots %u\n", fit->model == INPUT_MODEL_LUT ? "LUT (A2B0)" : "matrix/shaper",
               fit->curve[0].n_intervals + 1);
        printf("self-fit dE2000: mean %.3f max %.3f\n", res->self_mean, res->self_max);
        printf("cross-validated dE2000: mean %.3f max %.3f\n", fit->cv_mean, fit->cv_max);
        return 0;
}

int verb_profile_build_chart(Invocation *inv) {
        _cleanup_(input_build_result_done) InputBuildResult res = {};
        double corners[8];
        InputBuildRequest req = {
                .image = inv->args[0],
                .chart = inv->opts.chart,
                .reference = inv->opts.reference,
                .corners = inv->opts.corners ? corners : NULL,
                .v2 = inv->opts.v2,
                .description = inv->opts.description,
                .copyright = inv->opts.copyright,
                .cmf_binary = "tinct profile-build",
        };
        int r;

        /* checked by verb_profile_build_chart_check() */
        r = parse_model(inv->opts.model, &req.model);
        assert(r >= 0);
        r = inv->opts.corners ? parse_corners(inv->opts.corners, corners) : 0;
        assert(r >= 0);

        r = input_build(&req, &res);
        STRV_FOREACH(w, res.warnings)
                log_warning("%s", *w);
        if (r == -ENOMEM)
                return log_oom(), 1;
        if (r < 0) {
                log_error("%s", res.error);
                return 1;
        }
        if (profile_build_save(inv, inv->args[0], 0, NULL, res.icc, res.icc_len) < 0)
                return 1;
        if (!inv->opts.quiet && print_report(inv, &res) < 0)
                return 1;
        return 0;
}
