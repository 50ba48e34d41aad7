/* SPDX-License-Identifier: GPL-2.0-or-later */
/* colord-session's calibration interface on the session bus (colord §10), object "/":
 * org.freedesktop.ColorHelper (DaemonVersion) and org.freedesktop.ColorHelper.Display
 * (Progress; Start, Resume, Cancel; InteractionRequired, UpdateSample, UpdateGamma,
 * Finished). It parses Start's options, runs one calibration at a time (calib-run.c), follows
 * the caller (one that leaves the bus cancels its run) and turns the run's events into
 * signals. Unlike colord-session it stays running afterwards: tinct-session has the user's
 * profiles and screens to look after.
 *
 * Not here: the name on the bus (session-bus.c), measuring and building (calib-run.c). */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "cm-client.h"
#include "macro.h"
#include "user-profiles.h"

#define COLOR_HELPER_PATH "/"
#define COLOR_HELPER_IFACE "org.freedesktop.ColorHelper"
#define COLOR_HELPER_IFACE_DISPLAY "org.freedesktop.ColorHelper.Display"

typedef struct ColorHelper ColorHelper;

/* Registers the object on bus (before the name is taken, so an activating caller finds it). */
int color_helper_new(sd_event *event, sd_bus *bus, ColorHelper **ret);
/* What a run needs: the daemon, the user's profiles (may be NULL: no run can then save) and
 * the directory new profiles go to (copied; NULL likewise). */
int color_helper_set_backends(ColorHelper *h, CmClient *cm, UserProfiles *profiles, const char *icc_dir);
ColorHelper *color_helper_free(ColorHelper *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(ColorHelper *, color_helper_free);
