/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The argyll driver: readings from a real instrument through ArgyllCMS's spotread, run as
 * a child process while the sensor is locked (docs/colord-behaviour.md, "Sensors"). */
#pragma once

#include <stdbool.h>

#include "sensor.h"

/* Whether spotread is on PATH (Debian's argyll package). */
bool sensor_argyll_available(void);
/* Starts a reading for s->pending (already set, with s->pending_cap); the answer comes from
 * the event loop. 0, or a negative errno when spotread cannot be started. */
int sensor_argyll_sample(Sensor *s);
/* Ends spotread, if it runs. */
void sensor_argyll_stop(Sensor *s);
