/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An input-class ('scnr') ICC profile from a fitted input model (input-fit.h), v4.3 or v2.4:
 * matrix/shaper (rXYZ gXYZ bXYZ, rTRC gTRC bTRC) or LUT (A2B0: the shaper curves, then a
 * INPUT_FIT_GRID³ CLUT to the XYZ PCS), 'wtpt' D50, 'desc', 'cprt' and a 'meta' dictionary
 * recording the chart, the patch count and the self-fit and cross-validated CIEDE2000
 * (docs/profile-build.md). The written profile is read back through lcms2 and scored against
 * the patches. Deterministic: same fit, same bytes.
 *
 * Not here: the fit (input-fit.c), files. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input-fit.h"

typedef struct InputIccOptions {
        bool v2;
        const char *description;        /* NULL: "Input profile (tinct profile-build)" */
        const char *copyright;          /* NULL: as for displays */
        const char *cmf_binary;
        const char *chart;              /* the layout's name, e.g. "ColorChecker.cht" */
        const char *reference;          /* the reference file's name */
} InputIccOptions;

/* Writes the profile. *ret_self_mean/_max (if not NULL): the profile as lcms2 reads it
 * (relative colorimetric) against the patches. Returns 0, -ENOMEM, or -EIO with *ret_reason. */
int input_icc_build(const InputFit *f, const InputSample *s, size_t n, const InputIccOptions *o, uint8_t **ret,
                    size_t *ret_len, double *ret_self_mean, double *ret_self_max, const char **ret_reason);
