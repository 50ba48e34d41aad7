/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding a chart in a photograph or scan: the projective map from the layout's units
 * (cht.h) to image pixels. Any scale, a rotation of up to CHART_FIND_MAX_ROTATION degrees and
 * mild perspective (keystone of a few per cent); the image upright (not turned by 90°).
 *
 * How: a coarse search over position, scale and rotation on a small copy of the image, then
 * a local refinement of the four corners, scoring each placement by how uniform the patches
 * are inside (against how much they differ from each other) and how well their values
 * explain the reference's L*. Its figures decide whether the chart is there at all.
 * docs/profile-build.md explains the figures and their thresholds.
 *
 * Not here: reading pixel values for the fit (chart-sample.c), files, logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cht.h"
#include "image-read.h"

#define CHART_FIND_MAX_ROTATION 10.0

typedef struct ChartPlacement {
        double h[9];            /* chart units → image pixels, row-major, homogeneous */
        double corners[8];      /* the layout's outline (Cht.corners) in image pixels */
        double correlation;     /* reference L* against the patches' R, G, B (multiple correlation) */
        double uniformity;      /* within-patch variance / between-patch variance */
        bool found;             /* both figures within the thresholds below */
} ChartPlacement;

#define CHART_FIND_MIN_CORRELATION 0.85
#define CHART_FIND_MAX_UNIFORMITY 0.05

/* Finds the chart. lightness[i] is the reference L* of patch i of the layout (NAN where the
 * reference has none). user_corners (8 numbers, or NULL) start the search at the outline
 * the user saw instead of searching the whole image. Returns 0 with *ret (its .found says
 * whether the figures are convincing), -ENOMEM. */
int chart_find(const Image *img, const Cht *cht, const double *lightness, const double *user_corners,
               ChartPlacement *ret);

/* The homography taking the four points src (x, y pairs) to dst. Returns 0, or -EINVAL when
 * degenerate (three points in a line). */
int homography_from_corners(const double src[8], const double dst[8], double ret[9]);
void homography_apply(const double h[9], double u, double v, double *ret_x, double *ret_y);
