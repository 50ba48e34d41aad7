/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Gamut arithmetic on chromaticity triangles: areas, the part of one triangle inside
 * another, CIE 1976 u'v', the CIE 1931 spectral locus. Pure maths, no files, no colour
 * library: `tinct gamut` (tools/verb-gamut.c) reads the primaries and prints these. */
#pragma once

typedef struct GamutPoint {
        double x, y;
} GamutPoint;

typedef struct GamutSpace {
        const char *name;
        GamutPoint primaries[3]; /* red, green, blue, CIE 1931 xy */
} GamutSpace;

/* sRGB, Display P3, Adobe RGB (1998), ITU-R BT.2020, in that order (their standards' xy). */
extern const GamutSpace gamut_references[4];

/* CIE 1976 u'v' of an xy point. */
GamutPoint gamut_xy_to_uv(GamutPoint xy);
/* Area of a triangle (any orientation). */
double gamut_triangle_area(const GamutPoint t[3]);
/* Area of the intersection of two triangles. */
double gamut_intersection_area(const GamutPoint a[3], const GamutPoint b[3]);

typedef struct GamutFigures {
        double coverage;  /* share of the reference's area that the gamut covers, 0..1 */
        double relative;  /* the gamut's area over the reference's (can exceed 1) */
} GamutFigures;

/* Coverage and relative area of gamut against reference, in xy (uv false) or u'v' (true). */
GamutFigures gamut_compare(const GamutPoint gamut_xy[3], const GamutPoint reference_xy[3], int uv);

/* The spectral locus from the CIE 1931 2° colour-matching functions (CIE 15, table of
 * x̄ ȳ z̄ at 5 nm): GAMUT_LOCUS_POINTS wavelengths, GAMUT_LOCUS_FIRST_NM and every
 * GAMUT_LOCUS_STEP_NM after it, up to 780 nm. */
#define GAMUT_LOCUS_FIRST_NM 380
#define GAMUT_LOCUS_STEP_NM 5
#define GAMUT_LOCUS_POINTS 81
/* The wavelength of point i of the locus, in nm. */
int gamut_locus_nm(int i);
/* CIE 1931 xy of point i (0 <= i < GAMUT_LOCUS_POINTS). */
GamutPoint gamut_spectral_locus_xy(int i);
