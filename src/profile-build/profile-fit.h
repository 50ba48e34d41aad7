/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The display model behind `tinct profile-build` and its fit to measurements: a matrix/shaper
 * (XYZ = M · (t_R(r), t_G(g), t_B(b)), the ICC matrix/TRC model), with M anchored so that
 * device white gives the measured white exactly, and each t_c a smooth curve carrying the
 * display's black offset in t_c(0). The fit minimises CIEDE2000 over the samples
 * (Levenberg–Marquardt): first a power law with offset per channel, then a cubic spline
 * correction of it (docs/profile-build.md).
 *
 * Pure numerics: no lcms2, no files, no logging. profile-build.c turns the result into ICC. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cgats.h"

#define PROFILE_FIT_MAX_KNOTS 32

typedef struct ProfileFitCurve {
        double offset;                          /* t(v) = offset + (1 - offset) · max(S(v), 0)^gamma */
        double gamma;
        unsigned n_intervals;                   /* S: natural cubic spline, knots at j / n_intervals */
        double w[PROFILE_FIT_MAX_KNOTS + 1];    /* S(j / n) = w[j]; w[n] = 1 */
} ProfileFitCurve;

typedef struct ProfileFit {
        double white[3];        /* the measured white (mean of the RGB 1,1,1 patches), Y = 1 */
        double chad[9];         /* Bradford adaptation from white to the D50 PCS white */
        double matrix[9];       /* row-major; column c = adapted XYZ of channel c at full drive */
        ProfileFitCurve curve[3];
        double black[3];        /* the model's adapted XYZ of device black */
        double luminance_scale; /* the white's Y before normalising (cd/m² for absolute data) */
        size_t n_samples;
        unsigned iterations;    /* Levenberg–Marquardt steps, both stages */
        /* the model's CIEDE2000 against the input samples (relative colorimetry, D50) */
        double de2000_mean, de2000_max, de2000_rms;
} ProfileFit;

/* At least this many samples, one of them white (RGB 100 100 100). */
#define PROFILE_FIT_MIN_SAMPLES 8u

/* Fits the model. Returns 0, or -EINVAL with *ret_reason (static text) when the samples
 * cannot make a profile (too few, no white, white without luminance, degenerate primaries),
 * -ENOMEM. */
int profile_fit(const DisplaySample *samples, size_t n, ProfileFit *ret, const char **ret_reason);

/* t_c(v), clamped to [0, 1]. */
double profile_fit_curve_eval(const ProfileFitCurve *c, double v);

/* The model's adapted (D50) XYZ for device values in 0..1. */
void profile_fit_eval(const ProfileFit *f, const double rgb[3], double ret_xyz[3]);

/* Colour science helpers, exposed for the unit test. */
void xyz_to_lab_d50(const double xyz[3], double ret_lab[3]);
/* Three signed terms whose squares sum to CIEDE2000(lab1, lab2)² (kL = kC = kH = 1). */
void ciede2000_terms(const double lab1[3], const double lab2[3], double ret[3]);
double ciede2000(const double lab1[3], const double lab2[3]);
/* Bradford (ICC.1:2010 Annex E) adaptation matrix taking the white src to dst, row-major. */
void bradford_matrix(const double src[3], const double dst[3], double ret[9]);
/* The ICC PCS illuminant (ICC.1:2010 §7.2.16). */
extern const double profile_fit_d50[3];
