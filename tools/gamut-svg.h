/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gamut-svg: the chromaticity diagram of `tinct gamut --svg` (verb-gamut.c computes the
 * figures; this file only draws). CIE 1931 xy, or CIE 1976 u'v' with --uv: the spectral
 * locus from the 2° colour-matching functions (src/shared/gamut.c), named axes with a 0.1
 * grid, wavelength ticks along the locus, the four reference gamuts, each profile's gamut
 * and a legend beside the plot. Not here: the arithmetic, reading profiles. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gamut.h"

typedef struct GamutSvgEntry {
        const char *label;  /* shown in the legend (a file name) */
        GamutPoint xy[3];   /* red, green, blue primaries, CIE 1931 xy */
} GamutSvgEntry;

/* Writes the diagram to the file out (replaced atomically). Returns 0 or a negative errno. */
int gamut_svg_write(const char *out, const GamutSvgEntry *entries, size_t n, bool uv);

/* Text for an SVG (XML) attribute or element: markup escaped; control characters and bytes
 * that are not UTF-8 become '?'. Also used by verify-svg.c. */
void svg_put_text(FILE *f, const char *s);
