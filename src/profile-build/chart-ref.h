/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A chart's reference values: CGATS files with XYZ or Lab per patch, as argyll-ref's .cie
 * files and vendors' IT8.7 files give them (docs/profile-build.md). Also knows both editions
 * of X-Rite's ColorChecker 24 (before and after November 2014), to say which one a
 * reference holds.
 *
 * Not here: files, the chart's geometry (cht.c). */
#pragma once

#include <stddef.h>

#include "cgats.h"
#include "macro.h"

typedef struct ChartRef {
        size_t n;
        char **names;           /* SAMPLE_LOC if the file has it, else SAMPLE_ID */
        double (*xyz)[3];       /* D50, the perfect white diffuser Y = 1 */
} ChartRef;

/* Reads the first table: a name field (SAMPLE_LOC or SAMPLE_ID) and XYZ_X XYZ_Y XYZ_Z
 * (0..100) or LAB_L LAB_A LAB_B (D50). Errors as cgats_parse() (caller frees *ret_error). */
int chart_ref_parse(const char *buf, size_t len, ChartRef **ret, char **ret_error);
ChartRef *chart_ref_free(ChartRef *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(ChartRef *, chart_ref_free);

typedef enum ColorCheckerEdition {
        COLORCHECKER_NONE,      /* not a ColorChecker 24 reference */
        COLORCHECKER_PRE_2014,  /* GretagMacbeth / X-Rite values before November 2014 */
        COLORCHECKER_POST_2014, /* X-Rite's values from November 2014 on */
} ColorCheckerEdition;

/* Which edition 24 Lab values (in the chart's A1..D6 order: dark skin first, black last)
 * are closest to, if within a mean CIEDE2000 of 2.5 of either. */
ColorCheckerEdition colorchecker_edition(const double (*lab)[3], size_t n);
/* The other edition's values of patch i (0..23) as D50 XYZ. */
void colorchecker_xyz(ColorCheckerEdition e, size_t i, double ret[3]);
const char *colorchecker_edition_name(ColorCheckerEdition e);
