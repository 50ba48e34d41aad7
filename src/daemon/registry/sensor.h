/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Colour sensors: the dummy of `--create-dummy-sensor` (docs/colord-behaviour.md,
 * "Sensors"), and the colorimeters udev finds (udev.c), which are read through ArgyllCMS's
 * spotread where Debian's argyll package is installed (sensor-argyll.c). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "list.h"
#include "manager.h"

typedef enum SensorDriver {
        SENSOR_DRIVER_DUMMY,    /* fake readings from SetOptions' sample */
        SENSOR_DRIVER_ARGYLL,   /* a real instrument, through spotread when it is installed */
} SensorDriver;

typedef struct Spotread Spotread;
typedef struct SensorSim SensorSim;

struct Sensor {
        Manager *manager;
        ListLink link;
        SensorDriver driver;
        char *id;
        char *path;
        const char *kind;   /* static: one of colord's kind names */
        const char *state;  /* unknown starting idle measuring busy */
        const char *mode;
        char *serial, *model, *vendor;
        char **caps;        /* capability names, colord's enum order */
        char **metadata;    /* key, value, ...: the pictures colord-data has of the kind */
        char *syspath;      /* udev sensors: the device, what removal matches */
        char *devnode;      /* udev sensors: /dev/bus/usb/..., how spotread names its port */
        bool native, embedded, locked;
        char *lock_holder;  /* unique name of the client holding the lock */
        double sample[3];   /* the dummy's fake RGB reading; with sim, the RGB the virtual display shows */
        SensorSim *sim;     /* the dummy's virtual display (--dummy-sensor-display), or NULL */
        sd_bus_message *pending; /* GetSample in progress */
        char *pending_cap;
        sd_event_source *timer;  /* the dummy's delayed answer */
        Spotread *spotread;      /* argyll: the running spotread, or NULL */
        unsigned argyll_port;    /* argyll: spotread's -c number, once found */
};

int sensor_new_dummy(Manager *m, Sensor **ret);
/* A udev colorimeter (read with the argyll driver). Copies what it keeps. */
int sensor_new_udev(Manager *m, const char *id, const char *kind, const char *vendor, const char *model,
                    const char *serial, char *const *caps, bool embedded, const char *syspath, const char *devnode,
                    Sensor **ret);
Sensor *sensor_free(Sensor *s);
/* Answers a GetSample in progress with this error and stops the driver (unplug, unlock). */
void sensor_abort(Sensor *s, const char *error_name, const char *message);
/* Drops the lock of a client that left; true when it held it. */
bool sensor_client_vanished(Sensor *s, const char *name);
/* The end of a reading: State back to idle, then the answer (colord's order). */
void sensor_reply_sample(Sensor *s, const double xyz[3]);
void sensor_reply_error(Sensor *s, const char *error_name, const char *message);


/* sRGB (0..1) to XYZ relative to a D50 PCS: the sRGB curve, then the Bradford-adapted
 * sRGB→XYZ(D50) matrix, which is what an lcms relative-colorimetric transform gives. */
void sensor_srgb_to_xyz_d50(const double rgb[3], double ret_xyz[3]);
