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
 * alone); the solver's sweeps over the grid are its whole cost (apply(), solve()). Also the
 * interpolation itself and its exact derivatives, for the inversion (output-invert.c). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "output-fit.h"
#include "profile-fit.h"

void output_lut_done(OutputLut *l) {
        free(l->node);
        *l = (OutputLut) {};
}

/* v clamped to 0..1 (NaN: 0, as fmax() gives), by comparisons: fmin()/fmax() are calls into
 * libm at -O2, and this runs for every interpolation the inversion makes. */
static double clamp01(double v) {
        return !(v > 0.0) ? 0.0 : v > 1.0 ? 1.0 : v;
}

static void axis_split(unsigned grid, double v, size_t *ret_i, double *ret_f) {
        double x = clamp01(v) * (double) (grid - 1);
        size_t i = (size_t) x; /* x ≥ 0: truncation is floor() */

        if (i >= grid - 1)
                i = grid - 2;
        *ret_i = i;
        *ret_f = x - (double) i;
}

/* lcms2's tetrahedral interpolation over three axes: walk from the base node along the
 * axes in order of decreasing fraction; the weights are the differences of the sorted
 * fractions. tetrahedral_order() sorts, tetrahedral() walks. */
static void tetrahedral_order(const double f[3], unsigned o[3]) {
        o[0] = 0, o[1] = 1, o[2] = 2;
        for (unsigned a = 0; a < 2; a++)
                for (unsigned b = a + 1; b < 3; b++)
                        if (f[o[b]] > f[o[a]]) {
                                unsigned t = o[a];
                                o[a] = o[b];
                                o[b] = t;
                        }
}

static void tetrahedral(const size_t stride[3], const double f[3], const unsigned o[3], size_t base, double scale,
                        size_t idx[4], double w[4]) {
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
        unsigned o[3];

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
                tetrahedral_order(f, o);
                tetrahedral(stride, f, o, base, 1.0, ret_index, ret_weight);
                return 4;
        }
        /* lcms2's 4-input CLUT: the first input linear between two 3-input interpolations,
         * both walking the same way */
        tetrahedral_order(f + 1, o);
        tetrahedral(stride + 1, f + 1, o, base, 1.0 - f[0], ret_index, ret_weight);
        tetrahedral(stride + 1, f + 1, o, base + stride[0], f[0], ret_index + 4, ret_weight + 4);
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

/* The right derivative along each of three axes of lcms2's tetrahedral interpolation at the
 * cell's fractions f: moving f[a] up, the walk takes the axes whose fraction is larger first,
 * then a; so the slope is the difference of the two nodes a joins there. Where f[a] ties with
 * another axis this is the simplex a forward difference would step into. backward[a]: the
 * left derivative instead (the grid's last node, where no step up is left); ties then walk
 * the other axes first. Per unit of f; slope[a][c]. */
static void tetrahedral_slope(const OutputLut *l, const size_t stride[3], const double f[3], size_t base,
                              const bool backward[3], double slope[3][3]) {
        for (unsigned a = 0; a < 3; a++) {
                size_t at = base;
                for (unsigned b = 0; b < 3; b++)
                        if (b != a && (f[b] > f[a] || (backward[a] && f[b] == f[a])))
                                at += stride[b];
                for (unsigned c = 0; c < 3; c++)
                        slope[a][c] = l->node[3 * (at + stride[a]) + c] - l->node[3 * at + c];
        }
}

void output_lut_slope(const OutputLut *l, const double *dev, double ret_slope[][3]) {
        size_t i[OUTPUT_LUT_MAX_IN], stride[OUTPUT_LUT_MAX_IN], base = 0;
        double f[OUTPUT_LUT_MAX_IN], scale = (double) (l->grid - 1);
        bool backward[OUTPUT_LUT_MAX_IN];
        unsigned n = l->n_in;

        stride[n - 1] = 1;
        for (unsigned a = n - 1; a > 0; a--)
                stride[a - 1] = stride[a] * l->grid;
        for (unsigned a = 0; a < n; a++) {
                axis_split(l->grid, dev[a], &i[a], &f[a]);
                base += i[a] * stride[a];
                backward[a] = dev[a] >= 1.0;
        }
        if (n == 3) {
                tetrahedral_slope(l, stride, f, base, backward, ret_slope);
                for (unsigned a = 0; a < 3; a++)
                        for (unsigned c = 0; c < 3; c++)
                                ret_slope[a][c] *= scale;
                return;
        }
        /* linear in the first input between two tetrahedral interpolations */
        double lo[3][3], hi[3][3], w[4], v_lo[3] = {}, v_hi[3] = {};
        size_t idx[4];
        unsigned o[3];
        tetrahedral_order(f + 1, o);
        tetrahedral(stride + 1, f + 1, o, base, 1.0, idx, w);
        for (unsigned k = 0; k < 4; k++)
                for (unsigned c = 0; c < 3; c++) {
                        v_lo[c] += w[k] * l->node[3 * idx[k] + c];
                        v_hi[c] += w[k] * l->node[3 * (idx[k] + stride[0]) + c];
                }
        tetrahedral_slope(l, stride + 1, f + 1, base, backward + 1, lo);
        tetrahedral_slope(l, stride + 1, f + 1, base + stride[0], backward + 1, hi);
        for (unsigned c = 0; c < 3; c++) {
                ret_slope[0][c] = (v_hi[c] - v_lo[c]) * scale;
                for (unsigned a = 1; a < 4; a++)
                        ret_slope[a][c] = ((1.0 - f[0]) * lo[a - 1][c] + f[0] * hi[a - 1][c]) * scale;
        }
}

/* --- the least-squares problem of one grid size --- */

/* Four doubles, as the solver's sweeps over the grid handle them: those sweeps are its whole
 * cost, and GCC at -O2 vectorises no loop whose trip count it cannot prove a multiple of the
 * width. GCC lowers the type to what the target has (two SSE2 registers on plain x86-64, one
 * AVX register in the clones below); each lane computes exactly what the scalar code would,
 * so every clone gives the same bytes. */
#define LANES 4u
typedef double Lanes __attribute__((vector_size(LANES * sizeof(double))));

/* The sweeps, built twice: for x86-64 as is and with AVX2 (without FMA, whose fused rounding
 * would change the result), chosen at load time. Elsewhere once. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SWEEP __attribute__((target_clones("avx2", "default")))
#else
#define SWEEP
#endif

/* Lanes at any double of an array (lines start at any node): the same type aligned as a double,
 * may_alias as it reads and writes double arrays. Macros rather than functions: a function that
 * passes a vector wider than the baseline's registers changes the ABI (-Wpsabi). */
typedef double LanesAt __attribute__((vector_size(LANES * sizeof(double)), aligned(sizeof(double)), may_alias));
#define LANES_AT(p) (*(const LanesAt *) (p))
#define LANES_PUT(p, v) (*(LanesAt *) (p) = (v))
#define LANES_SUM(v) (((v)[0] + (v)[1]) + ((v)[2] + (v)[3]))

/* The solver's vectors hold n_nodes rounded up to LANES, plus LANES − 1: the lanes of a block's
 * last nodes (apply()) read up to LANES − 1 nodes beyond it, at the end beyond the grid. The
 * extra entries are zero and stay zero. */
static size_t padded(size_t n_nodes) {
        return (n_nodes + LANES - 1) / LANES * LANES + LANES - 1;
}

typedef struct Problem {
        unsigned n_in, grid;
        size_t n_nodes, n;
        size_t *idx;            /* n × 8 */
        double *w;              /* n × 8 (unused slots weight 0) */
        double data_scale;      /* 1/n */
        double smooth_scale;    /* λ (G−1)⁴ / m */
        double (*band)[5];      /* grid × 5: row j of DᵀD, offsets −2..2 */
        double *y_last, *y_next; /* apply()'s second differences in a block, along the last axis and the next */
        double *diag;           /* the preconditioner: 1 / diagonal of the normal matrix */
} Problem;

static void problem_done(Problem *p) {
        free(p->idx);
        free(p->w);
        free(p->band);
        free(p->y_last);
        free(p->y_next);
        free(p->diag);
}

/* Row j of DᵀD, D the (grid−2) × grid second difference along one axis: 1 −4 6 −4 1 inside,
 * shorter rows at the ends (1 −2 1; −2 5 −4 1), zero where a neighbour is off the grid. */
static void band_init(unsigned grid, double (*band)[5]) {
        for (unsigned j = 0; j < grid; j++)
                for (unsigned o = 0; o < 5; o++) {
                        double v = 0.0;
                        for (unsigned c = 1; c + 1 < grid; c++) {
                                /* row c of D: 1 −2 1 at columns c−1, c, c+1 */
                                long dj = (long) j - (long) c, dk = (long) j + (long) o - 2 - (long) c;
                                if (labs(dj) <= 1 && labs(dk) <= 1)
                                        v += (dj == 0 ? -2.0 : 1.0) * (dk == 0 ? -2.0 : 1.0);
                        }
                        band[j][o] = v;
                }
}

#define MAX_TAPS (5 * (OUTPUT_LUT_MAX_IN - 2))

/* out = A x, the normal matrix (data term + smooth_scale · Σ_axes D_aᵀ D_a) times x, and
 * returns x·out. One sweep writes each node once, from its neighbours, rather than clearing
 * out and adding each axis in a sweep of its own: the CG loop is bound by these sweeps. It
 * goes a block at a time, the g × g nodes of the last two axes, contiguous in memory:
 *   - those two axes as D_aᵀ (D_a x), from the block's second differences along each (y_last,
 *     y_next), zero where D has no row: zero beyond a line's ends gives the short end rows;
 *   - each other axis from the neighbouring blocks: where the block's row of DᵀD is the
 *     inside one, 1 −4 6 −4 1, the neighbours are summed before they are weighted (a third of
 *     the multiplications); near the grid's faces each neighbour on the grid brings its
 *     weight (edge_*); every axis's weight of the block itself is in centre.
 * The data term's share of x·out is Σ_i data_scale (w_i·x)². */
SWEEP static double apply(const Problem *p, const double *x, double *out) {
        unsigned g = p->grid, n_outer = p->n_in - 2, pos[OUTPUT_LUT_MAX_IN] = {};
        size_t block = (size_t) g * g, stride[OUTPUT_LUT_MAX_IN];
        double *y_last = p->y_last, *y_next = p->y_next, s = p->smooth_scale, dot_data = 0.0;
        Lanes dot = {};

        stride[n_outer - 1] = block;
        for (unsigned a = n_outer - 1; a > 0; a--)
                stride[a - 1] = stride[a] * g;
        /* y_next[g + k]: at node k; its rows −1, 0, g − 1 and g stay zero (see below) */
        memset(y_next, 0, 2 * g * sizeof(double));
        memset(y_next + block, 0, (2 * g + LANES) * sizeof(double));
        /* y_last[1 + k]: at node k; y_last[0] and beyond the block stay zero */
        y_last[0] = 0.0;
        for (size_t base = 0; base < p->n_nodes; base += block) {
                const double *xb = x + base, *edge_tap[MAX_TAPS];
                double *ob = out + base, edge_coef[MAX_TAPS], centre = 0.0;
                size_t inside[OUTPUT_LUT_MAX_IN];
                unsigned n_inside = 0, n_edge = 0;

                /* the lanes at the block's end reach beyond it, into what is zeroed after */
                for (size_t k = 1; k + 1 < block; k += LANES)
                        LANES_PUT(y_last + 1 + k,
                                  (LANES_AT(xb + k - 1) - 2.0 * LANES_AT(xb + k)) + LANES_AT(xb + k + 1));
                for (size_t k = 0; k < block; k += g)
                        y_last[1 + k] = y_last[k + g] = 0.0; /* the lines' ends */
                for (size_t k = block + 1; k < block + LANES + 2; k++)
                        y_last[k] = 0.0;
                for (size_t k = g; k + g < block; k += LANES)
                        LANES_PUT(y_next + g + k,
                                  (LANES_AT(xb + k - g) - 2.0 * LANES_AT(xb + k)) + LANES_AT(xb + k + g));
                for (size_t k = block; k < block + LANES - 1; k++)
                        y_next[k] = 0.0; /* row g − 1 */

                for (unsigned a = 0; a < n_outer; a++) {
                        const double *row = p->band[pos[a]];
                        centre += row[2];
                        if (pos[a] >= 2 && pos[a] + 2 < g) {
                                inside[n_inside++] = stride[a];
                                continue;
                        }
                        for (unsigned o = 0; o < 5; o++) {
                                long off = (long) pos[a] + (long) o - 2;
                                if (o == 2 || row[o] == 0.0 || off < 0 || off >= (long) g)
                                        continue;
                                edge_tap[n_edge] = xb + ((long) o - 2) * (ptrdiff_t) stride[a];
                                edge_coef[n_edge++] = row[o];
                        }
                }

                for (size_t k = 0; k < block; k += LANES) {
                        Lanes x0 = LANES_AT(xb + k);
                        Lanes v = centre * x0 +
                                  ((LANES_AT(y_last + k) - 2.0 * LANES_AT(y_last + k + 1)) + LANES_AT(y_last + k + 2)) +
                                  ((LANES_AT(y_next + k) - 2.0 * LANES_AT(y_next + k + g)) +
                                   LANES_AT(y_next + k + 2 * g));
                        for (unsigned a = 0; a < n_inside; a++)
                                v += (LANES_AT(xb + k - 2 * inside[a]) + LANES_AT(xb + k + 2 * inside[a])) -
                                     4.0 * (LANES_AT(xb + k - inside[a]) + LANES_AT(xb + k + inside[a]));
                        for (unsigned t = 0; t < n_edge; t++)
                                v += edge_coef[t] * LANES_AT(edge_tap[t] + k);
                        v *= s;
                        if (k + LANES <= block) {
                                LANES_PUT(ob + k, v);
                                dot += x0 * v;
                        } else
                                /* the block's last nodes: the lanes beyond it are not this block's */
                                for (unsigned l = 0; k + l < block; l++) {
                                        ob[k + l] = v[l];
                                        dot[l] += xb[k + l] * v[l];
                                }
                }
                /* the next block: count the outer position like an odometer */
                for (unsigned a = n_outer; a > 0; a--) {
                        if (++pos[a - 1] < g)
                                break;
                        pos[a - 1] = 0;
                }
        }
        for (size_t i = 0; i < p->n; i++) {
                const size_t *ix = p->idx + 8 * i;
                const double *w = p->w + 8 * i;
                double v = 0.0;
                for (unsigned k = 0; k < 8; k++)
                        v += w[k] * x[ix[k]];
                dot_data += v * v;
                v *= p->data_scale;
                for (unsigned k = 0; k < 8; k++)
                        out[ix[k]] += w[k] * v;
        }
        return LANES_SUM(dot) + p->data_scale * dot_data;
}

static int problem_init(Problem *p, unsigned n_in, unsigned grid, const double *dev, size_t n, double smoothness) {
        size_t m = 0;

        *p = (Problem) { .n_in = n_in, .grid = grid, .n = n };
        p->n_nodes = 1;
        for (unsigned a = 0; a < n_in; a++)
                p->n_nodes *= grid;
        p->idx = calloc(8 * n, sizeof(size_t));
        p->w = calloc(8 * n, sizeof(double));
        p->band = calloc(grid, sizeof(double[5]));
        p->y_last = calloc((size_t) grid * grid + LANES + 2, sizeof(double));
        p->y_next = calloc((size_t) grid * grid + 2 * grid + LANES, sizeof(double));
        p->diag = calloc(padded(p->n_nodes), sizeof(double));
        if (!p->idx || !p->w || !p->band || !p->y_last || !p->y_next || !p->diag)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                output_lut_kernel(n_in, grid, dev + (size_t) n_in * i, p->idx + 8 * i, p->w + 8 * i);
        for (unsigned a = 0; a < n_in; a++)
                m += p->n_nodes / grid * (grid - 2);
        double g2 = (double) (grid - 1) * (double) (grid - 1);
        p->data_scale = 1.0 / (double) n;
        p->smooth_scale = m > 0 ? smoothness * g2 * g2 / (double) m : 0.0;
        band_init(grid, p->band);

        for (size_t i = 0; i < n; i++)
                for (unsigned k = 0; k < 8; k++)
                        p->diag[p->idx[8 * i + k]] += p->data_scale * p->w[8 * i + k] * p->w[8 * i + k];
        for (size_t k = 0; k < p->n_nodes; k++) {
                size_t q = k;
                for (unsigned a = 0; a < n_in; a++, q /= grid)
                        p->diag[k] += p->smooth_scale * p->band[q % grid][2];
                p->diag[k] = p->diag[k] > 0.0 ? 1.0 / p->diag[k] : 1.0;
        }
        return 0;
}

#define CG_MAX_ITERATIONS 3000u
#define CG_TOLERANCE 1e-6 /* on the preconditioned residual, relative to the right-hand side */

/* Preconditioned conjugate gradients on one output channel; x holds the start and the
 * result (b and x padded(), the padding zero). work: 3 × padded(n_nodes), zero. The
 * preconditioned residual z = diag·r is not stored: each sweep computes it where it is
 * needed, and each dot product rides along with the sweep that makes its operands, so an
 * iteration passes over the grid three times, not seven. */
SWEEP static void solve(const Problem *p, const double *b, double *x, double *work) {
        size_t n = padded(p->n_nodes) - (LANES - 1), len = padded(p->n_nodes);
        double *r = work, *d = work + len, *q = work + 2 * len;
        double bz = 0.0, rz = 0.0;

        apply(p, x, q);
        for (size_t k = 0; k < p->n_nodes; k++) {
                r[k] = b[k] - q[k];
                d[k] = p->diag[k] * r[k];
                rz += r[k] * d[k];
                bz += b[k] * p->diag[k] * b[k];
        }
        for (unsigned it = 0; it < CG_MAX_ITERATIONS && rz > CG_TOLERANCE * CG_TOLERANCE * bz; it++) {
                double dq = apply(p, d, q);
                if (!(dq > 0.0))
                        break;
                double alpha = rz / dq;
                Lanes sum = {};
                for (size_t k = 0; k < n; k += LANES) {
                        Lanes rk = LANES_AT(r + k) - alpha * LANES_AT(q + k);
                        LANES_PUT(r + k, rk);
                        sum += rk * (LANES_AT(p->diag + k) * rk);
                }
                double rz_new = LANES_SUM(sum), beta = rz_new / rz;
                rz = rz_new;
                /* x moves along d in the sweep that replaces d: one vector fewer in the first */
                for (size_t k = 0; k < n; k += LANES) {
                        Lanes dk = LANES_AT(d + k);
                        LANES_PUT(x + k, LANES_AT(x + k) + alpha * dk);
                        LANES_PUT(d + k, LANES_AT(p->diag + k) * LANES_AT(r + k) + beta * dk);
                }
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
        b = calloc(padded(p.n_nodes), sizeof(double));
        x = calloc(padded(p.n_nodes), sizeof(double));
        work = calloc(3 * padded(p.n_nodes), sizeof(double));
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
