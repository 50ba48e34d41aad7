/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A generic Levenberg–Marquardt least-squares solver (forward-difference Jacobian, damped
 * normal equations solved by Cholesky), for the display fit (profile-fit.c) and the input
 * fit (input-fit.c). Small dense problems: tens of parameters, a few thousand residuals.
 *
 * Not here: any model. */
#pragma once

#include <stddef.h>

/* Writes the n_res residuals of the parameters p. */
typedef void (*LmResiduals)(void *userdata, const double *p, double *ret);

/* Minimises the sum of squared residuals from p (updated in place). Returns the steps taken,
 * or -ENOMEM. */
int lm_solve(LmResiduals f, void *userdata, double *p, size_t n_params, size_t n_res, unsigned max_steps);

/* The sum of the squares of r[0..n): the cost lm_solve() minimises, also for callers that
 * search by other means (output-invert.c). */
double lm_sum_squares(const double *r, size_t n);

/* Solves the symmetric positive definite a·x = b in place (a is overwritten). -EDOM if not. */
int lm_cholesky_solve(double *a, double *b, size_t n);
