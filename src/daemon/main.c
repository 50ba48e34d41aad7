/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinctd: parse the command line, load the registry, take the bus name, run the loop.
 * The command line is a contract with tests and benchmarks (docs/ARCHITECTURE.md). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "argv-util.h"
#include "bus-order.h"
#include "cups-notify.h"
#include "daemon-dbus.h"
#include "event-util.h"
#include "log.h"
#include "main-func.h"
#include "parser.h"
#include "profile-warnings.h"
#include "startup.h"

#define DEFAULT_STATE_DIR "/var/lib/tinct"

static const char *const default_profile_dirs[] = {
        "/usr/share/color/icc",
        "/usr/local/share/color/icc",
        "/var/lib/color/icc",
        "/var/lib/colord/icc",
        NULL,
};

#define DEFAULT_COLORD_DIR "/var/lib/colord"
/* Generous: the biggest valid profiles (32 MiB, ICC_MAX_FILE_SIZE) parse in well under a second. */
#define DEFAULT_PARSE_TIMEOUT_SEC 10.0
/* SANE backends probe USB and the network; a listing that takes longer has a hung backend. */
#define DEFAULT_SANE_TIMEOUT_SEC 60.0
#define BACKUP_INTERVAL_USEC (3600ULL * 1000000ULL)

/* What main.c keeps beside the registry: the command line's one-shot parts. Lives on run()'s
 * stack; the bus callbacks get it as userdata. */
typedef struct Daemon {
        Manager *manager;
        SourcesConfig sources;          /* the sources' settings, as long as the Manager runs them */
        int ready_fd;                   /* --ready-fd: written once, then closed */
        char *import_colord_dir;        /* --import-colord: read once at start */
} Daemon;

static void daemon_done(Daemon *d) {
        d->manager = manager_free(d->manager);
        sources_config_done(&d->sources);
        if (d->ready_fd >= 0)
                close(d->ready_fd);
        d->ready_fd = -1;
        d->import_colord_dir = mfree(d->import_colord_dir);
}

static void help(void) {
        printf("tinctd — colour management daemon (org.freedesktop.ColorManager)\n\n"
               "  --state-dir DIR        database and installed profiles (default %s)\n"
               "  --profile-dir DIR      watched ICC directory; repeatable, replaces the defaults\n"
               "  --sysfs-root DIR       read devices and DMI from this sysfs tree (tests)\n"
               "  --no-udev              no device discovery (udev, displays, SANE)\n"
               "  --sane-discovery       list SANE's scanners despite --no-udev/--sysfs-root\n"
               "  --sane-test-devices    include SANE's test devices (vendor Noname)\n"
               "  --sane-timeout SEC     kill a SANE listing that takes longer (default %g)\n"
               "  --sane-socket PATH     reach tinct-sane-list on its socket unit, not as a\n"
               "                         child (the shipped unit: network scanners)\n"
               "  --no-cups              do not follow CUPS queues (else: CUPS_SERVER, or\n"
               "                         the default socket)\n"
               "  --cups-poll SEC        list cupsd's queues this often while its D-Bus\n"
               "                         notifier tells of changes (default %d)\n"
               "  --cups-lease SEC       the lease of that subscription, renewed at half\n"
               "                         (default %d)\n"
               "  --fetch-helper PATH    run tinct-fetch as a child (tests), not through its\n"
               "                         socket unit\n"
               "  --create-dummy-sensor  add the dummy colour sensor\n"
               "  --dummy-sensor-display FILE.icc\n"
               "                         the dummy sensor measures a virtual display whose\n"
               "                         response is this RGB profile (implies the dummy)\n"
               "  --dummy-sensor-x11 DISPLAY\n"
               "                         tests: that display's RGB is the pixel at the centre\n"
               "                         of this X screen (needs --dummy-sensor-display)\n"
               "  --polkit-timeout SEC   deny when polkit has not answered by then (default 20)\n"
               "  --parse-helper PATH    the parser process (default: tinct-parse beside tinctd)\n"
               "  --parse-timeout SEC    a parse that takes longer fails (default %g)\n"
               "  --import-colord DIR    import colord's databases from DIR once (default: %s,\n"
               "                         only with the default state directory)\n"
               "  --ready-fd FD          write READY=1 to FD once the bus name is owned\n"
               "  -v, --verbose          debug logging\n"
               "  --version              print the version\n"
               "  -h, --help             this text\n", DEFAULT_STATE_DIR, DEFAULT_SANE_TIMEOUT_SEC,
               CUPS_SAFETY_POLL_SEC, CUPS_LEASE_SEC, DEFAULT_PARSE_TIMEOUT_SEC, DEFAULT_COLORD_DIR);
}

/* tinct-parse and tinct-sane-list sit beside tinctd, installed (libexecdir) and in the
 * build tree alike. */
static char *default_helper(const char *argv0, const char *name) {
        const char *slash = strrchr(argv0, '/');
        char *path = NULL;
        if (slash && asprintf(&path, "%.*s/%s", (int) (slash - argv0), argv0, name) >= 0 && access(path, X_OK) == 0)
                return path;
        free(path);
        return asprintf(&path, "%s/%s", TINCT_LIBEXECDIR, name) < 0 ? NULL : path;
}

static int parse_seconds(const char *option, const char *arg, uint64_t *ret_usec) {
        char *end;
        double s = strtod(arg, &end);
        if (*end || s <= 0 || s > 3600) {
                log_error("Invalid %s: %s", option, arg);
                return -EINVAL;
        }
        *ret_usec = (uint64_t) (s * 1e6);
        return 0;
}

static int parse_argv(int argc, char **argv, ManagerConfig *cfg, Daemon *d) {
        enum { ARG_STATE_DIR = ARG_COMMON_VERSION + 1, ARG_PROFILE_DIR, ARG_SYSFS_ROOT, ARG_NO_UDEV, ARG_DUMMY,
               ARG_POLKIT_TIMEOUT, ARG_READY_FD, ARG_IMPORT_COLORD, ARG_PARSE_HELPER,
               ARG_PARSE_TIMEOUT, ARG_DUMMY_DISPLAY, ARG_DUMMY_X11, ARG_SANE_DISCOVERY, ARG_SANE_TEST_DEVICES,
               ARG_SANE_TIMEOUT, ARG_NO_CUPS, ARG_FETCH_HELPER, ARG_SANE_SOCKET, ARG_CUPS_POLL,
               ARG_CUPS_LEASE };
        static const struct option options[] = {
                { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "profile-dir", required_argument, NULL, ARG_PROFILE_DIR },
                { "sysfs-root", required_argument, NULL, ARG_SYSFS_ROOT },
                { "no-udev", no_argument, NULL, ARG_NO_UDEV },
                { "no-cups", no_argument, NULL, ARG_NO_CUPS },
                { "cups-poll", required_argument, NULL, ARG_CUPS_POLL },
                { "cups-lease", required_argument, NULL, ARG_CUPS_LEASE },
                { "fetch-helper", required_argument, NULL, ARG_FETCH_HELPER },
                { "create-dummy-sensor", no_argument, NULL, ARG_DUMMY },
                { "dummy-sensor-display", required_argument, NULL, ARG_DUMMY_DISPLAY },
                { "dummy-sensor-x11", required_argument, NULL, ARG_DUMMY_X11 },
                { "polkit-timeout", required_argument, NULL, ARG_POLKIT_TIMEOUT },
                { "ready-fd", required_argument, NULL, ARG_READY_FD },
                { "import-colord", required_argument, NULL, ARG_IMPORT_COLORD },
                { "parse-helper", required_argument, NULL, ARG_PARSE_HELPER },
                { "parse-timeout", required_argument, NULL, ARG_PARSE_TIMEOUT },
                { "sane-discovery", no_argument, NULL, ARG_SANE_DISCOVERY },
                { "sane-test-devices", no_argument, NULL, ARG_SANE_TEST_DEVICES },
                { "sane-timeout", required_argument, NULL, ARG_SANE_TIMEOUT },
                { "sane-socket", required_argument, NULL, ARG_SANE_SOCKET },
                { "verbose", no_argument, NULL, 'v' },
                { "version", no_argument, NULL, ARG_COMMON_VERSION },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        int c, r;
        char *end;
        bool sane_discovery = false;

        cfg->polkit_timeout_usec = 20 * 1000000ULL;
        cfg->parse_timeout_usec = (uint64_t) (DEFAULT_PARSE_TIMEOUT_SEC * 1e6);
        d->sources.scanners.timeout_usec = (uint64_t) (DEFAULT_SANE_TIMEOUT_SEC * 1e6);
        while ((c = getopt_long(argc, argv, "vh", options, NULL)) >= 0)
                switch (c) {
                case ARG_STATE_DIR:
                        if (free_and_strdup(&cfg->state_dir, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_PROFILE_DIR:
                        if (strv_extend(&cfg->profile_dirs, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_SYSFS_ROOT:
                        if (free_and_strdup(&cfg->sysfs_root, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_NO_UDEV:
                        cfg->no_udev = true;
                        break;
                case ARG_NO_CUPS:
                        d->sources.cups.off = true;
                        break;
                case ARG_CUPS_POLL:
                        r = parse_seconds("--cups-poll", optarg, &d->sources.cups.poll_usec);
                        if (r < 0)
                                return r;
                        break;
                case ARG_CUPS_LEASE:
                        r = parse_seconds("--cups-lease", optarg, &d->sources.cups.lease_usec);
                        if (r < 0)
                                return r;
                        break;
                case ARG_FETCH_HELPER:
                        if (free_and_strdup(&d->sources.cups.fetch_helper, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_DUMMY:
                        d->sources.dummy_sensor.create = true;
                        break;
                case ARG_DUMMY_DISPLAY:
                        if (free_and_strdup(&d->sources.dummy_sensor.display, optarg) < 0)
                                return log_oom();
                        d->sources.dummy_sensor.create = true;
                        break;
                case ARG_DUMMY_X11:
                        if (free_and_strdup(&d->sources.dummy_sensor.x11, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_POLKIT_TIMEOUT:
                        r = parse_seconds("--polkit-timeout", optarg, &cfg->polkit_timeout_usec);
                        if (r < 0)
                                return r;
                        break;
                case ARG_PARSE_HELPER:
                        if (free_and_strdup(&cfg->parse_helper, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_PARSE_TIMEOUT:
                        r = parse_seconds("--parse-timeout", optarg, &cfg->parse_timeout_usec);
                        if (r < 0)
                                return r;
                        break;
                case ARG_SANE_DISCOVERY:
                        sane_discovery = true;
                        break;
                case ARG_SANE_TEST_DEVICES:
                        d->sources.scanners.test_devices = true;
                        break;
                case ARG_SANE_TIMEOUT:
                        r = parse_seconds("--sane-timeout", optarg, &d->sources.scanners.timeout_usec);
                        if (r < 0)
                                return r;
                        break;
                case ARG_SANE_SOCKET:
                        if (free_and_strdup(&d->sources.scanners.socket, optarg) < 0)
                                return log_oom();
                        break;
                case ARG_READY_FD:
                        d->ready_fd = (int) strtol(optarg, &end, 10);
                        if (*end || d->ready_fd < 0) {
                                log_error("Invalid --ready-fd: %s", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_IMPORT_COLORD:
                        if (free_and_strdup(&d->import_colord_dir, optarg) < 0)
                                return log_oom();
                        break;
                default:
                        r = argv_common_option(c, "tinctd", help);
                        if (r <= 0)
                                return r;
                }
        r = argv_no_positional(argc, argv);
        if (r < 0)
                return r;
        /* A real installation migrates from colord on its first start; a private state
         * directory (tests, demos) never reads the machine's colord files unless asked. */
        if (!cfg->state_dir) {
                cfg->state_dir = strdup(DEFAULT_STATE_DIR);
                if (!cfg->state_dir)
                        return log_oom();
                if (!d->import_colord_dir) {
                        d->import_colord_dir = strdup(DEFAULT_COLORD_DIR);
                        if (!d->import_colord_dir)
                                return log_oom();
                }
        }
        if (!cfg->profile_dirs) {
                cfg->profile_dirs = strv_copy((char **) default_profile_dirs);
                if (!cfg->profile_dirs)
                        return log_oom();
        }
        if (!cfg->parse_helper) {
                cfg->parse_helper = default_helper(argv[0], "tinct-parse");
                if (!cfg->parse_helper)
                        return log_oom();
        }
        /* SANE finds this machine's scanners: a discovery like udev's, off with it and with
         * a fake tree (tests), unless asked for. */
        ScannerConfig *sane = &d->sources.scanners;
        sane->discovery = sane_discovery || (!cfg->no_udev && !cfg->sysfs_root);
        if (sane->discovery && !sane->socket) {
                sane->helper = default_helper(argv[0], "tinct-sane-list");
                if (!sane->helper)
                        return log_oom();
        }
        /* Profiles installed system-wide land in STATE_DIR/icc; always watch it. */
        _cleanup_free_ char *own = NULL;
        if (asprintf(&own, "%s/icc", cfg->state_dir) < 0)
                return log_oom();
        if (!strv_contains(cfg->profile_dirs, own) && strv_extend(&cfg->profile_dirs, own) < 0)
                return log_oom();
        return 1;
}

static int on_name_acquired(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Daemon *d = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(msg);
        if (e) {
                log_error("Failed to acquire %s: %s", CM_NAME, e->message);
                return sd_event_exit(d->manager->event, EXIT_FAILURE);
        }
        log_info("Ready: %s on the system bus", CM_NAME);
        (void) sd_notify(false, "READY=1");
        if (d->ready_fd >= 0) {
                static const char line[] = "READY=1\n";
                (void) !write(d->ready_fd, line, sizeof line - 1);
                close(d->ready_fd);
                d->ready_fd = -1;
        }
        return 0;
}

static int on_backup_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        (void) store_backup(m->store); /* logs its own failures */
        (void) sd_event_source_set_time(s, usec + BACKUP_INTERVAL_USEC);
        return sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int on_name_lost(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        const char *name;
        if (sd_bus_message_read(msg, "s", &name) >= 0 && streq(name, CM_NAME)) {
                log_info("Lost the bus name to another instance, exiting.");
                return sd_event_exit(userdata, 0);
        }
        return 0;
}

static int store_start(Daemon *d) {
        Manager *m = d->manager;
        int r = store_open(m->config.state_dir, &m->store);
        /* A full or read-only disk: serve what is stored and refuse changes, rather than
         * leave every client without colour management. */
        if (r < 0 && store_open_error_is_unwritable(r))
                r = store_open_read_only(m->config.state_dir, r, &m->store);
        if (r < 0)
                return r; /* the store said why */
        if (d->import_colord_dir)
                (void) store_import_colord(m->store, d->import_colord_dir);
        d->import_colord_dir = mfree(d->import_colord_dir);
        r = sd_event_add_time_relative(m->event, NULL, CLOCK_MONOTONIC, BACKUP_INTERVAL_USEC, 0, on_backup_timer, m);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the backup timer: %m");
        return 0;
}

static int bus_start(Manager *m) {
        int r = sd_bus_open_system(&m->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %m");
        r = sd_bus_attach_event(m->bus, m->event, 0);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %m");
        r = bus_order_new(m->bus, m->event, &m->bus_order);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the order of each client's calls: %m");
        bus_order_set_prepare(m->bus_order, profile_warnings_prepare, m);
        r = manager_bus_register(m);
        if (r < 0)
                return r; /* logged */
        r = sd_bus_match_signal(m->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameLost", on_name_lost, m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the bus name: %m");
        return 0;
}

static int run(int argc, char **argv) {
        _cleanup_(manager_config_done) ManagerConfig cfg = {};
        _cleanup_(daemon_done) Daemon daemon = { .ready_fd = -1 };
        int r;

        r = parse_argv(argc, argv, &cfg, &daemon);
        if (r <= 0)
                return r;
        r = manager_new(&cfg, &daemon.manager);
        if (r < 0)
                return log_error_errno(r, "Failed to allocate: %m");
        Manager *m = daemon.manager;
        /* Started now, not on the first file: a parser that cannot start at all is one
         * start-up error naming its path, not a daemon that is "Ready" without profiles. */
        r = parser_start(m->parser);
        if (r < 0)
                return r; /* logged, with the path */
        r = event_new_exit_on_signals(&m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the event loop: %m");
        /* Client calls parse asynchronously: the loop serves others meanwhile. */
        r = parser_attach_event(m->parser, m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the parser processes: %m");
        r = store_start(&daemon);
        if (r < 0)
                return r;
        r = bus_start(m);
        if (r < 0)
                return r;
        r = manager_startup(m, &daemon.sources);
        if (r < 0)
                return r;
        m->announcing = true;

        /* Taken only now: the first client sees every profile and disk device. */
        r = sd_bus_request_name_async(m->bus, NULL, CM_NAME,
                                      SD_BUS_NAME_ALLOW_REPLACEMENT | SD_BUS_NAME_REPLACE_EXISTING,
                                      on_name_acquired, &daemon);
        if (r < 0)
                return log_error_errno(r, "Failed to request the bus name: %m");

        r = sd_event_loop(m->event);
        (void) store_backup(m->store);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        log_info("Exiting.");
        return r; /* sd_event_exit's code: EXIT_FAILURE when the name could not be had */
}

DEFINE_MAIN_FUNCTION(run)
