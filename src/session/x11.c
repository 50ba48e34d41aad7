/* SPDX-License-Identifier: GPL-2.0-or-later */
/* X11 outputs as display devices, and their profiles on the screen (see x11.h). */
#include "x11.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xrandr.h>

#include "debounce.h"
#include "edid-icc.h"
#include "edid.h"
#include "fileio.h"
#include "icc-info.h"
#include "log.h"
#include "md5.h"
#include "session-names.h"
#include "strv.h"

#define CMF_BINARY "tinct-session"
/* The EDID property in 32-bit units: EDID_MAX_BLOCKS blocks of 128 bytes. */
#define EDID_PROPERTY_LONGS (EDID_MAX_BLOCKS * EDID_BLOCK_SIZE / 4)
#define RESCAN_DELAY_USEC (100 * 1000)
/* Changed and PropertiesChanged come in pairs: applied once. */
#define APPLY_DELAY_USEC (20 * 1000)
/* _ICC_PROFILE .. _ICC_PROFILE_<MAX_MONITORS - 1>. */
#define MAX_MONITORS 64

typedef struct Output {
        X11 *x;
        RROutput xid;
        char *name;
        char *device_id;
        char edid_md5[33];      /* "" without an EDID */
        char **props;           /* CreateDevice's properties: key, value, ..., NULL */
        RRCrtc crtc;
        int monitor;            /* Xinerama's number of the output's monitor, -1 when not shown */
        bool seen;              /* during a rescan */

        char *device;           /* the daemon's object, NULL until known */
        bool ours;              /* made by us (deleted when the output goes) */
        sd_bus_slot *changed_slot, *properties_slot;

        char *applied;          /* what was put on the screen last (see output_apply) */
        bool property_set;      /* and whether that set the monitor's _ICC_PROFILE */
} Output;

struct X11 {
        sd_event *event;
        CmClient *cm;
        Display *display;
        Window root;
        int randr_event_base, randr_major, randr_minor;
        Atom edid_atom;
        sd_event_source *io;
        sd_bus_slot *removed_slot;
        Debounce *rescan, *apply;
        bool started;

        Output **outputs;
        size_t n_outputs;
        bool atom_set[MAX_MONITORS];    /* which _ICC_PROFILE* we set last */
};

/* ---- X errors ---- */

/* Xlib's default handler exits the process on any protocol error; an output that vanished
 * between two requests is normal here. */
static int on_x_error(Display *display, XErrorEvent *ev) {
        char text[128] = "";
        XGetErrorText(display, ev->error_code, text, sizeof text);
        log_debug("X error: %s (request %u.%u)", text, ev->request_code, ev->minor_code);
        return 0;
}

static int on_x_io_error(Display *display) {
        /* Xlib cannot go on after this: the session has ended. */
        log_error("Lost the connection to the X display; exiting");
        exit(EXIT_FAILURE);
}

/* ---- devices ---- */

static void output_forget_device(Output *o) {
        o->changed_slot = sd_bus_slot_unref(o->changed_slot);
        o->properties_slot = sd_bus_slot_unref(o->properties_slot);
        o->device = mfree(o->device);
        o->ours = false;
        o->applied = mfree(o->applied);
}

static Output *output_free(Output *o) {
        if (!o)
                return NULL;
        output_forget_device(o);
        free(o->name);
        free(o->device_id);
        strv_free(o->props);
        free(o);
        return NULL;
}

static int on_device_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Output *o = userdata;
        debounce_schedule(o->x->apply);
        return 0;
}

static void output_register(X11 *x, Output *o) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        if (o->device || !cm_client_daemon_present(x->cm))
                return;
        r = cm_find_device_by_id(x->cm, o->device_id, &o->device, &e);
        if (r >= 0)
                log_info("Output %s: the daemon has device %s already; using it", o->name, o->device_id);
        else {
                sd_bus_error_free(&e);
                r = cm_create_device(x->cm, o->device_id, o->props, &o->device, &e);
                if (r < 0 && cm_error_is(&e, "AlreadyExists")) {
                        /* Made meanwhile by someone else: use theirs. */
                        sd_bus_error_free(&e);
                        r = cm_find_device_by_id(x->cm, o->device_id, &o->device, &e);
                } else if (r >= 0) {
                        o->ours = true;
                        log_info("Output %s: device %s", o->name, o->device_id);
                }
        }
        if (r < 0) {
                log_warning("Output %s: cannot make device %s: %s", o->name, o->device_id,
                            e.message ? e.message : strerror(-r));
                return;
        }
        sd_bus *bus = cm_client_bus(x->cm);
        r = sd_bus_match_signal(bus, &o->changed_slot, CM_NAME, o->device, CM_DEVICE_IFACE, "Changed",
                                on_device_signal, o);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &o->properties_slot, CM_NAME, o->device,
                                        "org.freedesktop.DBus.Properties", "PropertiesChanged", on_device_signal, o);
        if (r < 0)
                log_warning_errno(r, "Output %s: cannot follow device %s: %m", o->name, o->device_id);
}

static void output_unregister(X11 *x, Output *o) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        if (o->device && o->ours && cm_client_daemon_present(x->cm)) {
                int r = cm_delete_device(x->cm, o->device, &e);
                if (r < 0 && !cm_error_is(&e, "NotFound"))
                        log_warning("Output %s: cannot remove device %s: %s", o->name, o->device_id,
                                    e.message ? e.message : strerror(-r));
                else
                        log_info("Output %s: removed device %s", o->name, o->device_id);
        }
        output_forget_device(o);
}

/* ---- applying a profile ---- */

static int set_gamma(X11 *x, RRCrtc crtc, const uint8_t *icc, size_t icc_size, bool *ret_vcgt) {
        *ret_vcgt = false;
        int n = XRRGetCrtcGammaSize(x->display, crtc);
        if (n <= 0)
                return 0;       /* a driver without gamma ramps */
        XRRCrtcGamma *g = XRRAllocGamma(n);
        if (!g)
                return -ENOMEM;
        _cleanup_free_ char *why = NULL;
        int r = icc ? icc_vcgt_ramp(icc, icc_size, (size_t) n, g->red, g->green, g->blue, &why) : -ENODATA;
        if (r == -ENOMEM) {
                XRRFreeGamma(g);
                return r;
        }
        if (r < 0) {
                if (icc && r != -ENODATA)
                        log_notice("Cannot read the vcgt: %s", why ? why : strerror(-r));
                icc_linear_ramp((size_t) n, g->red, g->green, g->blue);
        } else
                *ret_vcgt = true;
        XRRSetCrtcGamma(x->display, crtc, g);
        XRRFreeGamma(g);
        return 0;
}

/* Returns whether the property is set now. */
static bool set_icc_property(X11 *x, int monitor, const uint8_t *icc, size_t icc_size) {
        char name[SESSION_ICC_ATOM_MAX];

        if (monitor < 0 || monitor >= MAX_MONITORS)
                return false;
        session_icc_atom_name((unsigned) monitor, name);
        Atom atom = XInternAtom(x->display, name, False);
        /* Xlib sends a property in one request: BIG-REQUESTS' limit, in 4-byte units. */
        long max = XExtendedMaxRequestSize(x->display);
        if (max == 0)
                max = XMaxRequestSize(x->display);
        if (icc && icc_size / 4 + 64 > (size_t) max) {
                log_notice("The profile (%zu bytes) is too big for an X property here", icc_size);
                icc = NULL;
        }
        if (icc)
                XChangeProperty(x->display, x->root, atom, XA_CARDINAL, 8, PropModeReplace, icc, (int) icc_size);
        else
                XDeleteProperty(x->display, x->root, atom);
        return icc;
}

/* Reads what the daemon says of the device now and puts it on the screen, unless that is
 * what is there already (same CRTC, monitor, inhibition, profile and bytes): RandR events
 * and the daemon's signals come for many reasons, and each application is logged. */
static void output_apply(X11 *x, Output *o, bool set[MAX_MONITORS]) {
        _cleanup_free_ char *profile = NULL, *filename = NULL, *key = NULL;
        _cleanup_free_ uint8_t *icc = NULL;
        size_t icc_size = 0;
        bool inhibited = false, vcgt = false;
        char md5[33] = "";
        int r;

        /* Without a device (the daemon is away) or its state, what is on the screen stays. */
        if (!o->device || cm_device_state(x->cm, o->device, &profile, &inhibited) < 0) {
                if (o->property_set && o->monitor >= 0)
                        set[o->monitor] = true;
                return;
        }
        if (profile && cm_profile_filename(x->cm, profile, &filename) >= 0 && filename) {
                r = read_file_capped(filename, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &icc, &icc_size, NULL);
                if (r < 0)
                        log_notice_errno(r, "Output %s: cannot read %s: %m", o->name, filename);
                else
                        md5_hex(icc, icc_size, md5);
        }
        if (asprintf(&key, "%lu %d %d %s %s %s", (unsigned long) o->crtc, o->monitor, inhibited, strempty(profile),
                     strempty(filename), md5) < 0) {
                key = NULL;
                log_oom();
                return;
        }
        if (streq_ptr(key, o->applied)) {
                if (o->property_set && o->monitor >= 0)
                        set[o->monitor] = true;
                return;
        }
        if (o->crtc != None && set_gamma(x, o->crtc, inhibited ? NULL : icc, icc_size, &vcgt) < 0) {
                log_oom();
                return;
        }
        o->property_set = set_icc_property(x, o->monitor, icc, icc_size);
        if (o->property_set)
                set[o->monitor] = true;
        free(o->applied);
        o->applied = TAKE_PTR(key);
        if (inhibited)
                log_info("Output %s: profiling inhibited, linear ramp", o->name);
        else if (!profile)
                log_info("Output %s: no profile, linear ramp", o->name);
        else
                log_info("Output %s: applied %s (%s)", o->name, icc ? filename : profile,
                         vcgt ? "vcgt" : "linear ramp");
}

static void drain_events(X11 *x);

static void apply_all(void *userdata) {
        X11 *x = userdata;
        bool set[MAX_MONITORS] = {};

        for (size_t i = 0; i < x->n_outputs; i++)
                output_apply(x, x->outputs[i], set);
        /* A monitor that is gone, or shows nothing with a profile now. */
        for (int m = 0; m < MAX_MONITORS; m++)
                if (x->atom_set[m] && !set[m]) {
                        char name[SESSION_ICC_ATOM_MAX];
                        session_icc_atom_name((unsigned) m, name);
                        XDeleteProperty(x->display, x->root, XInternAtom(x->display, name, False));
                }
        memcpy(x->atom_set, set, sizeof set);
        XFlush(x->display);
        drain_events(x);
}

/* ---- outputs ---- */

/* The output's EDID property, when it has one. */
static int read_edid(X11 *x, RROutput output, uint8_t **ret, size_t *ret_size) {
        Atom type;
        int format;
        unsigned long n, after;
        unsigned char *data = NULL;

        *ret = NULL;
        *ret_size = 0;
        if (x->edid_atom == None)
                return 0;
        if (XRRGetOutputProperty(x->display, output, x->edid_atom, 0, EDID_PROPERTY_LONGS, False, False,
                                 AnyPropertyType, &type, &format, &n, &after, &data) != Success)
                return 0;
        int r = 0;
        if (data && type == XA_INTEGER && format == 8 && n >= EDID_BLOCK_SIZE) {
                size_t size = n - n % EDID_BLOCK_SIZE;
                if (!(*ret = malloc(size)))
                        r = -ENOMEM;
                else {
                        memcpy(*ret, data, size);
                        *ret_size = size;
                }
        }
        if (data)
                XFree(data);
        return r;
}

static int props_add(char ***props, const char *key, const char *value) {
        if (isempty(value))
                return 0;
        if (strv_extend(props, key) < 0 || strv_extend(props, value) < 0)
                return -ENOMEM;
        return 0;
}

/* The device id and CreateDevice's properties of an output (colord §9.5). */
static int output_describe(Output *o, const uint8_t *edid, size_t edid_size, bool primary) {
        _cleanup_(edid_freep) Edid *e = NULL;
        EdidIccParams params = {};
        bool have_params = false;
        int r;

        if (edid) {
                r = edid_parse(edid, edid_size, &e);
                if (r < 0)
                        log_notice("Output %s: ignoring its EDID: %s", o->name, edid_strerror(r));
        }
        if (e) {
                r = edid_icc_params_init_named(&params, e, CMF_BINARY);
                if (r < 0) {
                        edid_icc_params_done(&params);
                        return r;
                }
                have_params = true;
                memcpy(o->edid_md5, e->md5, sizeof o->edid_md5);
        }
        if (have_params)
                o->device_id = edid_icc_display_id(&params, o->name);
        else if (asprintf(&o->device_id, "xrandr-%s", o->name) < 0)
                o->device_id = NULL;
        r = o->device_id ? 0 : -ENOMEM;
        if (r >= 0)
                r = props_add(&o->props, "Kind", "display");
        if (r >= 0)
                r = props_add(&o->props, "Mode", "physical");
        if (r >= 0)
                r = props_add(&o->props, "Colorspace", "rgb");
        if (r >= 0 && have_params)
                r = props_add(&o->props, "Vendor", params.vendor);
        if (r >= 0 && have_params)
                r = props_add(&o->props, "Model", params.model);
        if (r >= 0 && have_params)
                r = props_add(&o->props, "Serial", params.serial);
        if (r >= 0)
                r = props_add(&o->props, "XRANDR_name", o->name);
        if (r >= 0)
                r = props_add(&o->props, "OutputPriority", primary ? "primary" : "secondary");
        if (r >= 0)
                r = props_add(&o->props, "OutputEdidMd5", o->edid_md5);
        if (r >= 0 && session_output_is_embedded(o->name) &&
            (strv_extend(&o->props, "Embedded") < 0 || strv_extend(&o->props, "") < 0))
                r = -ENOMEM;
        if (have_params)
                edid_icc_params_done(&params);
        return r;
}

static Output *find_output(X11 *x, const char *name) {
        for (size_t i = 0; i < x->n_outputs; i++)
                if (streq(x->outputs[i]->name, name))
                        return x->outputs[i];
        return NULL;
}

static void remove_output(X11 *x, size_t i, const char *why) {
        Output *o = x->outputs[i];
        log_info("Output %s: %s", o->name, why);
        output_unregister(x, o);
        output_free(o);
        memmove(x->outputs + i, x->outputs + i + 1, (x->n_outputs - i - 1) * sizeof *x->outputs);
        x->n_outputs--;
}

/* One connected output: known already (its CRTC updated), or new. */
static int scan_output(X11 *x, XRRScreenResources *res, RROutput xid, RROutput primary) {
        XRROutputInfo *info = XRRGetOutputInfo(x->display, res, xid);
        _cleanup_free_ uint8_t *edid = NULL;
        size_t edid_size;
        int r = 0;

        if (!info)
                return 0;
        if (info->connection != RR_Connected)
                goto done;
        r = read_edid(x, xid, &edid, &edid_size);
        if (r < 0)
                goto done;
        char md5[33] = "";
        if (edid)
                md5_hex(edid, edid_size, md5);

        Output *o = find_output(x, info->name);
        if (o && !streq(o->edid_md5, md5)) {
                /* Another monitor on the same connector. */
                for (size_t i = 0; i < x->n_outputs; i++)
                        if (x->outputs[i] == o)
                                remove_output(x, i, "another monitor (EDID)");
                o = NULL;
        }
        if (!o) {
                Output **grown = realloc(x->outputs, (x->n_outputs + 1) * sizeof *grown);
                if (!grown) {
                        r = -ENOMEM;
                        goto done;
                }
                x->outputs = grown;
                o = calloc(1, sizeof *o);
                r = o && (o->name = strdup(info->name)) ? output_describe(o, edid, edid_size, xid == primary) : -ENOMEM;
                if (r < 0) {
                        output_free(o);
                        goto done;
                }
                o->x = x;
                o->xid = xid;
                x->outputs[x->n_outputs++] = o;
                output_register(x, o);
        } else if (!o->device)
                output_register(x, o);  /* its device was deleted (or never made): again */
        o->crtc = info->crtc;
        o->seen = true;
done:
        XRRFreeOutputInfo(info);
        return r;
}

/* Xinerama's numbering of the monitors, which the _ICC_PROFILE_<n> properties follow: RandR
 * 1.5 lists monitors in that order (the primary first); before 1.5 each output with a CRTC is
 * one, the primary first. */
static void number_monitors(X11 *x, RROutput primary) {
        for (size_t i = 0; i < x->n_outputs; i++)
                x->outputs[i]->monitor = -1;
        if (x->randr_major > 1 || x->randr_minor >= 5) {
                int n = 0;
                XRRMonitorInfo *m = XRRGetMonitors(x->display, x->root, True, &n);
                for (int k = 0; m && k < n; k++)
                        for (int j = 0; j < m[k].noutput; j++)
                                for (size_t i = 0; i < x->n_outputs; i++)
                                        if (x->outputs[i]->xid == m[k].outputs[j] && x->outputs[i]->monitor < 0)
                                                x->outputs[i]->monitor = k;
                if (m)
                        XRRFreeMonitors(m);
                return;
        }
        int next = 0;
        for (size_t i = 0; i < x->n_outputs; i++)
                if (x->outputs[i]->xid == primary && x->outputs[i]->crtc != None)
                        x->outputs[i]->monitor = next++;
        for (size_t i = 0; i < x->n_outputs; i++)
                if (x->outputs[i]->monitor < 0 && x->outputs[i]->crtc != None)
                        x->outputs[i]->monitor = next++;
}

static void rescan(void *userdata) {
        X11 *x = userdata;
        int r = 0;

        XRRScreenResources *res = x->randr_minor >= 3 || x->randr_major > 1
                ? XRRGetScreenResourcesCurrent(x->display, x->root)
                : XRRGetScreenResources(x->display, x->root);
        if (!res) {
                log_warning("Cannot read the X screen's outputs");
                return;
        }
        RROutput primary = x->randr_minor >= 3 || x->randr_major > 1 ? XRRGetOutputPrimary(x->display, x->root) : None;
        /* An EDID can appear on any output later (the X server makes the atom then). */
        if (x->edid_atom == None)
                x->edid_atom = XInternAtom(x->display, RR_PROPERTY_RANDR_EDID, True);
        for (size_t i = 0; i < x->n_outputs; i++)
                x->outputs[i]->seen = false;
        for (int i = 0; r >= 0 && i < res->noutput; i++)
                r = scan_output(x, res, res->outputs[i], primary);
        XRRFreeScreenResources(res);
        if (r < 0) {
                log_oom();
                return;
        }
        for (size_t i = x->n_outputs; i > 0; i--)
                if (!x->outputs[i - 1]->seen)
                        remove_output(x, i - 1, "disconnected");
        number_monitors(x, primary);
        apply_all(x);
}

/* ---- events ---- */

/* Xlib may have queued events while it waited for a reply, without the socket becoming
 * readable again: each batch of requests ends here. */
static void drain_events(X11 *x) {
        while (XPending(x->display) > 0) {
                XEvent ev;
                XNextEvent(x->display, &ev);
                int type = ev.type - x->randr_event_base;
                if (type == RRNotify && ((XRRNotifyEvent *) &ev)->subtype == RRNotify_OutputProperty) {
                        /* Only the EDID matters: another monitor on the connector. */
                        Atom a = ((XRROutputPropertyNotifyEvent *) &ev)->property;
                        if (x->edid_atom == None || a == x->edid_atom)
                                debounce_schedule(x->rescan);
                } else if (type == RRScreenChangeNotify || type == RRNotify) {
                        XRRUpdateConfiguration(&ev);
                        debounce_schedule(x->rescan);
                }
        }
}

static int on_x_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        drain_events(userdata);
        return 0;
}

/* Someone deleted an output's device (ours, or the daemon's that we used): the output is still
 * there, so the next rescan makes it again. */
static int on_device_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        X11 *x = userdata;
        const char *path;

        if (sd_bus_message_read(m, "o", &path) < 0)
                return 0;
        for (size_t i = 0; i < x->n_outputs; i++)
                if (streq_ptr(x->outputs[i]->device, path)) {
                        log_info("Output %s: device %s was deleted", x->outputs[i]->name, x->outputs[i]->device_id);
                        output_forget_device(x->outputs[i]);
                        debounce_schedule(x->rescan);
                }
        return 0;
}

static void on_daemon(bool present, void *userdata) {
        X11 *x = userdata;

        for (size_t i = 0; i < x->n_outputs; i++) {
                if (!present)
                        output_forget_device(x->outputs[i]);
                else
                        output_register(x, x->outputs[i]);
        }
        if (present && x->started)
                apply_all(x);
}

/* ---- life cycle ---- */

int x11_new(sd_event *event, CmClient *cm, const char *display_name, X11 **ret) {
        _cleanup_(x11_freep) X11 *x = calloc(1, sizeof *x);
        int error_base, r;

        if (!x)
                return -ENOMEM;
        x->event = sd_event_ref(event);
        x->cm = cm;
        XSetErrorHandler(on_x_error);
        XSetIOErrorHandler(on_x_io_error);
        x->display = XOpenDisplay(display_name);
        if (!x->display)
                return -ENXIO;
        x->root = DefaultRootWindow(x->display);
        if (!XRRQueryExtension(x->display, &x->randr_event_base, &error_base) ||
            !XRRQueryVersion(x->display, &x->randr_major, &x->randr_minor) ||
            (x->randr_major == 1 && x->randr_minor < 2))
                return -EOPNOTSUPP;
        /* Only if some output has one (the X server made the atom then). */
        x->edid_atom = XInternAtom(x->display, RR_PROPERTY_RANDR_EDID, True);
        XRRSelectInput(x->display, x->root,
                       RRScreenChangeNotifyMask | RROutputChangeNotifyMask | RRCrtcChangeNotifyMask |
                       RROutputPropertyNotifyMask);
        r = debounce_new(event, RESCAN_DELAY_USEC, rescan, x, &x->rescan);
        if (r < 0)
                return r;
        r = debounce_new(event, APPLY_DELAY_USEC, apply_all, x, &x->apply);
        if (r < 0)
                return r;
        r = sd_event_add_io(event, &x->io, ConnectionNumber(x->display), EPOLLIN, on_x_readable, x);
        if (r < 0)
                return r;
        r = cm_client_add_presence_watch(cm, on_daemon, x);
        if (r < 0)
                return r;
        r = sd_bus_match_signal(cm_client_bus(cm), &x->removed_slot, CM_NAME, CM_PATH, CM_IFACE, "DeviceRemoved",
                                on_device_removed, x);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(x);
        return 0;
}

X11 *x11_free(X11 *x) {
        if (!x)
                return NULL;
        for (size_t i = 0; i < x->n_outputs; i++)
                output_free(x->outputs[i]);     /* temp devices go with our bus connection */
        free(x->outputs);
        sd_bus_slot_unref(x->removed_slot);
        debounce_free(x->rescan);
        debounce_free(x->apply);
        sd_event_source_disable_unref(x->io);
        if (x->display)
                XCloseDisplay(x->display);
        sd_event_unref(x->event);
        free(x);
        return NULL;
}

int x11_start(X11 *x) {
        log_info("X display %s: RandR %d.%d", DisplayString(x->display), x->randr_major, x->randr_minor);
        x->started = true;
        rescan(x);
        return 0;
}
