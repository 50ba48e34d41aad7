/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct get-sensor-reading [CAP]: colormgr's sensor reading (colord §6, §14.1). For every
 * sensor: Lock, GetSample(CAP), Unlock (also after a failed sample, so the sensor is not
 * left locked until our connection closes). Output conventions as in verb-bus.c; --json
 * prints {"readings": [{"sensor": {object}, "capability": CAP, "x": X, "y": Y, "z": Z}]}. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-call.h"
#include "bus-print.h"
#include "hold.h"
#include "log.h"
#include "strv.h"
#include "verbs.h"

/* Sensor capabilities in libcolord's enum order (colord §14.2). */
static const char *const sensor_caps[] = {
        "unknown", "lcd", "crt", "printer", "spot", "projector", "ambient", "calibration",
        "led", "plasma", "lcd-ccfl", "lcd-rgb-led", "lcd-white-led", "wide-gamut-lcd-ccfl",
        "wide-gamut-lcd-rgb-led", "spectral", "calibration-dark", "calibration-irradiance",
};

typedef struct Reading {
        BusObject *sensor;
        double xyz[3];
} Reading;

/* Every sensor's path; -ENODEV, logged, when there is none. */
static int sensor_paths(sd_bus *bus, char ***ret) {
        _cleanup_strv_free_ char **paths = NULL;
        int r = bus_call_paths(bus, CM_PATH, CM_IFACE, "GetSensors", &paths, NULL);
        if (r < 0)
                return r;
        if (strv_isempty(paths)) {
                log_error("there are no sensors");
                return -ENODEV;
        }
        *ret = TAKE_PTR(paths);
        return 0;
}

static int read_sensor(sd_bus *bus, const char *path, const char *cap, Reading *ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(bus_object_freep) BusObject *o = NULL;
        int r;

        r = bus_call(bus, path, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        if (r < 0)
                return r;
        r = bus_call(bus, path, CM_SENSOR_IFACE, "GetSample", &reply, "s", cap);
        if (r >= 0) {
                r = sd_bus_message_read(reply, "ddd", &ret->xyz[0], &ret->xyz[1], &ret->xyz[2]);
                if (r < 0)
                        bus_log_parse_error(r);
        }
        int k = bus_call(bus, path, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
        if (r < 0)
                return r;
        if (k < 0)
                return k;
        /* properties after the reading: State is back to idle, Locked false */
        r = bus_object_get(bus, BUS_OBJECT_SENSOR, path, &o);
        if (r < 0)
                return r;
        ret->sensor = TAKE_PTR(o);
        return 0;
}

static bool is_sensor_cap(const char *cap) {
        for (size_t i = 1; i < ELEMENTSOF(sensor_caps); i++) /* not "unknown" */
                if (streq(cap, sensor_caps[i]))
                        return true;
        return false;
}

int verb_get_sensor_reading_check(const Invocation *inv) {
        if (inv->n_args > 0 && !is_sensor_cap(inv->args[0]))
                return verb_usage_error(inv, "unknown sensor capability '%s'", inv->args[0]);
        return 0;
}

int verb_get_sensor_reading(Invocation *inv) {
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_free_ Reading *readings = NULL;
        const char *cap = inv->n_args > 0 ? inv->args[0] : "lcd";
        sd_bus *bus = inv->bus;
        size_t n = 0;
        int status = EXIT_SUCCESS;
        int r;

        r = sensor_paths(bus, &paths);
        if (r < 0)
                return bus_exit_status(r);
        readings = calloc(strv_length(paths), sizeof *readings);
        if (!readings)
                return bus_exit_status(log_oom());
        STRV_FOREACH(p, paths) {
                r = read_sensor(bus, *p, cap, &readings[n]);
                if (r < 0) {
                        status = bus_exit_status(r);
                        continue;
                }
                n++;
        }

        if (inv->opts.json) {
                JsonWriter w;
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, "readings");
                json_write_begin_array(&w);
                for (size_t i = 0; i < n; i++) {
                        static const char *const axes[] = { "x", "y", "z" };
                        json_write_begin_object(&w);
                        json_write_key(&w, "sensor");
                        bus_object_write_json(readings[i].sensor, &w);
                        json_write_key(&w, "capability");
                        json_write_string(&w, cap);
                        for (size_t j = 0; j < 3; j++) {
                                json_write_key(&w, axes[j]);
                                json_write_double(&w, readings[i].xyz[j]);
                        }
                        json_write_end_object(&w);
                }
                json_write_end_array(&w);
                json_write_end_object(&w);
                if (bus_json_finish(&w) < 0)
                        status = EXIT_FAILURE;
        } else
                for (size_t i = 0; i < n; i++) {
                        if (i > 0)
                                putchar('\n');
                        printf("Sensor: %s\nSensorId: %s\nCapability: %s\nX: %f\nY: %f\nZ: %f\n",
                               readings[i].sensor->path,
                               strempty(bus_value_get_string(readings[i].sensor->properties, "SensorId")),
                               cap, readings[i].xyz[0], readings[i].xyz[1], readings[i].xyz[2]);
                }

        for (size_t i = 0; i < n; i++)
                bus_object_free(readings[i].sensor);
        return status;
}

/* tinct get-spectral-reading [CAP]: the same with GetSpectrum (CAP spectral, default, or
 * calibration-dark / calibration-irradiance); prints the range and the values. --json:
 * {"spectra": [{"sensor": {object}, "capability": CAP, "start_nm": S, "end_nm": E,
 * "values": [...]}]}. */
static bool is_spectral_cap(const char *cap) {
        return streq(cap, "spectral") || streq(cap, "calibration-dark") || streq(cap, "calibration-irradiance");
}

int verb_get_spectral_reading_check(const Invocation *inv) {
        if (inv->n_args > 0 && !is_spectral_cap(inv->args[0]))
                return verb_usage_error(inv, "'%s' is not a spectral capability", inv->args[0]);
        return 0;
}

/* Lock, GetSpectrum, Unlock: the spectrum's range and values (pointing into *ret_reply). */
static int measure_spectrum(sd_bus *bus, const char *path, const char *cap, sd_bus_message **ret_reply,
                            double *ret_start, double *ret_end, const double **ret_values, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const void *values = NULL;
        size_t size = 0;
        int r, k;

        r = bus_call(bus, path, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        if (r < 0)
                return r;
        r = bus_call(bus, path, CM_SENSOR_IFACE, "GetSpectrum", &reply, "s", cap);
        if (r >= 0) {
                r = sd_bus_message_read(reply, "dd", ret_start, ret_end);
                if (r >= 0)
                        r = sd_bus_message_read_array(reply, 'd', &values, &size);
                if (r < 0)
                        bus_log_parse_error(r);
        }
        k = bus_call(bus, path, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
        if (r < 0)
                return r;
        if (k < 0)
                return k;
        *ret_values = values;
        *ret_n = size / sizeof(double);
        *ret_reply = TAKE_PTR(reply);
        return 0;
}

int verb_get_spectral_reading(Invocation *inv) {
        _cleanup_strv_free_ char **paths = NULL;
        const char *cap = inv->n_args > 0 ? inv->args[0] : "spectral";
        sd_bus *bus = inv->bus;
        bool json = inv->opts.json;
        int r, status = EXIT_SUCCESS;

        r = sensor_paths(bus, &paths);
        if (r < 0)
                return bus_exit_status(r);
        JsonWriter w;
        if (json) {
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, "spectra");
                json_write_begin_array(&w);
        }
        bool first = true;
        STRV_FOREACH(p, paths) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_(bus_object_freep) BusObject *o = NULL;
                const double *values = NULL;
                size_t n = 0;
                double start = 0, end = 0;

                r = measure_spectrum(bus, *p, cap, &reply, &start, &end, &values, &n);
                if (r >= 0)
                        r = bus_object_get(bus, BUS_OBJECT_SENSOR, *p, &o);
                if (r < 0) {
                        status = bus_exit_status(r);
                        continue;
                }
                if (json) {
                        json_write_begin_object(&w);
                        json_write_key(&w, "sensor");
                        bus_object_write_json(o, &w);
                        json_write_key(&w, "capability");
                        json_write_string(&w, cap);
                        json_write_key(&w, "start_nm");
                        json_write_double(&w, start);
                        json_write_key(&w, "end_nm");
                        json_write_double(&w, end);
                        json_write_key(&w, "values");
                        json_write_begin_array(&w);
                        for (size_t i = 0; i < n; i++)
                                json_write_double(&w, values[i]);
                        json_write_end_array(&w);
                        json_write_end_object(&w);
                        continue;
                }
                printf("%sSensor: %s\nCapability: %s\nStart: %f nm\nEnd: %f nm\nValues:", first ? "" : "\n", o->path,
                       cap, start, end);
                for (size_t i = 0; i < n; i++)
                        printf(" %f", values[i]);
                printf("\n");
                first = false;
        }
        if (json) {
                json_write_end_array(&w);
                json_write_end_object(&w);
                if (bus_json_finish(&w) < 0)
                        status = EXIT_FAILURE;
        }
        return status;
}

/* Unlocks the sensors; 0, or the first failure (each is logged). */
static int unlock_all(sd_bus *bus, char **locked) {
        int ret = 0, r;

        STRV_FOREACH(l, locked) {
                r = bus_call(bus, *l, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        return ret;
}

/* Locks every sensor: 0 with *ret the paths locked (the caller unlocks them), or a negative
 * errno (bus-call.h) after unlocking what it had. */
static int lock_all(sd_bus *bus, char ***ret) {
        _cleanup_strv_free_ char **paths = NULL, **locked = NULL;
        int r;

        r = sensor_paths(bus, &paths);
        if (r < 0)
                return r;
        STRV_FOREACH(p, paths) {
                r = bus_call(bus, *p, CM_SENSOR_IFACE, "Lock", NULL, NULL);
                if (r >= 0) {
                        r = strv_extend(&locked, *p);
                        if (r < 0) {
                                (void) bus_call(bus, *p, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
                                log_oom();
                        }
                }
                if (r < 0) {
                        (void) unlock_all(bus, locked);
                        return r;
                }
        }
        *ret = TAKE_PTR(locked);
        return 0;
}

/* tinct sensor-lock [SECONDS]: colormgr's sensor-lock, holding the lock of every sensor
 * until Ctrl-C (or SECONDS), so nothing else can use the instrument meanwhile. */
int verb_sensor_lock_check(const Invocation *inv) {
        unsigned long seconds;
        if (inv->n_args > 0 && parse_seconds(inv->args[0], &seconds) < 0)
                return verb_usage_error(inv, "'%s' is not a number of seconds", inv->args[0]);
        return 0;
}

int verb_sensor_lock(Invocation *inv) {
        _cleanup_strv_free_ char **locked = NULL;
        unsigned long seconds = 0;
        sd_bus *bus = inv->bus;
        sigset_t mask;
        int r;

        if (inv->n_args > 0)
                (void) parse_seconds(inv->args[0], &seconds); /* checked */
        r = block_interrupts(&mask);
        if (r < 0)
                return EXIT_FAILURE;
        r = lock_all(bus, &locked);
        if (r < 0)
                return bus_exit_status(r);
        STRV_FOREACH(l, locked)
                printf("Locked %s\n", *l);
        printf(seconds > 0 ? "Holding the locks for %lu s (Ctrl-C ends it early).\n" : "Holding the locks until Ctrl-C.\n",
               seconds);
        fflush(stdout);
        (void) hold_until_signal(&mask, seconds);
        return bus_exit_status(unlock_all(bus, locked));
}

/* SetOptions({key: value}) on one sensor: value as a double when it is a number. */
static int set_option(sd_bus *bus, const char *path, const char *key, const char *value) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        char *end;
        int r;

        double d = strtod(value, &end);
        bool number = end != value && *end == 0;
        r = bus_new_method_call(bus, path, CM_SENSOR_IFACE, "SetOptions", &m);
        if (r < 0)
                return r;
        if (number)
                r = sd_bus_message_append(m, "a{sv}", 1, key, "d", d);
        else
                r = sd_bus_message_append(m, "a{sv}", 1, key, "s", value);
        if (r < 0)
                return bus_log_create_error(r);
        return bus_call_message(bus, m, NULL);
}

/* tinct sensor-set-options KEY VALUE: lock, SetOptions({KEY: VALUE}), unlock, on every
 * sensor. VALUE goes as a double when it is a number, else as a string (as colormgr). */
int verb_sensor_set_options(Invocation *inv) {
        _cleanup_strv_free_ char **locked = NULL;
        sd_bus *bus = inv->bus;
        int ret = 0, r;

        r = lock_all(bus, &locked);
        if (r < 0)
                return bus_exit_status(r);
        STRV_FOREACH(l, locked) {
                r = set_option(bus, *l, inv->args[0], inv->args[1]);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        r = unlock_all(bus, locked);
        return bus_exit_status(ret < 0 ? ret : r);
}
