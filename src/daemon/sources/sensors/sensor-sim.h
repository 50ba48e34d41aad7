/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dummy sensor's virtual display (tinctd --dummy-sensor-display FILE): the dummy then
 * measures a screen whose true response is that ICC profile, so calibration can be tested
 * without an instrument (docs/compatibility.md, "The dummy sensor's virtual display"). The
 * client says which RGB the screen shows with SetOptions (sensor-dbus.c); a reading is the
 * XYZ it emits, in cd/m², white scaled to the luminance, with optional seeded noise.
 *
 * Deliberately not here: the bus (sensor-dbus.c), a video card ramp (the client sends the
 * values after its own ramp), and profiles from clients: the file is root's, named on the
 * daemon's command line. */
#pragma once

#include <stdint.h>

#include "icc-display-model.h"

struct Parser;

#define SENSOR_SIM_DEFAULT_LUMINANCE 120.0 /* cd/m², when the profile has no 'lumi' */
#define SENSOR_SIM_MAX_LUMINANCE 10000.0
#define SENSOR_SIM_MAX_NOISE 0.1

typedef struct SensorSim {
        IccDisplayModel *model;
        char *path;
        double luminance;  /* cd/m² of white */
        double noise;      /* relative standard deviation of each of X, Y, Z; 0 = none */
        uint64_t seed;
        uint64_t rng;      /* state, restarted from the seed by sensor_sim_set_seed() */
        char *x11_display; /* tests: the RGB shown is read from this X screen (sensor-x11.h), or NULL */
} SensorSim;

/* Reads the file, has the parser process check it (docs/sandbox.md), then builds the model
 * in the daemon. -EMEDIUMTYPE: not an RGB profile; other errors as the reader's. *ret_error
 * (always set on failure, may be NULL on -ENOMEM) says why. */
int sensor_sim_load(struct Parser *parser, const char *path, SensorSim **ret, char **ret_error);
SensorSim *sensor_sim_free(SensorSim *sim);

void sensor_sim_set_seed(SensorSim *sim, uint64_t seed);
/* The XYZ (cd/m²) the instrument reads for this RGB (0..1) on the virtual display. */
void sensor_sim_reading(SensorSim *sim, const double rgb[3], double ret_xyz[3]);
