/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Input device models and their fit (input-fit.h). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "input-fit.h"
#include "lm.h"
#include "macro.h"

#define G INPUT_FIT_GRID
#define N_NODES (G * G * G)
#define LM_STEPS 200u
#define CURVE_PENALTY 5.0       /* ΔE00 per unit of a spline's second difference */
#define RIDGE 1.0               /* ΔE00² per unit² of a grid correction: pulls empty cells to 0 */
#define CG_STEPS 400u

static const unsigned knot_choices[] = { 1, 4, 6 };
static const double smoothness_choices[] = { 1e2, 1e3, 1e4 };

/* The patches one fit sees: indices into the samples, their target Lab. */
typedef struct Set {
        const InputSample *s;
        const double (*lab)[3];
        const size_t *idx;
        size_t n;
} Set;

/* --- matrix/shaper --- */

/* The shaper values of one channel for every patch of the set, for the last two curves of
 * that channel the fit asked about. A finite-difference Jacobian moves one parameter at a
 * time, so most evaluations leave two of the three curves (all three for the matrix's
 * columns) as they were, and their pow()s need not be taken again. Slot 0 keeps a curve
 * asked about again (the point the Jacobian is taken at), slot 1 the newest. */
typedef struct ShapedSlot {
        ProfileFitCurve curve;
        double *t;
        bool valid;
} ShapedSlot;

typedef struct ShapeCache {
        ShapedSlot slot[2];
} ShapeCache;

typedef struct MsProblem {
        Set set;
        unsigned knots;
        InputFit *f;
        ShapeCache shaped[3];
} MsProblem;

static size_t ms_n_params(unsigned knots) {
        return 9 + 3 * (knots == 1 ? 1 : 1 + knots);
}

static void ms_unpack(InputFit *f, unsigned knots, const double *p) {
        memcpy(f->matrix, p, 9 * sizeof(double));
        p += 9;
        for (size_t c = 0; c < 3; c++) {
                ProfileFitCurve *cv = &f->curve[c];
                *cv = (ProfileFitCurve) { .offset = 0.0, .gamma = exp(*p++), .n_intervals = knots };
                if (knots == 1)
                        cv->w[0] = 0.0, cv->w[1] = 1.0;
                else {
                        for (unsigned j = 0; j < knots; j++)
                                cv->w[j] = *p++;
                        cv->w[knots] = 1.0;
                }
        }
}

static void ms_pack(const InputFit *f, unsigned knots, double *p) {
        memcpy(p, f->matrix, 9 * sizeof(double));
        p += 9;
        for (size_t c = 0; c < 3; c++) {
                const ProfileFitCurve *cv = &f->curve[c];
                *p++ = log(cv->gamma);
                if (knots > 1)
                        for (unsigned j = 0; j < knots; j++)
                                *p++ = cv->n_intervals == knots ? cv->w[j] : (double) j / knots;
        }
}

void input_fit_shape(const InputFit *f, const double rgb[3], double t[3]) {
        for (size_t c = 0; c < 3; c++)
                t[c] = profile_fit_curve_eval(&f->curve[c], rgb[c]);
}

/* Tetrahedral interpolation (as lcms2 does for three inputs): the 4 nodes and weights. */
static void tetra(const double t[3], size_t node[4], double w[4]) {
        double x[3], fr[3];
        size_t base[3];

        for (size_t c = 0; c < 3; c++) {
                x[c] = fmin(fmax(t[c], 0.0), 1.0) * (G - 1);
                base[c] = (size_t) x[c];
                if (base[c] > G - 2)
                        base[c] = G - 2;
                fr[c] = x[c] - base[c];
        }
        /* order the axes by decreasing fraction: the path from the base to the far corner */
        size_t o[3] = { 0, 1, 2 };
        for (size_t i = 0; i < 3; i++)
                for (size_t j = i + 1; j < 3; j++)
                        if (fr[o[j]] > fr[o[i]]) {
                                size_t k = o[i];
                                o[i] = o[j];
                                o[j] = k;
                        }
        size_t at[3] = { base[0], base[1], base[2] };
        double prev = 1.0;
        for (size_t v = 0; v < 4; v++) {
                double f = v < 3 ? fr[o[v]] : 0.0;
                node[v] = (at[0] * G + at[1]) * G + at[2];
                w[v] = prev - f;
                prev = f;
                if (v < 3)
                        at[o[v]]++;
        }
}

/* A grid node's value as the profile stores it: the node's own t plus the correction,
 * clipped to the CLUT's range [0, 1]. */
static void node_value(const InputFit *f, size_t n, double ret[3]) {
        double t[3] = { (double) (n / (G * G)) / (G - 1), (double) (n / G % G) / (G - 1), (double) (n % G) / (G - 1) };

        for (size_t k = 0; k < 3; k++)
                ret[k] = fmin(fmax(t[k] + f->grid[n][k], 0.0), 1.0);
}

void input_fit_node(const InputFit *f, size_t n, double ret[3]) {
        node_value(f, n, ret);
}

static void matrix_apply(const InputFit *f, const double t[3], double xyz[3]) {
        for (size_t k = 0; k < 3; k++)
                xyz[k] = f->matrix[3 * k] * t[0] + f->matrix[3 * k + 1] * t[1] + f->matrix[3 * k + 2] * t[2];
}

void input_fit_eval(const InputFit *f, const double rgb[3], double xyz[3]) {
        double t[3];

        input_fit_shape(f, rgb, t);
        if (f->model == INPUT_MODEL_LUT) {
                /* exactly what a CMM computes from the profile's A2B0: the CLUT, then M */
                size_t node[4];
                double w[4], u[3] = {};
                tetra(t, node, w);
                for (size_t v = 0; v < 4; v++) {
                        double nv[3];
                        node_value(f, node[v], nv);
                        for (size_t k = 0; k < 3; k++)
                                u[k] += w[v] * nv[k];
                }
                memcpy(t, u, sizeof u);
        }
        matrix_apply(f, t, xyz);
}

static bool curve_equal(const ProfileFitCurve *a, const ProfileFitCurve *b) {
        if (a->offset != b->offset || a->gamma != b->gamma || a->n_intervals != b->n_intervals)
                return false;
        for (unsigned j = 0; j <= a->n_intervals; j++)
                if (a->w[j] != b->w[j])
                        return false;
        return true;
}

/* Channel c's shaper values of the set's patches under curve (what input_fit_shape() gives). */
static const double *shape_cache_get(ShapeCache *sc, const ProfileFitCurve *curve, const Set *set, size_t c) {
        ShapedSlot *s = sc->slot;

        if (s[0].valid && curve_equal(&s[0].curve, curve))
                return s[0].t;
        if (s[1].valid && curve_equal(&s[1].curve, curve)) {
                ShapedSlot again = s[1];
                s[1] = s[0];
                s[0] = again;
                return s[0].t;
        }
        for (size_t i = 0; i < set->n; i++)
                s[1].t[i] = profile_fit_curve_eval(curve, set->s[set->idx[i]].rgb[c]);
        s[1].curve = *curve;
        s[1].valid = true;
        return s[1].t;
}

static void ms_residuals(void *userdata, const double *p, double *r) {
        MsProblem *pb = userdata;
        InputFit *f = pb->f;

        ms_unpack(f, pb->knots, p);
        const double *shaped[3];
        for (size_t c = 0; c < 3; c++)
                shaped[c] = shape_cache_get(&pb->shaped[c], &f->curve[c], &pb->set, c);
        for (size_t i = 0; i < pb->set.n; i++) {
                double t[3] = { shaped[0][i], shaped[1][i], shaped[2][i] }, xyz[3], lab[3];
                /* input_fit_eval() of the matrix/shaper */
                matrix_apply(f, t, xyz);
                xyz_to_lab_d50(xyz, lab);
                ciede2000_terms(lab, pb->set.lab[pb->set.idx[i]], &r[3 * i]);
        }
        r += 3 * pb->set.n;
        if (pb->knots > 1)
                for (size_t c = 0; c < 3; c++)
                        for (unsigned j = 1; j < pb->knots; j++) {
                                const double *w = f->curve[c].w;
                                *r++ = CURVE_PENALTY * (w[j - 1] - 2 * w[j] + w[j + 1]);
                        }
}

/* M by linear least squares on XYZ for the current curves. */
static int ms_linear_matrix(const Set *set, InputFit *f) {
        double ata[9] = {}, atb[3][3] = {};

        for (size_t i = 0; i < set->n; i++) {
                const InputSample *s = &set->s[set->idx[i]];
                double t[3];
                input_fit_shape(f, s->rgb, t);
                for (size_t a = 0; a < 3; a++) {
                        for (size_t b = 0; b < 3; b++)
                                ata[3 * a + b] += t[a] * t[b];
                        for (size_t k = 0; k < 3; k++)
                                atb[k][a] += t[a] * s->xyz[k];
                }
        }
        for (size_t k = 0; k < 3; k++) {
                double a[9], b[3] = { atb[k][0], atb[k][1], atb[k][2] };
                memcpy(a, ata, sizeof a);
                for (size_t d = 0; d < 3; d++)
                        a[4 * d] += 1e-9;
                if (lm_cholesky_solve(a, b, 3) < 0)
                        return -EINVAL;
                memcpy(&f->matrix[3 * k], b, sizeof b);
        }
        return 0;
}

static int ms_solve(const Set *set, unsigned knots, InputFit *f) {
        size_t np = ms_n_params(knots), nr = 3 * set->n + (knots > 1 ? 3 * (knots - 1) : 0);
        _cleanup_free_ double *p = calloc(np, sizeof(double)), *shaped = calloc(6 * set->n, sizeof(double));
        MsProblem pb = { .set = *set, .knots = knots, .f = f };
        int r;

        if (!p || !shaped)
                return -ENOMEM;
        assert(f->model == INPUT_MODEL_MATRIX); /* the residuals are the matrix/shaper's */
        for (size_t c = 0; c < 3; c++)
                for (size_t k = 0; k < 2; k++)
                        pb.shaped[c].slot[k].t = &shaped[(2 * c + k) * set->n];
        ms_pack(f, knots, p);
        r = lm_solve(ms_residuals, &pb, p, np, nr, LM_STEPS);
        if (r < 0)
                return r;
        ms_unpack(f, knots, p);
        return 0;
}

static double set_error(const Set *set, const InputFit *f, double *ret_max) {
        double sum = 0.0, max = 0.0;

        for (size_t i = 0; i < set->n; i++) {
                const InputSample *s = &set->s[set->idx[i]];
                double xyz[3], lab[3];
                input_fit_eval(f, s->rgb, xyz);
                xyz_to_lab_d50(xyz, lab);
                double e = ciede2000(lab, set->lab[set->idx[i]]);
                sum += e;
                max = fmax(max, e);
        }
        if (ret_max)
                *ret_max = max;
        return set->n ? sum / set->n : 0.0;
}

/* The matrix/shaper with `knots` intervals: a pure power law first from two starts (linear
 * data and gamma-encoded data), then the spline from the better one. */
static int ms_fit(const Set *set, unsigned knots, InputFit *f) {
        InputFit best = {};
        double best_err = INFINITY;
        int r;

        for (size_t s = 0; s < 2; s++) {
                InputFit t = { .model = INPUT_MODEL_MATRIX };
                ms_unpack(&t, 1, (double[12]) { 0, 0, 0, 0, 0, 0, 0, 0, 0, log(s ? 2.2 : 1.0), log(s ? 2.2 : 1.0),
                                                 log(s ? 2.2 : 1.0) });
                r = ms_linear_matrix(set, &t);
                if (r < 0)
                        return r;
                r = ms_solve(set, 1, &t);
                if (r < 0)
                        return r;
                double e = set_error(set, &t, NULL);
                if (e < best_err) {
                        best_err = e;
                        best = t;
                }
        }
        if (knots > 1) {
                for (size_t c = 0; c < 3; c++) {
                        best.curve[c].n_intervals = knots;
                        for (unsigned j = 0; j <= knots; j++)
                                best.curve[c].w[j] = (double) j / knots;
                }
                r = ms_solve(set, knots, &best);
                if (r < 0)
                        return r;
        }
        f->model = INPUT_MODEL_MATRIX;
        memcpy(f->curve, best.curve, sizeof f->curve);
        memcpy(f->matrix, best.matrix, sizeof f->matrix);
        return 0;
}

/* --- the LUT's correction grid --- */

typedef struct GridProblem {
        size_t n;
        size_t (*node)[4];
        double (*w)[4];
        double (*a)[9];         /* ∂(CIEDE2000 terms)/∂XYZ at the current model, per patch */
        double lambda;
} GridProblem;

/* y = (Jᵀ J + λ Lᵀ L + ridge) x over the grid (N_NODES × 3): the conjugate gradients' every
 * step, so written for few loads (what each patch needs taken once, neighbours by stride). */
static void grid_apply(const GridProblem *gp, const double (*x)[3], double (*y)[3]) {
        static const size_t stride[3] = { G * G, G, 1 };

        memset(y, 0, N_NODES * sizeof *y);
        for (size_t i = 0; i < gp->n; i++) {
                const size_t *node = gp->node[i];
                const double *w = gp->w[i], *a = gp->a[i];
                double d[3] = {}, e[3];
                for (size_t v = 0; v < 4; v++)
                        for (size_t k = 0; k < 3; k++)
                                d[k] += w[v] * x[node[v]][k];
                for (size_t r = 0; r < 3; r++)
                        e[r] = a[3 * r] * d[0] + a[3 * r + 1] * d[1] + a[3 * r + 2] * d[2];
                for (size_t k = 0; k < 3; k++) {
                        double z = a[k] * e[0] + a[3 + k] * e[1] + a[6 + k] * e[2];
                        for (size_t v = 0; v < 4; v++)
                                y[node[v]][k] += w[v] * z;
                }
        }
        /* second differences along each axis, node by node */
        for (size_t n0 = 0; n0 < N_NODES; n0++) {
                size_t at[3] = { n0 / (G * G), n0 / G % G, n0 % G };
                for (size_t ax = 0; ax < 3; ax++) {
                        if (at[ax] == 0 || at[ax] == G - 1)
                                continue;
                        size_t lo = n0 - stride[ax], hi = n0 + stride[ax];
                        for (size_t c = 0; c < 3; c++) {
                                double s = gp->lambda * (x[lo][c] - 2 * x[n0][c] + x[hi][c]);
                                y[lo][c] += s;
                                y[n0][c] -= 2 * s;
                                y[hi][c] += s;
                        }
                }
        }
        for (size_t n = 0; n < N_NODES; n++)
                for (size_t c = 0; c < 3; c++)
                        y[n][c] += RIDGE * x[n][c];
}

static double dot(const double (*a)[3], const double (*b)[3]) {
        double s = 0.0;
        for (size_t n = 0; n < N_NODES; n++)
                s += a[n][0] * b[n][0] + a[n][1] * b[n][1] + a[n][2] * b[n][2];
        return s;
}

/* Conjugate gradients for (grid_apply) x = b, x from 0. */
static int grid_cg(const GridProblem *gp, const double (*b)[3], double (*x)[3]) {
        _cleanup_free_ double(*r)[3] = calloc(N_NODES, sizeof *r);
        _cleanup_free_ double(*p)[3] = calloc(N_NODES, sizeof *p);
        _cleanup_free_ double(*ap)[3] = calloc(N_NODES, sizeof *ap);

        if (!r || !p || !ap)
                return -ENOMEM;
        memset(x, 0, N_NODES * sizeof *x);
        memcpy(r, b, N_NODES * sizeof *r);
        memcpy(p, b, N_NODES * sizeof *p);
        double rr = dot(r, r), rr0 = rr;
        for (unsigned it = 0; it < CG_STEPS && rr > 1e-20 * rr0 && rr > 0; it++) {
                grid_apply(gp, (const double(*)[3]) p, ap);
                double alpha = rr / dot(p, ap);
                for (size_t n = 0; n < N_NODES; n++)
                        for (size_t c = 0; c < 3; c++) {
                                x[n][c] += alpha * p[n][c];
                                r[n][c] -= alpha * ap[n][c];
                        }
                double rr1 = dot(r, r);
                for (size_t n = 0; n < N_NODES; n++)
                        for (size_t c = 0; c < 3; c++)
                                p[n][c] = r[n][c] + rr1 / rr * p[n][c];
                rr = rr1;
        }
        return 0;
}

/* Gauss–Newton on the grid, the matrix/shaper fixed. */
static int grid_fit(const Set *set, double lambda, InputFit *f) {
        GridProblem gp = { .n = set->n, .lambda = lambda };
        _cleanup_free_ size_t(*node)[4] = calloc(set->n, sizeof *node);
        _cleanup_free_ double(*w)[4] = calloc(set->n, sizeof *w);
        _cleanup_free_ double(*a)[9] = calloc(set->n, sizeof *a);
        _cleanup_free_ double(*b)[3] = calloc(N_NODES, sizeof *b);
        _cleanup_free_ double(*delta)[3] = calloc(N_NODES, sizeof *delta);
        _cleanup_free_ double(*lc)[3] = calloc(N_NODES, sizeof *lc);
        int r;

        if (!node || !w || !a || !b || !delta || !lc)
                return -ENOMEM;
        gp.node = node;
        gp.w = w;
        gp.a = a;
        f->model = INPUT_MODEL_LUT;
        f->smoothness = lambda;
        memset(f->grid, 0, sizeof f->grid);
        for (size_t i = 0; i < set->n; i++) {
                double t[3];
                input_fit_shape(f, set->s[set->idx[i]].rgb, t);
                tetra(t, node[i], w[i]);
        }
        for (unsigned step = 0; step < 3; step++) {
                /* b = −(Jᵀ r + (λ LᵀL + ridge) c): the gradient at the current grid */
                GridProblem no_data = gp;
                no_data.n = 0;
                grid_apply(&no_data, (const double(*)[3]) f->grid, lc);
                for (size_t n = 0; n < N_NODES; n++)
                        for (size_t c = 0; c < 3; c++)
                                b[n][c] = -lc[n][c];
                for (size_t i = 0; i < set->n; i++) {
                        const InputSample *s = &set->s[set->idx[i]];
                        const double *want = set->lab[set->idx[i]];
                        double xyz[3], lab[3], r0[3];
                        input_fit_eval(f, s->rgb, xyz);
                        xyz_to_lab_d50(xyz, lab);
                        ciede2000_terms(lab, want, r0);
                        /* ∂terms/∂t' = ∂terms/∂XYZ · M: the correction lives before the matrix */
                        double dx[9];
                        for (size_t k = 0; k < 3; k++) {
                                double x2[3] = { xyz[0], xyz[1], xyz[2] }, l2[3], r1[3];
                                x2[k] += 1e-6;
                                xyz_to_lab_d50(x2, l2);
                                ciede2000_terms(l2, want, r1);
                                for (size_t q = 0; q < 3; q++)
                                        dx[3 * q + k] = (r1[q] - r0[q]) / 1e-6;
                        }
                        for (size_t q = 0; q < 3; q++)
                                for (size_t k = 0; k < 3; k++)
                                        a[i][3 * q + k] = dx[3 * q] * f->matrix[k] + dx[3 * q + 1] * f->matrix[3 + k] +
                                                          dx[3 * q + 2] * f->matrix[6 + k];
                        for (size_t k = 0; k < 3; k++) {
                                double z = a[i][k] * r0[0] + a[i][3 + k] * r0[1] + a[i][6 + k] * r0[2];
                                for (size_t v = 0; v < 4; v++)
                                        b[node[i][v]][k] -= w[i][v] * z;
                        }
                }
                r = grid_cg(&gp, (const double(*)[3]) b, delta);
                if (r < 0)
                        return r;
                for (size_t n = 0; n < N_NODES; n++)
                        for (size_t c = 0; c < 3; c++)
                                f->grid[n][c] += delta[n][c];
        }
        return 0;
}

/* --- cross-validation --- */

typedef struct Folds {
        size_t *train[INPUT_FIT_FOLDS], *test[INPUT_FIT_FOLDS];
        size_t n_train[INPUT_FIT_FOLDS], n_test[INPUT_FIT_FOLDS];
} Folds;

static void folds_done(Folds *f) {
        for (size_t k = 0; k < INPUT_FIT_FOLDS; k++) {
                free(f->train[k]);
                free(f->test[k]);
        }
}

static int folds_make(size_t n, Folds *f) {
        for (size_t k = 0; k < INPUT_FIT_FOLDS; k++) {
                f->train[k] = calloc(n, sizeof(size_t));
                f->test[k] = calloc(n, sizeof(size_t));
                if (!f->train[k] || !f->test[k])
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        /* a stride that is not a chart's row length: neighbours go to different folds */
                        if ((i * 7 + i / INPUT_FIT_FOLDS) % INPUT_FIT_FOLDS == k)
                                f->test[k][f->n_test[k]++] = i;
                        else
                                f->train[k][f->n_train[k]++] = i;
                }
        }
        return 0;
}

/* Held-out errors of one configuration: knots, and lambda (< 0: matrix/shaper only). ms
 * holds one model per fold: with lambda < 0 the matrix/shaper fitted to that fold's training
 * patches is stored there; with lambda ≥ 0 it holds them (from that earlier call with the
 * same knots) and each fold's LUT is fitted on top of its own, which is the same fit made
 * again. */
static int cross_validate(const InputSample *s, const double (*lab)[3], const Folds *folds, unsigned knots,
                          double lambda, InputFit ms[INPUT_FIT_FOLDS], double *ret_mean, double *ret_max) {
        _cleanup_free_ InputFit *f = calloc(1, sizeof *f);
        double sum = 0.0, max = 0.0;
        size_t n = 0;
        int r;

        if (!f)
                return -ENOMEM;
        for (size_t k = 0; k < INPUT_FIT_FOLDS; k++) {
                Set train = { s, lab, folds->train[k], folds->n_train[k] };
                Set test = { s, lab, folds->test[k], folds->n_test[k] };
                double m;
                if (lambda < 0) {
                        r = ms_fit(&train, knots, &ms[k]);
                        if (r < 0)
                                return r;
                }
                *f = ms[k];
                if (lambda >= 0) {
                        r = grid_fit(&train, lambda, f);
                        if (r < 0)
                                return r;
                }
                sum += set_error(&test, f, &m) * test.n;
                max = fmax(max, m);
                n += test.n;
        }
        *ret_mean = sum / n;
        *ret_max = max;
        return 0;
}

int input_fit(const InputSample *s, size_t n, InputModel want, InputFit *ret, const char **ret_reason) {
        _cleanup_free_ double(*lab)[3] = NULL;
        _cleanup_free_ size_t *all = NULL;
        _cleanup_(folds_done) Folds folds = {};
        _cleanup_free_ InputFit(*ms)[INPUT_FIT_FOLDS] = NULL;
        size_t best_ms_fits = 0;
        unsigned best_knots = 1;
        double best_ms = INFINITY, best_ms_max = 0, best_lut = INFINITY, best_lut_max = 0, best_lambda = 0;
        int r;

        if (n < INPUT_FIT_MIN_PATCHES) {
                *ret_reason = "too few patches for a profile (at least 12)";
                return -EINVAL;
        }
        if (want == INPUT_MODEL_LUT && n < INPUT_FIT_LUT_MIN_PATCHES) {
                *ret_reason = "too few patches for a LUT profile (at least 100): the chart is too sparse";
                return -EINVAL;
        }
        lab = calloc(n, sizeof *lab);
        all = calloc(n, sizeof *all);
        ms = calloc(ELEMENTSOF(knot_choices), sizeof *ms);
        if (!lab || !all || !ms)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                xyz_to_lab_d50(s[i].xyz, lab[i]);
                all[i] = i;
        }
        r = folds_make(n, &folds);
        if (r < 0)
                return r;

        memset(ret, 0, sizeof *ret);
        ret->n_samples = n;
        ret->cv_lut_mean = NAN;
        ret->lut_too_sparse = n < INPUT_FIT_LUT_MIN_PATCHES;
        for (size_t i = 0; i < ELEMENTSOF(knot_choices); i++) {
                double m, mx;
                /* a spline needs several distinct levels per interval; sparse charts keep the power law */
                if (knot_choices[i] > 1 && n < 8 * knot_choices[i])
                        continue;
                r = cross_validate(s, (const double(*)[3]) lab, &folds, knot_choices[i], -1, ms[i], &m, &mx);
                if (r < 0)
                        return r;
                if (m < best_ms) {
                        best_ms = m;
                        best_ms_max = mx;
                        best_knots = knot_choices[i];
                        best_ms_fits = i;
                }
        }
        ret->cv_matrix_mean = best_ms;
        if (!ret->lut_too_sparse && want != INPUT_MODEL_MATRIX)
                for (size_t i = 0; i < ELEMENTSOF(smoothness_choices); i++) {
                        double m, mx;
                        r = cross_validate(s, (const double(*)[3]) lab, &folds, best_knots, smoothness_choices[i],
                                           ms[best_ms_fits], &m, &mx);
                        if (r < 0)
                                return r;
                        if (m < best_lut) {
                                best_lut = m;
                                best_lut_max = mx;
                                best_lambda = smoothness_choices[i];
                        }
                }
        if (isfinite(best_lut))
                ret->cv_lut_mean = best_lut;

        Set everything = { s, (const double(*)[3]) lab, all, n };
        r = ms_fit(&everything, best_knots, ret);
        if (r < 0)
                return r;
        bool lut = want == INPUT_MODEL_LUT || (want == INPUT_MODEL_AUTO && best_lut < best_ms);
        if (lut) {
                r = grid_fit(&everything, best_lambda, ret);
                if (r < 0)
                        return r;
        }
        ret->cv_mean = lut ? best_lut : best_ms;
        ret->cv_max = lut ? best_lut_max : best_ms_max;
        ret->self_mean = set_error(&everything, ret, &ret->self_max);
        for (size_t k = 0; k < 9; k++)
                if (!isfinite(ret->matrix[k])) {
                        *ret_reason = "the fit did not converge";
                        return -EINVAL;
                }
        return 0;
}
