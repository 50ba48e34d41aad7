#include "sensor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sensor_new_dummy(Manager *m, Sensor **ret) {
        Sensor *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        *s = (Sensor) {
                .manager = m,
                .kind = "dummy",
                .state = "idle",
                .mode = "unknown",
                .native = true,
                .sample = { 0.1, 0.2, 0.3 },
        };
        s->id = strdup("dummy");
        s->path = strdup(SENSOR_PATH_PREFIX "/dummy");
        s->serial = strdup("0123456789a");
        s->model = strdup("Dummy Sensor #1");
        s->vendor = strdup("Acme Corp");
        if (!s->id || !s->path || !s->serial || !s->model || !s->vendor) {
                sensor_free(s);
                return -ENOMEM;
        }
        *ret = s;
        return 0;
}

Sensor *sensor_free(Sensor *s) {
        if (!s)
                return NULL;
        sd_event_source_disable_unref(s->timer);
        sd_bus_message_unref(s->pending);
        free(s->pending_cap);
        free(s->id);
        free(s->path);
        free(s->serial);
        free(s->model);
        free(s->vendor);
        free(s->lock_holder);
        free(s);
        return NULL;
}

bool sensor_client_vanished(Sensor *s, const char *name) {
        if (!s->locked || !streq_ptr(s->lock_holder, name))
                return false;
        s->locked = false;
        s->lock_holder = mfree(s->lock_holder);
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
