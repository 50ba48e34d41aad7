/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The screen under the dummy sensor (see sensor-x11.h), on libX11: built in place of
 * sensor-x11-none.c when tinctd links libX11 (meson.build). */
#include "sensor-x11.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include "macro.h"

/* Set by the handler below during one reading. Xlib calls it with no pointer of ours, so
 * this flag is the one piece of state outside the loop; the daemon has no other X client. */
static bool x_failed;

/* Xlib's default handler exits the process on any protocol error: a daemon must not. */
static int on_x_error(Display *display, XErrorEvent *ev) {
        x_failed = true;
        return 0;
}

/* One channel of a TrueColor pixel as 0..1: its bits under MASK. */
static double channel(unsigned long pixel, unsigned long mask) {
        unsigned shift = 0;
        if (mask == 0)
                return 0;
        while (!(mask & 1)) {
                mask >>= 1;
                shift++;
        }
        return (double) ((pixel >> shift) & mask) / (double) mask;
}

bool sensor_x11_supported(void) {
        return true;
}

int sensor_x11_read_centre(const char *name, double ret_rgb[3], char **ret_error) {
        Display *display = XOpenDisplay(name);
        if (!display) {
                if (asprintf(ret_error, "cannot open the X display %s", name) < 0)
                        *ret_error = NULL;
                return -ECONNREFUSED;
        }
        int (*old)(Display *, XErrorEvent *) = XSetErrorHandler(on_x_error);
        int screen = DefaultScreen(display);
        Visual *visual = DefaultVisual(display, screen);
        int w = DisplayWidth(display, screen), h = DisplayHeight(display, screen);
        int r = 0;

        x_failed = false;
        XImage *image = XGetImage(display, RootWindow(display, screen), w / 2, h / 2, 1, 1, AllPlanes, ZPixmap);
        if (!image || x_failed) {
                r = -EIO;
                if (asprintf(ret_error, "cannot read the pixel at the centre of %s", name) < 0)
                        *ret_error = NULL;
        } else if (visual->class != TrueColor && visual->class != DirectColor) {
                r = -EMEDIUMTYPE;
                if (asprintf(ret_error, "%s is not a TrueColor screen", name) < 0)
                        *ret_error = NULL;
        } else {
                unsigned long pixel = XGetPixel(image, 0, 0);
                ret_rgb[0] = channel(pixel, visual->red_mask);
                ret_rgb[1] = channel(pixel, visual->green_mask);
                ret_rgb[2] = channel(pixel, visual->blue_mask);
        }
        if (image)
                XDestroyImage(image);
        XCloseDisplay(display);
        XSetErrorHandler(old);
        return r;
}
