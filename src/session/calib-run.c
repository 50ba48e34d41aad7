/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A calibration run (see calib-run.h). The set-up in Start is synchronous (a few quick calls
 * of the daemon); measuring is asynchronous, one patch at a time: [SetOptions
 * simulate-patch] → UpdateSample → sample delay → GetSample, so the session's loop keeps
 * serving its other clients while an instrument takes seconds per reading. */
#include "calib-run.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-dict.h"
#include "calib-patches.h"
#include "cgats.h"
#include "cm-names.h"
#include "fileio.h"
#include "log.h"
#include "names.h"
#include "display-verify.h"
#include "profile-build.h"

#define GAMMA_RAMP_SIZE 256

typedef enum RunState {
        RUN_WAITING,    /* for Resume */
        RUN_MEASURING,
        RUN_DONE,
} RunState;

struct CalibRun {
        sd_event *event;
        CmClient *cm;
        UserProfiles *profiles;
        CalibOptions options;
        CalibCallbacks cb;
        char *title, *icc_dir, *device_id, *device_path, *sensor_path, *sensor_kind;
        const char *capability;
        bool inhibited, locked, simulated;
        RunState state;

        CalibPatch *patches;            /* the profiling patches, then the verification's */
        size_t n_patches, next;
        size_t n_profiling;             /* patches[0..n_profiling) build the profile */
        DisplaySample *readings;
        sd_bus_slot *call;              /* the asynchronous call in flight */
        sd_event_source *delay;         /* the sample delay */
        unsigned progress;
};

static const char *const error_names[_CALIB_ERROR_MAX] = {
        [CALIB_ERROR_NONE] = "None",
        [CALIB_ERROR_INTERNAL] = "Internal",
        [CALIB_ERROR_FAILED_TO_FIND_DEVICE] = "FailedToFindDevice",
        [CALIB_ERROR_FAILED_TO_FIND_SENSOR] = "FailedToFindSensor",
        [CALIB_ERROR_FAILED_TO_FIND_TOOL] = "FailedToFindTool",
        [CALIB_ERROR_FAILED_TO_GENERATE_PROFILE] = "FailedToGenerateProfile",
        [CALIB_ERROR_FAILED_TO_GET_WHITEPOINT] = "FailedToGetWhitepoint",
        [CALIB_ERROR_FAILED_TO_OPEN_PROFILE] = "FailedToOpenProfile",
        [CALIB_ERROR_FAILED_TO_SAVE_PROFILE] = "FailedToSaveProfile",
        [CALIB_ERROR_INVALID_VALUE] = "InvalidValue",
};

const char *calib_error_name(CalibError code) {
        static char buf[80];
        snprintf(buf, sizeof buf, "org.freedesktop.ColorHelper.%s",
                 code < _CALIB_ERROR_MAX ? error_names[code] : "Internal");
        return buf;
}

void calib_options_init(CalibOptions *o) {
        *o = (CalibOptions) {
                .quality = 1,
                .title = "Profile",
                .device_kind = 1, /* lcd */
                .gamma = 2.2,
                .sample_delay_usec = 400 * 1000,
        };
}

const char *calib_display_capability(unsigned device_kind) {
        static const char *const display_caps[] = {
                "lcd", "crt", "projector", "led", "plasma", "lcd-ccfl", "lcd-rgb-led", "lcd-white-led",
                "wide-gamut-lcd-ccfl", "wide-gamut-lcd-rgb-led",
        };
        const char *cap = names_sensor_cap(device_kind);
        for (size_t i = 0; cap && i < ELEMENTSOF(display_caps); i++)
                if (streq(cap, display_caps[i]))
                        return cap;
        return NULL;
}

/* ---- releasing ---------------------------------------------------------------------- */

static void release(CalibRun *run) {
        sd_bus *bus = cm_client_bus(run->cm);
        run->call = sd_bus_slot_unref(run->call);
        run->delay = sd_event_source_disable_unref(run->delay);
        if (run->locked) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                if (sd_bus_call_method(bus, CM_NAME, run->sensor_path, CM_SENSOR_IFACE, "Unlock", &e, NULL, "") < 0)
                        log_warning("Cannot unlock %s: %s", run->sensor_path, e.message ?: e.name);
                run->locked = false;
        }
        if (run->inhibited) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                if (sd_bus_call_method(bus, CM_NAME, run->device_path, CM_DEVICE_IFACE, "ProfilingUninhibit",
                                       &e, NULL, "") < 0)
                        log_warning("Cannot uninhibit %s: %s", run->device_path, e.message ?: e.name);
                run->inhibited = false;
        }
}

CalibRun *calib_run_free(CalibRun *run) {
        if (!run)
                return NULL;
        release(run);
        sd_event_unref(run->event);
        free(run->title);
        free(run->icc_dir);
        free(run->device_id);
        free(run->device_path);
        free(run->sensor_path);
        free(run->sensor_kind);
        free(run->patches);
        free(run->readings);
        free(run);
        return NULL;
}

static void finish(CalibRun *run, CalibError code, const char *profile_id, const char *profile_path,
                   const char *details) {
        if (run->state == RUN_DONE)
                return;
        run->state = RUN_DONE;
        release(run);
        if (code == CALIB_ERROR_NONE)
                log_info("Calibration of %s done: %s", run->device_id, profile_path);
        else
                log_warning("Calibration of %s failed: %s", run->device_id, details);
        run->cb.finished(code, profile_id, profile_path, details, run->cb.userdata);
}

static void finish_errorf(CalibRun *run, CalibError code, const char *fmt, ...) _printf_(3, 4);
static void finish_errorf(CalibRun *run, CalibError code, const char *fmt, ...) {
        _cleanup_free_ char *details = NULL;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&details, fmt, ap) < 0)
                details = NULL;
        va_end(ap);
        finish(run, code, NULL, NULL, details ?: "out of memory");
}

/* ---- start -------------------------------------------------------------------------- */

static int fail_start(CalibError code, CalibError *ret_code, char **ret_message, const char *fmt, ...) _printf_(4, 5);
static int fail_start(CalibError code, CalibError *ret_code, char **ret_message, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(ret_message, fmt, ap) < 0)
                *ret_message = NULL;
        va_end(ap);
        *ret_code = code;
        return -EINVAL;
}

static int find_path(sd_bus *bus, const char *member, const char *id, char **ret, sd_bus_error *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, member, e, &reply, "s", id);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}

static int note_simulation(sd_bus_message *m, const char *key, void *userdata, sd_bus_error *error) {
        if (streq(key, "simulate-display"))
                *(bool *) userdata = true;
        return sd_bus_message_skip(m, "v");
}

/* The dummy sensor's virtual display shows itself in the sensor's Options. */
static int sensor_is_simulated(sd_bus *bus, const char *sensor, bool *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_get_property(bus, CM_NAME, sensor, CM_SENSOR_IFACE, "Options", NULL, &reply, "a{sv}");
        if (r < 0)
                return r;
        *ret = false;
        return bus_message_read_dict(reply, note_simulation, ret, NULL);
}

/* The verification's patch set after the profiling patches: measured in the same run, then
 * compared with the new profile (docs/verify.md). */
static int add_verification_patches(CalibRun *run) {
        size_t n = display_verify_n_patches();
        CalibPatch *p = reallocarray(run->patches, run->n_patches + n, sizeof *p);

        if (!p)
                return -ENOMEM;
        run->patches = p;
        run->n_profiling = run->n_patches;
        for (size_t i = 0; i < n; i++)
                display_verify_patch_rgb(i, run->patches[run->n_patches + i].rgb);
        run->n_patches += n;
        return 0;
}

int calib_run_start(sd_event *event, CmClient *cm, UserProfiles *profiles, const char *icc_dir,
                    const char *device_id, const char *sensor_id, const CalibOptions *options,
                    const CalibCallbacks *callbacks, CalibRun **ret, CalibError *ret_code, char **ret_message) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus *bus = cm_client_bus(cm);
        int r;

        *ret_message = NULL;
        *ret_code = CALIB_ERROR_NONE;
        const char *cap = calib_display_capability(options->device_kind);
        if (!cap)
                return fail_start(CALIB_ERROR_INVALID_VALUE, ret_code, ret_message,
                                  "DeviceKind %u is not a kind of display", options->device_kind);
        _cleanup_(calib_run_freep) CalibRun *run = calloc(1, sizeof *run);
        if (!run)
                return -ENOMEM;
        run->event = sd_event_ref(event);
        run->cm = cm;
        run->profiles = profiles;
        run->options = *options;
        run->cb = *callbacks;
        run->capability = cap;
        run->title = strdup(options->title);
        run->icc_dir = strdup(icc_dir);
        run->device_id = strdup(device_id);
        if (!run->title || !run->icc_dir || !run->device_id)
                return -ENOMEM;
        run->options.title = run->title;
        r = calib_patches(options->quality, &run->patches, &run->n_patches);
        if (r < 0)
                return r == -EINVAL ? fail_start(CALIB_ERROR_INVALID_VALUE, ret_code, ret_message,
                                                 "Quality %u is not 0, 1 or 2", options->quality) : r;
        r = add_verification_patches(run);
        if (r < 0)
                return r;
        if (!(run->readings = calloc(run->n_patches, sizeof *run->readings)))
                return -ENOMEM;

        if (find_path(bus, "FindDeviceById", device_id, &run->device_path, &e) < 0)
                return fail_start(CALIB_ERROR_FAILED_TO_FIND_DEVICE, ret_code, ret_message,
                                  "failed to find device %s: %s", device_id, e.message ?: e.name ?: "no answer");
        sd_bus_error_free(&e);
        if (find_path(bus, "FindSensorById", sensor_id, &run->sensor_path, &e) < 0)
                return fail_start(CALIB_ERROR_FAILED_TO_FIND_SENSOR, ret_code, ret_message,
                                  "failed to find sensor %s: %s", sensor_id, e.message ?: e.name ?: "no answer");
        sd_bus_error_free(&e);
        (void) sd_bus_get_property_string(bus, CM_NAME, run->sensor_path, CM_SENSOR_IFACE, "Kind", NULL,
                                          &run->sensor_kind);
        if (sensor_is_simulated(bus, run->sensor_path, &run->simulated) < 0)
                run->simulated = false;

        /* Inhibited first: nothing may load a profile's ramp while we measure. */
        if (sd_bus_call_method(bus, CM_NAME, run->device_path, CM_DEVICE_IFACE, "ProfilingInhibit", &e, NULL, "") < 0)
                return fail_start(CALIB_ERROR_INTERNAL, ret_code, ret_message, "cannot inhibit profiling of %s: %s",
                                  device_id, e.message ?: e.name);
        run->inhibited = true;
        sd_bus_error_free(&e);
        if (sd_bus_call_method(bus, CM_NAME, run->sensor_path, CM_SENSOR_IFACE, "Lock", &e, NULL, "") < 0)
                return fail_start(CALIB_ERROR_INTERNAL, ret_code, ret_message, "cannot lock sensor %s: %s",
                                  sensor_id, e.message ?: e.name);
        run->locked = true;
        log_info("Calibrating %s with %s (%s, %zu patches%s)", device_id, sensor_id, cap, run->n_patches,
                 run->simulated ? ", the sensor's virtual display" : "");

        run->state = RUN_WAITING;
        *ret = TAKE_PTR(run);
        /* Embedded sensors look at the panel when the lid is shut (colord's code 3). */
        int embedded = 0;
        (void) sd_bus_get_property_trivial(bus, CM_NAME, (*ret)->sensor_path, CM_SENSOR_IFACE, "Embedded",
                                           NULL, 'b', &embedded);
        if (embedded)
                (*ret)->cb.interaction(CALIB_INTERACTION_SHUT_LAPTOP_LID, "Shut the laptop lid", (*ret)->cb.userdata);
        else
                (*ret)->cb.interaction(CALIB_INTERACTION_ATTACH_TO_SCREEN, "Attach the sensor to the screen",
                                       (*ret)->cb.userdata);
        return 0;
}

/* ---- measuring ---------------------------------------------------------------------- */

static void measure_next(CalibRun *run);
static void build_and_save(CalibRun *run);

static int on_sample(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CalibRun *run = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        double xyz[3];

        run->call = sd_bus_slot_unref(run->call);
        if (e) {
                finish_errorf(run, CALIB_ERROR_INTERNAL, "the sensor failed to measure patch %zu: %s", run->next + 1,
                              e->message ?: e->name);
                return 0;
        }
        if (sd_bus_message_read(reply, "ddd", &xyz[0], &xyz[1], &xyz[2]) < 0 || !isfinite(xyz[0]) ||
            !isfinite(xyz[1]) || !isfinite(xyz[2])) {
                finish_errorf(run, CALIB_ERROR_INTERNAL, "the sensor's answer for patch %zu is not a reading", run->next + 1);
                return 0;
        }
        DisplaySample *s = &run->readings[run->next];
        memcpy(s->rgb, run->patches[run->next].rgb, sizeof s->rgb);
        memcpy(s->xyz, xyz, sizeof s->xyz);
        if (run->next == 0 && !(xyz[1] > 0)) {
                finish_errorf(run, CALIB_ERROR_FAILED_TO_GET_WHITEPOINT, "white measured with Y = %g", xyz[1]);
                return 0;
        }
        run->next++;
        /* Measuring is 95 % of the run; building and saving the rest. */
        unsigned p = (unsigned) (run->next * 95 / run->n_patches);
        if (p != run->progress) {
                run->progress = p;
                run->cb.progress(p, run->cb.userdata);
        }
        if (run->next < run->n_patches)
                measure_next(run);
        else
                build_and_save(run);
        return 0;
}

static int on_delay(sd_event_source *s, uint64_t usec, void *userdata) {
        CalibRun *run = userdata;
        run->delay = sd_event_source_disable_unref(run->delay);
        int r = sd_bus_call_method_async(cm_client_bus(run->cm), &run->call, CM_NAME, run->sensor_path,
                                         CM_SENSOR_IFACE, "GetSample", on_sample, run, "s", run->capability);
        if (r < 0)
                finish_errorf(run, CALIB_ERROR_INTERNAL, "cannot ask for a reading: %s", strerror(-r));
        return 0;
}

/* The patch is on the screen: wait for the display to settle, then read. */
static void patch_shown(CalibRun *run) {
        run->cb.sample(run->patches[run->next].rgb, run->cb.userdata);
        /* Accuracy 1 µs: sd-event's default (0) lets a timer slip by up to 250 ms. */
        int r = sd_event_add_time_relative(run->event, &run->delay, CLOCK_MONOTONIC, run->options.sample_delay_usec, 1,
                                           on_delay, run);
        if (r < 0)
                finish_errorf(run, CALIB_ERROR_INTERNAL, "cannot wait for the display: %s", strerror(-r));
}

static int on_patch_set(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CalibRun *run = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        run->call = sd_bus_slot_unref(run->call);
        if (e)
                finish_errorf(run, CALIB_ERROR_INTERNAL, "the virtual display refused the patch: %s", e->message ?: e->name);
        else
                patch_shown(run);
        return 0;
}

static void measure_next(CalibRun *run) {
        if (!run->simulated) {
                patch_shown(run);
                return;
        }
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        const double *rgb = run->patches[run->next].rgb;
        sd_bus *bus = cm_client_bus(run->cm);
        int r = sd_bus_message_new_method_call(bus, &m, CM_NAME, run->sensor_path, CM_SENSOR_IFACE, "SetOptions");
        if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 1, "simulate-patch", "ad", 3, rgb[0], rgb[1], rgb[2]);
        if (r >= 0)
                r = sd_bus_call_async(bus, &run->call, m, on_patch_set, run, 0);
        if (r < 0)
                finish_errorf(run, CALIB_ERROR_INTERNAL, "cannot show the patch: %s", strerror(-r));
}

int calib_run_resume(CalibRun *run) {
        if (run->state != RUN_WAITING)
                return -EBUSY;
        run->state = RUN_MEASURING;
        /* The native response is measured: whatever ramp the screen had goes linear. */
        double (*ramp)[3] = calloc(GAMMA_RAMP_SIZE, sizeof *ramp);
        if (!ramp)
                return -ENOMEM;
        for (size_t i = 0; i < GAMMA_RAMP_SIZE; i++)
                ramp[i][0] = ramp[i][1] = ramp[i][2] = (double) i / (GAMMA_RAMP_SIZE - 1);
        run->cb.gamma((const double (*)[3]) ramp, GAMMA_RAMP_SIZE, run->cb.userdata);
        free(ramp);
        run->cb.progress(0, run->cb.userdata);
        measure_next(run);
        return 0;
}

void calib_run_cancel(CalibRun *run) {
        finish(run, CALIB_ERROR_INTERNAL, NULL, NULL, "cancelled");
}

bool calib_run_finished(const CalibRun *run) {
        return run->state == RUN_DONE;
}

/* ---- the profile -------------------------------------------------------------------- */

static const char *quality_name(unsigned q) {
        return q == 0 ? "low" : q == 1 ? "medium" : "high";
}

/* <dir>/<device id, path-safe>-<UTC time>.icc */
static char *profile_file_name(const CalibRun *run) {
        _cleanup_free_ char *safe = names_escape_path_element(run->device_id);
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        char *path;
        if (!safe || !gmtime_r(&now, &tm) || strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm) == 0)
                return NULL;
        return asprintf(&path, "%s/tinct-%s-%s.icc", run->icc_dir, safe, stamp) < 0 ? NULL : path;
}

/* The verification patches' readings against the new profile, stored on the device as the
 * figures "when profiled" (DISPLAY_VERIFY_PROFILED keys) that `tinct doctor` compares later
 * verifications with. A failure here is logged; the profile stands. */
static void record_verification(CalibRun *run, const uint8_t *icc, size_t len, const char *profile_id) {
        _cleanup_free_ DisplayVerify *v = calloc(1, sizeof *v);
        sd_bus *bus = cm_client_bus(run->cm);
        DisplayVerifyRecord rec;
        const char *reason = NULL;
        int r;

        if (!v) {
                log_oom();
                return;
        }
        r = display_verify_prepare(icc, len, v, &reason);
        if (r < 0) {
                log_warning("Cannot verify the new profile of %s: %s", run->device_id, reason ?: strerror(-r));
                return;
        }
        assert(v->n == run->n_patches - run->n_profiling);
        for (size_t i = 0; i < v->n; i++)
                memcpy(v->patches[i].measured_xyz, run->readings[run->n_profiling + i].xyz, sizeof v->patches[i].measured_xyz);
        r = display_verify_compare(v, &reason);
        if (r < 0) {
                log_warning("Cannot verify the new profile of %s: %s", run->device_id, reason);
                return;
        }
        log_info("Verification of %s with its new profile: mean ΔE2000 %.3f, max %.3f on %zu patches", run->device_id,
                 v->mean, v->max, v->n);
        display_verify_record(v, DISPLAY_VERIFY_PROFILED, profile_id, time(NULL), &rec);
        for (size_t i = 0; i < DISPLAY_VERIFY_N_KEYS; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                if (sd_bus_call_method(bus, CM_NAME, run->device_path, CM_DEVICE_IFACE, "SetProperty", &e, NULL, "ss",
                                       rec.keys[i], rec.values[i]) < 0) {
                        log_warning("Cannot store the verification on %s: %s", run->device_id, e.message ?: e.name);
                        return;
                }
        }
}

static void build_and_save(CalibRun *run) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ uint8_t *icc = NULL;
        _cleanup_free_ char *path = NULL, *profile_path = NULL, *profile_id = NULL;
        char brightness[16], gamma[16], whitepoint[16];
        sd_bus *bus = cm_client_bus(run->cm);
        const char *reason = NULL;
        size_t len;
        int r;

        DisplaySamples samples = {
                .n_samples = run->n_profiling,
                .samples = run->readings,
                .absolute = true,
                .has_luminance = true,
                .instrument = run->sensor_kind,
        };
        memcpy(samples.luminance, run->readings[0].xyz, sizeof samples.luminance);
        snprintf(brightness, sizeof brightness, "%u", run->options.brightness);
        snprintf(gamma, sizeof gamma, "%.2f", run->options.gamma);
        snprintf(whitepoint, sizeof whitepoint, "%u", run->options.whitepoint);
        const char *const metadata[] = {
                "MAPPING_device_id", run->device_id,
                "License", "CC0",
                "Quality", quality_name(run->options.quality),
                "MEASUREMENT_device", run->sensor_kind ?: "unknown",
                "CALIBRATION_gamma", gamma,
                "CALIBRATION_whitepoint", whitepoint,
                run->options.brightness ? "SCREEN_brightness" : NULL, brightness,
                NULL,
        };
        /* v2, as colord-session's colprof writes: every reader (ArgyllCMS included) takes it. */
        ProfileBuildOptions build = {
                .v2 = true,
                .description = run->options.title,
                .cmf_binary = "tinct-session",
                .metadata = metadata,
        };
        ProfileBuildReport report;
        r = profile_build(&samples, &build, &icc, &len, &report, &reason);
        if (r < 0) {
                finish_errorf(run, CALIB_ERROR_FAILED_TO_GENERATE_PROFILE, "cannot make a profile from the readings: %s",
                              reason ?: strerror(-r));
                return;
        }
        log_info("Profile of %s: mean ΔE2000 %.3f, max %.3f on its %zu readings", run->device_id, report.de2000_mean,
                 report.de2000_max, run->n_profiling);

        if (!(path = profile_file_name(run))) {
                finish_errorf(run, CALIB_ERROR_FAILED_TO_SAVE_PROFILE, "out of memory");
                return;
        }
        r = mkdir_parents(run->icc_dir, 0755);
        if (r >= 0)
                r = write_file_atomic(path, icc, len, 0644, WRITE_NO_REPLACE);
        if (r < 0) {
                finish_errorf(run, CALIB_ERROR_FAILED_TO_SAVE_PROFILE, "cannot write %s: %s", path, strerror(-r));
                return;
        }
        run->cb.progress(97, run->cb.userdata);

        /* Imported like every user profile, now rather than after the watch's delay. */
        user_profiles_rescan_now(run->profiles);
        if (find_path(bus, "FindProfileByFilename", path, &profile_path, &e) < 0) {
                finish_errorf(run, CALIB_ERROR_FAILED_TO_SAVE_PROFILE, "the daemon did not take %s: %s", path,
                              e.message ?: e.name ?: "no answer");
                return;
        }
        sd_bus_error_free(&e);
        if (sd_bus_get_property_string(bus, CM_NAME, profile_path, CM_PROFILE_IFACE, "ProfileId", &e, &profile_id) < 0) {
                finish_errorf(run, CALIB_ERROR_FAILED_TO_SAVE_PROFILE, "cannot read the new profile: %s", e.message ?: e.name);
                return;
        }
        sd_bus_error_free(&e);
        r = sd_bus_call_method(bus, CM_NAME, run->device_path, CM_DEVICE_IFACE, "AddProfile", &e, NULL, "so", "hard",
                               profile_path);
        if (r < 0 && !cm_error_is(&e, "AlreadyExists")) {
                finish_errorf(run, CALIB_ERROR_INTERNAL, "cannot add the profile to %s: %s", run->device_id,
                              e.message ?: e.name);
                return;
        }
        sd_bus_error_free(&e);
        if (sd_bus_call_method(bus, CM_NAME, run->device_path, CM_DEVICE_IFACE, "MakeProfileDefault", &e, NULL, "o",
                               profile_path) < 0) {
                finish_errorf(run, CALIB_ERROR_INTERNAL, "cannot make the profile %s's default: %s", run->device_id,
                              e.message ?: e.name);
                return;
        }
        record_verification(run, icc, len, profile_id);
        run->cb.progress(100, run->cb.userdata);
        finish(run, CALIB_ERROR_NONE, profile_id, profile_path, NULL);
}
