/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests only: the dummy sensor held on a real X screen (tinctd --dummy-sensor-x11 DISPLAY,
 * docs/compatibility.md "The dummy sensor's virtual display"). Each reading takes the
 * pixel at the centre of the X screen, where a colorimeter would be held, and the virtual
 * display's profile (sensor-sim.h) turns it into XYZ. It stands in for an instrument so
 * that `tinct verify` can be tested showing its own patches (docs/verify.md); no release
 * use reads the screen. Without X11 (-Dx11=disabled) the option is refused. */
#pragma once

#include <stdbool.h>

/* Whether this tinctd was built with libX11 (the option is refused otherwise). */
bool sensor_x11_supported(void);
/* The RGB (0..1) of the pixel at the centre of DISPLAY's default screen. Opens and
 * closes its own connection, so nothing of X lives in the event loop; a local X server
 * answers one round trip. *ret_error says why on failure (always set, may be NULL on
 * -ENOMEM). */
int sensor_x11_read_centre(const char *display, double ret_rgb[3], char **ret_error);
