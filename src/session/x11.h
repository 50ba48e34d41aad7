/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's X11 screens (colord §9.5, what GNOME's colour plugin did): one temp display
 * device per connected RandR output, named by the rule of colord §9.4 from the output's EDID
 * property (xrandr-<vendor>-<model>-<serial>, src/edid-icc) or, without one, by the output
 * (xrandr-<name>: Xvfb's only output is "screen"). When the daemon has a device of that id
 * already (its own DRM device of the same monitor, or another agent's), that one is used and
 * none is made.
 *
 * Each device is followed through its Changed and PropertiesChanged signals. On every change
 * its default profile (the first of Profiles) is applied to the output: the profile's vcgt
 * into the CRTC's gamma ramp (a linear ramp without a profile or a vcgt), and the profile's
 * bytes, read from its Filename as the user, into the root window property of the output's
 * monitor ("ICC Profiles in X": _ICC_PROFILE for the first monitor as Xinerama counts them,
 * _ICC_PROFILE_<n> for the others; deleted when there is no profile). While the device's
 * ProfilingInhibitors is not empty, a linear ramp is loaded instead, and the profile's comes
 * back when it empties. Each application is logged ("Output <name>: ..."). RandR events
 * (outputs connected, disconnected, moved to another CRTC, an EDID changed) lead to one
 * debounced rescan; a device deleted by someone else while its output is there is made again.
 *
 * Not here: EDID-generated profiles (the daemon makes those for its DRM devices), Wayland,
 * and resetting ramps when we exit (the loaded calibration stays, as with GNOME). */
#pragma once

#include <errno.h>
#include <systemd/sd-event.h>

#include "cm-client.h"
#include "macro.h"

typedef struct X11 X11;

#if TINCT_X11
/* Opens the display (display_name NULL: $DISPLAY) and checks RandR 1.2 or later.
 * -ENXIO when the display cannot be opened, -EOPNOTSUPP without RandR 1.2. */
int x11_new(sd_event *event, CmClient *cm, const char *display_name, X11 **ret);
X11 *x11_free(X11 *x);

/* The first scan, at once: devices made and profiles applied. */
int x11_start(X11 *x);
#else
/* Built without X11 (meson -Dx11=disabled): there is no display to open. */
static inline int x11_new(sd_event *event, CmClient *cm, const char *display_name, X11 **ret) {
        return -EPROTONOSUPPORT;
}
static inline X11 *x11_free(X11 *x) {
        return NULL;
}
static inline int x11_start(X11 *x) {
        return 0;
}
#endif
DEFINE_TRIVIAL_CLEANUP_FUNC(X11 *, x11_free);
