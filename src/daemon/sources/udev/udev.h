/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev discovery: USB scanners, gphoto2 cameras (Devices) and colorimeters (Sensors) found
 * at start and followed as they come and go (docs/colord-behaviour.md, "Devices found
 * through udev"). What qualifies is udev-match.c's; the devices, their adds and removes on
 * usb and video4linux come from udev-source.h (the real system, or the fake tree of
 * --sysfs-root). --no-udev turns it off. */
#pragma once

#include "device-source.h"

typedef struct UdevWatch UdevWatch;

/* The source (device-source.h). start: coldplug and watch; a failure to watch is logged and
 * leaves the coldplug in place. Every add or remove goes to the other sources' hotplug. */
extern const DeviceSourceVTable udev_devices_source;

UdevWatch *udev_watch_free(UdevWatch *w);
