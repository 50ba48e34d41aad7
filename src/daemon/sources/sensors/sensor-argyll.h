/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The argyll driver: readings from a real instrument through ArgyllCMS's spotread, run as
 * a child process while the sensor is locked (docs/colord-behaviour.md, "Sensors"). */
#pragma once

#include <stdbool.h>

#include "sensor.h"

/* available: spotread is on PATH (Debian's argyll package). sample: 0, or a negative errno
 * when spotread cannot be started. stop: ends spotread, if it runs. No options. */
extern const SensorDriver sensor_argyll_driver;
