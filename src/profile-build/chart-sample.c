/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Patch sampling (chart-sample.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart-find.h"
#include "chart-sample.h"

static void swap_double(double *a, double *b) {
        double t = *a;
        *a = *b;
        *b = t;
}

/* The k-th smallest of v[0..n) (k < n), v reordered so that v[0..k) holds the k smallest:
 * quickselect (a sort was most of the sampling's time), the pivot the median of three, values
 * equal to it gathered in the middle (Dijkstra's three-way partition) so that a flat patch
 * costs one pass. */
static double select_kth(double *v, size_t n, size_t k) {
        size_t lo = 0, hi = n; /* the k-th lies in v[lo..hi); what is left of lo is no larger */

        while (hi - lo > 1) {
                double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
                double p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
                size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < p, [lt, i) = p, [gt, hi) > p */
                while (i < gt) {
                        if (v[i] < p)
                                swap_double(&v[lt++], &v[i++]);
                        else if (v[i] > p)
                                swap_double(&v[i], &v[--gt]);
                        else
                                i++;
                }
                if (k < lt)
                        hi = lt;
                else if (k >= gt)
                        lo = gt;
                else
                        return p;
        }
        return v[lo];
}

static double median(double *v, size_t n) {
        double upper = select_kth(v, n, n / 2), lower = -INFINITY;

        if (n % 2)
                return upper;
        for (size_t i = 0; i < n / 2; i++) /* the largest of the smaller half */
                lower = fmax(lower, v[i]);
        return (lower + upper) / 2;
}

static bool image_sample(const Image *img, double x, double y, double ret[3]) {
        x -= 0.5;
        y -= 0.5;
        if (!(x >= 0.0 && y >= 0.0 && x <= img->width - 1.001 && y <= img->height - 1.001))
                return false;
        unsigned x0 = (unsigned) x, y0 = (unsigned) y;
        double fx = x - x0, fy = y - y0;
        for (unsigned c = 0; c < 3; c++)
                ret[c] = (1 - fy) * ((1 - fx) * image_at(img, x0, y0, c) + fx * image_at(img, x0 + 1, y0, c)) +
                         fy * ((1 - fx) * image_at(img, x0, y0 + 1, c) + fx * image_at(img, x0 + 1, y0 + 1, c));
        return true;
}

static int sample_patch(const Image *img, const Cht *cht, const ChtPatch *p, const double h[9], double *pts,
                        double *scratch, PatchSample *ret) {
        double u0 = p->x + cht->shrink, v0 = p->y + cht->shrink;
        double bw = p->w - 2 * cht->shrink, bh = p->h - 2 * cht->shrink;
        double x0, y0, x1, y1;
        unsigned side;

        /* one point per image pixel across the inner area, at most CHART_SAMPLE_MAX_POINTS */
        homography_apply(h, u0, v0, &x0, &y0);
        homography_apply(h, u0 + bw, v0 + bh, &x1, &y1);
        side = (unsigned) fmin(fmax(hypot(x1 - x0, y1 - y0) * 0.8 / M_SQRT2, 3.0), CHART_SAMPLE_MAX_POINTS);
        size_t n = 0;
        for (unsigned j = 0; j < side; j++)
                for (unsigned i = 0; i < side; i++) {
                        double u = u0 + bw * (0.1 + 0.8 * (i + 0.5) / side), v = v0 + bh * (0.1 + 0.8 * (j + 0.5) / side);
                        double x, y;
                        homography_apply(h, u, v, &x, &y);
                        if (!image_sample(img, x, y, &pts[4 * n]))
                                return -ERANGE;
                        pts[4 * n + 3] = (i >= side / 2) + 2 * (j >= side / 2); /* quadrant */
                        n++;
                }

        double med[3], sd[3];
        for (unsigned c = 0; c < 3; c++) {
                for (size_t k = 0; k < n; k++)
                        scratch[k] = pts[4 * k + c];
                med[c] = median(scratch, n);
                for (size_t k = 0; k < n; k++)
                        scratch[k] = fabs(pts[4 * k + c] - med[c]);
                /* 1.4826 MAD: the standard deviation of normal noise; a floor of 16-bit steps */
                sd[c] = fmax(1.4826 * median(scratch, n), 2.0 / 65535.0);
        }
        double sum[3] = {}, quad[4][3] = {}, nq[4] = {};
        size_t kept = 0, high = 0, low = 0;
        for (size_t k = 0; k < n; k++) {
                const double *q = &pts[4 * k];
                bool out = false;
                for (unsigned c = 0; c < 3; c++) {
                        out = out || fabs(q[c] - med[c]) > 3 * sd[c];
                        if (q[c] >= 65534.0 / 65535.0)
                                high++;
                        if (q[c] <= 1.0 / 65535.0)
                                low++;
                }
                if (out)
                        continue;
                kept++;
                nq[(int) q[3]]++;
                for (unsigned c = 0; c < 3; c++) {
                        sum[c] += q[c];
                        quad[(int) q[3]][c] += q[c];
                }
        }
        *ret = (PatchSample) { .n_points = n, .n_dropped = n - kept };
        for (unsigned c = 0; c < 3; c++) {
                ret->rgb[c] = kept > 0 ? sum[c] / kept : med[c];
                ret->sd[c] = sd[c];
        }
        ret->clipped_high = high > CHART_SAMPLE_CLIPPED * n;
        ret->clipped_low = low > CHART_SAMPLE_CLIPPED * n;
        /* uneven: left against right half, top against bottom, beyond what noise explains */
        for (unsigned c = 0; c < 3; c++) {
                if (nq[0] + nq[2] == 0 || nq[1] + nq[3] == 0 || nq[0] + nq[1] == 0 || nq[2] + nq[3] == 0)
                        break;
                double l = (quad[0][c] + quad[2][c]) / (nq[0] + nq[2]), r = (quad[1][c] + quad[3][c]) / (nq[1] + nq[3]);
                double t = (quad[0][c] + quad[1][c]) / (nq[0] + nq[1]), b = (quad[2][c] + quad[3][c]) / (nq[2] + nq[3]);
                double d = fmax(fabs(l - r), fabs(t - b));
                ret->unevenness = fmax(ret->unevenness, d);
                if (d > CHART_SAMPLE_UNEVEN + 6 * sd[c] / sqrt((double) kept))
                        ret->uneven = true;
        }
        return 0;
}

int chart_sample(const Image *img, const Cht *cht, const double h[9], PatchSample *ret) {
        size_t max = (size_t) CHART_SAMPLE_MAX_POINTS * CHART_SAMPLE_MAX_POINTS;
        _cleanup_free_ double *pts = calloc(max * 4, sizeof(double)), *scratch = calloc(max, sizeof(double));
        int r;

        if (!pts || !scratch)
                return -ENOMEM;
        for (size_t i = 0; i < cht->n_patches; i++) {
                r = sample_patch(img, cht, &cht->patches[i], h, pts, scratch, &ret[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}
