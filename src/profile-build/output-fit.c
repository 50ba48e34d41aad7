/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scattered printer measurements → a smooth A2B grid (output-fit.h).
 *
 * The grid g minimises, per output channel,
 *     (1/n) Σ_i (Σ_k w_ik g_k − y_i)²  +  λ · (1/m) Σ_axes Σ_nodes ((G−1)² Δ²g)²
 * where w_ik are lcms2's interpolation weights of sample i, Δ² the second difference along
 * an axis (scaled by (G−1)² it is the second derivative in the unit cube, so λ means the
 * same at every grid size) and m the number of those differences. Where there are no
 * samples the grid continues the data linearly. The normal equations are solved by
 * conjugate gradients with a diagonal preconditioner, first on a coarse grid whose
 * interpolation starts the next finer one (the smooth part converges slowly on a fine grid
 * alone). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output-fit.h"
#include "profile-fit.h"

void output_lut_done(OutputLut *l) {
        free(l->node);
        *l = (OutputLut) {};
}

static void axis_split(unsigned grid, double v, size_t *ret_i, double *ret_f) {
        double x = fmin(fmax(v, 0.0), 1.0) * (double) (grid - 1);
        size_t i = (size_t) floor(x);

        if (i >= grid - 1)
                i = grid - 2;
        *ret_i = i;
        *ret_f = x - (double) i;
}

/* lcms2's tetrahedral interpolation over three axes: walk from the base node along the
 * axes in order of decreasing fraction; the weights are the differences of the sorted
 * fractions. */
static void tetrahedral(const size_t stride[3], const double f[3], size_t base, double scale, size_t idx[4],
                        double w[4]) {
        unsigned o[3] = { 0, 1, 2 };

        for (unsigned a = 0; a < 2; a++)
                for (unsigned b = a + 1; b < 3; b++)
                        if (f[o[b]] > f[o[a]]) {
                                unsigned t = o[a];
                                o[a] = o[b];
                                o[b] = t;
                        }
        idx[0] = base;
        idx[1] = idx[0] + stride[o[0]];
        idx[2] = idx[1] + stride[o[1]];
        idx[3] = idx[2] + stride[o[2]];
        w[0] = scale * (1.0 - f[o[0]]);
        w[1] = scale * (f[o[0]] - f[o[1]]);
        w[2] = scale * (f[o[1]] - f[o[2]]);
        w[3] = scale * f[o[2]];
}

unsigned output_lut_kernel(unsigned n_in, unsigned grid, const double *dev, size_t ret_index[8], double ret_weight[8]) {
        size_t i[OUTPUT_LUT_MAX_IN], stride[OUTPUT_LUT_MAX_IN];
        double f[OUTPUT_LUT_MAX_IN];

        assert(n_in == 3 || n_in == 4);
        assert(grid >= 2);
        stride[n_in - 1] = 1;
        for (unsigned a = n_in - 1; a > 0; a--)
                stride[a - 1] = stride[a] * grid;
        for (unsigned a = 0; a < n_in; a++)
                axis_split(grid, dev[a], &i[a], &f[a]);

        size_t base = 0;
        for (unsigned a = 0; a < n_in; a++)
                base += i[a] * stride[a];
        if (n_in == 3) {
                tetrahedral(stride, f, base, 1.0, ret_index, ret_weight);
                return 4;
        }
        /* lcms2's 4-input CLUT: the first input linear between two 3-input interpolations */
        tetrahedral(stride + 1, f + 1, base, 1.0 - f[0], ret_index, ret_weight);
        tetrahedral(stride + 1, f + 1, base + stride[0], f[0], ret_index + 4, ret_weight + 4);
        return 8;
}

void output_lut_eval(const OutputLut *l, const double *dev, double ret[3]) {
        size_t idx[8];
        double w[8];
        unsigned n = output_lut_kernel(l->n_in, l->grid, dev, idx, w);

        ret[0] = ret[1] = ret[2] = 0.0;
        for (unsigned k = 0; k < n; k++)
                for (unsigned c = 0; c < 3; c++)
                        ret[c] += w[k] * l->node[3 * idx[k] + c];
}

/* --- the least-squares problem of one grid size --- */

typedef struct Problem {
        unsigned n_in, grid;
        size_t n_nodes, n;
        size_t *idx;            /* n × 8 */
        double *w;              /* n × 8 (unused slots weight 0) */
        double data_scale;      /* 1/n */
        double smooth_scale;    /* λ (G−1)⁴ / m */
        double *diag;           /* the preconditioner: 1 / diagonal of the normal matrix */
} Problem;

static void problem_done(Problem *p) {
        free(p->idx);
        free(p->w);
        free(p->diag);
}

static size_t axis_stride(unsigned n_in, unsigned grid, unsigned axis) {
        size_t s = 1;
        for (unsigned a = axis + 1; a < n_in; a++)
                s *= grid;
        return s;
}

/* Calls line(k0, s) for every line of nodes along an axis: nodes k0 + j·s, j = 0..grid−1. */
#define FOREACH_LINE(p, s, k0)                                                                  \
        for (size_t _outer = 0; _outer < (p)->n_nodes; _outer += (s) * (p)->grid)             \
                for (size_t k0 = _outer; k0 < _outer + (s); k0++)

/* out += smooth_scale · Σ_axes D_aᵀ D_a x */
static void add_smooth(const Problem *p, const double *x, double *out) {
        for (unsigned a = 0; a < p->n_in; a++) {
                size_t s = axis_stride(p->n_in, p->grid, a);
                FOREACH_LINE(p, s, k0) {
                        const double *xl = x + k0;
                        double *ol = out + k0;
                        for (size_t j = 1, k = s; j + 1 < p->grid; j++, k += s) {
                                double d = p->smooth_scale * (xl[k - s] - 2.0 * xl[k] + xl[k + s]);
                                ol[k - s] += d;
                                ol[k] -= 2.0 * d;
                                ol[k + s] += d;
                        }
                }
        }
}

static void apply(const Problem *p, const double *x, double *out) {
        memset(out, 0, p->n_nodes * sizeof(double));
        for (size_t i = 0; i < p->n; i++) {
                const size_t *ix = p->idx + 8 * i;
                const double *w = p->w + 8 * i;
                double v = 0.0;
                for (unsigned k = 0; k < 8; k++)
                        v += w[k] * x[ix[k]];
                v *= p->data_scale;
                for (unsigned k = 0; k < 8; k++)
                        out[ix[k]] += w[k] * v;
        }
        add_smooth(p, x, out);
}

static int problem_init(Problem *p, unsigned n_in, unsigned grid, const double *dev, size_t n, double smoothness) {
        size_t m = 0;

        *p = (Problem) { .n_in = n_in, .grid = grid, .n = n };
        p->n_nodes = 1;
        for (unsigned a = 0; a < n_in; a++)
                p->n_nodes *= grid;
        p->idx = calloc(8 * n, sizeof(size_t));
        p->w = calloc(8 * n, sizeof(double));
        p->diag = calloc(p->n_nodes, sizeof(double));
        if (!p->idx || !p->w || !p->diag)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                output_lut_kernel(n_in, grid, dev + (size_t) n_in * i, p->idx + 8 * i, p->w + 8 * i);
        for (unsigned a = 0; a < n_in; a++)
                m += p->n_nodes / grid * (grid - 2);
        double g2 = (double) (grid - 1) * (double) (grid - 1);
        p->data_scale = 1.0 / (double) n;
        p->smooth_scale = m > 0 ? smoothness * g2 * g2 / (double) m : 0.0;

        for (size_t i = 0; i < n; i++)
                for (unsigned k = 0; k < 8; k++)
                        p->diag[p->idx[8 * i + k]] += p->data_scale * p->w[8 * i + k] * p->w[8 * i + k];
        for (unsigned a = 0; a < n_in; a++) {
                size_t s = axis_stride(n_in, grid, a);
                FOREACH_LINE(p, s, k0)
                        for (size_t j = 0; j < grid; j++) {
                                double d = 0.0;
                                if (j >= 1 && j + 1 < grid)
                                        d += 4.0;
                                if (j >= 2)
                                        d += 1.0;
                                if (j + 2 < grid)
                                        d += 1.0;
                                p->diag[k0 + j * s] += p->smooth_scale * d;
                        }
        }
        for (size_t k = 0; k < p->n_nodes; k++)
                p->diag[k] = p->diag[k] > 0.0 ? 1.0 / p->diag[k] : 1.0;
        return 0;
}

static double dot(const double *a, const double *b, size_t n) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++)
                s += a[i] * b[i];
        return s;
}

#define CG_MAX_ITERATIONS 3000u
#define CG_TOLERANCE 1e-6 /* on the preconditioned residual, relative to the right-hand side */

/* Preconditioned conjugate gradients on one output channel; x holds the start and the
 * result. work: 4 × n_nodes. */
static void solve(const Problem *p, const double *b, double *x, double *work) {
        size_t n = p->n_nodes;
        double *r = work, *z = work + n, *d = work + 2 * n, *q = work + 3 * n;
        double bz = 0.0;

        apply(p, x, q);
        for (size_t k = 0; k < n; k++) {
                r[k] = b[k] - q[k];
                z[k] = p->diag[k] * r[k];
                d[k] = z[k];
                bz += b[k] * p->diag[k] * b[k];
        }
        double rz = dot(r, z, n);
        for (unsigned it = 0; it < CG_MAX_ITERATIONS && rz > CG_TOLERANCE * CG_TOLERANCE * bz; it++) {
                apply(p, d, q);
                double dq = dot(d, q, n);
                if (!(dq > 0.0))
                        break;
                double alpha = rz / dq;
                for (size_t k = 0; k < n; k++) {
                        x[k] += alpha * d[k];
                        r[k] -= alpha * q[k];
                        z[k] = p->diag[k] * r[k];
                }
                double rz_new = dot(r, z, n);
                double beta = rz_new / rz;
                rz = rz_new;
                for (size_t k = 0; k < n; k++)
                        d[k] = z[k] + beta * d[k];
        }
}

/* One grid size, from the start values in l->node. */
static int fit_level(OutputLut *l, const double *dev, const double *lab, size_t n, double smoothness) {
        _cleanup_free_ double *b = NULL, *x = NULL, *work = NULL;
        Problem p;
        int r;

        r = problem_init(&p, l->n_in, l->grid, dev, n, smoothness);
        if (r < 0) {
                problem_done(&p);
                return r;
        }
        b = calloc(p.n_nodes, sizeof(double));
        x = calloc(p.n_nodes, sizeof(double));
        work = calloc(4 * p.n_nodes, sizeof(double));
        if (!b || !x || !work) {
                problem_done(&p);
                return -ENOMEM;
        }
        for (unsigned c = 0; c < 3; c++) {
                memset(b, 0, p.n_nodes * sizeof(double));
                for (size_t i = 0; i < n; i++)
                        for (unsigned k = 0; k < 8; k++)
                                b[p.idx[8 * i + k]] += p.data_scale * p.w[8 * i + k] * lab[3 * i + c];
                for (size_t k = 0; k < p.n_nodes; k++)
                        x[k] = l->node[3 * k + c];
                solve(&p, b, x, work);
                for (size_t k = 0; k < p.n_nodes; k++)
                        l->node[3 * k + c] = x[k];
        }
        problem_done(&p);
        return 0;
}

static int lut_alloc(OutputLut *l, unsigned n_in, unsigned grid) {
        *l = (OutputLut) { .n_in = n_in, .grid = grid, .n_nodes = 1 };
        for (unsigned a = 0; a < n_in; a++)
                l->n_nodes *= grid;
        l->node = calloc(3 * l->n_nodes, sizeof(double));
        return l->node ? 0 : -ENOMEM;
}

/* The device values of a node. */
static void node_device(unsigned n_in, unsigned grid, size_t node, double *dev) {
        for (unsigned a = n_in; a > 0; a--) {
                dev[a - 1] = (double) (node % grid) / (double) (grid - 1);
                node /= grid;
        }
}

int output_lut_fit_fixed(unsigned n_in, unsigned grid, const double *dev, const double *lab, size_t n,
                         double smoothness, OutputLut *ret) {
        OutputLut coarse = {}, fine = {};
        unsigned sizes[8], n_sizes = 0;
        int r;

        /* grid, (grid−1)/2 + 1, ... down to 5 nodes: every coarse node is a fine node */
        for (unsigned g = grid;; g = (g - 1) / 2 + 1) {
                sizes[n_sizes++] = g;
                if (g <= 5 || (g - 1) % 2 != 0 || n_sizes == ELEMENTSOF(sizes))
                        break;
        }
        for (unsigned s = n_sizes; s > 0; s--) {
                r = lut_alloc(&fine, n_in, sizes[s - 1]);
                if (r < 0)
                        goto fail;
                for (size_t k = 0; k < fine.n_nodes; k++) {
                        double d[OUTPUT_LUT_MAX_IN];
                        node_device(n_in, fine.grid, k, d);
                        if (coarse.node)
                                output_lut_eval(&coarse, d, fine.node + 3 * k);
                        else
                                /* a start that is right for the paper and dark for full ink */
                                fine.node[3 * k] = 50.0;
                }
                output_lut_done(&coarse);
                r = fit_level(&fine, dev, lab, n, smoothness);
                if (r < 0)
                        goto fail;
                coarse = fine;
                fine = (OutputLut) {};
        }
        *ret = coarse;
        return 0;
fail:
        output_lut_done(&coarse);
        output_lut_done(&fine);
        return r;
}

/* --- choosing the smoothness --- */

#define OUTPUT_FIT_FOLDS 4u
#define OUTPUT_FIT_MIN_SAMPLES 20u

static double score(const OutputLut *l, const double *dev, const double *lab, size_t n, double *ret_max) {
        double sum = 0.0, max = 0.0;

        for (size_t i = 0; i < n; i++) {
                double got[3];
                output_lut_eval(l, dev + (size_t) l->n_in * i, got);
                double e = ciede2000(lab + 3 * i, got);
                sum += e;
                max = fmax(max, e);
        }
        if (ret_max)
                *ret_max = max;
        return n > 0 ? sum / (double) n : 0.0;
}

/* Mean held-out ΔE00 over the folds: every OUTPUT_FIT_FOLDS-th sample held out in turn. */
static int cross_validate(unsigned n_in, unsigned grid, const double *dev, const double *lab, size_t n,
                          double smoothness, double *ret) {
        _cleanup_free_ double *tdev = calloc(n * n_in, sizeof(double)), *tlab = calloc(n * 3, sizeof(double));
        _cleanup_free_ double *hdev = calloc(n * n_in, sizeof(double)), *hlab = calloc(n * 3, sizeof(double));
        double total = 0.0;
        size_t held_total = 0;
        int r;

        if (!tdev || !tlab || !hdev || !hlab)
                return -ENOMEM;
        for (unsigned fold = 0; fold < OUTPUT_FIT_FOLDS; fold++) {
                size_t nt = 0, nh = 0;
                OutputLut l = {};

                for (size_t i = 0; i < n; i++) {
                        bool held = i % OUTPUT_FIT_FOLDS == fold;
                        double *d = held ? hdev + n_in * nh : tdev + n_in * nt;
                        double *y = held ? hlab + 3 * nh : tlab + 3 * nt;
                        memcpy(d, dev + n_in * i, n_in * sizeof(double));
                        memcpy(y, lab + 3 * i, 3 * sizeof(double));
                        if (held)
                                nh++;
                        else
                                nt++;
                }
                r = output_lut_fit_fixed(n_in, grid, tdev, tlab, nt, smoothness, &l);
                if (r < 0)
                        return r;
                total += score(&l, hdev, hlab, nh, NULL) * (double) nh;
                held_total += nh;
                output_lut_done(&l);
        }
        *ret = total / (double) held_total;
        return 0;
}

int output_lut_fit(unsigned n_in, unsigned grid, const double *dev, const double *lab, size_t n, OutputLut *ret,
                   OutputFitReport *ret_report, const char **ret_reason) {
        /* candidate smoothness weights, half a decade apart: exact readings choose the low
         * end, 1% noise about 1e-3 */
        static const double candidates[] = { 1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2 };
        double cv[ELEMENTSOF(candidates)];
        size_t best = 0;
        int r;

        if (n < OUTPUT_FIT_MIN_SAMPLES) {
                *ret_reason = "too few measurements for a printer profile (at least 20)";
                return -EINVAL;
        }
        /* CV error is a smooth, roughly unimodal function of log λ: walk down from the
         * middle candidate towards the lower side while it improves, then the same up. */
        for (size_t i = 0; i < ELEMENTSOF(candidates); i++)
                cv[i] = -1.0;
        size_t mid = 4; /* 1e-5 */
        r = cross_validate(n_in, grid, dev, lab, n, candidates[mid], &cv[mid]);
        if (r < 0)
                return r;
        best = mid;
        for (int dir = -1; dir <= 1; dir += 2)
                for (size_t i = mid; (dir < 0 ? i > 0 : i + 1 < ELEMENTSOF(candidates));) {
                        i = dir < 0 ? i - 1 : i + 1;
                        r = cross_validate(n_in, grid, dev, lab, n, candidates[i], &cv[i]);
                        if (r < 0)
                                return r;
                        if (cv[i] >= cv[best])
                                break;
                        best = i;
                }

        r = output_lut_fit_fixed(n_in, grid, dev, lab, n, candidates[best], ret);
        if (r < 0)
                return r;
        if (ret_report) {
                ret_report->smoothness = candidates[best];
                ret_report->cv_mean = cv[best];
                ret_report->de2000_mean = score(ret, dev, lab, n, &ret_report->de2000_max);
        }
        return 0;
}
