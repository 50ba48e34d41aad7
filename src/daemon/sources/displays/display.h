/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Display discovery: every connected DRM connector with a usable EDID becomes a display
 * device owned by the daemon (kind display, scope normal, owner 0, id as GNOME and colord-kde
 * make it, colord §9.4), with an ICC profile generated from its EDID attached soft unless a
 * hard mapping exists. Hotplug comes from udev-source.h's drm events (the real system, or
 * the fake tree of --sysfs-root); an event only triggers a rescan, whose diff
 * (display-scan.h) adds, removes and replaces devices. --no-udev turns all of it off.
 *
 * Deliberately not here: the session's own display devices (clients create those with
 * CreateDevice as before; the two kinds coexist, see docs/compatibility.md), colour
 * calibration, anything that needs DRM ioctls (only sysfs attributes are read). */
#pragma once

#include "device-source.h"

typedef struct DisplayWatch DisplayWatch;

/* The source (device-source.h). start: scans the connectors, registers what it finds and
 * starts watching; failures to watch are logged and leave the first scan in place.
 * alias_target: the id of the daemon's display device that a plain display id stands for
 * when identical monitors made it ambiguous (they get "<plain>-<connector>"), for
 * manager_find_device_by_id() after the real ids. device_removed: a device deleted over the
 * bus is not referenced again. */
extern const DeviceSourceVTable display_source;

DisplayWatch *display_watch_free(DisplayWatch *w);
