/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verification of a display against its profile (docs/verify.md): a fixed patch set, what
 * the profile predicts for each patch (lcms2, relative colorimetric, CIELAB D50), and the
 * comparison with what a sensor read (CIEDE2000 per patch, mean, max). Readings are taken
 * relative to the measured white's luminance and adapted to D50 with the profile's own
 * adaptation ('chad', or Bradford from a v2 'wtpt'), so a display whose white point drifted
 * shows it, and a change of brightness alone does not.
 *
 * Used by `tinct verify` and the session's calibration helper; memory in, memory out. Not
 * here: talking to the sensor, storing the result, drawing it. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "verify-keys.h"

#define DISPLAY_VERIFY_MAX_PATCHES 32u

typedef struct DisplayVerifyPatch {
        const char *name;
        double rgb[3];                  /* device values 0..1 */
        double expected_lab[3];         /* the profile's prediction */
        double measured_xyz[3];         /* the reading as the sensor gave it */
        double measured_lab[3];
        double de2000;
} DisplayVerifyPatch;

typedef struct DisplayVerify {
        size_t n;                       /* the patch set; patches[0] is white */
        DisplayVerifyPatch patches[DISPLAY_VERIFY_MAX_PATCHES];
        double adapt[9];                /* the profile's white → D50 adaptation, row-major */
        double mean, max;               /* CIEDE2000 over the patches */
} DisplayVerify;

/* The patch set alone (before there is a profile: the calibration helper measures it with
 * its own patches): how many, and the device values of patch i. */
size_t display_verify_n_patches(void);
void display_verify_patch_rgb(size_t i, double ret_rgb[3]);

/* The patch set with the profile's predictions. -EINVAL (*ret_reason) when the profile is
 * not an RGB profile lcms2 can use; -ENOMEM. */
int display_verify_prepare(const uint8_t *icc, size_t len, DisplayVerify *ret, const char **ret_reason);

/* Fills in the readings (XYZ in any scale, cd/m² from a sensor; measured_xyz set for every
 * patch) and the differences. -EINVAL (*ret_reason) when the white reads no light. */
int display_verify_compare(DisplayVerify *v, const char **ret_reason);

/* sRGB (8 bits per channel) of a CIELAB D50 colour, clipped: for drawing swatches. */
void display_verify_lab_to_srgb8(const double lab[3], uint8_t ret[3]);

/* Where a result is stored: the device's Metadata (Device.SetProperty, colord §3.3), one key
 * per figure under a prefix (verify-keys.h): DISPLAY_VERIFY_LAST for the latest `tinct
 * verify`, DISPLAY_VERIFY_PROFILED for the calibration helper's check right after profiling. */
#define DISPLAY_VERIFY_LAST VERIFY_KEYS_LAST
#define DISPLAY_VERIFY_PROFILED VERIFY_KEYS_PROFILED
#define DISPLAY_VERIFY_N_KEYS VERIFY_N_KEYS

/* The key/value pairs of a result under a prefix, in the order to write them: KEY_dE2000_mean,
 * _dE2000_max, _profile (the profile id verified against), _patches, and _date (ISO 8601 UTC)
 * last, which makes the daemon record the result (verify-keys.h). */
typedef struct DisplayVerifyRecord {
        char keys[DISPLAY_VERIFY_N_KEYS][48];
        char values[DISPLAY_VERIFY_N_KEYS][160];
} DisplayVerifyRecord;
void display_verify_record(const DisplayVerify *v, const char *prefix, const char *profile_id, time_t when,
                           DisplayVerifyRecord *ret);

/* "YYYY-MM-DDTHH:MM:SSZ" */
void display_verify_format_time(time_t when, char buf[32]);
