/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fitting a matrix/shaper display model to RGB → XYZ measurements (profile-fit.h).
 *
 * Everything happens in the PCS the profile will use: each measurement is normalised to the
 * white's Y, adapted to D50 with the Bradford matrix of the measured white (the 'chad' the
 * profile will carry), and compared as CIELAB under D50. The residuals are the three terms of
 * CIEDE2000 (whose squares sum to ΔE00²), so least squares minimises the RMS ΔE00.
 *
 * Parameters: the adapted colorant matrix with its blue column fixed by white anchoring
 * (R + G + B = D50, so device white lands exactly on the PCS white), and per channel a curve
 * t(v) = k + (1 − k) · max(S(v), 0)^γ (k: additive black, the light an LCD leaks). Stage 1:
 * S linear (S(0) = offset, S(1) = 1), free k and γ: a power law with black offsets (GOG,
 * BT.1886-like). Stage 2: k and γ fixed, S a natural cubic spline through n + 1 uniform knots
 * (the last fixed at 1; n chosen by cross-validation) with a small penalty on its second
 * differences, so sparse or noisy data stays near the power law. Samples are weighted by the
 * inverse of the ΔE00 an assumed instrument noise causes at their colour. Both stages are solved by
 * Levenberg–Marquardt with a forward-difference Jacobian (tens of parameters, hundreds of
 * residuals: well under a second).
 *
 * Not here: lcms2, ICC encoding (profile-build.c), reading files (cgats.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lm.h"
#include "mat3.h"
#include "profile-fit.h"

const double profile_fit_d50[3] = { 0.9642, 1.0, 0.8249 };

/* Stage 2's candidate knot counts (intervals), chosen per data set by cross-validation;
 * the weight of its smoothness penalty (ΔE00 per unit of second difference of S); the
 * noise the weights assume: 1% of each of X, Y, Z plus 0.01% of the white (a colorimeter's
 * repeatability, and its dark floor: about 0.01 cd/m² at a 120 cd/m² white). Chosen on simulated displays with and without noise
 * (docs/profile-build.md). */
static const unsigned fit_intervals[] = { 4, 6, 8, 12, 16 };
#define FIT_SMOOTHNESS 10.0
#define FIT_NOISE_RELATIVE 0.01
#define FIT_NOISE_FLOOR 0.0001
#define FIT_FOLDS 4u
#define FIT_MAX_ITERATIONS 200u

static void mat3_vec(const double m[9], const double v[3], double r[3]) {
        for (size_t i = 0; i < 3; i++)
                r[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

static void mat3_mul(const double a[9], const double b[9], double r[9]) {
        for (size_t i = 0; i < 3; i++)
                for (size_t j = 0; j < 3; j++)
                        r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

void bradford_matrix(const double src[3], const double dst[3], double ret[9]) {
        /* ICC.1:2010 Annex E, the linearised Bradford cone response matrix. */
        static const double b[9] = {
                0.8951, 0.2664, -0.1614,
                -0.7502, 1.7135, 0.0367,
                0.0389, -0.0685, 1.0296,
        };
        double bi[9], s[3], d[3], scaled[9];

        (void) mat3_invert(b, bi); /* constant, invertible */
        mat3_vec(b, src, s);
        mat3_vec(b, dst, d);
        for (size_t i = 0; i < 3; i++)
                for (size_t j = 0; j < 3; j++)
                        scaled[3 * i + j] = b[3 * i + j] * d[i] / s[i];
        mat3_mul(bi, scaled, ret);
}

static double lab_f(double t) {
        /* CIE 15: cube root above (6/29)³, the linear segment below (also for t < 0, which
         * noisy black readings give). */
        const double e = 216.0 / 24389.0;
        return t > e ? cbrt(t) : t * (24389.0 / 27.0 / 116.0) + 16.0 / 116.0;
}

void xyz_to_lab_d50(const double xyz[3], double lab[3]) {
        double fx = lab_f(xyz[0] / profile_fit_d50[0]);
        double fy = lab_f(xyz[1] / profile_fit_d50[1]);
        double fz = lab_f(xyz[2] / profile_fit_d50[2]);

        lab[0] = 116.0 * fy - 16.0;
        lab[1] = 500.0 * (fx - fy);
        lab[2] = 200.0 * (fy - fz);
}

static double deg(double rad) {
        return rad * (180.0 / M_PI);
}

static double rad(double d) {
        return d * (M_PI / 180.0);
}

/* CIEDE2000 as in CIE 142-2001 (and Sharma, Wu, Dalal 2005), written as three terms:
 * ΔE00² = (ΔL'/SL)² + (ΔC'/SC)² + (ΔH'/SH)² + RT·(ΔC'/SC)(ΔH'/SH), and with x = ΔC'/SC,
 * y = ΔH'/SH the last three are (x + RT/2·y)² + (1 − RT²/4)·y² (|RT| ≤ 2). */
void ciede2000_terms(const double lab1[3], const double lab2[3], double ret[3]) {
        const double pow25_7 = 6103515625.0; /* 25^7 */
        double c1 = hypot(lab1[1], lab1[2]), c2 = hypot(lab2[1], lab2[2]);
        double cbar = (c1 + c2) / 2.0, cbar7 = pow(cbar, 7.0);
        double g = 0.5 * (1.0 - sqrt(cbar7 / (cbar7 + pow25_7)));
        double a1 = (1.0 + g) * lab1[1], a2 = (1.0 + g) * lab2[1];
        double cp1 = hypot(a1, lab1[2]), cp2 = hypot(a2, lab2[2]);
        double hp1 = 0.0, hp2 = 0.0, dhp = 0.0, hbar;

        if (cp1 > 0.0) {
                hp1 = deg(atan2(lab1[2], a1));
                if (hp1 < 0.0)
                        hp1 += 360.0;
        }
        if (cp2 > 0.0) {
                hp2 = deg(atan2(lab2[2], a2));
                if (hp2 < 0.0)
                        hp2 += 360.0;
        }
        if (cp1 * cp2 > 0.0) {
                dhp = hp2 - hp1;
                if (dhp > 180.0)
                        dhp -= 360.0;
                else if (dhp < -180.0)
                        dhp += 360.0;
        }
        double dl = lab2[0] - lab1[0], dc = cp2 - cp1;
        double dh = 2.0 * sqrt(cp1 * cp2) * sin(rad(dhp / 2.0));
        double lbar = (lab1[0] + lab2[0]) / 2.0, cpbar = (cp1 + cp2) / 2.0;

        if (cp1 * cp2 == 0.0)
                hbar = hp1 + hp2;
        else if (fabs(hp1 - hp2) <= 180.0)
                hbar = (hp1 + hp2) / 2.0;
        else if (hp1 + hp2 < 360.0)
                hbar = (hp1 + hp2 + 360.0) / 2.0;
        else
                hbar = (hp1 + hp2 - 360.0) / 2.0;

        double t = 1.0 - 0.17 * cos(rad(hbar - 30.0)) + 0.24 * cos(rad(2.0 * hbar)) +
                   0.32 * cos(rad(3.0 * hbar + 6.0)) - 0.20 * cos(rad(4.0 * hbar - 63.0));
        double dtheta = 30.0 * exp(-pow((hbar - 275.0) / 25.0, 2.0));
        double cpbar7 = pow(cpbar, 7.0);
        double rc = 2.0 * sqrt(cpbar7 / (cpbar7 + pow25_7));
        double l50 = (lbar - 50.0) * (lbar - 50.0);
        double sl = 1.0 + 0.015 * l50 / sqrt(20.0 + l50);
        double sc = 1.0 + 0.045 * cpbar, sh = 1.0 + 0.015 * cpbar * t;
        double rt = -sin(rad(2.0 * dtheta)) * rc;
        double x = dc / sc, y = dh / sh;

        ret[0] = dl / sl;
        ret[1] = x + rt / 2.0 * y;
        ret[2] = sqrt(fmax(1.0 - rt * rt / 4.0, 0.0)) * y;
}

double ciede2000(const double lab1[3], const double lab2[3]) {
        double r[3];

        ciede2000_terms(lab1, lab2, r);
        return sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

/* --- Curves --- */

/* Second derivatives of the natural cubic spline through w[0..n] at knots j/n. */
static void spline_prepare(const ProfileFitCurve *c, double m[PROFILE_FIT_MAX_KNOTS + 1]) {
        unsigned n = c->n_intervals;
        double cp[PROFILE_FIT_MAX_KNOTS + 1], dp[PROFILE_FIT_MAX_KNOTS + 1];
        double h2 = 1.0 / ((double) n * n);

        m[0] = m[n] = 0.0;
        if (n < 2)
                return;
        /* (m[i-1] + 4 m[i] + m[i+1]) h² / 6 = w[i-1] - 2 w[i] + w[i+1]: Thomas algorithm. */
        for (unsigned i = 1; i < n; i++) {
                double rhs = 6.0 * (c->w[i - 1] - 2.0 * c->w[i] + c->w[i + 1]) / h2;
                double denom = 4.0 - (i > 1 ? cp[i - 1] : 0.0);
                cp[i] = 1.0 / denom;
                dp[i] = (rhs - (i > 1 ? dp[i - 1] : 0.0)) / denom;
        }
        m[n - 1] = dp[n - 1];
        for (unsigned i = n - 2; i >= 1; i--)
                m[i] = dp[i] - cp[i] * m[i + 1];
}

static double spline_eval(const ProfileFitCurve *c, const double *m, double v) {
        unsigned n = c->n_intervals, i;
        double h = 1.0 / n, t, s, u;

        v = fmin(fmax(v, 0.0), 1.0);
        i = (unsigned) (v * n);
        if (i >= n)
                i = n - 1;
        t = v * n - i;
        u = 1.0 - t;
        s = u * c->w[i] + t * c->w[i + 1] + h * h / 6.0 * ((u * u * u - u) * m[i] + (t * t * t - t) * m[i + 1]);
        return s;
}

static double curve_value(const ProfileFitCurve *c, const double *m, double v) {
        double s = spline_eval(c, m, v);
        double t = c->offset + (1.0 - c->offset) * (s > 0.0 ? pow(s, c->gamma) : 0.0);
        return fmin(fmax(t, 0.0), 1.0);
}

double profile_fit_curve_eval(const ProfileFitCurve *c, double v) {
        double m[PROFILE_FIT_MAX_KNOTS + 1];

        spline_prepare(c, m);
        return curve_value(c, m, v);
}

void profile_fit_eval(const ProfileFit *f, const double rgb[3], double ret_xyz[3]) {
        double t[3];

        for (size_t k = 0; k < 3; k++)
                t[k] = profile_fit_curve_eval(&f->curve[k], rgb[k]);
        mat3_vec(f->matrix, t, ret_xyz);
}

/* --- The problem --- */

typedef struct Problem {
        size_t n;
        const double (*rgb)[3];
        const double (*lab)[3];         /* targets, D50 */
        const double *weight;           /* per sample */
        double weight_mean;
        bool spline;                    /* stage 2 */
        ProfileFit *fit;                /* current model (curves' shapes, gammas) */
} Problem;

static size_t problem_n_params(const Problem *pb) {
        size_t n = 6;
        for (size_t k = 0; k < 3; k++)
                n += pb->spline ? pb->fit->curve[k].n_intervals : 3;
        return n;
}

static size_t problem_n_residuals(const Problem *pb) {
        size_t n = 3 * pb->n;
        if (pb->spline)
                for (size_t k = 0; k < 3; k++)
                        n += pb->fit->curve[k].n_intervals - 1;
        return n;
}

/* Parameters → model. Column B = D50 − R − G (white anchoring). */
static void problem_set(Problem *pb, const double *p) {
        ProfileFit *f = pb->fit;
        size_t at = 6;

        for (size_t i = 0; i < 3; i++) {
                f->matrix[3 * i + 0] = p[i];
                f->matrix[3 * i + 1] = p[3 + i];
                f->matrix[3 * i + 2] = profile_fit_d50[i] - p[i] - p[3 + i];
        }
        for (size_t k = 0; k < 3; k++) {
                ProfileFitCurve *c = &f->curve[k];
                if (!pb->spline) {
                        c->offset = fmin(fmax(p[at++], -0.1), 0.5);
                        c->n_intervals = 1;
                        c->w[0] = p[at++];
                        c->w[1] = 1.0;
                        c->gamma = fmin(fmax(p[at++], 0.2), 8.0);
                } else {
                        for (unsigned j = 0; j < c->n_intervals; j++)
                                c->w[j] = p[at++];
                        c->w[c->n_intervals] = 1.0;
                }
        }
}

static void problem_get(const Problem *pb, double *p) {
        const ProfileFit *f = pb->fit;
        size_t at = 6;

        for (size_t i = 0; i < 3; i++) {
                p[i] = f->matrix[3 * i + 0];
                p[3 + i] = f->matrix[3 * i + 1];
        }
        for (size_t k = 0; k < 3; k++) {
                const ProfileFitCurve *c = &f->curve[k];
                if (!pb->spline) {
                        p[at++] = c->offset;
                        p[at++] = c->w[0];
                        p[at++] = c->gamma;
                } else
                        for (unsigned j = 0; j < c->n_intervals; j++)
                                p[at++] = c->w[j];
        }
}

static void problem_residuals(Problem *pb, const double *p, double *r) {
        ProfileFit *f = pb->fit;
        double m[3][PROFILE_FIT_MAX_KNOTS + 1];
        size_t at = 0;

        problem_set(pb, p);
        for (size_t k = 0; k < 3; k++)
                spline_prepare(&f->curve[k], m[k]);
        for (size_t i = 0; i < pb->n; i++) {
                double t[3], xyz[3], lab[3];

                for (size_t k = 0; k < 3; k++)
                        t[k] = curve_value(&f->curve[k], m[k], pb->rgb[i][k]);
                mat3_vec(f->matrix, t, xyz);
                xyz_to_lab_d50(xyz, lab);
                ciede2000_terms(pb->lab[i], lab, r + at);
                for (size_t k = 0; k < 3; k++)
                        r[at + k] *= pb->weight[i];
                at += 3;
        }
        if (pb->spline)
                for (size_t k = 0; k < 3; k++) {
                        const ProfileFitCurve *c = &f->curve[k];
                        for (unsigned j = 1; j < c->n_intervals; j++)
                                r[at++] = FIT_SMOOTHNESS * pb->weight_mean * (c->w[j - 1] - 2.0 * c->w[j] + c->w[j + 1]);
                }
}

static void problem_residuals_cb(void *userdata, const double *p, double *r) {
        problem_residuals(userdata, p, r);
}

/* Levenberg–Marquardt (lm.c) on the problem from its current model. Returns the steps taken
 * or -ENOMEM. */
static int problem_solve(Problem *pb) {
        size_t np = problem_n_params(pb), nr = problem_n_residuals(pb);
        _cleanup_free_ double *p = calloc(np, sizeof(double));
        int r;

        if (!p)
                return -ENOMEM;
        problem_get(pb, p);
        r = lm_solve(problem_residuals_cb, pb, p, np, nr, FIT_MAX_ITERATIONS);
        if (r < 0)
                return r;
        problem_set(pb, p); /* the model holds the best parameters */
        return r;
}

/* The samples a fit sees: device values, target Lab, adapted XYZ, weights. */
typedef struct FitData {
        size_t n;
        double (*rgb)[3];
        double (*lab)[3];
        double (*xyz)[3];
        double *weight;
} FitData;

static void fit_data_done(FitData *d) {
        free(d->rgb);
        free(d->lab);
        free(d->xyz);
        free(d->weight);
}

static int fit_data_alloc(FitData *d, size_t n) {
        *d = (FitData) { .n = 0 };
        d->rgb = calloc(n, sizeof *d->rgb);
        d->lab = calloc(n, sizeof *d->lab);
        d->xyz = calloc(n, sizeof *d->xyz);
        d->weight = calloc(n, sizeof(double));
        if (!d->rgb || !d->lab || !d->xyz || !d->weight) {
                fit_data_done(d);
                return -ENOMEM;
        }
        return 0;
}

static void fit_data_add(FitData *d, const FitData *from, size_t i) {
        memcpy(d->rgb[d->n], from->rgb[i], sizeof d->rgb[0]);
        memcpy(d->lab[d->n], from->lab[i], sizeof d->lab[0]);
        memcpy(d->xyz[d->n], from->xyz[i], sizeof d->xyz[0]);
        d->weight[d->n] = from->weight[i];
        d->n++;
}

static bool is_white(const double rgb[3]) {
        return rgb[0] >= 0.999 && rgb[1] >= 0.999 && rgb[2] >= 0.999;
}

/* Distinct device values of one channel (to 1e-4), for the number of knots. */
static size_t distinct_levels(const FitData *d, size_t k) {
        _cleanup_free_ double *v = malloc(d->n * sizeof(double));
        size_t n = d->n, count = 0;

        if (!v)
                return 0;
        for (size_t i = 0; i < n; i++)
                v[i] = d->rgb[i][k];
        /* insertion sort: n is a few thousand at most */
        for (size_t i = 1; i < n; i++) {
                double x = v[i];
                size_t j = i;
                for (; j > 0 && v[j - 1] > x; j--)
                        v[j] = v[j - 1];
                v[j] = x;
        }
        for (size_t i = 0; i < n; i++)
                if (i == 0 || v[i] - v[i - 1] > 1e-4)
                        count++;
        return count;
}

/* Stage 1 from a least-squares start: t = v^2.2, colorants by weighted least squares on the
 * adapted XYZ (weighted towards the darks, as Lab is), blue from the white anchor. */
static int fit_stage1(const FitData *d, ProfileFit *f) {
        double ata[9] = {}, atb[3][3] = {}, inv[9];
        double wsum = 0.0;
        int r;

        for (size_t i = 0; i < d->n; i++) {
                double t[3], w = 1.0 / (fmax(d->xyz[i][1], 0.0) + 0.05);
                for (size_t k = 0; k < 3; k++)
                        t[k] = pow(d->rgb[i][k], 2.2);
                for (size_t a = 0; a < 3; a++) {
                        for (size_t b = 0; b < 3; b++)
                                ata[3 * a + b] += w * t[a] * t[b];
                        for (size_t c = 0; c < 3; c++)
                                atb[c][a] += w * t[a] * d->xyz[i][c];
                }
                wsum += d->weight[i];
        }
        if (mat3_invert(ata, inv) < 0)
                return -EDOM;
        for (size_t c = 0; c < 3; c++) {
                double row[3];
                mat3_vec(inv, atb[c], row);
                f->matrix[3 * c + 0] = row[0];
                f->matrix[3 * c + 1] = row[1];
        }
        for (size_t k = 0; k < 3; k++)
                f->curve[k] = (ProfileFitCurve) { .gamma = 2.2, .n_intervals = 1, .w = { 0.0, 1.0 } };

        Problem pb = { .n = d->n, .rgb = (const double (*)[3]) d->rgb, .lab = (const double (*)[3]) d->lab,
                       .weight = d->weight, .weight_mean = wsum / d->n, .fit = f };
        r = problem_solve(&pb);
        if (r < 0)
                return r;
        f->iterations = (unsigned) r;
        return 0;
}

/* Stage 2 from a stage-1 model, with at most max_intervals intervals per curve. */
static int fit_stage2(const FitData *d, unsigned max_intervals, ProfileFit *f) {
        double wsum = 0.0;
        int r;

        for (size_t i = 0; i < d->n; i++)
                wsum += d->weight[i];
        for (size_t k = 0; k < 3; k++) {
                ProfileFitCurve *c = &f->curve[k];
                size_t levels = distinct_levels(d, k);
                unsigned ni = (unsigned) (levels / 3);
                double o = c->w[0];

                if (ni > max_intervals)
                        ni = max_intervals;
                if (ni < 1)
                        ni = 1;
                c->n_intervals = ni;
                for (unsigned j = 0; j <= ni; j++)
                        c->w[j] = o + (1.0 - o) * j / ni;
        }
        Problem pb = { .n = d->n, .rgb = (const double (*)[3]) d->rgb, .lab = (const double (*)[3]) d->lab,
                       .weight = d->weight, .weight_mean = wsum / d->n, .spline = true, .fit = f };
        r = problem_solve(&pb);
        if (r < 0)
                return r;
        f->iterations += (unsigned) r;
        return 0;
}

static double sample_error(const ProfileFit *f, const FitData *d, size_t i) {
        double xyz[3], l[3];

        profile_fit_eval(f, d->rgb[i], xyz);
        xyz_to_lab_d50(xyz, l);
        return ciede2000(d->lab[i], l);
}

/* How many knots the data carries: FIT_FOLDS-fold cross-validation (every FIT_FOLDS-th
 * sample held out in turn, white patches always kept for the anchor), the candidate with
 * the lowest held-out mean ΔE00. Few or noisy samples choose few knots. */
static int choose_intervals(const FitData *all, const ProfileFit *start, unsigned *ret) {
        double score[ELEMENTSOF(fit_intervals)] = {};
        FitData train, test;
        int r;

        r = fit_data_alloc(&train, all->n);
        if (r < 0)
                return r;
        r = fit_data_alloc(&test, all->n);
        if (r < 0) {
                fit_data_done(&train);
                return r;
        }
        for (unsigned fold = 0; fold < FIT_FOLDS && r >= 0; fold++) {
                ProfileFit base = *start;

                train.n = test.n = 0;
                for (size_t i = 0; i < all->n; i++)
                        fit_data_add(i % FIT_FOLDS == fold && !is_white(all->rgb[i]) ? &test : &train, all, i);
                r = fit_stage1(&train, &base);
                if (r == -EDOM) { /* a fold without the colours to fit: no opinion */
                        r = 0;
                        continue;
                }
                for (size_t c = 0; c < ELEMENTSOF(fit_intervals) && r >= 0; c++) {
                        ProfileFit f = base;
                        r = fit_stage2(&train, fit_intervals[c], &f);
                        for (size_t i = 0; r >= 0 && i < test.n; i++)
                                score[c] += sample_error(&f, &test, i);
                }
        }
        fit_data_done(&train);
        fit_data_done(&test);
        if (r < 0)
                return r;
        size_t best = 0;
        for (size_t c = 1; c < ELEMENTSOF(fit_intervals); c++)
                if (score[c] < score[best])
                        best = c;
        *ret = fit_intervals[best];
        return 0;
}

int profile_fit(const DisplaySample *samples, size_t n, ProfileFit *ret, const char **ret_reason) {
        _cleanup_(fit_data_done) FitData d = {};
        double white[3] = {};
        size_t n_white = 0;
        unsigned intervals;
        ProfileFit f = {};
        int r;

        if (n < PROFILE_FIT_MIN_SAMPLES) {
                *ret_reason = "too few measurements (at least 8 are needed)";
                return -EINVAL;
        }
        for (size_t i = 0; i < n; i++) {
                for (size_t k = 0; k < 3; k++)
                        if (!isfinite(samples[i].rgb[k]) || !isfinite(samples[i].xyz[k])) {
                                *ret_reason = "a measurement is not a finite number";
                                return -EINVAL;
                        }
                if (is_white(samples[i].rgb)) {
                        for (size_t k = 0; k < 3; k++)
                                white[k] += samples[i].xyz[k];
                        n_white++;
                }
        }
        if (n_white == 0) {
                *ret_reason = "no white patch (RGB 100 100 100) among the measurements";
                return -EINVAL;
        }
        for (size_t k = 0; k < 3; k++)
                white[k] /= (double) n_white;
        if (!(white[1] > 0.0) || !(white[0] > 0.0) || !(white[2] > 0.0)) {
                *ret_reason = "the white patch has no positive XYZ";
                return -EINVAL;
        }
        f.luminance_scale = white[1];
        for (size_t k = 0; k < 3; k++)
                f.white[k] = white[k] / white[1];
        bradford_matrix(f.white, profile_fit_d50, f.chad);

        r = fit_data_alloc(&d, n);
        if (r < 0)
                return r;
        d.n = n;
        double wsum = 0.0;
        for (size_t i = 0; i < n; i++) {
                double x[3], var = 0.0;

                for (size_t k = 0; k < 3; k++) {
                        d.rgb[i][k] = fmin(fmax(samples[i].rgb[k], 0.0), 1.0);
                        x[k] = samples[i].xyz[k] / white[1];
                }
                mat3_vec(f.chad, x, d.xyz[i]);
                xyz_to_lab_d50(d.xyz[i], d.lab[i]);
                /* Weight: 1 / the ΔE00 the assumed instrument noise causes at this colour, so
                 * that dark and saturated readings, whose noise is large in Lab, do not pull
                 * the fit about (a maximum-likelihood weighting under that noise model). */
                for (size_t k = 0; k < 3; k++) {
                        double p[3], q[3], l2[3], e;
                        memcpy(p, x, sizeof p);
                        p[k] += FIT_NOISE_RELATIVE * fabs(x[k]) + FIT_NOISE_FLOOR * f.white[k];
                        mat3_vec(f.chad, p, q);
                        xyz_to_lab_d50(q, l2);
                        e = ciede2000(d.lab[i], l2);
                        var += e * e;
                }
                d.weight[i] = 1.0 / sqrt(var + 1e-6);
                wsum += d.weight[i];
        }
        for (size_t i = 0; i < n; i++)
                d.weight[i] *= (double) n / wsum;

        /* The three channels must vary independently somewhere (greys alone say nothing about
         * the primaries): the device values' covariance must have full rank. */
        double mean[3] = {}, cov[9] = {};
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < 3; k++)
                        mean[k] += d.rgb[i][k] / n;
        for (size_t i = 0; i < n; i++)
                for (size_t a = 0; a < 3; a++)
                        for (size_t b = 0; b < 3; b++)
                                cov[3 * a + b] += (d.rgb[i][a] - mean[a]) * (d.rgb[i][b] - mean[b]) / n;
        double tr = (cov[0] + cov[4] + cov[8]) / 3.0;
        r = tr > 0.0 && mat3_det(cov) > 1e-4 * tr * tr * tr ? fit_stage1(&d, &f) : -EDOM;
        if (r == -EDOM) {
                *ret_reason = "the measurements do not determine the primaries (too few coloured patches)";
                return -EINVAL;
        }
        if (r < 0)
                return r;
        r = choose_intervals(&d, &f, &intervals);
        if (r < 0)
                return r;
        r = fit_stage2(&d, intervals, &f);
        if (r < 0)
                return r;

        /* A usable profile needs an invertible matrix with positive luminance per channel. */
        double inv[9];
        if (mat3_invert(f.matrix, inv) < 0 || !(f.matrix[3] > 0.0) || !(f.matrix[4] > 0.0) ||
            !(f.matrix[5] > 0.0)) {
                *ret_reason = "the fit gave degenerate primaries (are the measurements of a display?)";
                return -EINVAL;
        }

        double zero[3] = {}, sum = 0.0, sum2 = 0.0, max = 0.0;
        profile_fit_eval(&f, zero, f.black);
        for (size_t i = 0; i < n; i++) {
                double e = sample_error(&f, &d, i);
                sum += e;
                sum2 += e * e;
                max = fmax(max, e);
        }
        f.n_samples = n;
        f.de2000_mean = sum / n;
        f.de2000_rms = sqrt(sum2 / n);
        f.de2000_max = max;
        *ret = f;
        return 0;
}
