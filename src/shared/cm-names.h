/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The names of colord's D-Bus API (org.freedesktop.ColorManager), spelled once for the whole
 * tree: the daemon, the tinct CLI (tools/), tinct-session, libtinct, the tests and the
 * benchmarks. Names only, no code: libtinct, which uses nothing else of the tree, includes it. */
#pragma once

#define CM_NAME "org.freedesktop.ColorManager"        /* the bus name */
#define CM_PATH "/org/freedesktop/ColorManager"
#define CM_IFACE CM_NAME
#define CM_DEVICE_IFACE CM_IFACE ".Device"
#define CM_PROFILE_IFACE CM_IFACE ".Profile"
#define CM_SENSOR_IFACE CM_IFACE ".Sensor"

/* tinct's own: rescanning scanners on demand (docs/scanners.md), beside colord's API. */
#define TINCT_SCANNERS_PATH "/org/tinct/Scanners"
#define TINCT_SCANNERS_IFACE "org.tinct.Scanners1"
