/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One display calibration run, as colord-session makes it (colord §10): the device found and
 * its profiling inhibited, the sensor found and locked, then — after the caller's Resume — a
 * patch set measured through the sensor's GetSample, a matrix/shaper profile built from the
 * readings (src/profile-build), saved in the user's ICC directory, registered like every user
 * profile (user-profiles.c), and made the device's hard default. The lock and the inhibition
 * are released when the run ends, however it ends.
 *
 * The run measures the display's native response: it loads a linear ramp (UpdateGamma) and
 * writes no calibration curves (vcgt), so the options Whitepoint and Gamma are checked and
 * recorded but do not change the display (docs/compatibility.md). With the dummy sensor's
 * virtual display (tinctd --dummy-sensor-display), the patch shown is told to the sensor
 * through its `simulate-patch` option before each reading.
 *
 * Not here: the session-bus object and its signals (color-helper.c), drawing patches on the
 * screen (the caller does that on UpdateSample, as GNOME Settings does). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "cm-client.h"
#include "macro.h"
#include "user-profiles.h"

/* colord-session's Finished codes and error names (colord §10). */
typedef enum CalibError {
        CALIB_ERROR_NONE = 0,
        CALIB_ERROR_INTERNAL = 1,
        CALIB_ERROR_FAILED_TO_FIND_DEVICE = 2,
        CALIB_ERROR_FAILED_TO_FIND_SENSOR = 3,
        CALIB_ERROR_FAILED_TO_FIND_TOOL = 4,
        CALIB_ERROR_FAILED_TO_GENERATE_PROFILE = 5,
        CALIB_ERROR_FAILED_TO_GET_WHITEPOINT = 6,
        CALIB_ERROR_FAILED_TO_OPEN_PROFILE = 7,
        CALIB_ERROR_FAILED_TO_SAVE_PROFILE = 8,
        CALIB_ERROR_INVALID_VALUE = 9,
        _CALIB_ERROR_MAX,
} CalibError;

/* "org.freedesktop.ColorHelper.<Name>" for a code. */
const char *calib_error_name(CalibError code);

/* colord's InteractionRequired codes. */
#define CALIB_INTERACTION_ATTACH_TO_SCREEN 0u
#define CALIB_INTERACTION_SHUT_LAPTOP_LID 3u

typedef struct CalibOptions {
        unsigned quality;               /* 0 low, 1 medium (default), 2 high */
        unsigned whitepoint;            /* K; 0 native */
        const char *title;              /* the profile's description; default "Profile" */
        unsigned device_kind;           /* sensor capability (libcolord enum), default lcd */
        unsigned brightness;            /* percent, recorded; 0 unknown */
        double gamma;                   /* 1.0..4.0, recorded */
        uint64_t sample_delay_usec;     /* between UpdateSample and GetSample; default 400 ms */
} CalibOptions;

void calib_options_init(CalibOptions *o);
/* The sensor capability name of device_kind for GetSample ("lcd", "crt", ...), or NULL
 * when it is not a display kind. */
const char *calib_display_capability(unsigned device_kind);

typedef struct CalibCallbacks {
        void (*interaction)(unsigned code, const char *message, void *userdata);
        void (*sample)(const double rgb[3], void *userdata);
        void (*gamma)(const double (*ramp)[3], size_t n, void *userdata);
        void (*progress)(unsigned percent, void *userdata);
        /* Once per run. On success profile_id and profile_path (the daemon's object) are set,
         * otherwise details says what went wrong. The run may be freed from here. */
        void (*finished)(CalibError code, const char *profile_id, const char *profile_path,
                         const char *details, void *userdata);
        void *userdata;
} CalibCallbacks;

typedef struct CalibRun CalibRun;

/* Start: finds the device and the sensor, inhibits profiling of the device and locks the
 * sensor, then asks for the sensor to be put on the screen (interaction callback). On
 * failure returns a negative errno with *ret_code and *ret_message (malloc'd) set, and has
 * released whatever it had taken. */
int calib_run_start(sd_event *event, CmClient *cm, UserProfiles *profiles, const char *icc_dir,
                    const char *device_id, const char *sensor_id, const CalibOptions *options,
                    const CalibCallbacks *callbacks, CalibRun **ret, CalibError *ret_code, char **ret_message);
/* Resume: the sensor is on the screen; measuring starts. -EBUSY when not waiting for it. */
int calib_run_resume(CalibRun *run);
/* Cancel: stops measuring, releases, and finishes with Internal "cancelled". */
void calib_run_cancel(CalibRun *run);
bool calib_run_finished(const CalibRun *run);
/* Releases the sensor and the device if the run still holds them. */
CalibRun *calib_run_free(CalibRun *run);
DEFINE_TRIVIAL_CLEANUP_FUNC(CalibRun *, calib_run_free);
