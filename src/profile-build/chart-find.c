/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Chart finding (chart-find.h). All work is on box-filtered copies of the image: a fine one
 * (longer side ≤ FINE_SIDE) for the refinement and a coarse one (half of it) for the search. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart-find.h"
#include "lm.h"

#define FINE_SIDE 640u
#define COARSE_PATCHES 24u      /* patches scored during the coarse search (spread evenly) */
#define MIN_COVER 0.3           /* the chart spans at least this much of the image's width or height */
#define CANDIDATES 3u           /* coarse results refined */
#define REFINE_PATCHES 96u      /* patches scored while refining (spread evenly) */

typedef struct Work {
        unsigned w, h;
        double scale;           /* image pixels per work pixel */
        float *rgb;
} Work;

typedef struct Scorer {
        const Cht *cht;
        const double *lightness;
        size_t *patches;        /* indices of the patches scored */
        size_t n_patches;
        unsigned grid;          /* grid × grid points per patch */
        double inset;           /* chart units left out on each side of a patch's box */
        double spread;          /* the points span this fraction of what is left */
        bool edges;             /* refining: uniformity alone decides (the correlation only
                                 * keeps it from sliding onto the wrong patches) */
        double (*points)[2];    /* the grid points of each scored patch in turn, chart units */
        double (*at)[2];        /* scratch: where they fall, work pixels (or about a centre) */
        double *means;          /* n_patches × 3, scratch */
} Scorer;

static void work_done(Work *w) {
        free(w->rgb);
}

static int work_alloc(unsigned w, unsigned h, double scale, Work *ret) {
        if (w < 8 || h < 8)
                return -EINVAL; /* nothing to find a chart in */
        *ret = (Work) { .w = w, .h = h, .scale = scale };
        ret->rgb = calloc((size_t) w * h * 3, sizeof(float));
        return ret->rgb ? 0 : -ENOMEM;
}

static int work_from_image(const Image *img, unsigned max_side, Work *ret) {
        unsigned f = 1;
        int r;

        while ((img->width + f - 1) / f > max_side || (img->height + f - 1) / f > max_side)
                f++;
        r = work_alloc(img->width / f, img->height / f, f, ret);
        if (r < 0)
                return r;
        for (unsigned y = 0; y < ret->h; y++)
                for (unsigned x = 0; x < ret->w; x++)
                        for (unsigned c = 0; c < 3; c++) {
                                double s = 0.0;
                                for (unsigned j = 0; j < f; j++)
                                        for (unsigned i = 0; i < f; i++)
                                                s += img->rgb[((size_t) (y * f + j) * img->width + x * f + i) * 3 + c];
                                ret->rgb[((size_t) y * ret->w + x) * 3 + c] = (float) (s / (f * f * 65535.0));
                        }
        return 0;
}

static int work_halve(const Work *from, Work *ret) {
        int r = work_alloc(from->w / 2, from->h / 2, from->scale * 2, ret);
        if (r < 0)
                return r;
        for (unsigned y = 0; y < ret->h; y++)
                for (unsigned x = 0; x < ret->w; x++)
                        for (unsigned c = 0; c < 3; c++) {
                                const float *p = &from->rgb[((size_t) (2 * y) * from->w + 2 * x) * 3 + c];
                                ret->rgb[((size_t) y * ret->w + x) * 3 + c] =
                                        (p[0] + p[3] + p[from->w * 3] + p[from->w * 3 + 3]) / 4.0f;
                        }
        return 0;
}

/* Bilinear; false outside the image. Pixel centres at integer + 0.5. */
static bool work_sample(const Work *w, double x, double y, double ret[3]) {
        x -= 0.5;
        y -= 0.5;
        if (!(x >= 0.0 && y >= 0.0 && x <= w->w - 1.001 && y <= w->h - 1.001))
                return false;
        unsigned x0 = (unsigned) x, y0 = (unsigned) y;
        double fx = x - x0, fy = y - y0;
        const float *p = &w->rgb[((size_t) y0 * w->w + x0) * 3];
        for (unsigned c = 0; c < 3; c++)
                ret[c] = (1 - fy) * ((1 - fx) * p[c] + fx * p[3 + c]) +
                         fy * ((1 - fx) * p[w->w * 3 + c] + fx * p[w->w * 3 + 3 + c]);
        return true;
}

int homography_from_corners(const double src[8], const double dst[8], double ret[9]) {
        double a[8][9];

        /* x' = (h0 u + h1 v + h2) / (h6 u + h7 v + 1), y' likewise with h3..h5 */
        for (size_t i = 0; i < 4; i++) {
                double u = src[2 * i], v = src[2 * i + 1], x = dst[2 * i], y = dst[2 * i + 1];
                double r0[9] = { u, v, 1, 0, 0, 0, -u * x, -v * x, x };
                double r1[9] = { 0, 0, 0, u, v, 1, -u * y, -v * y, y };
                memcpy(a[2 * i], r0, sizeof r0);
                memcpy(a[2 * i + 1], r1, sizeof r1);
        }
        for (size_t c = 0; c < 8; c++) {
                size_t p = c;
                for (size_t r = c + 1; r < 8; r++)
                        if (fabs(a[r][c]) > fabs(a[p][c]))
                                p = r;
                if (fabs(a[p][c]) < 1e-12)
                        return -EINVAL;
                if (p != c)
                        for (size_t k = 0; k < 9; k++) {
                                double t = a[c][k];
                                a[c][k] = a[p][k];
                                a[p][k] = t;
                        }
                for (size_t r = 0; r < 8; r++) {
                        if (r == c)
                                continue;
                        double m = a[r][c] / a[c][c];
                        for (size_t k = c; k < 9; k++)
                                a[r][k] -= m * a[c][k];
                }
        }
        for (size_t i = 0; i < 8; i++)
                ret[i] = a[i][8] / a[i][i];
        ret[8] = 1.0;
        return 0;
}

void homography_apply(const double h[9], double u, double v, double *ret_x, double *ret_y) {
        double d = h[6] * u + h[7] * v + h[8];
        *ret_x = (h[0] * u + h[1] * v + h[2]) / d;
        *ret_y = (h[3] * u + h[4] * v + h[5]) / d;
}

/* The figures of a placement: the points (Scorer.points) fall at (x0, y0) + at[i] in the
 * work image w. Lower is better: uniformity − correlation; +INFINITY when off the image. */
static double score_at(Scorer *s, const Work *w, const double (*at)[2], double x0, double y0, double *ret_corr,
                       double *ret_unif) {
        double within = 0.0, mean[3] = {}, between = 0.0;
        /* XᵀX and Xᵀy of the regression below, X's rows (R, G, B, 1): the upper half in
         * scalars while they add up (no array an instrumented build checks at each step) */
        double rr = 0.0, rg = 0.0, rb = 0.0, gg = 0.0, gb = 0.0, bb = 0.0, r1 = 0.0, g1 = 0.0, b1 = 0.0;
        double ry = 0.0, gy = 0.0, by = 0.0, sl = 0.0, sll = 0.0;
        size_t n_corr = 0;

        for (size_t k = 0; k < s->n_patches; k++) {
                double sum[3] = {}, sq[3] = {}, n = s->grid * s->grid;

                for (unsigned g = 0; g < s->grid * s->grid; g++, at++) {
                        double c[3];
                        if (!work_sample(w, x0 + (*at)[0], y0 + (*at)[1], c))
                                return INFINITY;
                        for (unsigned q = 0; q < 3; q++) {
                                sum[q] += c[q];
                                sq[q] += c[q] * c[q];
                        }
                }
                for (unsigned q = 0; q < 3; q++) {
                        double m = sum[q] / n, var = sq[q] / n - m * m;
                        within += var > 0.0 ? var : 0.0; /* fmax(var, 0), without a call per patch */
                        s->means[3 * k + q] = m;
                        mean[q] += m / s->n_patches;
                }
                double l = s->lightness[s->patches[k]];
                if (!isnan(l)) {
                        /* L* against R, G, B and 1: the regression's normal equations */
                        double r = s->means[3 * k], g = s->means[3 * k + 1], b = s->means[3 * k + 2];
                        rr += r * r;
                        rg += r * g;
                        rb += r * b;
                        gg += g * g;
                        gb += g * b;
                        bb += b * b;
                        r1 += r;
                        g1 += g;
                        b1 += b;
                        ry += r * l;
                        gy += g * l;
                        by += b * l;
                        sl += l;
                        sll += l * l;
                        n_corr++;
                }
        }
        for (size_t k = 0; k < s->n_patches; k++)
                for (unsigned q = 0; q < 3; q++)
                        between += (s->means[3 * k + q] - mean[q]) * (s->means[3 * k + q] - mean[q]);
        within /= s->n_patches;
        between /= s->n_patches;
        /* the multiple correlation: how much of L* a linear mix of the channels explains
         * (R² = 1 − SSE/SST); the channels' weights are the camera's, unknown here */
        double xtx[16] = { rr, rg, rb, r1, rg, gg, gb, g1, rb, gb, bb, b1, r1, g1, b1, (double) n_corr };
        double xty[4] = { ry, gy, by, sl }, corr = 0.0, beta[4];
        memcpy(beta, xty, sizeof beta);
        for (size_t a = 0; a < 4; a++)
                xtx[5 * a] += 1e-9;
        if (n_corr >= 8 && lm_cholesky_solve(xtx, beta, 4) == 0) {
                double sst = sll - sl * sl / n_corr, sse = sll;
                for (size_t a = 0; a < 4; a++)
                        sse -= beta[a] * xty[a];
                corr = sst > 0 ? sqrt(fmax(1.0 - sse / sst, 0.0)) : 0.0;
        }
        double unif = within / (between + 1e-9);
        if (ret_corr)
                *ret_corr = corr;
        if (ret_unif)
                *ret_unif = unif;
        if (s->edges)
                return unif + (corr < 0.5 ? 1.0 : 0.0);
        return fmin(unif, 1.0) - corr;
}

/* The placement given by the outline's corners in image pixels. */
static double score(Scorer *s, const Work *w, const double corners[8], double *ret_corr, double *ret_unif) {
        double h[9], img[8];

        for (size_t i = 0; i < 8; i++)
                img[i] = corners[i] / w->scale;
        if (homography_from_corners(s->cht->corners, img, h) < 0)
                return INFINITY;
        for (size_t i = 0; i < s->n_patches * s->grid * s->grid; i++)
                homography_apply(h, s->points[i][0], s->points[i][1], &s->at[i][0], &s->at[i][1]);
        return score_at(s, w, (const double(*)[2]) s->at, 0.0, 0.0, ret_corr, ret_unif);
}

/* The layout outline's bounding box, chart units. */
static void outline_bounds(const Cht *cht, double *u0, double *u1, double *v0, double *v1) {
        *u0 = *v0 = INFINITY;
        *u1 = *v1 = -INFINITY;
        for (size_t i = 0; i < 4; i++) {
                *u0 = fmin(*u0, cht->corners[2 * i]);
                *u1 = fmax(*u1, cht->corners[2 * i]);
                *v0 = fmin(*v0, cht->corners[2 * i + 1]);
                *v1 = fmax(*v1, cht->corners[2 * i + 1]);
        }
}

/* The outline of the layout centred at (cx, cy), `width` image pixels wide, turned by a
 * degrees, in image pixels. */
static void similarity_corners(const Cht *cht, double cx, double cy, double width, double a, double ret[8]) {
        double u0, u1, v0, v1;

        outline_bounds(cht, &u0, &u1, &v0, &v1);
        double k = width / (u1 - u0), c = cos(a * M_PI / 180.0), s = sin(a * M_PI / 180.0);
        for (size_t i = 0; i < 4; i++) {
                double u = (cht->corners[2 * i] - (u0 + u1) / 2) * k, v = (cht->corners[2 * i + 1] - (v0 + v1) / 2) * k;
                ret[2 * i] = cx + c * u - s * v;
                ret[2 * i + 1] = cy + s * u + c * v;
        }
}

typedef struct Candidate {
        double corners[8];
        double score;
} Candidate;

static void candidate_insert(Candidate *c, size_t n, const double corners[8], double sc) {
        /* keep the best n, far enough apart that they are different guesses */
        for (size_t i = 0; i < n; i++)
                if (fabs(c[i].corners[0] - corners[0]) + fabs(c[i].corners[1] - corners[1]) +
                    fabs(c[i].corners[4] - corners[4]) + fabs(c[i].corners[5] - corners[5]) < 1e-9) {
                        return;
                }
        if (sc >= c[n - 1].score)
                return;
        size_t i = n - 1;
        while (i > 0 && c[i - 1].score > sc) {
                c[i] = c[i - 1];
                i--;
        }
        memcpy(c[i].corners, corners, sizeof c[i].corners);
        c[i].score = sc;
}

static double patch_pitch(const Cht *cht) {
        double m = INFINITY;
        for (size_t i = 0; i < cht->n_patches; i++)
                m = fmin(m, fmin(cht->patches[i].w, cht->patches[i].h));
        return m;
}

/* The dominant direction of the edges, modulo 90° (a chart's patch edges are two sets of
 * parallel lines): the angle of the mean of 4θ over the gradients, weighted by their squared
 * size. Returns degrees in (−45, 45], or NAN when no direction dominates. */
static double edge_angle(const Work *w) {
        double c = 0.0, s = 0.0, total = 0.0;

        for (unsigned y = 1; y + 1 < w->h; y++)
                for (unsigned x = 1; x + 1 < w->w; x++) {
                        double gx = 0.0, gy = 0.0;
                        for (unsigned k = 0; k < 3; k++) {
                                gx += w->rgb[((size_t) y * w->w + x + 1) * 3 + k] - w->rgb[((size_t) y * w->w + x - 1) * 3 + k];
                                gy += w->rgb[((size_t) (y + 1) * w->w + x) * 3 + k] - w->rgb[((size_t) (y - 1) * w->w + x) * 3 + k];
                        }
                        double m2 = gx * gx + gy * gy, a = 4.0 * atan2(gy, gx);
                        c += m2 * cos(a);
                        s += m2 * sin(a);
                        total += m2;
                }
        if (!(total > 0.0) || hypot(c, s) < 0.2 * total)
                return NAN;
        return atan2(s, c) / 4.0 * 180.0 / M_PI;
}

static void coarse_search(Scorer *s, const Work *w, const Work *fine, Candidate *cand) {
        const Cht *cht = s->cht;
        double u0, u1, v0, v1;

        outline_bounds(cht, &u0, &u1, &v0, &v1);
        double iw = w->w * w->scale, ih = w->h * w->scale, aspect = (v1 - v0) / (u1 - u0);
        double max_width = fmin(iw, ih / aspect) * 1.05, pitch = patch_pitch(cht) / (u1 - u0);
        /* Steps small enough that the points (a quarter of a patch from its middle) stay
         * inside the right patch at the best guess: a quarter of a patch in position, and in
         * rotation what moves the outermost patch by an eighth of one. */
        double a_step = fmin(2.5, 180.0 / M_PI * 0.25 * pitch / fmax(1.0, hypot(1.0, aspect)));
        unsigned n_angles = (unsigned) ceil(2 * CHART_FIND_MAX_ROTATION / a_step) + 1;
        double a_first = -CHART_FIND_MAX_ROTATION, edges = edge_angle(fine);
        /* the edges' direction narrows the rotations to try to a few steps either side */
        if (!isnan(edges) && fabs(edges) <= CHART_FIND_MAX_ROTATION + a_step && n_angles > 5) {
                n_angles = 5;
                a_first = edges - 2 * a_step;
        } else
                a_step = 2 * CHART_FIND_MAX_ROTATION / (n_angles - 1);

        for (double width = max_width; width >= MIN_COVER * max_width; width /= 1.08) {
                double step = fmax(width * pitch / 4.0, w->scale);
                for (unsigned ai = 0; ai < n_angles; ai++) {
                        double a = a_first + ai * a_step, k = width / (u1 - u0) / w->scale;
                        double c = k * cos(a * M_PI / 180.0), sn = k * sin(a * M_PI / 180.0);
                        double mu = (u0 + u1) / 2, mv = (v0 + v1) / 2;
                        /* The outline turned, scaled and moved (similarity_corners()) is a
                         * similarity: where each point falls about the centre is the same at
                         * every position, and the positions that put a point off the work
                         * image (work_sample()) are known before any is scored. */
                        double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
                        for (size_t i = 0; i < s->n_patches * s->grid * s->grid; i++) {
                                double du = s->points[i][0] - mu, dv = s->points[i][1] - mv;
                                double dx = c * du - sn * dv, dy = sn * du + c * dv;
                                s->at[i][0] = dx;
                                s->at[i][1] = dy;
                                lo_x = fmin(lo_x, dx);
                                hi_x = fmax(hi_x, dx);
                                lo_y = fmin(lo_y, dy);
                                hi_y = fmax(hi_y, dy);
                        }
                        for (double cy = 0; cy < ih; cy += step) {
                                double y = cy / w->scale;
                                /* a margin for rounding: work_sample() has the last word */
                                if (y + lo_y < 0.5 - 1e-6 || y + hi_y > w->h - 0.501 + 1e-6)
                                        continue;
                                for (double cx = 0; cx < iw; cx += step) {
                                        double x = cx / w->scale;
                                        if (x + lo_x < 0.5 - 1e-6 || x + hi_x > w->w - 0.501 + 1e-6)
                                                continue;
                                        double sc = score_at(s, w, (const double(*)[2]) s->at, x, y, NULL, NULL),
                                               corners[8];
                                        if (!(sc < cand[CANDIDATES - 1].score))
                                                continue; /* not among the best: candidate_insert() would drop it */
                                        similarity_corners(cht, cx, cy, width, a, corners);
                                        candidate_insert(cand, CANDIDATES, corners, sc);
                                }
                        }
                }
        }
}

/* Pattern search on the 8 corner coordinates and on the whole outline's position, scale and
 * rotation, halving the step until it is below a tenth of a work pixel. */
static double refine(Scorer *s, const Work *w, double corners[8], double step) {
        double best = score(s, w, corners, NULL, NULL);

        while (step > 0.1 * w->scale) {
                bool improved = false;
                for (size_t k = 0; k < 12; k++)
                        for (int sign = -1; sign <= 1; sign += 2) {
                                double t[8], cx = 0, cy = 0;
                                memcpy(t, corners, sizeof t);
                                for (size_t i = 0; i < 4; i++) {
                                        cx += corners[2 * i] / 4;
                                        cy += corners[2 * i + 1] / 4;
                                }
                                if (k < 8)
                                        t[k] += sign * step;
                                else if (k < 10)
                                        for (size_t i = 0; i < 4; i++)
                                                t[2 * i + (k - 8)] += sign * step;
                                else
                                        for (size_t i = 0; i < 4; i++) {
                                                double dx = corners[2 * i] - cx, dy = corners[2 * i + 1] - cy;
                                                double r = hypot(dx, dy), e = sign * step / fmax(r, 1.0);
                                                if (k == 10) { /* scale */
                                                        t[2 * i] = cx + dx * (1 + e);
                                                        t[2 * i + 1] = cy + dy * (1 + e);
                                                } else { /* rotation */
                                                        t[2 * i] = cx + dx - e * dy;
                                                        t[2 * i + 1] = cy + dy + e * dx;
                                                }
                                        }
                                double sc = score(s, w, t, NULL, NULL);
                                if (sc < best) {
                                        best = sc;
                                        memcpy(corners, t, sizeof t);
                                        improved = true;
                                }
                        }
                if (!improved)
                        step /= 2;
        }
        return best;
}

/* The coarse search looks at the middle of each patch (tolerant of a misplacement of a
 * quarter of a patch); the refinement at nearly the whole box, so that a point that falls
 * over an edge costs. */
static int scorer_init(Scorer *s, const Cht *cht, const double *lightness, size_t max_patches, unsigned grid,
                       bool edges) {
        size_t n = cht->n_patches < max_patches ? cht->n_patches : max_patches;

        *s = (Scorer) { .cht = cht, .lightness = lightness, .n_patches = n, .grid = grid,
                        .inset = edges ? 0.0 : cht->shrink, .spread = edges ? 0.9 : grid == 2 ? 0.5 : 0.7,
                        .edges = edges };
        s->patches = calloc(n, sizeof(size_t));
        s->points = calloc(n * grid * grid, sizeof *s->points);
        s->at = calloc(n * grid * grid, sizeof *s->at);
        s->means = calloc(n * 3, sizeof(double));
        if (!s->patches || !s->points || !s->at || !s->means)
                return -ENOMEM;
        double (*pt)[2] = s->points, lo = (1 - s->spread) / 2;
        for (size_t k = 0; k < n; k++) {
                s->patches[k] = k * cht->n_patches / n;
                const ChtPatch *p = &cht->patches[s->patches[k]];
                double bw = p->w - 2 * s->inset, bh = p->h - 2 * s->inset;
                for (unsigned j = 0; j < grid; j++)
                        for (unsigned i = 0; i < grid; i++, pt++) {
                                (*pt)[0] = p->x + s->inset + bw * (lo + s->spread * i / (grid - 1));
                                (*pt)[1] = p->y + s->inset + bh * (lo + s->spread * j / (grid - 1));
                        }
        }
        return 0;
}

static void scorer_done(Scorer *s) {
        free(s->patches);
        free(s->points);
        free(s->at);
        free(s->means);
}

int chart_find(const Image *img, const Cht *cht, const double *lightness, const double *user_corners,
               ChartPlacement *ret) {
        _cleanup_(work_done) Work fine = {}, coarse = {};
        _cleanup_(scorer_done) Scorer sc_coarse = {}, sc_fine = {}, sc_final = {};
        Candidate cand[CANDIDATES];
        double best_corners[8], best = INFINITY;
        int r;

        r = work_from_image(img, FINE_SIDE, &fine);
        if (r == -EINVAL) {
                *ret = (ChartPlacement) { .found = false };
                return 0;
        }
        if (r < 0)
                return r;
        r = work_halve(&fine, &coarse);
        if (r == -EINVAL) {
                *ret = (ChartPlacement) { .found = false };
                return 0;
        }
        if (r < 0)
                return r;
        r = scorer_init(&sc_coarse, cht, lightness, COARSE_PATCHES, 2, false);
        if (r < 0)
                return r;
        r = scorer_init(&sc_fine, cht, lightness, REFINE_PATCHES, 6, true);
        if (r < 0)
                return r;
        r = scorer_init(&sc_final, cht, lightness, cht->n_patches, 5, false);
        if (r < 0)
                return r;

        for (size_t i = 0; i < CANDIDATES; i++)
                cand[i].score = INFINITY;
        if (user_corners)
                memcpy(cand[0].corners, user_corners, sizeof cand[0].corners), cand[0].score = 0;
        else
                coarse_search(&sc_coarse, &coarse, &fine, cand);

        double width_px = hypot(cand[0].corners[2] - cand[0].corners[0], cand[0].corners[3] - cand[0].corners[1]);
        for (size_t i = 0; i < CANDIDATES && isfinite(cand[i].score); i++) {
                double c[8], u0 = cht->corners[0], u1 = cht->corners[2];
                memcpy(c, cand[i].corners, sizeof c);
                double step = fmax(width_px * patch_pitch(cht) / fabs(u1 - u0) / 6.0, fine.scale);
                refine(&sc_fine, &coarse, c, step);
                double s = refine(&sc_fine, &fine, c, fine.scale * 2);
                if (s < best) {
                        best = s;
                        memcpy(best_corners, c, sizeof c);
                }
        }
        if (!isfinite(best)) {
                *ret = (ChartPlacement) { .found = false };
                return 0;
        }
        /* the final figures: the middles of all patches (what will be sampled), fine copy */
        *ret = (ChartPlacement) {};
        memcpy(ret->corners, best_corners, sizeof best_corners);
        score(&sc_final, &fine, best_corners, &ret->correlation, &ret->uniformity);
        r = homography_from_corners(cht->corners, best_corners, ret->h);
        if (r < 0)
                return 0;
        ret->found = ret->correlation >= CHART_FIND_MIN_CORRELATION && ret->uniformity <= CHART_FIND_MAX_UNIFORMITY;
        return 0;
}
