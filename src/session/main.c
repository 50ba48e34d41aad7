/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-session: the per-user session helper. It takes org.freedesktop.ColorHelper on the
 * session bus (session-bus.c), registers the user's own ICC files with the colour daemon
 * (user-profiles.c) and, when $DISPLAY is set, the X11 outputs as display devices whose
 * profiles it applies (x11.c). "Ready" is logged once all of that has been done once.
 * SIGTERM and SIGINT end it cleanly; the daemon drops its temp objects when it leaves.
 * The command line is a contract with the unit file and the tests (docs/man/tinct-session.1). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "argv-util.h"
#include "cm-client.h"
#include "color-helper.h"
#include "event-util.h"
#include "log.h"
#include "main-func.h"
#include "session-bus.h"
#include "session-names.h"
#include "strv.h"
#include "user-profiles.h"
#include "x11.h"

static void help(void) {
        printf("tinct-session — the colour session helper (%s)\n\n"
               "Registers your own ICC profiles ($XDG_DATA_HOME/icc, ~/.color/icc) with the colour\n"
               "daemon and, on X11 ($DISPLAY), your screens, whose profiles it loads into the\n"
               "video card gamma ramps and the _ICC_PROFILE properties.\n\n"
               "  -v, --verbose  debug logging\n"
               "  --version      print the version\n"
               "  -h, --help     this text\n", COLOR_HELPER_NAME);
}

static int parse_argv(int argc, char **argv) {
        static const struct option options[] = {
                { "verbose", no_argument, NULL, 'v' },
                { "version", no_argument, NULL, ARG_COMMON_VERSION },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        int c, r;

        while ((c = getopt_long(argc, argv, "vh", options, NULL)) >= 0) {
                r = argv_common_option(c, "tinct-session", help);
                if (r <= 0)
                        return r;
        }
        r = argv_no_positional(argc, argv);
        if (r < 0)
                return r;
        return 1;
}

static int run(int argc, char **argv) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *session = NULL;
        _cleanup_(cm_client_freep) CmClient *cm = NULL;
        _cleanup_(user_profiles_freep) UserProfiles *profiles = NULL;
        _cleanup_(x11_freep) X11 *x11 = NULL;
        _cleanup_(color_helper_freep) ColorHelper *helper = NULL;
        _cleanup_strv_free_ char **dirs = NULL;
        int r;

        log_set_program_name("tinct-session");
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r;

        r = event_new_exit_on_signals(&event);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the event loop: %m");

        /* The name first: a second instance leaves before it registers anything. */
        r = session_bus_open(event, &session);
        if (r < 0)
                log_warning_errno(r, "No session bus (%m): running without %s", COLOR_HELPER_NAME);
        else {
                /* The calibration object before the name, so an activating caller finds it. */
                r = color_helper_new(event, session, &helper);
                if (r < 0)
                        return log_error_errno(r, "Cannot register the ColorHelper object: %m");
                r = session_bus_take_name(session, event);
                if (r == -EEXIST) {
                        log_info("%s is taken: another session helper runs in this session; exiting",
                                 COLOR_HELPER_NAME);
                        return 0;
                }
                if (r < 0)
                        return log_error_errno(r, "Cannot take %s: %m", COLOR_HELPER_NAME);
        }

        r = cm_client_new(event, &cm);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0)
                return r; /* logged */

        r = session_user_icc_dirs(getenv("XDG_DATA_HOME"), getenv("HOME"), &dirs);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0)
                log_warning("Neither HOME nor XDG_DATA_HOME is an absolute path: no user profiles");
        else {
                r = user_profiles_new(event, cm, dirs, &profiles);
                if (r < 0)
                        return log_error_errno(r, "Cannot watch the user's profiles: %m");
        }

        if (helper) {
                r = color_helper_set_backends(helper, cm, profiles, dirs ? dirs[0] : NULL);
                if (r < 0)
                        return log_oom();
        }

        const char *display = getenv("DISPLAY");
        if (!isempty(display)) {
                r = x11_new(event, cm, display, &x11);
                if (r == -ENOMEM)
                        return log_oom();
                if (r == -EPROTONOSUPPORT)
                        log_info("Built without X11: the screens of %s are left alone", display);
                else if (r == -ENXIO)
                        log_warning("Cannot open the X display %s: no screens", display);
                else if (r < 0)
                        log_warning_errno(r, "The X display %s has no RandR 1.2 (%m): no screens", display);
        }

        (void) cm_client_start(cm);
        if (profiles)
                (void) user_profiles_start(profiles);
        if (x11)
                (void) x11_start(x11);
        log_info("Ready: %s%s%s", session ? COLOR_HELPER_NAME " on the session bus" : "no session bus",
                 x11 ? ", X display " : "", x11 ? display : "");

        r = sd_event_loop(event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        log_info("Exiting.");
        return r;
}

DEFINE_MAIN_FUNCTION(run)
