/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Gamut arithmetic (see gamut.h). The intersection clips one triangle by the three edges of
 * the other (Sutherland–Hodgman: both are convex) and measures the polygon left. */
#include "gamut.h"

#include <math.h>
#include <stddef.h>

const GamutSpace gamut_references[4] = {
        { "sRGB", { { 0.640, 0.330 }, { 0.300, 0.600 }, { 0.150, 0.060 } } },            /* IEC 61966-2-1 */
        { "Display P3", { { 0.680, 0.320 }, { 0.265, 0.690 }, { 0.150, 0.060 } } },      /* SMPTE EG 432-1 */
        { "Adobe RGB", { { 0.640, 0.330 }, { 0.210, 0.710 }, { 0.150, 0.060 } } },       /* Adobe RGB (1998) */
        { "BT.2020", { { 0.708, 0.292 }, { 0.170, 0.797 }, { 0.131, 0.046 } } },         /* ITU-R BT.2020 */
};

GamutPoint gamut_xy_to_uv(GamutPoint p) {
        double d = -2 * p.x + 12 * p.y + 3;
        return (GamutPoint) { 4 * p.x / d, 9 * p.y / d };
}

static double polygon_area(const GamutPoint *p, size_t n) {
        double a = 0;
        for (size_t i = 0; i < n; i++) {
                const GamutPoint *q = &p[(i + 1) % n];
                a += p[i].x * q->y - q->x * p[i].y;
        }
        return fabs(a) / 2;
}

double gamut_triangle_area(const GamutPoint t[3]) {
        return polygon_area(t, 3);
}

static double cross(GamutPoint a, GamutPoint b, GamutPoint p) {
        return (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
}

/* Keeps the part of poly on the side of edge a→b where sign * cross >= 0. */
static size_t clip(const GamutPoint *poly, size_t n, GamutPoint a, GamutPoint b, double sign, GamutPoint *out) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
                GamutPoint cur = poly[i], next = poly[(i + 1) % n];
                double dc = sign * cross(a, b, cur), dn = sign * cross(a, b, next);
                if (dc >= 0)
                        out[m++] = cur;
                if ((dc >= 0) != (dn >= 0)) {
                        double t = dc / (dc - dn);
                        out[m++] = (GamutPoint) { cur.x + t * (next.x - cur.x), cur.y + t * (next.y - cur.y) };
                }
        }
        return m;
}

double gamut_intersection_area(const GamutPoint a[3], const GamutPoint b[3]) {
        /* A triangle clipped by three half-planes has at most 6 vertices; 12 leaves room. */
        GamutPoint poly[12], tmp[12];
        size_t n = 3;
        for (size_t i = 0; i < 3; i++)
                poly[i] = a[i];
        double orientation = cross(b[0], b[1], b[2]) >= 0 ? 1 : -1;
        for (size_t e = 0; e < 3 && n > 0; e++) {
                n = clip(poly, n, b[e], b[(e + 1) % 3], orientation, tmp);
                for (size_t i = 0; i < n; i++)
                        poly[i] = tmp[i];
        }
        return n < 3 ? 0 : polygon_area(poly, n);
}

GamutFigures gamut_compare(const GamutPoint gamut_xy[3], const GamutPoint reference_xy[3], int uv) {
        GamutPoint g[3], r[3];
        for (size_t i = 0; i < 3; i++) {
                g[i] = uv ? gamut_xy_to_uv(gamut_xy[i]) : gamut_xy[i];
                r[i] = uv ? gamut_xy_to_uv(reference_xy[i]) : reference_xy[i];
        }
        double ref = gamut_triangle_area(r);
        if (ref <= 0)
                return (GamutFigures) { 0, 0 };
        return (GamutFigures) { gamut_intersection_area(g, r) / ref, gamut_triangle_area(g) / ref };
}

/* CIE 1931 2° standard observer: chromaticities of the spectrum, 380..700 nm every 10 nm. */
static const GamutPoint spectral_locus[GAMUT_LOCUS_POINTS] = {
        { 0.1741, 0.0050 }, { 0.1738, 0.0049 }, { 0.1733, 0.0048 }, { 0.1726, 0.0048 }, { 0.1714, 0.0051 },
        { 0.1689, 0.0069 }, { 0.1644, 0.0109 }, { 0.1566, 0.0177 }, { 0.1440, 0.0297 }, { 0.1241, 0.0578 },
        { 0.0913, 0.1327 }, { 0.0454, 0.2950 }, { 0.0082, 0.5384 }, { 0.0139, 0.7502 }, { 0.0743, 0.8338 },
        { 0.1547, 0.8059 }, { 0.2296, 0.7543 }, { 0.3016, 0.6923 }, { 0.3731, 0.6245 }, { 0.4441, 0.5547 },
        { 0.5125, 0.4866 }, { 0.5752, 0.4242 }, { 0.6270, 0.3725 }, { 0.6658, 0.3340 }, { 0.6915, 0.3083 },
        { 0.7079, 0.2920 }, { 0.7190, 0.2809 }, { 0.7260, 0.2740 }, { 0.7300, 0.2700 }, { 0.7320, 0.2680 },
        { 0.7334, 0.2666 }, { 0.7344, 0.2656 }, { 0.7347, 0.2653 },
};

const GamutPoint *gamut_spectral_locus(void) {
        return spectral_locus;
}
