/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sensor objects on the bus (docs/colord-behaviour.md, "Sensors"). The dummy sensor's
 * GetSample answers after two seconds from a timer, a udev sensor's when spotread has read
 * the instrument; neither blocks other clients. Unlike colord (docs/compatibility.md), only
 * the client holding the lock may take readings or set options. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bus-dict.h"
#include "bus-errors.h"
#include "daemon-dbus.h"
#include "log.h"
#include "polkit.h"
#include "sensor.h"
#include "sensor-argyll.h"
#include "sensor-sim.h"
#include "sensor-x11.h"

#define ACTION_LOCK "org.freedesktop.color-manager.sensor-lock"
#define SAMPLE_DELAY_USEC (2 * 1000000ULL)
/* The virtual display answers on the next loop turn: a calibration run reads hundreds of
 * patches, and the client waits for its own settle time before each GetSample anyway. */
#define SIM_SAMPLE_DELAY_USEC 0

static Sensor *sensor_of(Manager *m, sd_bus_message *msg) {
        return hashmap_get(m->sensors_by_path, sd_bus_message_get_path(msg));
}

void sensor_emit_properties(Sensor *s, const char *first, ...) {
        const char *names[8];
        size_t n = 0;
        va_list ap;
        va_start(ap, first);
        for (const char *p = first; p && n < ELEMENTSOF(names) - 1; p = va_arg(ap, const char *))
                names[n++] = p;
        va_end(ap);
        names[n] = NULL;
        sd_bus *bus = manager_signal_bus(s->manager);
        if (bus)
                (void) sd_bus_emit_properties_changed_strv(bus, s->path, CM_SENSOR_IFACE, (char **) names);
}

static int lock_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Sensor *s = sensor_of(m, msg);
        if (!s)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "sensor no longer exists");
        if (s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_ALREADY_LOCKED, "sensor is already locked");
        int r = free_and_strdup(&s->lock_holder, sd_bus_message_get_sender(msg));
        if (r < 0)
                return r;
        s->locked = true;
        c->watched = true;
        sensor_emit_properties(s, "Locked", NULL);
        return sd_bus_reply_method_return(msg, "");
}

static int method_lock(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        /* colord answers AlreadyLocked before it asks polkit; so do we. */
        if (s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_ALREADY_LOCKED, "sensor is already locked");
        return polkit_authorize(s->manager, msg, ACTION_LOCK, DOMAIN_SENSOR, lock_authorized, error);
}

static int check_holder(Sensor *s, sd_bus_message *msg, sd_bus_error *error) {
        if (!s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NOT_LOCKED, "sensor is not yet locked");
        if (!streq_ptr(s->lock_holder, sd_bus_message_get_sender(msg)))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NOT_LOCKED, "sensor is locked by another client");
        return 0;
}

static int unlock_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Sensor *s = sensor_of(m, msg);
        if (!s)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "sensor no longer exists");
        int r = check_holder(s, msg, error);
        if (r < 0)
                return r;
        /* A reading still in progress ends with the lock; spotread goes too. */
        sensor_abort(s, bus_error_name(DOMAIN_SENSOR, BUS_ERR_INTERNAL), "the sensor was unlocked");
        s->locked = false;
        s->lock_holder = mfree(s->lock_holder);
        sensor_emit_properties(s, "Locked", NULL);
        return sd_bus_reply_method_return(msg, "");
}

static int method_unlock(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        if (!s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NOT_LOCKED, "sensor is not yet locked");
        return polkit_authorize(s->manager, msg, ACTION_LOCK, DOMAIN_SENSOR, unlock_authorized, error);
}

static const char *const all_caps[] = {
        "unknown", "lcd", "crt", "printer", "spot", "projector", "ambient", "calibration", "led", "plasma",
        "lcd-ccfl", "lcd-rgb-led", "lcd-white-led", "wide-gamut-lcd-ccfl", "wide-gamut-lcd-rgb-led",
        "spectral", "calibration-dark", "calibration-irradiance", NULL,
};

static bool is_known_cap(const char *cap) {
        return strv_contains((char **) all_caps, cap) && !streq(cap, "unknown");
}

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

/* What a reading or SetOptions needs: the caller holds the lock and nothing else is running. */
static int check_idle_holder(Sensor *s, sd_bus_message *msg, sd_bus_error *error) {
        int r = check_holder(s, msg, error);
        if (r < 0)
                return r;
        if (!streq(s->state, "idle"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_IN_USE, "sensor not idle: %s", s->state);
        return 0;
}

/* GetSample's and GetSpectrum's argument, read only from the holder of an idle sensor. */
static int read_cap(Sensor *s, sd_bus_message *msg, const char **ret_cap, sd_bus_error *error) {
        int r = sd_bus_message_read(msg, "s", ret_cap);
        if (r < 0)
                return r;
        return check_idle_holder(s, msg, error);
}

static int no_driver(Sensor *s, sd_bus_error *error) {
        return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT,
                             "no driver for the %s sensor: install Debian's argyll package (ArgyllCMS spotread)", s->kind);
}

static int method_get_sample(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        const char *cap;
        int r = read_cap(s, msg, &cap, error);
        if (r < 0)
                return r;
        if (!is_known_cap(cap))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cap '%s' unknown", cap);
        if (streq(cap, "spectral"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cap 'spectral' needs GetSpectrum");

        if (s->driver == SENSOR_DRIVER_ARGYLL && !sensor_argyll_available())
                return no_driver(s, error);

        if (!(s->pending_cap = strdup(cap)))
                return -ENOMEM;
        s->pending = sd_bus_message_ref(msg);
        if (s->driver == SENSOR_DRIVER_DUMMY)
                r = sd_event_add_time_relative(s->manager->event, &s->timer, CLOCK_MONOTONIC,
                                               s->sim ? SIM_SAMPLE_DELAY_USEC : SAMPLE_DELAY_USEC,
                                               s->sim ? 1 : 0, /* default accuracy: up to 250 ms late */
                                               on_dummy_sample_ready, s);
        else
                r = sensor_argyll_sample(s);
        if (r < 0) {
                s->pending = sd_bus_message_unref(s->pending);
                s->pending_cap = mfree(s->pending_cap);
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cannot start the reading: %s", strerror(-r));
        }
        s->state = "measuring";
        sensor_emit_properties(s, "State", NULL);
        return 1;
}

static int method_get_spectrum(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        const char *cap;
        int r = read_cap(s, msg, &cap, error);
        if (r < 0)
                return r;
        if (!streq(cap, "spectral") && !streq(cap, "calibration-dark") && !streq(cap, "calibration-irradiance"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cap '%s' is not a spectral capability", cap);
        return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "the %s driver has no spectral mode",
                             s->driver == SENSOR_DRIVER_DUMMY ? "dummy" : "argyll");
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

static int method_set_options(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        DummyOptions o = { .sample = { s->sample[0], s->sample[1], s->sample[2] } };
        int r;
        r = check_idle_holder(s, msg, error);
        if (r < 0)
                return r;
        if (s->driver != SENSOR_DRIVER_DUMMY)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "the argyll driver takes no options");
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
        return sd_bus_reply_method_return(msg, "");
}

static int prop_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        const char *v = streq(property, "SensorId") ? s->id :
                        streq(property, "Kind") ? s->kind :
                        streq(property, "State") ? s->state :
                        streq(property, "Mode") ? s->mode :
                        streq(property, "Serial") ? s->serial :
                        streq(property, "Model") ? s->model : s->vendor;
        return sd_bus_message_append(reply, "s", strempty(v));
}

static int prop_bool(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        bool v = streq(property, "Native") ? s->native : streq(property, "Embedded") ? s->embedded : s->locked;
        return sd_bus_message_append(reply, "b", (int) v);
}

static int prop_caps(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append_strv(reply, ((Sensor *) userdata)->caps);
}

/* colord's dummy sets no Options; a virtual display shows its settings there. */
static int prop_options(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
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

static int prop_metadata(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        /* a{ss}, as introspected; colord sends an empty a{sv} here (docs/compatibility.md). */
        Sensor *s = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "{ss}");
        for (size_t i = 0; r >= 0 && s->metadata && s->metadata[i] && s->metadata[i + 1]; i += 2)
                r = sd_bus_message_append(reply, "{ss}", s->metadata[i], s->metadata[i + 1]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
const sd_bus_vtable sensor_vtable[] = {
        SD_BUS_VTABLE_START(SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("SensorId", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Kind", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Mode", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Serial", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Model", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Vendor", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Native", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Embedded", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Locked", "b", prop_bool, 0, EMITS),
        SD_BUS_PROPERTY("Capabilities", "as", prop_caps, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Options", "a{sv}", prop_options, 0, EMITS),
        SD_BUS_PROPERTY("Metadata", "a{ss}", prop_metadata, 0, EMITS),
        SD_BUS_METHOD("Lock", "", "", method_lock, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Unlock", "", "", method_unlock, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSample", SD_BUS_ARGS("s", capability),
                                SD_BUS_RESULT("d", sample_x, "d", sample_y, "d", sample_z), method_get_sample, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSpectrum", SD_BUS_ARGS("s", capability),
                                SD_BUS_RESULT("d", start_nm, "d", end_nm, "ad", data), method_get_spectrum, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetOptions", SD_BUS_ARGS("a{sv}", values), SD_BUS_NO_RESULT, method_set_options, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("ButtonPressed", NULL, 0),
        SD_BUS_VTABLE_END,
};
