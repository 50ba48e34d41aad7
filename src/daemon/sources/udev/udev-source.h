/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where udev devices come from, behind one interface: the real system (sd-device's
 * enumerator and monitor, udev-source-system.c) or, for tests, a fake tree (--sysfs-root
 * ROOT, udev-source-fake.c): sysfs under ROOT/sys, udev's database under ROOT/run/udev/data,
 * files named c<major>:<minor> with E:KEY=VALUE lines as udevd writes them
 * (docs/colord-behaviour.md). The back-end is chosen once, in udev_source_new(); its users
 * (udev.c, display.c) never ask which one they have.
 *
 * In the fake tree a database file that appears or is rewritten is an add, one that goes a
 * remove, and a change to ROOT/sys/class/<subsystem> or to a file of one of its devices
 * (a connector's status, its edid) a change: what udevd and the kernel would announce. */
#pragma once

#include <systemd/sd-event.h>

#include "macro.h"
#include "udev-match.h"

typedef enum UdevAction {
        UDEV_ACTION_ADD,        /* also "bind" */
        UDEV_ACTION_CHANGE,     /* anything else but a remove */
        UDEV_ACTION_REMOVE,
} UdevAction;

/* For an add, info has the device's properties and attributes; for a change or a remove only
 * its syspath is sure (a remove often carries nothing else). Borrowed for the call. */
typedef void (*UdevSourceHandler)(UdevAction action, const UdevInfo *info, void *userdata);

typedef struct UdevSource UdevSource;

/* The devices of these subsystems, from the real system when root is NULL or empty, else
 * from the fake tree under root. Allocates only: nothing is read or watched yet. */
int udev_source_new(sd_event *event, const char *root, char *const *subsystems, UdevSourceHandler handler,
                    void *userdata, UdevSource **ret);
UdevSource *udev_source_free(UdevSource *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(UdevSource *, udev_source_free);

/* Follows hotplug from the event loop given to udev_source_new(). Call it before
 * udev_source_enumerate(), so that nothing plugged in meanwhile is missed. */
int udev_source_watch(UdevSource *s);
/* Calls the handler with an add for every device there now. */
int udev_source_enumerate(UdevSource *s);
