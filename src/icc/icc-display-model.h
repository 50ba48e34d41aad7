/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An RGB profile read as the true response of a display: which XYZ the screen emits for an
 * RGB value it is sent, as an instrument held to it would measure (the dummy sensor's
 * virtual display, docs/compatibility.md). Bytes in, numbers out, on lcms2; no files, no
 * bus, no logging. Deliberately not here: the video card ramp (vcgt) — the model is the
 * panel after it, the caller sends the values that leave the ramp — and noise or
 * luminance scaling, which are the sensor's. */
#pragma once

#include <stddef.h>

#include "macro.h"

typedef struct IccDisplayModel IccDisplayModel;

/* 0, or -EBADMSG when lcms2 cannot read the profile or transform from it, -EMEDIUMTYPE when
 * it is not an RGB profile, -ENOMEM; ret_error (optional) says why. */
int icc_display_model_new(const void *data, size_t size, IccDisplayModel **ret, char **ret_error);
IccDisplayModel *icc_display_model_free(IccDisplayModel *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(IccDisplayModel *, icc_display_model_free);

/* rgb (each clamped to 0..1) to the XYZ the display emits, scaled so that white (1,1,1) has
 * Y = 1: the profile's relative colorimetric RGB→PCS transform, then its adaptation to the
 * D50 PCS undone (the inverse of 'chad', ICC.1:2010 Annex G; without 'chad', Bradford from
 * D50 to the media white point 'wtpt', as v2 profiles record the display's own white
 * there). */
void icc_display_model_xyz(const IccDisplayModel *m, const double rgb[3], double ret_xyz[3]);

/* The 'lumi' tag's Y (cd/m², ICC.1:2010 9.2.32), or 0 when the profile has none. */
double icc_display_model_luminance(const IccDisplayModel *m);
