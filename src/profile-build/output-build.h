/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An output-class (printer) ICC profile from measurements: the A2B grid fitted by
 * output-fit.c, B2A grids by output-invert.c (B2A1 colorimetric, B2A0 and B2A2 perceptual),
 * the 'gamt' tag, encoded with lcms2 as v4 (lutAtoB/lutBtoA) or v2 (lut16), then read back
 * through lcms2 and scored: the A2B against the measurements, and the round trip
 * Lab → B2A1 → A2B1 on the measured colours (docs/printer-profiles.md).
 *
 * Memory in, memory out; deterministic. Not here: files, logging, the numerics. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output-invert.h"
#include "output-samples.h"
#include "profile-build.h"

#define OUTPUT_A2B_GRID_RGB 33u
#define OUTPUT_A2B_GRID_CMYK 17u
#define OUTPUT_B2A_GRID 33u

#define OUTPUT_BUILD_DEFAULT_DESCRIPTION "Printer profile (tinct profile-build)"

typedef struct OutputBuildReport {
        double smoothness, cv_mean;                     /* the A2B fit (output-fit.h) */
        /* the written profile through lcms2 (relative colorimetric) against its measurements */
        double de2000_mean, de2000_max;
        double de76_mean, de76_max, de76_rms;
        /* Lab → B2A1 → A2B1 on the measured colours */
        double round_trip_mean, round_trip_max;
        double black_lightness;                         /* L* of the darkest printable colour */
        double max_ink;                                 /* the largest CMYK total in B2A1 (0..4) */
        unsigned a2b_grid, b2a_grid;
} OutputBuildReport;

/* options: as for displays (description NULL: OUTPUT_BUILD_DEFAULT_DESCRIPTION); ink_limit:
 * the CMYK total (1..4; 0: none); black: CMYK's black generation (output-invert.h). Errors
 * as profile_build(). */
int output_build(const OutputSamples *samples, const ProfileBuildOptions *options, double ink_limit,
                 OutputBlack black, uint8_t **ret_icc, size_t *ret_len, OutputBuildReport *ret_report,
                 const char **ret_reason);
