/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dummy driver (sensor-dummy.h): colord's fake readings (SetOptions' sample, as sRGB,
 * after two seconds), or with --dummy-sensor-display the readings of a virtual display
 * (sensor-sim.h; on an X screen with --dummy-sensor-x11, sensor-x11.h), answered on the
 * next turn of the loop. Not here: the checks every reading gets (sensor-dbus.c). */
#include "sensor-dummy.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bus-dict.h"
#include "bus-errors.h"
#include "log.h"
#include "signals.h"
#include "sensor-sim.h"
#include "sensor-x11.h"

#define SAMPLE_DELAY_USEC (2 * 1000000ULL)
/* The virtual display answers on the next loop turn: a calibration run reads hundreds of
 * patches, and the client waits for its own settle time before each GetSample anyway. */
#define SIM_SAMPLE_DELAY_USEC 0

static int on_dummy_sample_ready(sd_event_source *source, uint64_t usec, void *userdata) {
        Sensor *s = userdata;
        double xyz[3];

        if (streq(s->pending_cap, "ambient")) {
                xyz[0] = 7.7;
                xyz[1] = xyz[2] = -1;
        } else {
                if (s->sim && s->sim->x11_display) {
                        /* tests: what the screen shows now, where the instrument is held */
                        _cleanup_free_ char *why = NULL;
                        double rgb[3];
                        int r = sensor_x11_read_centre(s->sim->x11_display, rgb, &why);
                        if (r < 0) {
                                sensor_reply_error(s, bus_error_name(DOMAIN_SENSOR, BUS_ERR_INTERNAL),
                                                   why ?: strerror(-r));
                                return 0;
                        }
                        sensor_sim_reading(s->sim, rgb, xyz);
                } else if (s->sim)
                        sensor_sim_reading(s->sim, s->sample, xyz);
                else
                        sensor_srgb_to_xyz_d50(s->sample, xyz);
                (void) sd_bus_emit_signal(s->manager->bus, s->path, CM_SENSOR_IFACE, "ButtonPressed", "");
        }
        sensor_reply_sample(s, xyz);
        return 0;
}

static int dummy_sample(Sensor *s) {
        return sd_event_add_time_relative(s->manager->event, &s->timer, CLOCK_MONOTONIC,
                                          s->sim ? SIM_SAMPLE_DELAY_USEC : SAMPLE_DELAY_USEC,
                                          s->sim ? 1 : 0, /* default accuracy: up to 250 ms late */
                                          on_dummy_sample_ready, s);
}

/* What one SetOptions call asks for, checked in full before any of it is applied. */
typedef struct DummyOptions {
        double sample[3];
        double luminance, noise;
        uint64_t seed;
        bool seed_set, sim_changed;
} DummyOptions;

static int option_refused(sd_bus_error *error, const char *key, const char *why) {
        return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "option '%s' not supported: %s", key, why);
}

static bool in_range(double v, double lo, double hi) {
        return isfinite(v) && v >= lo && v <= hi;
}

static int read_double(sd_bus_message *msg, const char *contents, double *ret, sd_bus_error *error) {
        if (!streq(contents, "d"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "unexpected type '%s' not supported", contents);
        return sd_bus_message_read(msg, "v", "d", ret);
}

/* "R,G,B" (what colormgr sensor-set-options sends for a value that is not one number). */
static int parse_patch(const char *text, double ret[3]) {
        const char *p = text;
        for (int i = 0; i < 3; i++) {
                char *end;
                errno = 0;
                ret[i] = strtod(p, &end);
                if (errno != 0 || end == p || *end != (i < 2 ? ',' : 0))
                        return -EINVAL;
                p = end + 1;
        }
        return 0;
}

static int read_patch(sd_bus_message *msg, const char *key, const char *contents, double ret[3], sd_bus_error *error) {
        int r;
        if (streq(contents, "s")) {
                const char *text;
                r = sd_bus_message_read(msg, "v", "s", &text);
                if (r < 0)
                        return r;
                if (parse_patch(text, ret) < 0)
                        return option_refused(error, key, "expected \"R,G,B\", three numbers 0..1");
        } else if (streq(contents, "ad")) {
                const void *array;
                size_t size;
                r = sd_bus_message_enter_container(msg, 'v', "ad");
                if (r < 0)
                        return r;
                r = sd_bus_message_read_array(msg, 'd', &array, &size);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(msg);
                if (r < 0)
                        return r;
                if (size != 3 * sizeof(double))
                        return option_refused(error, key, "expected three doubles R, G, B");
                memcpy(ret, array, 3 * sizeof(double));
        } else
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "unexpected type '%s' not supported", contents);
        for (int i = 0; i < 3; i++)
                if (!in_range(ret[i], 0, 1))
                        return option_refused(error, key, "each of R, G, B must be 0..1");
        return 0;
}

static int read_seed(sd_bus_message *msg, const char *key, const char *contents, uint64_t *ret, sd_bus_error *error) {
        int r;
        if (streq(contents, "d")) {
                double v;
                r = sd_bus_message_read(msg, "v", "d", &v);
                if (r < 0)
                        return r;
                if (!in_range(v, 0, 9007199254740992.0) || v != floor(v))
                        return option_refused(error, key, "the seed is a whole number 0..2^53");
                *ret = (uint64_t) v;
        } else if (streq(contents, "u")) {
                uint32_t v;
                r = sd_bus_message_read(msg, "v", "u", &v);
                if (r < 0)
                        return r;
                *ret = v;
        } else if (streq(contents, "t"))
                return sd_bus_message_read(msg, "v", "t", ret);
        else
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "unexpected type '%s' not supported", contents);
        return 0;
}

/* One a{sv} entry. colord's dummy knows sample[red|green|blue] (the RGB it converts as
 * sRGB); with a virtual display those are the RGB the display shows, and the simulate-*
 * keys are ours (docs/compatibility.md). */
typedef struct OptionsReading {
        Sensor *sensor;
        DummyOptions *options;
} OptionsReading;

static int read_option(sd_bus_message *msg, const char *key, void *userdata, sd_bus_error *error) {
        OptionsReading *reading = userdata;
        Sensor *s = reading->sensor;
        DummyOptions *o = reading->options;
        const char *contents;
        int idx = streq(key, "sample[red]") ? 0 : streq(key, "sample[green]") ? 1 : streq(key, "sample[blue]") ? 2 : -1;
        int r = sd_bus_message_peek_type(msg, NULL, &contents);
        if (r < 0)
                return r;
        /* On an X screen the screen says which RGB is shown: a client cannot. */
        if (s->sim && s->sim->x11_display && (idx >= 0 || streq(key, "simulate-patch")))
                return option_refused(error, key, "the dummy sensor reads the X screen (tinctd --dummy-sensor-x11)");
        if (idx >= 0) {
                r = read_double(msg, contents, &o->sample[idx], error);
                if (r < 0)
                        return r;
                /* colord takes any double; a display can only show 0..1. */
                if (s->sim && !in_range(o->sample[idx], 0, 1))
                        return option_refused(error, key, "the virtual display shows 0..1");
                return 0;
        }
        if (strncmp(key, "simulate-", strlen("simulate-")) != 0)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "option '%s' is not supported", key);
        if (!s->sim)
                return option_refused(error, key, "the dummy sensor has no virtual display (tinctd --dummy-sensor-display)");
        if (streq(key, "simulate-patch"))
                return read_patch(msg, key, contents, o->sample, error);
        if (streq(key, "simulate-luminance")) {
                r = read_double(msg, contents, &o->luminance, error);
                if (r < 0)
                        return r;
                if (!in_range(o->luminance, 0, SENSOR_SIM_MAX_LUMINANCE) || o->luminance == 0)
                        return option_refused(error, key, "cd/m², more than 0 and at most 10000");
        } else if (streq(key, "simulate-noise")) {
                r = read_double(msg, contents, &o->noise, error);
                if (r < 0)
                        return r;
                if (!in_range(o->noise, 0, SENSOR_SIM_MAX_NOISE))
                        return option_refused(error, key, "a relative standard deviation 0..0.1");
        } else if (streq(key, "simulate-seed")) {
                r = read_seed(msg, key, contents, &o->seed, error);
                if (r < 0)
                        return r;
                o->seed_set = true;
        } else
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "option '%s' is not supported", key);
        o->sim_changed = true;
        return 0;
}

/* SetOptions, from the lock holder of an idle sensor (sensor-dbus.c). */
static int dummy_set_options(Sensor *s, sd_bus_message *msg, sd_bus_error *error) {
        DummyOptions o = { .sample = { s->sample[0], s->sample[1], s->sample[2] } };
        int r;
        if (s->sim) {
                o.luminance = s->sim->luminance;
                o.noise = s->sim->noise;
        }
        /* Validate every entry before applying any. */
        OptionsReading reading = { s, &o };
        r = bus_message_read_dict(msg, read_option, &reading, error);
        if (r < 0)
                return r;
        memcpy(s->sample, o.sample, sizeof o.sample);
        if (s->sim && o.sim_changed) {
                bool options = s->sim->luminance != o.luminance || s->sim->noise != o.noise || o.seed_set;
                s->sim->luminance = o.luminance;
                s->sim->noise = o.noise;
                if (o.seed_set)
                        sensor_sim_set_seed(s->sim, o.seed);
                if (options)
                        sensor_emit_properties(s, "Options", NULL);
        }
        return 0;
}

/* colord's dummy sets no Options; a virtual display shows its settings there. */
static int dummy_append_options(Sensor *s, sd_bus_message *reply) {
        if (!s->sim)
                return sd_bus_message_append(reply, "a{sv}", 0);
        if (s->sim->x11_display)
                return sd_bus_message_append(reply, "a{sv}", 5, "simulate-display", "s", s->sim->path,
                                             "simulate-luminance", "d", s->sim->luminance, "simulate-noise", "d",
                                             s->sim->noise, "simulate-seed", "t", s->sim->seed, "simulate-x11", "s",
                                             s->sim->x11_display);
        return sd_bus_message_append(reply, "a{sv}", 4, "simulate-display", "s", s->sim->path,
                                     "simulate-luminance", "d", s->sim->luminance, "simulate-noise", "d", s->sim->noise,
                                     "simulate-seed", "t", s->sim->seed);
}

static void dummy_done(Sensor *s) {
        s->sim = sensor_sim_free(s->sim);
}

const SensorDriver sensor_dummy_driver = {
        .name = "dummy",
        .sample = dummy_sample,
        .set_options = dummy_set_options,
        .append_options = dummy_append_options,
        .done = dummy_done,
};

void dummy_sensor_config_done(DummySensorConfig *c) {
        c->display = mfree(c->display);
        c->x11 = mfree(c->x11);
}

int sensor_dummy_create(Manager *m, const DummySensorConfig *c) {
        if (c->x11 && !c->display)
                return log_error_errno(-EINVAL,
                                       "--dummy-sensor-x11 needs --dummy-sensor-display: the profile that turns the pixel into XYZ");
        if (c->x11 && !sensor_x11_supported())
                return log_error_errno(-EOPNOTSUPP,
                                       "--dummy-sensor-x11: this tinctd is built without X11 (-Dx11=disabled)");
        Sensor *s;
        int r = sensor_new_dummy(m, &sensor_dummy_driver, &s);
        if (r < 0)
                return log_error_errno(r, "Failed to create the dummy sensor: %m");
        if (c->display) {
                _cleanup_free_ char *why = NULL;
                r = sensor_sim_load(m->parser, c->display, &s->sim, &why);
                if (r < 0) {
                        sensor_free(s);
                        /* root asked for it on the command line: refuse to start */
                        return log_error_errno(r, "Cannot use %s as the dummy sensor's display: %s",
                                               c->display, why ?: strerror(-r));
                }
                log_info("The dummy sensor measures a virtual display: %s, %.1f cd/m²",
                         s->sim->path, s->sim->luminance);
                if (c->x11) {
                        if (!(s->sim->x11_display = strdup(c->x11))) {
                                sensor_free(s);
                                return log_oom();
                        }
                        log_info("The dummy sensor reads the centre of X screen %s (tests only)",
                                 s->sim->x11_display);
                }
        }
        r = manager_add_sensor(m, s);
        if (r < 0) {
                sensor_free(s);
                return log_oom();
        }
        return 0;
}
