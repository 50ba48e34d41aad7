/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dummy sensor of --create-dummy-sensor (docs/colord-behaviour.md, "Sensors") and its
 * driver: colord's fake readings, or a virtual display's with --dummy-sensor-display
 * (sensor-sim.h), on an X screen with --dummy-sensor-x11 (tests only, sensor-x11.h). */
#pragma once

#include "sensor.h"

extern const SensorDriver sensor_dummy_driver;

/* The command line's settings of the dummy (tinctd --help). */
typedef struct DummySensorConfig {
        bool create;                    /* --create-dummy-sensor (or --dummy-sensor-display) */
        char *display;                  /* ICC file: the dummy's virtual display (sensor-sim.h) */
        char *x11;                      /* tests: that display is this X screen (sensor-x11.h) */
} DummySensorConfig;

void dummy_sensor_config_done(DummySensorConfig *c);

/* Makes the dummy and adds it to the registry. An unusable --dummy-sensor-display or
 * --dummy-sensor-x11 is an error (root asked for it on the command line: the daemon does
 * not start). */
int sensor_dummy_create(Manager *m, const DummySensorConfig *c);
