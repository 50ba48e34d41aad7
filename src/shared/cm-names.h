/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The names of colord's D-Bus API (org.freedesktop.ColorManager) as its clients in this tree
 * call it: the tinct CLI (tools/) and tinct-session. Names only: no bus code here. */
#pragma once

#define CM_SERVICE "org.freedesktop.ColorManager"
#define CM_PATH "/org/freedesktop/ColorManager"
#define CM_IFACE "org.freedesktop.ColorManager"
#define CM_IFACE_DEVICE "org.freedesktop.ColorManager.Device"
#define CM_IFACE_PROFILE "org.freedesktop.ColorManager.Profile"
#define CM_IFACE_SENSOR "org.freedesktop.ColorManager.Sensor"

/* tinct's own: rescanning scanners on demand (docs/scanners.md), beside colord's API. */
#define TINCT_SCANNERS_PATH "/org/tinct/Scanners"
#define TINCT_SCANNERS_IFACE "org.tinct.Scanners1"
