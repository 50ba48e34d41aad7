/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A printer's forward model, device values → media-relative CIELAB, as the regular grid an
 * ICC A2B0 tag carries (a CLUT), fitted to scattered measurements: the least-squares grid
 * whose interpolation passes near the samples, regularised by its curvature (the sum of
 * squared second differences along each axis), solved coarse to fine by conjugate gradients.
 * The amount of smoothing is chosen by cross-validation (docs/printer-profiles.md).
 *
 * The interpolation is lcms2's, so the fit optimises exactly what a CMM will compute:
 * tetrahedral over three inputs; with four, linear in the first (C) between two tetrahedral
 * interpolations over the other three.
 *
 * Pure numerics: no lcms2, no files, no logging. */
#pragma once

#include <stddef.h>

#include "macro.h"

#define OUTPUT_LUT_MAX_IN 4u

typedef struct OutputLut {
        unsigned n_in;          /* 3 or 4 */
        unsigned grid;          /* nodes per axis */
        size_t n_nodes;         /* grid^n_in; the first input varies slowest (ICC order) */
        double *node;           /* n_nodes × 3 outputs */
} OutputLut;

void output_lut_done(OutputLut *l);

/* Up to 8 nodes and weights (summing to 1) that interpolate the grid at dev (0..1 each);
 * returns their number. */
unsigned output_lut_kernel(unsigned n_in, unsigned grid, const double *dev, size_t ret_index[8], double ret_weight[8]);
void output_lut_eval(const OutputLut *l, const double *dev, double ret[3]);
/* The derivatives ∂eval[c]/∂dev[a] at dev (0..1 each) in ret_slope[a][c]: the interpolation is
 * linear in each simplex, so these are exact, one-sided where dev lies on a face (towards
 * larger values, towards smaller at 1). For the inversion's Levenberg–Marquardt steps. */
void output_lut_slope(const OutputLut *l, const double *dev, double ret_slope[][3]);

typedef struct OutputFitReport {
        double smoothness;                      /* the weight chosen */
        double cv_mean;                         /* its cross-validated mean ΔE00 */
        double de2000_mean, de2000_max;         /* the final grid on its own samples */
} OutputFitReport;

/* Fits a grid of the given size to n samples (dev: n × n_in in 0..1, lab: n × 3). Returns 0
 * with *ret filled (free with output_lut_done), -EINVAL (*ret_reason) when there are too
 * few samples, -ENOMEM. */
int output_lut_fit(unsigned n_in, unsigned grid, const double *dev, const double *lab, size_t n, OutputLut *ret,
                   OutputFitReport *ret_report, const char **ret_reason);

/* The fit at one smoothness, for the test and cross-validation. */
int output_lut_fit_fixed(unsigned n_in, unsigned grid, const double *dev, const double *lab, size_t n,
                         double smoothness, OutputLut *ret);
