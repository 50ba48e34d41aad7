/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ColorHelper object (see color-helper.h). Start's options are colord-session's, with
 * its ranges (colord §10); unknown ones are logged and ignored as there. One tinct extension:
 * SampleDelay (u, milliseconds, at most 10000), which colord reads from GSettings. */
#include "color-helper.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-dict.h"
#include "calib-run.h"
#include "log.h"

struct ColorHelper {
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *object, *properties;
        CmClient *cm;
        UserProfiles *profiles;
        char *icc_dir;
        CalibRun *run;
        sd_bus_track *caller;           /* who started the run */
        sd_event_source *reap;          /* frees a finished run outside its callbacks */
        unsigned progress;
};

static int reply_error(sd_bus_error *error, CalibError code, const char *message) {
        return sd_bus_error_set(error, calib_error_name(code), message);
}

/* ---- the run's events become signals ------------------------------------------------ */

static void on_interaction(unsigned code, const char *message, void *userdata) {
        ColorHelper *h = userdata;
        (void) sd_bus_emit_signal(h->bus, COLOR_HELPER_PATH, COLOR_HELPER_IFACE_DISPLAY, "InteractionRequired", "uss",
                                  code, message, "");
}

static void on_sample(const double rgb[3], void *userdata) {
        ColorHelper *h = userdata;
        (void) sd_bus_emit_signal(h->bus, COLOR_HELPER_PATH, COLOR_HELPER_IFACE_DISPLAY, "UpdateSample", "ddd", rgb[0],
                                  rgb[1], rgb[2]);
}

static void on_gamma(const double (*ramp)[3], size_t n, void *userdata) {
        ColorHelper *h = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r = sd_bus_message_new_signal(h->bus, &m, COLOR_HELPER_PATH, COLOR_HELPER_IFACE_DISPLAY, "UpdateGamma");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "(ddd)");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(m, "(ddd)", ramp[i][0], ramp[i][1], ramp[i][2]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_send(h->bus, m, NULL);
        if (r < 0)
                log_warning_errno(r, "Cannot send UpdateGamma: %m");
}

static void on_progress(unsigned percent, void *userdata) {
        ColorHelper *h = userdata;
        if (percent == h->progress)
                return;
        h->progress = percent;
        (void) sd_bus_emit_properties_changed(h->bus, COLOR_HELPER_PATH, COLOR_HELPER_IFACE_DISPLAY, "Progress", NULL);
}

static int on_reap(sd_event_source *s, void *userdata) {
        ColorHelper *h = userdata;
        h->reap = sd_event_source_disable_unref(h->reap);
        if (h->run && calib_run_finished(h->run)) {
                h->run = calib_run_free(h->run);
                h->caller = sd_bus_track_unref(h->caller);
        }
        return 0;
}

static void on_finished(CalibError code, const char *profile_id, const char *profile_path, const char *details,
                        void *userdata) {
        ColorHelper *h = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r = sd_bus_message_new_signal(h->bus, &m, COLOR_HELPER_PATH, COLOR_HELPER_IFACE_DISPLAY, "Finished");
        if (r >= 0)
                r = sd_bus_message_append(m, "u", (uint32_t) code);
        if (r >= 0 && code == CALIB_ERROR_NONE)
                r = sd_bus_message_append(m, "a{sv}", 2, "ProfileId", "s", profile_id, "ProfilePath", "o", profile_path);
        else if (r >= 0)
                r = sd_bus_message_append(m, "a{sv}", 1, "ErrorDetails", "s", details);
        if (r >= 0)
                r = sd_bus_send(h->bus, m, NULL);
        if (r < 0)
                log_warning_errno(r, "Cannot send Finished: %m");
        /* The run is in one of its own callbacks: it is freed on the next loop turn. */
        if (!h->reap && sd_event_add_defer(h->event, &h->reap, on_reap, h) < 0)
                log_oom();
}

/* ---- methods ------------------------------------------------------------------------ */

static int on_caller_gone(sd_bus_track *t, void *userdata) {
        ColorHelper *h = userdata;
        if (h->run && !calib_run_finished(h->run)) {
                log_info("The caller that started the calibration has left: cancelling it");
                calib_run_cancel(h->run);
        }
        return 0;
}

typedef struct StartOptions {
        CalibOptions *calib;
        const char **title;
} StartOptions;

/* One of Start's options; an error reply for a value out of range. */
static int parse_option(sd_bus_message *msg, const char *key, void *userdata, sd_bus_error *error) {
        StartOptions *so = userdata;
        CalibOptions *o = so->calib;
        const char *contents;
        int r = sd_bus_message_peek_type(msg, NULL, &contents);
        if (r < 0)
                return r;
        char type = contents[0] && !contents[1] ? contents[0] : 0;
        uint32_t u = 0;
        if (streq(key, "Quality") && type == 'u') {
                r = sd_bus_message_read(msg, "v", "u", &u);
                if (r < 0)
                        return r;
                if (u > 2)
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE, "Quality must be 0, 1 or 2");
                o->quality = u;
        } else if (streq(key, "Whitepoint") && type == 'u') {
                r = sd_bus_message_read(msg, "v", "u", &u);
                if (r < 0)
                        return r;
                if (u != 0 && (u < 1000 || u > 100000))
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE,
                                           "Whitepoint must be 0 (native) or 1000..100000 K");
                o->whitepoint = u;
        } else if (streq(key, "Title") && type == 's') {
                const char *t;
                r = sd_bus_message_read(msg, "v", "s", &t);
                if (r < 0)
                        return r;
                if (!*t || strlen(t) > 1024)
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE, "Title must be 1..1024 bytes");
                *so->title = t;
        } else if (streq(key, "DeviceKind") && type == 'u') {
                r = sd_bus_message_read(msg, "v", "u", &u);
                if (r < 0)
                        return r;
                if (!calib_display_capability(u))
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE, "DeviceKind is not a kind of display");
                o->device_kind = u;
        } else if (streq(key, "Brightness") && type == 'u') {
                r = sd_bus_message_read(msg, "v", "u", &u);
                if (r < 0)
                        return r;
                if (u > 100)
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE, "Brightness must be 0..100");
                o->brightness = u;
        } else if (streq(key, "Gamma") && type == 'd') {
                double d;
                r = sd_bus_message_read(msg, "v", "d", &d);
                if (r < 0)
                        return r;
                if (!(d >= 1.0 && d <= 4.0))
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE, "Gamma must be 1.0..4.0");
                o->gamma = d;
        } else if (streq(key, "SampleDelay") && type == 'u') {
                r = sd_bus_message_read(msg, "v", "u", &u);
                if (r < 0)
                        return r;
                if (u > 10000)
                        return reply_error(error, CALIB_ERROR_INVALID_VALUE, "SampleDelay must be 0..10000 ms");
                o->sample_delay_usec = (uint64_t) u * 1000;
        } else {
                /* colord-session only warns, also for a known key of the wrong type */
                log_warning("Start: ignoring option %s (%s)", key, contents);
                r = sd_bus_message_skip(msg, "v");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Start's options into o and its title. */
static int parse_options(sd_bus_message *msg, CalibOptions *o, const char **ret_title, sd_bus_error *error) {
        StartOptions so = { o, ret_title };
        return bus_message_read_dict(msg, parse_option, &so, error);
}

static int method_start(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        ColorHelper *h = userdata;
        const char *device_id, *sensor_id, *title = NULL;
        CalibOptions o;
        int r;

        if (h->run && !calib_run_finished(h->run))
                return reply_error(error, CALIB_ERROR_INTERNAL, "a calibration is already running");
        h->run = calib_run_free(h->run);
        h->caller = sd_bus_track_unref(h->caller);
        r = sd_bus_message_read(msg, "ss", &device_id, &sensor_id);
        if (r < 0)
                return r;
        calib_options_init(&o);
        r = parse_options(msg, &o, &title, error);
        if (r < 0 || sd_bus_error_is_set(error))
                return r;
        if (title)
                o.title = title;
        if (!h->cm || !h->profiles || !h->icc_dir)
                return reply_error(error, CALIB_ERROR_FAILED_TO_SAVE_PROFILE,
                                   "no user ICC directory (HOME and XDG_DATA_HOME unset): nowhere to save a profile");

        static const CalibCallbacks callbacks = {
                .interaction = on_interaction,
                .sample = on_sample,
                .gamma = on_gamma,
                .progress = on_progress,
                .finished = on_finished,
        };
        CalibCallbacks cb = callbacks;
        cb.userdata = h;
        CalibError code;
        _cleanup_free_ char *message = NULL;
        h->progress = 0;
        r = calib_run_start(h->event, h->cm, h->profiles, h->icc_dir, device_id, sensor_id, &o, &cb, &h->run, &code,
                            &message);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return reply_error(error, code, message ?: "cannot start");
        /* A caller that leaves cancels its run, as colord-session watches its caller. */
        if (sd_bus_track_new(h->bus, &h->caller, on_caller_gone, h) < 0 ||
            sd_bus_track_add_sender(h->caller, msg) < 0)
                log_warning("Cannot follow the caller %s", sd_bus_message_get_sender(msg) ?: "?");
        return sd_bus_reply_method_return(msg, "");
}

static int method_resume(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        ColorHelper *h = userdata;
        if (!h->run || calib_run_finished(h->run))
                return reply_error(error, CALIB_ERROR_INTERNAL, "no calibration is waiting");
        int r = calib_run_resume(h->run);
        if (r == -EBUSY)
                return reply_error(error, CALIB_ERROR_INTERNAL, "the calibration is already measuring");
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

static int method_cancel(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        ColorHelper *h = userdata;
        if (!h->run || calib_run_finished(h->run))
                return reply_error(error, CALIB_ERROR_INTERNAL, "no calibration is running");
        calib_run_cancel(h->run);
        return sd_bus_reply_method_return(msg, "");
}

static int prop_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", TINCT_VERSION);
}

static int prop_progress(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        ColorHelper *h = userdata;
        return sd_bus_message_append(reply, "u", h->progress);
}

static const sd_bus_vtable helper_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("DaemonVersion", "s", prop_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable display_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Progress", "u", prop_progress, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("Start", SD_BUS_ARGS("s", device_id, "s", profile_id, "a{sv}", options),
                                SD_BUS_NO_RESULT, method_start, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Cancel", "", "", method_cancel, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Resume", "", "", method_resume, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("Finished", SD_BUS_ARGS("u", error_code, "a{sv}", details), 0),
        SD_BUS_SIGNAL_WITH_ARGS("UpdateSample", SD_BUS_ARGS("d", red, "d", green, "d", blue), 0),
        SD_BUS_SIGNAL_WITH_ARGS("UpdateGamma", SD_BUS_ARGS("a(ddd)", gamma), 0),
        SD_BUS_SIGNAL_WITH_ARGS("InteractionRequired", SD_BUS_ARGS("u", code, "s", message, "s", image), 0),
        SD_BUS_VTABLE_END,
};

int color_helper_new(sd_event *event, sd_bus *bus, ColorHelper **ret) {
        _cleanup_(color_helper_freep) ColorHelper *h = calloc(1, sizeof *h);
        if (!h)
                return -ENOMEM;
        h->event = sd_event_ref(event);
        h->bus = sd_bus_ref(bus);
        int r = sd_bus_add_object_vtable(bus, &h->object, COLOR_HELPER_PATH, COLOR_HELPER_IFACE, helper_vtable, h);
        if (r < 0)
                return r;
        r = sd_bus_add_object_vtable(bus, &h->properties, COLOR_HELPER_PATH, COLOR_HELPER_IFACE_DISPLAY,
                                     display_vtable, h);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(h);
        return 0;
}

int color_helper_set_backends(ColorHelper *h, CmClient *cm, UserProfiles *profiles, const char *icc_dir) {
        h->cm = cm;
        h->profiles = profiles;
        free(h->icc_dir);
        h->icc_dir = icc_dir ? strdup(icc_dir) : NULL;
        return icc_dir && !h->icc_dir ? -ENOMEM : 0;
}

ColorHelper *color_helper_free(ColorHelper *h) {
        if (!h)
                return NULL;
        calib_run_free(h->run);
        sd_bus_track_unref(h->caller);
        sd_event_source_disable_unref(h->reap);
        sd_bus_slot_unref(h->object);
        sd_bus_slot_unref(h->properties);
        sd_bus_unref(h->bus);
        sd_event_unref(h->event);
        free(h->icc_dir);
        free(h);
        return NULL;
}
