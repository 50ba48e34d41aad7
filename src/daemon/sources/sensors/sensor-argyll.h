/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The argyll driver: readings from a real instrument through ArgyllCMS's spotread, run as
 * a child process while the sensor is locked (docs/colord-behaviour.md, "Sensors"). */
#pragma once

#include <stdbool.h>

#include "sensor.h"

/* The driver (sensor.h's SensorDriver), whose entries do this. available: */
/* Whether spotread is on PATH (Debian's argyll package). */
/* sample: */
/* Starts a reading for s->pending (already set, with s->pending_cap); the answer comes from
 * the event loop. 0, or a negative errno when spotread cannot be started. */
/* stop: */
/* Ends spotread, if it runs. It takes no options. */
extern const SensorDriver sensor_argyll_driver;
