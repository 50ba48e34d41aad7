/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Colour sensors: the dummy of `--create-dummy-sensor` (docs/colord-behaviour.md,
 * "Sensors"), and the colorimeters udev finds (udev.c), which are read through ArgyllCMS's
 * spotread where Debian's argyll package is installed. How a sensor reads is its driver's,
 * chosen once when the sensor is made (sources/sensors/: sensor-dummy.c, sensor-argyll.c);
 * nothing here or in sensor-dbus.c names one. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "list.h"
#include "manager.h"

typedef struct Spotread Spotread;
typedef struct SensorSim SensorSim;

typedef struct SensorDriver {
        const char *name;       /* in messages: "the argyll driver takes no options" */
        /* Whether readings can be taken at all (spotread installed); NULL: always. */
        bool (*available)(void);
        /* Starts a reading for s->pending (set, with s->pending_cap); the answer comes from
         * the event loop through sensor_reply_sample() or sensor_reply_error(). */
        int (*sample)(Sensor *s);
        /* Optional: ends a reading in progress, if any (unplug, unlock, the end). */
        void (*stop)(Sensor *s);
        /* Optional: SetOptions' a{sv}, all of it checked before any is applied; without it
         * the driver takes no options. */
        int (*set_options)(Sensor *s, sd_bus_message *msg, sd_bus_error *error);
        /* Optional: the Options property's a{sv}; without it an empty one. */
        int (*append_options)(Sensor *s, sd_bus_message *reply);
        /* Optional: frees what the driver keeps in s. */
        void (*done)(Sensor *s);
} SensorDriver;

struct Sensor {
        Manager *manager;
        ListLink link;
        const SensorDriver *driver;
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
        struct BusCall *pending; /* GetSample in progress */
        char *pending_cap;
        sd_event_source *timer;  /* the dummy's delayed answer */
        Spotread *spotread;      /* argyll: the running spotread, or NULL */
        unsigned argyll_port;    /* argyll: spotread's -c number, once found */
};

/* colord's dummy sensor, read by `driver`. */
int sensor_new_dummy(Manager *m, const SensorDriver *driver, Sensor **ret);
/* A udev colorimeter, read by `driver`. Copies what it keeps. */
int sensor_new_udev(Manager *m, const SensorDriver *driver, const char *id, const char *kind, const char *vendor, const char *model,
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
