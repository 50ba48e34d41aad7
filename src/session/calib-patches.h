/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The colour patches a display calibration measures, per quality level: pure, no I/O.
 * White comes first and black second (the run normalises to white and fits the black
 * offset), then a ramp per channel and a grey ramp (the shaper curves are fitted to these),
 * then an RGB cube (for the matrix). No patch is repeated. */
#pragma once

#include <stddef.h>

typedef struct CalibPatch {
        double rgb[3]; /* device values, 0..1 */
} CalibPatch;

/* Quality as colord's Start option: 0 low, 1 medium, 2 high. */
#define CALIB_QUALITY_MAX 2

/* The patches for a quality level (malloc'd); -EINVAL for an unknown level, -ENOMEM. */
int calib_patches(unsigned quality, CalibPatch **ret, size_t *ret_n);
