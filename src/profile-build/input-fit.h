/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model of an input device (scanner, camera) fitted to a chart's patches: device RGB →
 * D50 XYZ (the perfect white diffuser at Y = 1). Two models:
 *   matrix/shaper: XYZ = M · (t_R(r), t_G(g), t_B(b)), t_c a power law with a cubic spline
 *   correction (profile-fit.h's curve), M a free 3×3 matrix (no white anchor: a chart's
 *   white is not the device's full scale);
 *   LUT: XYZ = M · t', t' = t plus a smooth correction on a INPUT_FIT_GRID³ grid over
 *   (t_R, t_G, t_B), tetrahedrally interpolated as an ICC CMM does: the profile's A2B0 is
 *   shaper curves, CLUT, then the matrix (lutAtoBType, so ICC v4 only).
 * Both are fitted to CIEDE2000 (Levenberg–Marquardt for the matrix/shaper; Gauss–Newton with
 * conjugate gradients and a smoothness penalty for the grid). The choice between them, the
 * curves' knots and the grid's smoothness are all made by cross-validation, never by
 * self-fit (docs/profile-build.md).
 *
 * Pure numerics: no lcms2, no files, no logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "profile-fit.h"

#define INPUT_FIT_GRID 9u
#define INPUT_FIT_MIN_PATCHES 12u       /* fewer cannot even pin a matrix down */
#define INPUT_FIT_LUT_MIN_PATCHES 100u  /* fewer: too sparse for a LUT (tried, not even) */
#define INPUT_FIT_FOLDS 4u

typedef struct InputSample {
        double rgb[3];          /* device values 0..1 */
        double xyz[3];          /* reference, D50, Y = 1 for the perfect diffuser */
} InputSample;

typedef enum InputModel {
        INPUT_MODEL_AUTO,       /* the lower cross-validated error */
        INPUT_MODEL_MATRIX,
        INPUT_MODEL_LUT,
} InputModel;

typedef struct InputFit {
        InputModel model;       /* MATRIX or LUT */
        ProfileFitCurve curve[3];
        double matrix[9];       /* row-major */
        double grid[INPUT_FIT_GRID * INPUT_FIT_GRID * INPUT_FIT_GRID][3]; /* LUT: correction of t */
        double smoothness;      /* LUT: the penalty weight chosen */
        size_t n_samples;
        /* CIEDE2000 of the chosen model: on the patches it was fitted to, and on each patch
         * when left out of the fit (INPUT_FIT_FOLDS-fold cross-validation) */
        double self_mean, self_max, cv_mean, cv_max;
        /* the cross-validated means of both candidates (NAN when not tried) */
        double cv_matrix_mean, cv_lut_mean;
        bool lut_too_sparse;    /* fewer than INPUT_FIT_LUT_MIN_PATCHES */
} InputFit;

/* Fits. Returns 0, or -EINVAL with *ret_reason (static text) when the patches cannot make a
 * profile (too few, a LUT asked for with too few, degenerate), -ENOMEM. */
int input_fit(const InputSample *s, size_t n, InputModel want, InputFit *ret, const char **ret_reason);

/* The model's XYZ for device values 0..1: M · t (matrix part), and with the LUT's correction. */
void input_fit_eval(const InputFit *f, const double rgb[3], double ret_xyz[3]);
/* The value the profile's A2B0 CLUT stores at node n (first input slowest): t', in 0..1. */
void input_fit_node(const InputFit *f, size_t n, double ret[3]);
/* The shaper values t for device values. */
void input_fit_shape(const InputFit *f, const double rgb[3], double ret_t[3]);
