/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A matrix/shaper ICC display profile from display measurements: the model fitted by
 * profile-fit.c, encoded with lcms2 (v4 by default, v2 on request), then read back through
 * lcms2 and scored against the same measurements. Used by `tinct profile-build` and meant
 * for the session's calibration helper: memory in, memory out, no files.
 *
 * The profile: display class, RGB → XYZ PCS, 'wtpt' (D50 in v4; the measured white in v2,
 * as v2 readers expect), 'chad' (Bradford, measured white → D50), rXYZ/gXYZ/bXYZ adapted to
 * D50, rTRC/gTRC/bTRC sampled (PROFILE_BUILD_CURVE_ENTRIES), 'desc', 'cprt', 'lumi' when the
 * luminance is known, and a 'meta' dictionary in colord's keys (DATA_source=calib, CMF_*,
 * ACCURACY_dE76_*, MEASUREMENT_device). Deterministic: same input, same bytes.
 *
 * Not here: reading files (cgats.c), the fit itself (profile-fit.c), logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lcms2.h>

#include "cgats.h"
#include "profile-fit.h"

#define PROFILE_BUILD_CURVE_ENTRIES 1024u

typedef struct ProfileBuildOptions {
        bool v2;                        /* ICC v2.4 instead of v4.3 */
        const char *description;        /* 'desc'; NULL: PROFILE_BUILD_DEFAULT_DESCRIPTION */
        const char *copyright;          /* 'cprt'; NULL: PROFILE_BUILD_DEFAULT_COPYRIGHT */
        const char *cmf_binary;         /* metadata CMF_binary; NULL: "tinct" */
        /* further 'meta' entries, key, value, ..., NULL (e.g. MAPPING_device_id); optional */
        const char *const *metadata;
} ProfileBuildOptions;

#define PROFILE_BUILD_DEFAULT_DESCRIPTION "Display profile (tinct profile-build)"
#define PROFILE_BUILD_DEFAULT_COPYRIGHT "No copyright, use freely"

typedef struct ProfileBuildReport {
        ProfileFit fit;                 /* the model, its white, black and own errors */
        /* the written profile as lcms2 reads it (relative colorimetric, D50) against the
         * measurements it was built from */
        double de2000_mean, de2000_max, de2000_rms;
        double de76_mean, de76_max, de76_rms;
        bool has_luminance;
        double luminance[3];            /* 'lumi', cd/m² */
} ProfileBuildReport;

/* Builds the profile. Returns 0 with *ret_icc (malloc'd) and *ret_len, and *ret_report if
 * not NULL; or a negative errno with *ret_reason (static text): -EINVAL when the
 * measurements cannot make a profile, -ENOMEM, -EIO when lcms2 fails. */
int profile_build(const DisplaySamples *samples, const ProfileBuildOptions *options, uint8_t **ret_icc,
                  size_t *ret_len, ProfileBuildReport *ret_report, const char **ret_reason);

/* The 'meta' entries of a built profile into meta (room for 2 × (PROFILE_BUILD_OWN_KEYS +
 * the caller's pairs) + 1): our keys (colord §4.6), then the caller's; a caller's key replaces
 * ours, NULL or empty values are left out. */
#define PROFILE_BUILD_OWN_KEYS 16
void profile_build_metadata(const char **meta, const ProfileBuildOptions *o, const char *instrument,
                            const char *avg, const char *max, const char *rms);

/* The measured accuracy as text for the final profile's metadata, kept while meta points into it. */
typedef struct ProfileBuildAccuracy {
        char avg[32], max[32], rms[32];
} ProfileBuildAccuracy;

/* profile_build_metadata() of the final profile: with ACCURACY_dE76_avg, _max and _rms, the
 * fit's dE76 mean, max and rms against its own measurements, written into *text. */
void profile_build_metadata_accurate(const char **meta, const ProfileBuildOptions *o, const char *instrument,
                                     double mean, double max, double rms, ProfileBuildAccuracy *text);

/* The common end of a built profile: 'desc' (o->description, else default_description),
 * 'cprt', 'meta', then the bytes, deterministic (fixed date; v4: the MD5 profile ID).
 * Errors as profile_build(). */
int profile_build_finish(cmsHPROFILE h, const ProfileBuildOptions *o, const char *default_description,
                         const char *const *metadata, uint8_t **ret, size_t *ret_len, const char **ret_reason);
