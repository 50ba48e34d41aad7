/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-session's side of the session bus: the connection and the name
 * org.freedesktop.ColorHelper (colord-session's, colord §10), which makes us the one helper
 * of this session: D-Bus activation and the systemd user unit (Type=dbus) go by it, and a
 * second instance finds it taken and leaves.
 *
 * The objects of the ColorHelper interface (calibration: Start, Cancel, Progress, ...) are
 * registered on this connection by their own module, between session_bus_open() and
 * session_bus_take_name(), so a caller activating us by name finds them there. This module
 * deliberately holds no interface of its own. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#define COLOR_HELPER_NAME "org.freedesktop.ColorHelper"

/* Connects to the session bus (DBUS_SESSION_BUS_ADDRESS) and attaches it to event. */
int session_bus_open(sd_event *event, sd_bus **ret);

/* Takes COLOR_HELPER_NAME without queueing. -EEXIST when another process has it. Losing it
 * later (NameLost) ends the event loop with status 0. */
int session_bus_take_name(sd_bus *bus, sd_event *event);
