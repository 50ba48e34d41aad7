/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The chromaticities of an RGB profile's primaries, for gamut figures (`tinct gamut`). Bytes
 * in, CIE 1931 xy out; no files, no bus. */
#pragma once

#include <stddef.h>

/* Red, green, blue as xy, undoing the adaptation to the D50 PCS the profile records in its
 * 'chad' tag (ICC.1:2010 Annex G), so they are the device's own (a v2 profile without 'chad'
 * gives its D50-adapted values). 0; -EBADMSG when lcms2 cannot read the profile; -EMEDIUMTYPE
 * when it is not an RGB profile; ret_error (optional) says why. */
int icc_rgb_primaries(const void *data, size_t size, double ret_xy[3][2], char **ret_error);
