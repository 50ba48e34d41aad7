/* SPDX-License-Identifier: GPL-2.0-or-later */
/* No screen under the dummy sensor: built in place of sensor-x11.c when tinctd does not link
 * libX11 (plain and release builds; meson.build), so --dummy-sensor-x11 is refused. */
#include "sensor-x11.h"

#include <errno.h>
#include <stdio.h>

bool sensor_x11_supported(void) {
        return false;
}

int sensor_x11_read_centre(const char *name, double ret_rgb[3], char **ret_error) {
        if (asprintf(ret_error, "this tinctd is built without X11") < 0)
                *ret_error = NULL;
        return -EOPNOTSUPP;
}
