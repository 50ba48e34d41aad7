/* Colour sensors. Only the dummy sensor of `--create-dummy-sensor` exists (spec §6.2);
 * real USB colorimeters would need drivers tinct does not have (see docs). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "list.h"
#include "manager.h"

struct Sensor {
        Manager *manager;
        ListLink link;
        char *id;
        char *path;
        const char *kind;
        const char *state; /* unknown starting idle measuring busy */
        const char *mode;
        char *serial, *model, *vendor;
        bool native, embedded, locked;
        char *lock_holder;  /* unique name of the client holding the lock */
        double sample[3];   /* the dummy's fake RGB reading */
        sd_bus_message *pending; /* GetSample in progress */
        char *pending_cap;
        sd_event_source *timer;
};

int sensor_new_dummy(Manager *m, Sensor **ret);
Sensor *sensor_free(Sensor *s);
/* Drops the lock of a client that left; true when it held it. */
bool sensor_client_vanished(Sensor *s, const char *name);

/* sRGB (0..1) to XYZ relative to a D50 PCS: the sRGB curve, then the Bradford-adapted
 * sRGB→XYZ(D50) matrix, which is what an lcms relative-colorimetric transform gives. */
void sensor_srgb_to_xyz_d50(const double rgb[3], double ret_xyz[3]);
