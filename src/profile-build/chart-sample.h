/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device values of each patch of a found chart: the inner area of the patch (the
 * layout's BOX_SHRINK and a further tenth of the box on each side), outliers dropped (dust,
 * scratches, specks: more than 3 robust standard deviations from the median), the rest
 * averaged. Patches that are clipped or uneven are flagged for the caller to warn about.
 *
 * Not here: finding the chart (chart-find.c), logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cht.h"
#include "image-read.h"

#define CHART_SAMPLE_MAX_POINTS 64u     /* per side of a patch */
#define CHART_SAMPLE_CLIPPED 0.05       /* this fraction of the points at 0 or full scale */
#define CHART_SAMPLE_UNEVEN 0.02        /* this difference between a patch's halves (of full scale) */

typedef struct PatchSample {
        double rgb[3];          /* 0..1 */
        double sd[3];           /* robust standard deviation of the points */
        size_t n_points, n_dropped;
        bool clipped_high, clipped_low;
        bool uneven;
        double unevenness;      /* the largest difference between halves, 0..1 */
} PatchSample;

/* Samples every patch of the layout through h (chart units → image pixels). Returns 0, or
 * -ERANGE when a patch lies outside the image, -ENOMEM. */
int chart_sample(const Image *img, const Cht *cht, const double h[9], PatchSample *ret);
