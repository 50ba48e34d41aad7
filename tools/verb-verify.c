/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct verify DEVICE [--svg OUT] [--json]: measures a display through a sensor and compares
 * the readings with what the device's default profile predicts (docs/verify.md): CIEDE2000
 * per patch, mean and maximum; stores the result and its date in the device's Metadata
 * (DISPLAY_VERIFY_LAST keys, the date last), which the daemon records in its store and fills
 * in again after a restart; `tinct doctor` reads it. Needs only the daemon and a
 * sensor. Exit 0 when it measured, whatever the figures; 1 when it could not measure.
 *
 * Where the patches are shown (docs/verify.md): on the dummy sensor's virtual display
 * (tinctd --dummy-sensor-display, the sensor's `simulate-patch` option), or else, for any
 * other sensor, in a window on X11 ($DISPLAY, patch-window.h) in front of which the user
 * holds the instrument; without $DISPLAY or X11 such a sensor is refused with that reason.
 * --json: {"device": ID, "profile": ID, "date": ISO, "mean": M, "max": X,
 * "patches": [{"name", "rgb": [r,g,b], "expected_lab", "measured_lab", "measured_xyz",
 * "de2000"}], "stored": bool} (docs/json.md). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "bus-call.h"
#include "bus-print.h"
#include "bus-properties.h"
#include "display-verify.h"
#include "fileio.h"
#include "log.h"
#include "patch-window.h"
#include "strv.h"
#include "verbs.h"
#include "verify-svg.h"

/* The device's default profile (GetProfileForQualifiers "*", what applications get): its
 * path, id and file. */
static int default_profile(sd_bus *bus, const char *device, char **ret_id, char **ret_file) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(bus_object_freep) BusObject *p = NULL;
        const char *path, *id, *file;
        int r;

        r = bus_new_method_call(bus, device, CM_DEVICE_IFACE, "GetProfileForQualifiers", &m);
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char *[]) { (char *) "*", NULL });
        if (r < 0)
                return bus_log_create_error(r);
        r = bus_call_message(bus, m, &reply);
        if (r < 0)
                /* NothingMatched and the like: the device has no usable profile */
                return r == -EHOSTUNREACH || r == -EACCES ? r : -ENOENT;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return bus_log_parse_error(r);
        r = bus_object_get(bus, BUS_OBJECT_PROFILE, path, &p);
        if (r < 0)
                return r;
        id = bus_value_get_string(p->properties, "ProfileId");
        file = bus_value_get_string(p->properties, "Filename");
        if (isempty(file)) {
                log_error("profile %s has no file: nothing to predict the display's colours with", strempty(id));
                return -EINVAL;
        }
        *ret_id = strdup(strempty(id));
        *ret_file = strdup(file);
        if (!*ret_id || !*ret_file)
                return log_oom();
        return 0;
}

/* How the patches reach the sensor. */
typedef struct Measurer {
        char *sensor;
        bool virtual_display;   /* the dummy's virtual display: each patch is its simulate-patch */
        bool screen_reader;     /* the tests' dummy held on the X screen (simulate-x11): no settling */
        PatchWindow *window;    /* otherwise: the patches in a window on $DISPLAY */
} Measurer;

/* A real display takes a moment to show a new colour after the X server drew it: an LCD's
 * response, a compositor's next frame. */
#define PATCH_SETTLE_USEC (200 * 1000)

/* The first sensor with a virtual display; else the first sensor, read in front of a window
 * on $DISPLAY. */
static int find_sensor(sd_bus *bus, Measurer *ret) {
        _cleanup_strv_free_ char **paths = NULL;
        char *first = NULL;
        int r;

        r = bus_call_paths(bus, CM_PATH, CM_IFACE, "GetSensors", &paths, NULL);
        if (r < 0)
                return r;
        if (strv_isempty(paths)) {
                log_error("there is no sensor to measure with");
                return -ENODEV;
        }
        STRV_FOREACH(p, paths) {
                _cleanup_(bus_object_freep) BusObject *o = NULL;
                const BusValue *opts;

                if (bus_object_get(bus, BUS_OBJECT_SENSOR, *p, &o) < 0)
                        continue;
                opts = bus_value_get(o->properties, "Options");
                if (opts && bus_value_get(opts, "simulate-display") && !bus_value_get(opts, "simulate-x11")) {
                        ret->virtual_display = true;
                        ret->sensor = strdup(*p);
                        return ret->sensor ? 0 : log_oom();
                }
                if (!first) {
                        ret->screen_reader = opts && bus_value_get(opts, "simulate-x11");
                        first = *p;
                }
        }
        if (!first) {
                log_error("no sensor answered");
                return -ENODEV;
        }
        if (!patch_window_supported()) {
                log_error("a real sensor needs the patches on the screen, and this tinct is built without X11 "
                          "(-Dx11=disabled): verify the display with the session's calibration helper");
                return -EOPNOTSUPP;
        }
        if (isempty(getenv("DISPLAY"))) {
                log_error("a real sensor needs the patches on the screen: $DISPLAY is not set "
                          "(tinct verify shows them in a window on X11)");
                return -ENXIO;
        }
        ret->sensor = strdup(first);
        return ret->sensor ? 0 : log_oom();
}

static int show_patch(sd_bus *bus, const Measurer *m, const double rgb[3]) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
        int r;

        if (m->window) {
                r = patch_window_show(m->window, rgb);
                if (r < 0)
                        return log_error_errno(r, "cannot show the patch on the screen: %s", strerror(-r));
                if (!m->screen_reader)
                        (void) nanosleep(&(struct timespec) { .tv_nsec = PATCH_SETTLE_USEC * 1000 }, NULL);
                return 0;
        }
        r = bus_new_method_call(bus, m->sensor, CM_SENSOR_IFACE, "SetOptions", &msg);
        if (r >= 0)
                r = sd_bus_message_append(msg, "a{sv}", 1, "simulate-patch", "ad", 3, rgb[0], rgb[1], rgb[2]);
        if (r < 0)
                return bus_log_create_error(r);
        return bus_call_message(bus, msg, NULL);
}

/* SIGINT or SIGTERM came (blocked while the window is up): takes it, so that the sensor is
 * unlocked and the window closed before tinct exits. */
static bool interrupted(const sigset_t *mask) {
        sigset_t pending;
        if (sigpending(&pending) < 0 || (!sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM)))
                return false;
        (void) sigtimedwait(mask, NULL, &(struct timespec) { 0 });
        log_error("interrupted");
        return true;
}

static int measure_patches(sd_bus *bus, const Measurer *m, DisplayVerify *v, const sigset_t *mask) {
        int r, k;

        r = bus_call(bus, m->sensor, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        if (r < 0)
                return r;
        for (size_t i = 0; r >= 0 && i < v->n; i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                DisplayVerifyPatch *p = &v->patches[i];

                if (interrupted(mask)) {
                        r = -EINTR;
                        break;
                }
                r = show_patch(bus, m, p->rgb);
                if (r >= 0)
                        r = bus_call(bus, m->sensor, CM_SENSOR_IFACE, "GetSample", &reply, "s", "lcd");
                if (r >= 0) {
                        r = sd_bus_message_read(reply, "ddd", &p->measured_xyz[0], &p->measured_xyz[1],
                                                &p->measured_xyz[2]);
                        if (r < 0)
                                bus_log_parse_error(r);
                }
        }
        k = bus_call(bus, m->sensor, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
        return r < 0 ? r : k;
}

/* At a terminal, the user places the instrument on the window first: Enter starts, SIGINT
 * or SIGTERM (blocked, so read from a signalfd) or the end of input gives up. */
static int wait_for_enter(const sigset_t *mask) {
        _cleanup_close_ int sfd = signalfd(-1, mask, SFD_CLOEXEC);
        char line[64];

        if (sfd < 0)
                return log_error_errno(-errno, "cannot watch for signals: %m");
        fprintf(stderr, "Press Enter to start, Ctrl-C to give up. ");
        fflush(stderr);
        struct pollfd p[2] = { { .fd = STDIN_FILENO, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
        while (poll(p, 2, -1) < 0)
                if (errno != EINTR)
                        return log_error_errno(-errno, "cannot wait for Enter: %m");
        if (p[1].revents || !fgets(line, sizeof line, stdin)) {
                if (p[1].revents)
                        (void) sigtimedwait(mask, NULL, &(struct timespec) { 0 });
                fputc('\n', stderr);
                log_error("interrupted");
                return -EINTR;
        }
        return 0;
}

/* Opens the window when the sensor needs one (on the device's output, its XRANDR_name),
 * measures, and closes it on every path. SIGINT and SIGTERM wait between two patches
 * meanwhile; should tinct die all the same, the X server destroys the window with the
 * connection, and the daemon unlocks the sensor of a client that left. */
static int measure(sd_bus *bus, Measurer *m, const BusValue *device, DisplayVerify *v) {
        sigset_t mask, old;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (!m->virtual_display) {
                _cleanup_free_ char *why = NULL;
                if (sigprocmask(SIG_BLOCK, &mask, &old) < 0)
                        return log_error_errno(-errno, "cannot block signals: %m");
                const char *output = bus_value_get_string(bus_value_get(device, "Metadata"), "XRANDR_name");
                r = patch_window_open(output, &m->window, &why);
                if (r < 0) {
                        (void) sigprocmask(SIG_SETMASK, &old, NULL);
                        log_error("%s", why ? why : strerror(-r));
                        return r == -ENOMEM ? r : -ENXIO;
                }
                log_info("Hold the instrument on the square in the middle of %s%s: %zu patches",
                         r > 0 ? "output " : "the screen", r > 0 ? output : "", v->n);
        }
        r = m->window && isatty(STDIN_FILENO) ? wait_for_enter(&mask) : 0;
        if (r >= 0)
                r = measure_patches(bus, m, v, &mask);
        if (!m->virtual_display) {
                m->window = patch_window_close(m->window);
                (void) sigprocmask(SIG_SETMASK, &old, NULL);
        }
        return r;
}

/* Stores the record in the device's Metadata; false (after a warning) when the daemon
 * refused: the measurement stands, it is only not remembered. */
static bool store(sd_bus *bus, const char *device, const DisplayVerifyRecord *rec) {
        for (size_t i = 0; i < DISPLAY_VERIFY_N_KEYS; i++)
                if (bus_call(bus, device, CM_DEVICE_IFACE, "SetProperty", NULL, "ss", rec->keys[i], rec->values[i]) < 0) {
                        log_warning("the result could not be stored on the device");
                        return false;
                }
        return true;
}

static void write_lab(JsonWriter *w, const char *key, const double v[3], int decimals) {
        json_write_key(w, key);
        json_write_begin_array(w);
        for (size_t c = 0; c < 3; c++)
                json_write_fixed(w, v[c], decimals);
        json_write_end_array(w);
}

static int print_json(const DisplayVerify *v, const char *device_id, const char *profile_id, const char *date,
                      bool stored) {
        JsonWriter w;

        json_writer_init(&w, stdout);
        json_write_begin_object(&w);
        json_write_member_text(&w, "device", device_id);
        json_write_member_text(&w, "profile", profile_id);
        json_write_member_text(&w, "date", date);
        json_write_key(&w, "mean");
        json_write_fixed(&w, v->mean, 4);
        json_write_key(&w, "max");
        json_write_fixed(&w, v->max, 4);
        json_write_key(&w, "patches");
        json_write_begin_array(&w);
        for (size_t i = 0; i < v->n; i++) {
                const DisplayVerifyPatch *p = &v->patches[i];
                json_write_begin_object(&w);
                json_write_member_text(&w, "name", p->name);
                write_lab(&w, "rgb", p->rgb, 4);
                write_lab(&w, "expected_lab", p->expected_lab, 3);
                write_lab(&w, "measured_lab", p->measured_lab, 3);
                write_lab(&w, "measured_xyz", p->measured_xyz, 4);
                json_write_key(&w, "de2000");
                json_write_fixed(&w, p->de2000, 4);
                json_write_end_object(&w);
        }
        json_write_end_array(&w);
        json_write_key(&w, "stored");
        json_write_bool(&w, stored);
        json_write_end_object(&w);
        return bus_json_finish(&w) < 0 ? EXIT_FAILURE : 0;
}

static void print_text(const DisplayVerify *v, const char *device_id, const char *profile_id, const char *date) {
        printf("Verification of %s against profile %s, %s\n", device_id, profile_id, date);
        printf("%-14s %-11s %-22s %-22s %s\n", "patch", "RGB", "expected L* a* b*", "measured L* a* b*", "dE2000");
        for (size_t i = 0; i < v->n; i++) {
                const DisplayVerifyPatch *p = &v->patches[i];
                printf("%-14s %3.0f %3.0f %3.0f %6.2f %6.2f %6.2f   %6.2f %6.2f %6.2f   %6.2f\n", p->name,
                       p->rgb[0] * 255, p->rgb[1] * 255, p->rgb[2] * 255, p->expected_lab[0], p->expected_lab[1],
                       p->expected_lab[2], p->measured_lab[0], p->measured_lab[1], p->measured_lab[2], p->de2000);
        }
        printf("dE2000 mean %.2f, max %.2f over %zu patches\n", v->mean, v->max, v->n);
}

int verb_verify(Invocation *inv) {
        _cleanup_free_ char *device = NULL, *profile_id = NULL, *file = NULL;
        Measurer m = {};
        _cleanup_(bus_object_freep) BusObject *dev = NULL;
        _cleanup_free_ uint8_t *icc = NULL;
        _cleanup_free_ DisplayVerify *v = NULL;
        DisplayVerifyRecord rec;
        const char *reason = NULL, *device_id, *kind;
        sd_bus *bus = inv->bus;
        size_t size = 0;
        bool stored;
        char date[32];
        int r;

        r = bus_resolve(bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r >= 0)
                r = bus_object_get(bus, BUS_OBJECT_DEVICE, device, &dev);
        if (r < 0)
                return bus_exit_status(r);
        device_id = strempty(bus_value_get_string(dev->properties, "DeviceId"));
        kind = strempty(bus_value_get_string(dev->properties, "Kind"));
        if (!streq(kind, "display")) {
                log_error("%s is a %s: tinct verify measures displays", device_id, kind);
                return EXIT_FAILURE;
        }
        r = default_profile(bus, device, &profile_id, &file);
        if (r == -ENOENT) {
                log_error("%s has no profile to verify against", device_id);
                return EXIT_FAILURE;
        }
        if (r < 0)
                return r == -ENOMEM ? EXIT_FAILURE : bus_exit_status(r);
        r = read_file_capped(file, TOOL_MAX_FILE, READ_REGULAR_ONLY, &icc, &size, NULL);
        if (r < 0) {
                log_error("%s: cannot read the profile: %s", file, strerror(-r));
                return EXIT_FAILURE;
        }
        v = calloc(1, sizeof *v);
        if (!v)
                return bus_exit_status(log_oom());
        r = display_verify_prepare(icc, size, v, &reason);
        if (r < 0) {
                log_error("%s: %s", file, reason ? reason : strerror(-r));
                return EXIT_FAILURE;
        }
        r = find_sensor(bus, &m);
        if (r >= 0)
                r = measure(bus, &m, dev->properties, v);
        free(m.sensor);
        if (r < 0)
                return bus_exit_status(r);
        r = display_verify_compare(v, &reason);
        if (r < 0) {
                log_error("%s: %s", device_id, reason);
                return EXIT_FAILURE;
        }

        time_t now = time(NULL);
        display_verify_format_time(now, date);
        display_verify_record(v, DISPLAY_VERIFY_LAST, profile_id, now, &rec);
        stored = store(bus, device, &rec);
        if (inv->opts.svg) {
                r = verify_svg_write(inv->opts.svg, v, device_id, profile_id, date);
                if (r < 0)
                        log_warning("%s: cannot write: %s", inv->opts.svg, strerror(-r));
        }
        if (inv->opts.json)
                return print_json(v, device_id, profile_id, date, stored);
        print_text(v, device_id, profile_id, date);
        return 0;
}
