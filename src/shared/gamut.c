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

/* CIE 1931 2° standard observer: the colour-matching functions x̄(λ), ȳ(λ), z̄(λ) at 5 nm from
 * 380 to 780 nm (the published table, CIE 15). The chromaticities are computed from them
 * rather than tabulated, so the curve is the table's own. */
static const double cmf_1931_2deg[GAMUT_LOCUS_POINTS][3] = {
        /* 380 */ { 0.001368, 3.9e-05, 0.006450001 },
        /* 385 */ { 0.002236, 6.4e-05, 0.01054999 },
        /* 390 */ { 0.004243, 0.00012, 0.02005001 },
        /* 395 */ { 0.00765, 0.000217, 0.03621 },
        /* 400 */ { 0.01431, 0.000396, 0.06785001 },
        /* 405 */ { 0.02319, 0.00064, 0.1102 },
        /* 410 */ { 0.04351, 0.00121, 0.2074 },
        /* 415 */ { 0.07763, 0.00218, 0.3713 },
        /* 420 */ { 0.13438, 0.004, 0.6456 },
        /* 425 */ { 0.21477, 0.0073, 1.03905 },
        /* 430 */ { 0.2839, 0.0116, 1.3856 },
        /* 435 */ { 0.3285, 0.01684, 1.62296 },
        /* 440 */ { 0.34828, 0.023, 1.74706 },
        /* 445 */ { 0.34806, 0.0298, 1.7826 },
        /* 450 */ { 0.3362, 0.038, 1.77211 },
        /* 455 */ { 0.3187, 0.048, 1.7441 },
        /* 460 */ { 0.2908, 0.06, 1.6692 },
        /* 465 */ { 0.2511, 0.0739, 1.5281 },
        /* 470 */ { 0.19536, 0.09098, 1.28764 },
        /* 475 */ { 0.1421, 0.1126, 1.0419 },
        /* 480 */ { 0.09564, 0.13902, 0.8129501 },
        /* 485 */ { 0.05795001, 0.1693, 0.6162 },
        /* 490 */ { 0.03201, 0.20802, 0.46518 },
        /* 495 */ { 0.0147, 0.2586, 0.3533 },
        /* 500 */ { 0.0049, 0.323, 0.272 },
        /* 505 */ { 0.0024, 0.4073, 0.2123 },
        /* 510 */ { 0.0093, 0.503, 0.1582 },
        /* 515 */ { 0.0291, 0.6082, 0.1117 },
        /* 520 */ { 0.06327, 0.71, 0.07824999 },
        /* 525 */ { 0.1096, 0.7932, 0.05725001 },
        /* 530 */ { 0.1655, 0.862, 0.04216 },
        /* 535 */ { 0.2257499, 0.9148501, 0.02984 },
        /* 540 */ { 0.2904, 0.954, 0.0203 },
        /* 545 */ { 0.3597, 0.9803, 0.0134 },
        /* 550 */ { 0.4334499, 0.9949501, 0.008749999 },
        /* 555 */ { 0.5120501, 1, 0.005749999 },
        /* 560 */ { 0.5945, 0.995, 0.0039 },
        /* 565 */ { 0.6784, 0.9786, 0.002749999 },
        /* 570 */ { 0.7621, 0.952, 0.0021 },
        /* 575 */ { 0.8425, 0.9154, 0.0018 },
        /* 580 */ { 0.9163, 0.87, 0.001650001 },
        /* 585 */ { 0.9786, 0.8163, 0.0014 },
        /* 590 */ { 1.0263, 0.757, 0.0011 },
        /* 595 */ { 1.0567, 0.6949, 0.001 },
        /* 600 */ { 1.0622, 0.631, 0.0008 },
        /* 605 */ { 1.0456, 0.5668, 0.0006 },
        /* 610 */ { 1.0026, 0.503, 0.00034 },
        /* 615 */ { 0.9384, 0.4412, 0.00024 },
        /* 620 */ { 0.8544499, 0.381, 0.00019 },
        /* 625 */ { 0.7514, 0.321, 0.0001 },
        /* 630 */ { 0.6424, 0.265, 4.999999e-05 },
        /* 635 */ { 0.5419, 0.217, 3e-05 },
        /* 640 */ { 0.4479, 0.175, 2e-05 },
        /* 645 */ { 0.3608, 0.1382, 1e-05 },
        /* 650 */ { 0.2835, 0.107, 0 },
        /* 655 */ { 0.2187, 0.0816, 0 },
        /* 660 */ { 0.1649, 0.061, 0 },
        /* 665 */ { 0.1212, 0.04458, 0 },
        /* 670 */ { 0.0874, 0.032, 0 },
        /* 675 */ { 0.0636, 0.0232, 0 },
        /* 680 */ { 0.04677, 0.017, 0 },
        /* 685 */ { 0.0329, 0.01192, 0 },
        /* 690 */ { 0.0227, 0.00821, 0 },
        /* 695 */ { 0.01584, 0.005723, 0 },
        /* 700 */ { 0.01135916, 0.004102, 0 },
        /* 705 */ { 0.008110916, 0.002929, 0 },
        /* 710 */ { 0.005790346, 0.002091, 0 },
        /* 715 */ { 0.004109457, 0.001484, 0 },
        /* 720 */ { 0.002899327, 0.001047, 0 },
        /* 725 */ { 0.00204919, 0.00074, 0 },
        /* 730 */ { 0.001439971, 0.00052, 0 },
        /* 735 */ { 0.0009999493, 0.0003611, 0 },
        /* 740 */ { 0.0006900786, 0.0002492, 0 },
        /* 745 */ { 0.0004760213, 0.0001719, 0 },
        /* 750 */ { 0.0003323011, 0.00012, 0 },
        /* 755 */ { 0.0002348261, 8.48e-05, 0 },
        /* 760 */ { 0.0001661505, 6e-05, 0 },
        /* 765 */ { 0.000117413, 4.24e-05, 0 },
        /* 770 */ { 8.307527e-05, 3e-05, 0 },
        /* 775 */ { 5.870652e-05, 2.12e-05, 0 },
        /* 780 */ { 4.150994e-05, 1.499e-05, 0 },
};

int gamut_locus_nm(int i) {
        return GAMUT_LOCUS_FIRST_NM + i * GAMUT_LOCUS_STEP_NM;
}

GamutPoint gamut_spectral_locus_xy(int i) {
        const double *c = cmf_1931_2deg[i];
        double sum = c[0] + c[1] + c[2];
        return (GamutPoint) { c[0] / sum, c[1] / sum };
}
