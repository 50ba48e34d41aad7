/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct verify's patches on a real screen (docs/verify.md, "Where the patches come from"):
 * a borderless window on X11 ($DISPLAY) showing one device RGB at a time, with no colour
 * management (the video card's ramp stays as the session loaded it: the profile describes
 * the display with it). patch-window-x11.c; a build without X11 (-Dx11=disabled) has
 * patch-window-none.c, which refuses with that reason. */
#pragma once

#include <stdbool.h>

typedef struct PatchWindow PatchWindow;

/* Opens the window on $DISPLAY: a square of 3/4 of the shorter side, centred on the RandR
 * output named OUTPUT (the device's XRANDR_name) when the screen has it, else on the centre
 * of the screen. Returns once the X server has drawn it (its first Expose): 1 when on OUTPUT, 0 on
 * the screen's centre. *ret_error
 * (may be NULL on -ENOMEM) says why on failure. */
int patch_window_open(const char *output, PatchWindow **ret, char **ret_error);
/* Shows RGB (0..1) and returns once the X server has drawn it (XSync). */
int patch_window_show(PatchWindow *w, const double rgb[3]);
/* Destroys the window and closes the connection; NULL is fine. */
PatchWindow *patch_window_close(PatchWindow *w);
/* Whether this build can show patches at all. */
bool patch_window_supported(void);
