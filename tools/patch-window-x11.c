/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The patch window on X11 (see patch-window.h). Override-redirect: no window manager
 * decorates, moves or covers it, so the whole square is the patch. The colour is the
 * window's background, which the X server itself repaints on any Expose, so nothing has to
 * answer events while the sensor reads. */
#include "patch-window.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xrandr.h>

#include "time-util.h"

/* The first Expose comes as soon as the server has mapped the window. */
#define EXPOSE_TIMEOUT_MSEC 10000

struct PatchWindow {
        Display *display;
        Window window;
        Colormap colormap;
};

/* Xlib's default handler exits on any protocol error; tinct must unlock the sensor first.
 * The only process-wide state of the tool: Xlib calls it without a pointer of ours. */
static bool x_failed;

static int on_x_error(Display *display, XErrorEvent *ev) {
        x_failed = true;
        return 0;
}

bool patch_window_supported(void) {
        return true;
}

static int fail(char **ret_error, int r, const char *what, const char *name) {
        if (asprintf(ret_error, "%s %s", what, name) < 0)
                *ret_error = NULL;
        return r;
}

/* The rectangle of the RandR output named NAME; false when the screen has no such
 * output, or it shows nothing. */
static bool output_rect(Display *display, Window root, const char *name, int rect[4]) {
        int event_base, error_base;
        bool found = false;

        if (!name || !XRRQueryExtension(display, &event_base, &error_base))
                return false;
        XRRScreenResources *res = XRRGetScreenResourcesCurrent(display, root);
        for (int i = 0; res && i < res->noutput && !found; i++) {
                XRROutputInfo *info = XRRGetOutputInfo(display, res, res->outputs[i]);
                if (info && info->crtc != None && strcmp(info->name, name) == 0) {
                        XRRCrtcInfo *crtc = XRRGetCrtcInfo(display, res, info->crtc);
                        if (crtc && crtc->width > 0 && crtc->height > 0) {
                                rect[0] = crtc->x;
                                rect[1] = crtc->y;
                                rect[2] = (int) crtc->width;
                                rect[3] = (int) crtc->height;
                                found = true;
                        }
                        if (crtc)
                                XRRFreeCrtcInfo(crtc);
                }
                if (info)
                        XRRFreeOutputInfo(info);
        }
        if (res)
                XRRFreeScreenResources(res);
        return found;
}

static int wait_expose(Display *display, Window window) {
        uint64_t deadline = now(CLOCK_MONOTONIC) + EXPOSE_TIMEOUT_MSEC * USEC_PER_MSEC;
        XEvent ev;

        for (;;) {
                while (XPending(display) > 0) {
                        XNextEvent(display, &ev);
                        if (ev.type == Expose && ev.xexpose.window == window)
                                return 0;
                }
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline)
                        return -ETIMEDOUT;
                struct pollfd p = { .fd = ConnectionNumber(display), .events = POLLIN };
                if (poll(&p, 1, (int) ((deadline - t) / USEC_PER_MSEC) + 1) < 0 && errno != EINTR)
                        return -errno;
        }
}

int patch_window_open(const char *output, PatchWindow **ret, char **ret_error) {
        const char *name = getenv("DISPLAY");
        int rect[4];

        PatchWindow *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        XSetErrorHandler(on_x_error);
        x_failed = false;
        w->display = XOpenDisplay(NULL);
        if (!w->display) {
                free(w);
                return fail(ret_error, -ECONNREFUSED, "cannot open the X display", name ? name : "(unset)");
        }
        int screen = DefaultScreen(w->display);
        Window root = RootWindow(w->display, screen);
        bool on_output = output_rect(w->display, root, output, rect);
        if (!on_output) {
                rect[0] = rect[1] = 0;
                rect[2] = DisplayWidth(w->display, screen);
                rect[3] = DisplayHeight(w->display, screen);
        }
        int side = (rect[2] < rect[3] ? rect[2] : rect[3]) * 3 / 4;
        XSetWindowAttributes attrs = {
                .override_redirect = True,
                .background_pixel = BlackPixel(w->display, screen),
                .event_mask = ExposureMask,
        };
        w->colormap = DefaultColormap(w->display, screen);
        w->window = XCreateWindow(w->display, root, rect[0] + (rect[2] - side) / 2, rect[1] + (rect[3] - side) / 2,
                                  (unsigned) side, (unsigned) side, 0, CopyFromParent, InputOutput, CopyFromParent,
                                  CWOverrideRedirect | CWBackPixel | CWEventMask, &attrs);
        XStoreName(w->display, w->window, "tinct verify");
        XMapRaised(w->display, w->window);
        XSync(w->display, False);
        int r = x_failed ? -EIO : wait_expose(w->display, w->window);
        if (r < 0) {
                patch_window_close(w);
                return fail(ret_error, r, r == -ETIMEDOUT ? "no Expose for the patch window on" :
                            "cannot show the patch window on", name ? name : "(unset)");
        }
        *ret = w;
        return on_output;
}

int patch_window_show(PatchWindow *w, const double rgb[3]) {
        XColor c = { .flags = DoRed | DoGreen | DoBlue };
        unsigned short *v[3] = { &c.red, &c.green, &c.blue };

        for (int i = 0; i < 3; i++)
                *v[i] = (unsigned short) lround(fmin(fmax(rgb[i], 0), 1) * 65535.0);
        /* TrueColor: the exact pixel of these values, nothing allocated. */
        if (!XAllocColor(w->display, w->colormap, &c))
                return -ENOSPC;
        x_failed = false;
        XSetWindowBackground(w->display, w->window, c.pixel);
        XClearWindow(w->display, w->window);
        /* The server has done the clear once it answers a round trip after it. */
        XSync(w->display, False);
        return x_failed ? -EIO : 0;
}

PatchWindow *patch_window_close(PatchWindow *w) {
        if (!w)
                return NULL;
        if (w->window != None)
                XDestroyWindow(w->display, w->window);
        XSync(w->display, False);
        XCloseDisplay(w->display);
        free(w);
        return NULL;
}
