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

#include "manager.h"

typedef struct DisplayWatch DisplayWatch;

/* Scans the connectors, registers what it finds and starts watching. Failures to watch are
 * logged and leave the first scan in place. */
int display_discovery_start(Manager *m);
DisplayWatch *display_watch_free(DisplayWatch *w);

/* The id of the daemon's display device that a plain display id stands for when identical
 * monitors made it ambiguous (they get "<plain>-<connector>"), or NULL. For
 * manager_find_device_by_id(), after the real ids. */
const char *display_alias_target(Manager *m, const char *id);

/* Called by manager_remove_device() before a device is freed, so a device deleted over the
 * bus is not referenced again. */
void display_device_removed(Manager *m, Device *d);
