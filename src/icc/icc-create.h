/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Building an ICC v4 display profile in memory from a display's colorimetry (primaries,
 * white point, gamma), on top of lcms2: matrix/shaper, a 'meta' dictionary, optional 'lumi'.
 * The output is deterministic: same input, same bytes (fixed header date, computed profile
 * ID), so a regenerated EDID profile does not look like a new one.
 *
 * Deliberately not here: where the numbers come from (EDID decoding is src/edid, the mapping
 * from an EDID is src/edid-icc), files, logging. This module never includes EDID headers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

typedef struct IccXY {
        double x, y;                    /* CIE 1931 chromaticity */
} IccXY;

/* Plausibility limits: outside them the numbers are treated as junk rather than as a
 * display (junk EDIDs exist: all-zero chromaticities, gamma bytes of 0xFF, ...). */
#define ICC_CREATE_GAMMA_MIN 1.0
#define ICC_CREATE_GAMMA_MAX 5.0
#define ICC_CREATE_XY_SUM_TOLERANCE 0.02

typedef struct IccDisplayParams {
        IccXY red, green, blue, white;
        double gamma;                   /* pure power-law TRC, same for the three channels */
        bool has_luminance;
        double luminance;               /* white luminance in cd/m², written as 'lumi' */
        const char *description;        /* 'desc', e.g. "Dell U2713H"; required */
        const char *manufacturer;       /* 'dmnd', optional */
        const char *model;              /* 'dmdd', optional */
        const char *copyright;          /* 'cprt', optional */
        /* 'meta' dictionary as key, value, key, value, ..., NULL (UTF-8); optional. Entries
         * with an empty or NULL value are skipped, so callers can pass optional values. */
        const char *const *metadata;
} IccDisplayParams;

/* Fixed header creation date (ICC.1 §7.2.8) of every generated profile: 2000-01-01 00:00:00. */
#define ICC_CREATE_DATE_YEAR 2000

/* Checks the colorimetry is something a display could have: every x and y finite and in
 * [0, 1], not all of them zero, x + y <= 1 (+ tolerance), y > 0 for the white point and the
 * primaries, primaries spanning a non-degenerate triangle, gamma in [1.0, 5.0], luminance (if
 * given) in (0, 100000] cd/m², a description. Returns 0, or -EINVAL with *ret_reason pointing
 * to a static description of the first problem found. */
int icc_display_params_check(const IccDisplayParams *p, const char **ret_reason);

/* Builds the profile. Returns 0 with *ret_data (malloc'd, caller frees) and *ret_size, or a
 * negative errno with *ret_reason set to a static explanation: -EINVAL for implausible input,
 * -ENOMEM, -EIO when lcms2 refuses (e.g. a matrix it cannot invert). */
int icc_create_display_profile(const IccDisplayParams *p, void **ret_data, size_t *ret_size,
                               const char **ret_reason);
