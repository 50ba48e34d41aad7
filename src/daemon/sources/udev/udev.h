/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev discovery: USB scanners, gphoto2 cameras (Devices) and colorimeters (Sensors) found
 * at start and followed as they come and go (docs/colord-behaviour.md, "Devices found
 * through udev"). What qualifies is udev-match.c's; the devices, their adds and removes on
 * usb and video4linux come from udev-source.h (the real system, or the fake tree of
 * --sysfs-root). --no-udev turns it off. */
#pragma once

#include "manager.h"

typedef struct UdevWatch UdevWatch;

/* Coldplug and watch; a failure to watch is logged and leaves the coldplug in place. */
int udev_discovery_start(Manager *m);
UdevWatch *udev_watch_free(UdevWatch *w);

/* Called by manager_remove_device() before a device is freed (DeleteDevice on ours). */
void udev_device_removed(Manager *m, Device *d);
