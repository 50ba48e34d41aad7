/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sensor objects' state: making them, their end, and the answers to a reading (the bus
 * methods are sensor-dbus.c's, the readings their driver's: SensorDriver). */
#include "sensor.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bus-order.h"
#include "signals.h"

#define SENSOR_PICTURE_DIR "/usr/share/colord/icons"

static const char *const dummy_caps[] = { "lcd", "crt", "printer", "spot", "projector", "ambient", NULL };

static Sensor *sensor_alloc(Manager *m, const SensorDriver *driver, const char *id, const char *kind) {
        Sensor *s = calloc(1, sizeof *s);
        if (!s)
                return NULL;
        *s = (Sensor) { .manager = m, .driver = driver, .kind = kind, .state = "idle", .mode = "unknown" };
        s->id = strdup(id);
        s->path = s->id ? manager_object_path(m, SENSOR_PATH_PREFIX, id, 0) : NULL;
        if (!s->path)
                return sensor_free(s);
        return s;
}

int sensor_new_dummy(Manager *m, const SensorDriver *driver, Sensor **ret) {
        Sensor *s = sensor_alloc(m, driver, "dummy", "dummy");
        if (!s)
                return -ENOMEM;
        s->native = true;
        memcpy(s->sample, (double[3]) { 0.1, 0.2, 0.3 }, sizeof s->sample);
        s->serial = strdup("0123456789a");
        s->model = strdup("Dummy Sensor #1");
        s->vendor = strdup("Acme Corp");
        s->caps = strv_copy((char **) dummy_caps);
        if (!s->serial || !s->model || !s->vendor || !s->caps) {
                sensor_free(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

/* colord's Metadata: how to attach the instrument, calibrate it, hold it to the screen —
 * pictures Debian's colord-data ships, for the kinds it has them. */
static int add_pictures(Sensor *s) {
        static const char *const pictures[][2] = {
                { "ImageAttach", "attach" }, { "ImageCalibrate", "calibrate" }, { "ImageScreen", "screen" },
        };
        if (!(s->metadata = calloc(1, sizeof(char *))))
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(pictures); i++) {
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, SENSOR_PICTURE_DIR "/%s-%s.svg", s->kind, pictures[i][1]) < 0)
                        return -ENOMEM;
                if (access(path, F_OK) == 0 &&
                    (strv_extend(&s->metadata, pictures[i][0]) < 0 || strv_extend(&s->metadata, path) < 0))
                        return -ENOMEM;
        }
        return 0;
}

int sensor_new_udev(Manager *m, const SensorDriver *driver, const char *id, const char *kind, const char *vendor, const char *model,
                    const char *serial, char *const *caps, bool embedded, const char *syspath, const char *devnode,
                    Sensor **ret) {
        Sensor *s = sensor_alloc(m, driver, id, kind);
        if (!s)
                return -ENOMEM;
        s->embedded = embedded;
        s->native = false; /* ArgyllCMS does the work (colord's Native) */
        s->vendor = strdup(vendor);
        s->model = strdup(model);
        s->serial = strdup(serial);
        s->caps = strv_copy((char **) caps);
        s->syspath = strdup(syspath);
        s->devnode = strdup(devnode);
        if (!s->vendor || !s->model || !s->serial || !s->caps || !s->syspath || !s->devnode ||
            add_pictures(s) < 0) {
                sensor_free(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

Sensor *sensor_free(Sensor *s) {
        if (!s)
                return NULL;
        if (s->driver->stop)
                s->driver->stop(s);
        sd_event_source_disable_unref(s->timer);
        if (s->driver->done)
                s->driver->done(s);
        bus_call_free(s->pending);
        free(s->pending_cap);
        free(s->id);
        free(s->path);
        free(s->serial);
        free(s->model);
        free(s->vendor);
        strv_free(s->caps);
        strv_free(s->metadata);
        free(s->syspath);
        free(s->devnode);
        free(s->lock_holder);
        free(s);
        return NULL;
}

static BusCall *finish_reading(Sensor *s) {
        s->timer = sd_event_source_disable_unref(s->timer);
        s->pending_cap = mfree(s->pending_cap);
        if (!streq(s->state, "idle")) {
                s->state = "idle";
                sensor_emit_properties(s, "State", NULL);
        }
        return TAKE_PTR(s->pending);
}

void sensor_reply_sample(Sensor *s, const double xyz[3]) {
        _cleanup_(bus_call_freep) BusCall *call = finish_reading(s);
        if (call)
                (void) sd_bus_reply_method_return(call->msg, "ddd", xyz[0], xyz[1], xyz[2]);
}

void sensor_reply_error(Sensor *s, const char *error_name, const char *message) {
        _cleanup_(bus_call_freep) BusCall *call = finish_reading(s);
        if (call)
                (void) sd_bus_reply_method_errorf(call->msg, error_name, "%s", message);
}

void sensor_abort(Sensor *s, const char *error_name, const char *message) {
        if (s->driver->stop)
                s->driver->stop(s);
        sensor_reply_error(s, error_name, message);
}

bool sensor_client_vanished(Sensor *s, const char *name) {
        if (!s->locked || !streq_ptr(s->lock_holder, name))
                return false;
        s->locked = false;
        s->lock_holder = mfree(s->lock_holder);
        /* Nobody is left to read the instrument for. */
        sensor_abort(s, SD_BUS_ERROR_FAILED, "the client holding the lock left");
        return true;
}

static double srgb_to_linear(double v) {
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

void sensor_srgb_to_xyz_d50(const double rgb[3], double ret_xyz[3]) {
        static const double M[3][3] = {
                { 0.4360747, 0.3850649, 0.1430804 },
                { 0.2225045, 0.7168786, 0.0606169 },
                { 0.0139322, 0.0971045, 0.7141733 },
        };
        double lin[3];
        for (int i = 0; i < 3; i++)
                lin[i] = srgb_to_linear(rgb[i]);
        for (int i = 0; i < 3; i++)
                ret_xyz[i] = M[i][0] * lin[0] + M[i][1] * lin[1] + M[i][2] * lin[2];
}
