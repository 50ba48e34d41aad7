/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An input (scanner, camera) profile from an image of a chart, the whole pipeline: the
 * layout (cht.c) and its reference values (chart-ref.c) read and paired, the image read
 * (image-read.c), the chart found (chart-find.c) and its patches sampled (chart-sample.c),
 * the ColorChecker edition checked, the model fitted (input-fit.c) and the profile encoded
 * (input-icc.c); docs/profile-build.md. What `tinct profile-build --chart` does, for any
 * program: the result says what went wrong or what to warn about, in sentences that name
 * the file concerned.
 *
 * Reads the three files it is given; writes nothing, logs nothing (the caller prints the
 * warnings and the error, and writes the profile). Not here: the command line. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chart-find.h"
#include "input-fit.h"

#define INPUT_BUILD_GARBAGE_DE 10.0 /* a cross-validated mean above this: the patches do not follow the reference */

typedef struct InputBuildRequest {
        const char *image;              /* TIFF or PNG of the chart */
        const char *chart;              /* the layout, .cht */
        const char *reference;          /* the chart's reference values, .cie (IT8.7: XYZ or Lab) */
        const double *corners;          /* the chart's outline x1,y1,...,x4,y4 as the user saw it, or NULL */
        InputModel model;               /* AUTO, MATRIX or LUT (LUT needs v4) */
        bool v2;                        /* an ICC v2.4 profile: matrix/shaper only */
        const char *description, *copyright, *cmf_binary; /* as InputIccOptions */
} InputBuildRequest;

/* Filled by input_build() whether it succeeds or not; input_build_result_done() frees it. */
typedef struct InputBuildResult {
        uint8_t *icc;                   /* the profile, on success */
        size_t icc_len;
        char *error;                    /* on failure (not -ENOMEM): why, naming the file */
        char **warnings;                /* what the caller should say even on success, each naming the file */
        ChartPlacement place;           /* where the chart was found */
        size_t n_patches, n_used;       /* the layout's patches, those fitted (clipped ones left out) */
        InputFit fit;                   /* the model chosen, with its cross-validated figures */
        double self_mean, self_max;     /* the written profile (through lcms2) against the patches */
} InputBuildResult;

/* Returns 0, -ENOMEM, or another negative errno with ->error (a file unreadable or
 * malformed, the chart not found or off the image, a reference that is not the chart's or
 * the other ColorChecker edition, patches that cannot make a profile). */
int input_build(const InputBuildRequest *req, InputBuildResult *ret);
void input_build_result_done(InputBuildResult *r);
