/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CIELAB → printer device values (output-invert.h).
 *
 * Inversion: start at the nearest of a coarse set of device values whose colours are known
 * (the "seeds"), then Levenberg–Marquardt on |f(d) − target|² (+ the black term), each step
 * projected back onto the allowed device values (0..1 each, and for CMYK a total at most the
 * ink limit: the Euclidean projection, a common shift). f is piecewise linear, so its Jacobian
 * is the exact one of the simplex the point is in (output_lut_slope()).
 *
 * Black generation: CMYK has one degree of freedom more than CIELAB; a colour is reached by
 * a line of CMYK values that trade black for the three colours. The black target K(L*) ramps
 * from 0 at light colours to 1 at the printer's black, sooner or later by the OutputBlack
 * chosen; a small weight on (K − K(L*))² picks the point of that line nearest the target, and
 * yields where the line does not reach it (a saturated dark colour keeps the black it needs).
 * The solver starts at the target's black: from a seed chosen by colour alone it walked along
 * the line too slowly to reach the target in its iterations. */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lm.h"
#include "output-invert.h"

#define SEED_STEPS_RGB 9u       /* 729 seeds */
#define SEED_STEPS_CMYK 6u      /* 1296 seeds */
#define BOUNDARY_L_STEPS 41u    /* L* 0, 2.5, ..., 100 */
#define BOUNDARY_H_STEPS 72u    /* hue every 5° */
#define BOUNDARY_C_MAX 160.0    /* beyond any printer's chroma */
#define BLACK_WEIGHT 0.1        /* ΔE76² per unit of (K − target)²: colour first, black second */
#define SEED_BLACK_WEIGHT 400.0 /* choosing the start: a seed 0.2 off the black target counts as ΔE76 4 */
#define KNEE 0.8                /* perceptual: chroma below this share of the boundary is kept */
#define LM_ITERATIONS 60u

/* Each black generation's target: 0 up to start (the fraction of the way from paper to the
 * printer's black), then ((t − start) / (1 − start))^power up to 1. Each is at least the one
 * before it at every lightness, so a heavier setting never asks for less black. */
static const struct {
        const char *name;
        double start, power;
} black_shapes[_OUTPUT_BLACK_N] = {
        [OUTPUT_BLACK_NONE] = { "none", 1.0, 1.0 },     /* never above start: 0 */
        [OUTPUT_BLACK_LIGHT] = { "light", 0.5, 2.0 },
        [OUTPUT_BLACK_MEDIUM] = { "medium", 0.25, 1.5 }, /* the default, as before the choice */
        [OUTPUT_BLACK_HEAVY] = { "heavy", 0.1, 1.0 },
        [OUTPUT_BLACK_MAX] = { "max", 0.0, 0.0 },       /* 1 as soon as there is any ink */
};

int output_black_from_string(const char *s, OutputBlack *ret) {
        for (OutputBlack b = 0; b < _OUTPUT_BLACK_N; b++)
                if (s && strcmp(s, black_shapes[b].name) == 0) {
                        *ret = b;
                        return 0;
                }
        return -EINVAL;
}

const char *output_black_to_string(OutputBlack b) {
        assert(b < _OUTPUT_BLACK_N);
        return black_shapes[b].name;
}

struct OutputInverter {
        const OutputLut *lut;
        OutputSpace space;
        OutputBlack black;
        unsigned n;             /* device channels */
        double ink_limit;
        size_t n_seeds;
        double *seed_device;    /* n_seeds × n */
        double *seed_lab;       /* n_seeds × 3 */
        size_t *seed_by_l;      /* the seeds in order of L* (then index): the nearest is searched outwards */
        double black_lightness;
        double *boundary;       /* BOUNDARY_L_STEPS × BOUNDARY_H_STEPS: max chroma */
};

OutputInverter *output_inverter_free(OutputInverter *inv) {
        if (!inv)
                return NULL;
        free(inv->seed_device);
        free(inv->seed_lab);
        free(inv->seed_by_l);
        free(inv->boundary);
        free(inv);
        return NULL;
}

/* By comparisons (NaN: 0, as fmax() gives): fmin()/fmax() are calls into libm at -O2. */
static double clamp01(double v) {
        return !(v > 0.0) ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* The Euclidean projection onto [0,1]^n ∩ {Σ ≤ limit}: clip; when the sum is still above
 * the limit, subtract the common shift τ that brings it there. Σ_k max(d_k − τ, 0) is
 * piecewise linear in τ, bending at each d_k: with the channels in decreasing order, τ is
 * (sum of the first j − limit) / j for the first j whose next channel lies below it. */
static void project(const OutputInverter *inv, double *d) {
        double sum = 0.0, sorted[OUTPUT_MAX_CHANNELS];
        unsigned n = inv->n;

        for (unsigned k = 0; k < n; k++) {
                d[k] = clamp01(d[k]);
                sum += d[k];
        }
        if (inv->space != OUTPUT_SPACE_CMYK || sum <= inv->ink_limit)
                return;
        for (unsigned k = 0; k < n; k++) {
                unsigned at = k;
                for (; at > 0 && sorted[at - 1] < d[k]; at--)
                        sorted[at] = sorted[at - 1];
                sorted[at] = d[k];
        }
        double tau = 0.0, head = 0.0;
        for (unsigned j = 1; j <= n; j++) {
                head += sorted[j - 1];
                tau = (head - inv->ink_limit) / (double) j;
                if (j == n || sorted[j] <= tau)
                        break;
        }
        for (unsigned k = 0; k < n; k++)
                d[k] = clamp01(d[k] - tau);
}

double output_black_lightness(const OutputInverter *inv) {
        return inv->black_lightness;
}

double output_black_target(const OutputInverter *inv, double lightness) {
        double span = 100.0 - inv->black_lightness;
        double t = span > 0.0 ? clamp01((100.0 - lightness) / span) : 1.0;
        double start = black_shapes[inv->black].start;

        if (t <= start)
                return 0.0;
        return pow((t - start) / (1.0 - start), black_shapes[inv->black].power);
}

/* The residuals: colour (3), and for CMYK the black term. Returns their number. */
static unsigned residuals(const OutputInverter *inv, const double *d, const double lab[3], double k_target,
                          double r[4]) {
        double got[3];

        output_lut_eval(inv->lut, d, got);
        for (unsigned c = 0; c < 3; c++)
                r[c] = got[c] - lab[c];
        if (inv->space != OUTPUT_SPACE_CMYK)
                return 3;
        r[3] = sqrt(BLACK_WEIGHT) * (d[3] - k_target);
        return 4;
}

/* Solves the n × n system a x = b (n ≤ 4) by Gaussian elimination with partial pivoting;
 * false when singular. Each pivot is divided by once: the LM loop solves this twice per step,
 * and a chain of divisions was most of its time. */
static inline __attribute__((always_inline)) bool solve_small(unsigned n, double a[4][4], double b[4], double x[4]) {
        double inv_pivot[4];

        for (unsigned c = 0; c < n; c++) {
                unsigned p = c;
                for (unsigned r = c + 1; r < n; r++)
                        if (fabs(a[r][c]) > fabs(a[p][c]))
                                p = r;
                if (!(fabs(a[p][c]) > 1e-300))
                        return false;
                if (p != c) {
                        for (unsigned k = 0; k < n; k++) {
                                double t = a[c][k];
                                a[c][k] = a[p][k];
                                a[p][k] = t;
                        }
                        double t = b[c];
                        b[c] = b[p];
                        b[p] = t;
                }
                inv_pivot[c] = 1.0 / a[c][c];
                for (unsigned r = c + 1; r < n; r++) {
                        double f = a[r][c] * inv_pivot[c];
                        for (unsigned k = c; k < n; k++)
                                a[r][k] -= f * a[c][k];
                        b[r] -= f * b[c];
                }
        }
        for (unsigned c = n; c > 0; c--) {
                double s = b[c - 1];
                for (unsigned k = c; k < n; k++)
                        s -= a[c - 1][k] * x[k];
                x[c - 1] = s * inv_pivot[c - 1];
        }
        return true;
}

static double seed_cost(const OutputInverter *inv, size_t s, const double lab[3], double k_target) {
        const double *sl = inv->seed_lab + 3 * s;
        double dl = sl[0] - lab[0], da = sl[1] - lab[1], db = sl[2] - lab[2];
        double es = dl * dl + da * da + db * db;

        if (inv->space == OUTPUT_SPACE_CMYK) {
                double dk = inv->seed_device[inv->n * s + 3] - k_target;
                es += SEED_BLACK_WEIGHT * dk * dk;
        }
        return es;
}

/* Seed s if it can still be the nearest: false when ΔL*² alone exceeds the best cost so far,
 * as it then does for every seed further out in L*. Of equal costs the lower index wins. */
static bool seed_try(const OutputInverter *inv, size_t s, const double lab[3], double k_target, size_t *best,
                     double *best_e) {
        double dl = inv->seed_lab[3 * s] - lab[0];

        if (dl * dl > *best_e)
                return false;
        double es = seed_cost(inv, s, lab, k_target);
        if (es < *best_e || (es == *best_e && s < *best)) {
                *best_e = es;
                *best = s;
        }
        return true;
}

/* The seed of least cost (ΔE76², plus the black term for CMYK), the first in index order of
 * equal ones: the one a scan of all would find. The search starts at the target's L* and
 * walks outwards both ways until ΔL*² alone exceeds the best cost, so it looks at a band of
 * seeds, not at all of them. */
static size_t seed_nearest(const OutputInverter *inv, const double lab[3], double k_target) {
        const size_t *order = inv->seed_by_l;
        size_t lo = 0, hi = inv->n_seeds, best = SIZE_MAX;
        double best_e = INFINITY;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (inv->seed_lab[3 * order[mid]] < lab[0])
                        lo = mid + 1;
                else
                        hi = mid;
        }
        size_t up = lo, down = lo;
        for (bool more = true; more;) {
                more = false;
                if (up < inv->n_seeds && seed_try(inv, order[up], lab, k_target, &best, &best_e)) {
                        up++;
                        more = true;
                }
                if (down > 0 && seed_try(inv, order[down - 1], lab, k_target, &best, &best_e)) {
                        down--;
                        more = true;
                }
        }
        assert(best < inv->n_seeds);
        return best;
}

void output_invert(const OutputInverter *inv, const double lab[3], double *ret_device, double *ret_error) {
        double k_target = inv->space == OUTPUT_SPACE_CMYK ? output_black_target(inv, lab[0]) : 0.0;
        double d[OUTPUT_MAX_CHANNELS], r[4] = {}, e, lambda = 1e-3;
        unsigned n = inv->n, m;
        size_t best = seed_nearest(inv, lab, k_target);

        memcpy(d, inv->seed_device + n * best, n * sizeof(double));
        if (inv->space == OUTPUT_SPACE_CMYK) {
                d[3] = k_target;
                project(inv, d);
        }
        m = residuals(inv, d, lab, k_target, r);
        e = lm_sum_squares(r, m);

        for (unsigned it = 0; it < LM_ITERATIONS && e > 1e-12; it++) {
                double jac[4][OUTPUT_MAX_CHANNELS], a[4][4], g[4], step[4];
                bool accepted = false;

                double slope[OUTPUT_MAX_CHANNELS][3];
                output_lut_slope(inv->lut, d, slope);
                for (unsigned j = 0; j < n; j++) {
                        for (unsigned c = 0; c < 3; c++)
                                jac[c][j] = slope[j][c];
                        if (m > 3)
                                jac[3][j] = j == 3 ? sqrt(BLACK_WEIGHT) : 0.0;
                }
                for (unsigned j = 0; j < n; j++) {
                        g[j] = 0.0;
                        for (unsigned i = 0; i < m; i++)
                                g[j] -= jac[i][j] * r[i];
                }
                for (unsigned j = 0; j < n; j++)
                        for (unsigned k = j; k < n; k++) {
                                a[j][k] = 0.0;
                                for (unsigned i = 0; i < m; i++)
                                        a[j][k] += jac[i][j] * jac[i][k];
                                a[k][j] = a[j][k];
                        }
                for (unsigned tries = 0; tries < 12 && !accepted; tries++) {
                        double sys[4][4], rhs[4], dn[OUTPUT_MAX_CHANNELS], rn[4] = {};

                        for (unsigned j = 0; j < n; j++) {
                                for (unsigned k = 0; k < n; k++)
                                        sys[j][k] = a[j][k];
                                sys[j][j] += lambda * (a[j][j] + 1e-6);
                                rhs[j] = g[j];
                        }
                        /* n known here: each size gets its own unrolled copy */
                        if (!(n == 4 ? solve_small(4, sys, rhs, step) : solve_small(3, sys, rhs, step))) {
                                lambda *= 4.0;
                                continue;
                        }
                        for (unsigned j = 0; j < n; j++)
                                dn[j] = d[j] + step[j];
                        project(inv, dn);
                        residuals(inv, dn, lab, k_target, rn);
                        double en = lm_sum_squares(rn, m);
                        if (en < e) {
                                double moved = 0.0;
                                for (unsigned j = 0; j < n; j++)
                                        moved = fmax(moved, fabs(dn[j] - d[j]));
                                memcpy(d, dn, n * sizeof(double));
                                memcpy(r, rn, sizeof r);
                                e = en;
                                lambda = fmax(lambda / 3.0, 1e-9);
                                accepted = true;
                                if (moved < 1e-8)
                                        it = LM_ITERATIONS;
                        } else
                                lambda *= 4.0;
                }
                if (!accepted)
                        break;
        }
        memcpy(ret_device, d, n * sizeof(double));
        if (ret_error)
                *ret_error = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
}

bool output_in_gamut(const OutputInverter *inv, const double lab[3]) {
        double d[OUTPUT_MAX_CHANNELS], err;

        output_invert(inv, lab, d, &err);
        return err <= OUTPUT_GAMUT_TOLERANCE;
}

double output_max_chroma(const OutputInverter *inv, double lightness, double hue) {
        double l = clamp01(lightness / 100.0) * (BOUNDARY_L_STEPS - 1);
        double h = fmod(fmod(hue, 360.0) + 360.0, 360.0) / 360.0 * BOUNDARY_H_STEPS;
        unsigned l0 = (unsigned) fmin(floor(l), BOUNDARY_L_STEPS - 2), h0 = (unsigned) floor(h) % BOUNDARY_H_STEPS;
        unsigned h1 = (h0 + 1) % BOUNDARY_H_STEPS;
        double fl = l - l0, fh = h - floor(h);
        const double *b = inv->boundary;

        assert(b); /* output_inverter_make_boundary() */
        return (1 - fl) * ((1 - fh) * b[l0 * BOUNDARY_H_STEPS + h0] + fh * b[l0 * BOUNDARY_H_STEPS + h1]) +
               fl * ((1 - fh) * b[(l0 + 1) * BOUNDARY_H_STEPS + h0] + fh * b[(l0 + 1) * BOUNDARY_H_STEPS + h1]);
}

void output_map_perceptual(const OutputInverter *inv, const double lab[3], double ret_lab[3]) {
        double lk = inv->black_lightness;
        double l = lk + fmin(fmax(lab[0], 0.0), 100.0) * (100.0 - lk) / 100.0;
        double c = hypot(lab[1], lab[2]), h = atan2(lab[2], lab[1]) * (180.0 / M_PI);
        /* The table's chroma is the largest printed within OUTPUT_GAMUT_TOLERANCE: aim that much
         * inside it, so that what the mapping sends is printed, not clipped again. */
        double cb = fmax(output_max_chroma(inv, l, h) - OUTPUT_GAMUT_TOLERANCE, 0.0), knee = KNEE * cb;

        if (c > knee) {
                double room = cb - knee;
                c = room > 1e-9 ? knee + room * tanh((c - knee) / room) : fmin(c, cb);
        }
        double norm = hypot(lab[1], lab[2]);
        ret_lab[0] = l;
        ret_lab[1] = norm > 0.0 ? lab[1] / norm * c : 0.0;
        ret_lab[2] = norm > 0.0 ? lab[2] / norm * c : 0.0;
}

static int make_seeds(OutputInverter *inv) {
        unsigned steps = inv->space == OUTPUT_SPACE_CMYK ? SEED_STEPS_CMYK : SEED_STEPS_RGB;
        size_t total = 1;

        for (unsigned k = 0; k < inv->n; k++)
                total *= steps;
        inv->seed_device = calloc(total * inv->n, sizeof(double));
        inv->seed_lab = calloc(total * 3, sizeof(double));
        if (!inv->seed_device || !inv->seed_lab)
                return -ENOMEM;
        for (size_t s = 0; s < total; s++) {
                double *d = inv->seed_device + inv->n * inv->n_seeds;
                size_t q = s;
                for (unsigned k = 0; k < inv->n; k++) {
                        d[k] = (double) (q % steps) / (steps - 1);
                        q /= steps;
                }
                project(inv, d);
                output_lut_eval(inv->lut, d, inv->seed_lab + 3 * inv->n_seeds);
                inv->n_seeds++;
        }
        inv->seed_by_l = calloc(total, sizeof(size_t));
        if (!inv->seed_by_l)
                return -ENOMEM;
        for (size_t s = 0; s < total; s++) {
                size_t at = s;
                for (; at > 0 && inv->seed_lab[3 * inv->seed_by_l[at - 1]] > inv->seed_lab[3 * s]; at--)
                        inv->seed_by_l[at] = inv->seed_by_l[at - 1];
                inv->seed_by_l[at] = s;
        }
        return 0;
}

int output_inverter_make_boundary(OutputInverter *inv) {
        assert(!inv->boundary);
        inv->boundary = calloc(BOUNDARY_L_STEPS * BOUNDARY_H_STEPS, sizeof(double));
        if (!inv->boundary)
                return -ENOMEM;
        for (unsigned li = 0; li < BOUNDARY_L_STEPS; li++)
                for (unsigned hi = 0; hi < BOUNDARY_H_STEPS; hi++) {
                        double l = 100.0 * li / (BOUNDARY_L_STEPS - 1), h = 2.0 * M_PI * hi / BOUNDARY_H_STEPS;
                        double lab[3] = { l, 0.0, 0.0 }, lo = 0.0, up = BOUNDARY_C_MAX;

                        if (!output_in_gamut(inv, lab))
                                continue; /* not even the grey of this lightness: no chroma */
                        for (unsigned it = 0; it < 14; it++) {
                                double c = (lo + up) / 2.0, t[3] = { l, c * cos(h), c * sin(h) };
                                if (output_in_gamut(inv, t))
                                        lo = c;
                                else
                                        up = c;
                        }
                        inv->boundary[li * BOUNDARY_H_STEPS + hi] = lo;
                }
        return 0;
}

int output_inverter_new(const OutputLut *lut, OutputSpace space, double ink_limit, OutputBlack black,
                        OutputInverter **ret) {
        _cleanup_(output_inverter_freep) OutputInverter *inv = NULL;
        double darkest[OUTPUT_MAX_CHANNELS], lab[3], zero[3] = { 0.0, 0.0, 0.0 };
        int r;

        assert(lut->n_in == (space == OUTPUT_SPACE_CMYK ? 4u : 3u));
        assert(black < _OUTPUT_BLACK_N);
        inv = calloc(1, sizeof *inv);
        if (!inv)
                return -ENOMEM;
        inv->lut = lut;
        inv->space = space;
        inv->n = lut->n_in;
        inv->ink_limit = space == OUTPUT_SPACE_CMYK ? fmin(fmax(ink_limit, 1.0), 4.0) : 3.0;
        r = make_seeds(inv);
        if (r < 0)
                return r;
        /* The printer's black: the colour nearest L* 0 (with no black target yet: the ramp
         * is defined by this lightness, so take black as the solver leaves it). With the
         * default generation whatever the choice, so every choice maps to the same black. */
        inv->black_lightness = 0.0;
        inv->black = OUTPUT_BLACK_DEFAULT;
        output_invert(inv, zero, darkest, NULL);
        output_lut_eval(lut, darkest, lab);
        inv->black_lightness = fmin(fmax(lab[0], 0.0), 99.0);
        inv->black = black;
        *ret = TAKE_PTR(inv);
        return 0;
}
