/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Levenberg–Marquardt (lm.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lm.h"
#include "macro.h"

int lm_cholesky_solve(double *a, double *b, size_t n) {
        for (size_t j = 0; j < n; j++) {
                double d = a[j * n + j];
                for (size_t k = 0; k < j; k++)
                        d -= a[j * n + k] * a[j * n + k];
                if (!(d > 0.0))
                        return -EDOM;
                d = sqrt(d);
                a[j * n + j] = d;
                for (size_t i = j + 1; i < n; i++) {
                        double s = a[i * n + j];
                        for (size_t k = 0; k < j; k++)
                                s -= a[i * n + k] * a[j * n + k];
                        a[i * n + j] = s / d;
                }
        }
        for (size_t i = 0; i < n; i++) {
                double s = b[i];
                for (size_t k = 0; k < i; k++)
                        s -= a[i * n + k] * b[k];
                b[i] = s / a[i * n + i];
        }
        for (size_t i = n; i-- > 0;) {
                double s = b[i];
                for (size_t k = i + 1; k < n; k++)
                        s -= a[k * n + i] * b[k];
                b[i] = s / a[i * n + i];
        }
        return 0;
}

double lm_sum_squares(const double *r, size_t n) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
                s += r[i] * r[i];
        return s;
}

int lm_solve(LmResiduals f, void *userdata, double *p, size_t np, size_t nr, unsigned max_steps) {
        _cleanup_free_ double *trial = calloc(np, sizeof(double)), *r = calloc(nr, sizeof(double));
        _cleanup_free_ double *r2 = calloc(nr, sizeof(double)), *jac = calloc(nr * np, sizeof(double));
        _cleanup_free_ double *a = calloc(np * np, sizeof(double)), *ata = calloc(np * np, sizeof(double));
        _cleanup_free_ double *g = calloc(np, sizeof(double));
        double lambda = 1e-3, cost;
        unsigned it;

        if (!trial || !r || !r2 || !jac || !a || !ata || !g)
                return -ENOMEM;
        f(userdata, p, r);
        cost = lm_sum_squares(r, nr);
        for (it = 0; it < max_steps; it++) {
                /* jac is stored column by column: each column is one parameter's derivative */
                for (size_t j = 0; j < np; j++) {
                        double h = 1e-7 * fmax(fabs(p[j]), 1e-2);
                        memcpy(trial, p, np * sizeof(double));
                        trial[j] += h;
                        f(userdata, trial, r2);
                        for (size_t i = 0; i < nr; i++)
                                jac[j * nr + i] = (r2[i] - r[i]) / h;
                }
                for (size_t j = 0; j < np; j++) {
                        const double *cj = &jac[j * nr];
                        g[j] = 0.0;
                        for (size_t i = 0; i < nr; i++)
                                g[j] += cj[i] * r[i];
                        for (size_t k = 0; k <= j; k++) {
                                const double *ck = &jac[k * nr];
                                double t = 0.0;
                                for (size_t i = 0; i < nr; i++)
                                        t += cj[i] * ck[i];
                                ata[j * np + k] = ata[k * np + j] = t;
                        }
                }
                bool improved = false;
                double new_cost = cost;
                while (lambda < 1e12) {
                        memcpy(a, ata, np * np * sizeof(double));
                        for (size_t j = 0; j < np; j++) {
                                a[j * np + j] += lambda * (ata[j * np + j] + 1e-9);
                                trial[j] = -g[j];
                        }
                        if (lm_cholesky_solve(a, trial, np) == 0) {
                                for (size_t j = 0; j < np; j++)
                                        trial[j] += p[j];
                                f(userdata, trial, r2);
                                new_cost = lm_sum_squares(r2, nr);
                                if (isfinite(new_cost) && new_cost < cost) {
                                        improved = true;
                                        break;
                                }
                        }
                        lambda *= 4.0;
                }
                if (!improved)
                        break;
                memcpy(p, trial, np * sizeof(double));
                memcpy(r, r2, nr * sizeof(double));
                lambda = fmax(lambda / 5.0, 1e-12);
                bool converged = cost - new_cost <= 1e-12 * cost + 1e-18;
                cost = new_cost;
                if (converged)
                        break;
        }
        return (int) it;
}
