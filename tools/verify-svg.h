/* SPDX-License-Identifier: GPL-2.0-or-later */
/* verify-svg: the picture of `tinct verify --svg` (verb-verify.c measures; this file only
 * draws): per patch, the colour the profile expects and the colour measured side by side
 * (as sRGB), the ΔE00 as a number and a bar, and the mean and maximum above.
 * Not here: the measurement, the arithmetic (src/profile-build/display-verify.c). */
#pragma once

#include "display-verify.h"

/* Writes the picture to the file out (replaced atomically). Returns 0 or a negative errno. */
int verify_svg_write(const char *out, const DisplayVerify *v, const char *device_id, const char *profile_id,
                     const char *date);
