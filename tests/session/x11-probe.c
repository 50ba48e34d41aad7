/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x11-probe: what tinct-session's test reads back from (and puts into) an X server, through
 * plain Xlib and RandR, independent of tinct-session's code:
 *   x11-probe gamma OUTPUT          the CRTC gamma ramp of OUTPUT: "size N", then N lines "r g b"
 *   x11-probe property NAME FILE    the root window property NAME (CARDINAL/8) into FILE;
 *                                   exit 3 when it is not set
 *   x11-probe set-edid OUTPUT FILE  FILE's bytes as OUTPUT's EDID property (as a driver would)
 *   x11-probe set-gamma OUTPUT V    a flat ramp of value V, to see it overwritten
 *   x11-probe add-monitor NAME      a primary RandR 1.5 monitor without outputs (as a
 *                                   virtual or split screen is), listed before the others
 * Uses $DISPLAY. Exit 1 on errors, 2 on usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xrandr.h>

static Display *display;

static RROutput find_output(const char *name, RRCrtc *ret_crtc) {
        XRRScreenResources *res = XRRGetScreenResourcesCurrent(display, DefaultRootWindow(display));
        RROutput found = None;
        for (int i = 0; res && i < res->noutput && found == None; i++) {
                XRROutputInfo *info = XRRGetOutputInfo(display, res, res->outputs[i]);
                if (info && strcmp(info->name, name) == 0) {
                        found = res->outputs[i];
                        *ret_crtc = info->crtc;
                }
                if (info)
                        XRRFreeOutputInfo(info);
        }
        if (res)
                XRRFreeScreenResources(res);
        if (found == None)
                fprintf(stderr, "x11-probe: no output %s\n", name);
        return found;
}

static int gamma_cmd(const char *output) {
        RRCrtc crtc = None;
        if (find_output(output, &crtc) == None || crtc == None)
                return 1;
        int n = XRRGetCrtcGammaSize(display, crtc);
        XRRCrtcGamma *g = XRRGetCrtcGamma(display, crtc);
        if (n <= 0 || !g)
                return 1;
        printf("size %d\n", n);
        for (int i = 0; i < n; i++)
                printf("%u %u %u\n", g->red[i], g->green[i], g->blue[i]);
        XRRFreeGamma(g);
        return 0;
}

static int set_gamma_cmd(const char *output, const char *value) {
        RRCrtc crtc = None;
        if (find_output(output, &crtc) == None || crtc == None)
                return 1;
        int n = XRRGetCrtcGammaSize(display, crtc);
        XRRCrtcGamma *g = n > 0 ? XRRAllocGamma(n) : NULL;
        if (!g)
                return 1;
        for (int i = 0; i < n; i++)
                g->red[i] = g->green[i] = g->blue[i] = (unsigned short) atoi(value);
        XRRSetCrtcGamma(display, crtc, g);
        XRRFreeGamma(g);
        XSync(display, False);
        return 0;
}

static int property_cmd(const char *name, const char *file) {
        Atom atom = XInternAtom(display, name, True), type;
        int format;
        unsigned long n, after;
        unsigned char *data = NULL;
        if (atom == None)
                return 3;
        if (XGetWindowProperty(display, DefaultRootWindow(display), atom, 0, 64L * 1024 * 1024 / 4, False,
                               AnyPropertyType, &type, &format, &n, &after, &data) != Success)
                return 1;
        if (type == None)
                return 3;
        if (type != XA_CARDINAL || format != 8 || after != 0) {
                fprintf(stderr, "x11-probe: %s has type %lu format %d\n", name, type, format);
                return 1;
        }
        FILE *f = fopen(file, "we");
        if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0)
                return 1;
        XFree(data);
        return 0;
}

static int set_edid_cmd(const char *output, const char *file) {
        unsigned char buf[32768];
        RRCrtc crtc;
        RROutput o = find_output(output, &crtc);
        FILE *f = fopen(file, "re");
        if (o == None || !f)
                return 1;
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        XRRChangeOutputProperty(display, o, XInternAtom(display, "EDID", False), XA_INTEGER, 8, PropModeReplace, buf,
                                (int) n);
        XSync(display, False);
        return 0;
}

static int add_monitor_cmd(const char *name) {
        XRRMonitorInfo *m = XRRAllocateMonitor(display, 0);
        if (!m)
                return 1;
        m->name = XInternAtom(display, name, False);
        m->primary = True;
        m->x = m->y = 0;
        m->width = m->height = 100;
        m->mwidth = m->mheight = 30;
        XRRSetMonitor(display, DefaultRootWindow(display), m);
        XRRFreeMonitors(m);
        XSync(display, False);
        return 0;
}

int main(int argc, char **argv) {
        if (argc < 3)
                return 2;
        display = XOpenDisplay(NULL);
        if (!display) {
                fprintf(stderr, "x11-probe: cannot open the display\n");
                return 1;
        }
        int r = 2;
        if (strcmp(argv[1], "gamma") == 0)
                r = gamma_cmd(argv[2]);
        else if (strcmp(argv[1], "set-gamma") == 0 && argc == 4)
                r = set_gamma_cmd(argv[2], argv[3]);
        else if (strcmp(argv[1], "property") == 0 && argc == 4)
                r = property_cmd(argv[2], argv[3]);
        else if (strcmp(argv[1], "add-monitor") == 0)
                r = add_monitor_cmd(argv[2]);
        else if (strcmp(argv[1], "set-edid") == 0 && argc == 4)
                r = set_edid_cmd(argv[2], argv[3]);
        XCloseDisplay(display);
        return r;
}
