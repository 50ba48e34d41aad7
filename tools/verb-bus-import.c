/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct import-profile FILE [SECONDS]: colormgr's import (colord §8.4): the file is checked
 * locally (it must read as an ICC profile), copied into the user's own ICC directory
 * ($XDG_DATA_HOME/icc, default ~/.local/share/icc) and then we wait until the session agent
 * (tinct-session, or GNOME's or KDE's) has registered it with the daemon: a profile whose
 * Filename is the copy. colord waits 5 s for any ProfileAdded; we wait SECONDS (default 10)
 * for that profile, checking once before the first signal so a fast agent is not missed.
 * On time-out the copy stays (the next session registers it) and the exit status is 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bus-call.h"
#include "bus-print.h"
#include "hold.h"
#include "fileio.h"
#include "icc-info.h"
#include "log.h"
#include "time-util.h"
#include "verbs.h"

static int user_icc_dir(char **ret) {
        const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
        int k = !isempty(data) && data[0] == '/' ? asprintf(ret, "%s/icc", data)
              : !isempty(home)                   ? asprintf(ret, "%s/.local/share/icc", home)
                                                 : -2;
        return k == -2 ? -ENOENT : k < 0 ? -ENOMEM : 0;
}

static int on_added(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        *(bool *) userdata = true;
        return 0;
}

/* Quietly: not found yet is the normal case. */
static int find_by_filename(sd_bus *bus, const char *filename, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "FindProfileByFilename", &e, &reply, "s", filename);
        if (r < 0)
                return r;
        return bus_read_path(reply, ret);
}

int verb_import_profile_check(const Invocation *inv) {
        unsigned long seconds;
        if (inv->n_args > 1 && (parse_seconds(inv->args[1], &seconds) < 0 || seconds == 0))
                return verb_usage_error(inv, "'%s' is not a number of seconds", inv->args[1]);
        return 0;
}

int verb_import_profile(Invocation *inv) {
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        _cleanup_free_ char *dir = NULL, *dest = NULL, *why = NULL, *found = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        const char *file = inv->args[0];
        sd_bus *bus = inv->bus;
        unsigned long seconds = 10;
        size_t size;
        int r;

        if (inv->n_args > 1)
                (void) parse_seconds(inv->args[1], &seconds); /* checked */
        r = read_file_capped(file, TOOL_MAX_FILE, READ_REGULAR_ONLY, &data, &size, NULL);
        if (r < 0) {
                log_error("cannot read %s: %s", file, strerror(-r));
                return EXIT_FAILURE;
        }
        r = icc_info_parse(data, size, &info, &why);
        if (r < 0) {
                log_error("%s is not a usable ICC profile: %s", file, why ? why : strerror(-r));
                return EXIT_FAILURE;
        }
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        r = user_icc_dir(&dir);
        if (r < 0) {
                log_error("no user ICC directory (set XDG_DATA_HOME or HOME): %s", strerror(-r));
                return EXIT_FAILURE;
        }
        if (asprintf(&dest, "%s/%s", dir, base) < 0)
                return bus_exit_status(log_oom());

        /* Subscribed before the copy exists, so the agent's answer cannot come first. */
        bool added = false;
        r = sd_bus_match_signal(bus, &slot, CM_NAME, CM_PATH, CM_IFACE, "ProfileAdded", on_added, &added);
        if (r < 0) {
                log_error("cannot watch for ProfileAdded: %s", strerror(-r));
                return EXIT_FAILURE;
        }
        r = mkdir_parents(dir, 0755);
        if (r >= 0)
                r = write_file_atomic(dest, data, size, 0644, WRITE_NO_REPLACE);
        if (r < 0 && r != -EEXIST) {
                log_error("cannot write %s: %s", dest, strerror(-r));
                return EXIT_FAILURE;
        }
        if (r == -EEXIST) {
                _cleanup_free_ uint8_t *old = NULL;
                size_t old_size;
                if (read_file_capped(dest, size, READ_REGULAR_ONLY, &old, &old_size, NULL) < 0 || old_size != size ||
                    memcmp(old, data, size) != 0) {
                        log_error("%s exists with other contents; not replaced", dest);
                        return EXIT_FAILURE;
                }
        }

        log_info("Copied to %s; waiting up to %lu s for the session agent to register it", dest, seconds);
        uint64_t deadline = now(CLOCK_MONOTONIC) + seconds * 1000000u;
        for (bool check = true;;) {
                if (check && find_by_filename(bus, dest, &found) >= 0)
                        break;
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline) {
                        log_error(
                                "%s was copied, but no session agent registered it within %lu s "
                                "(is tinct-session running? the copy stays and is picked up at the next login)",
                                dest, seconds);
                        return EXIT_FAILURE;
                }
                r = sd_bus_process(bus, NULL);
                if (r < 0) {
                        log_error("the bus connection failed: %s", strerror(-r));
                        return EXIT_FAILURE;
                }
                check = added;
                added = false;
                if (r > 0 || check)
                        continue;
                r = sd_bus_wait(bus, deadline - t);
                if (r < 0) {
                        log_error("the bus connection failed: %s", strerror(-r));
                        return EXIT_FAILURE;
                }
        }
        return bus_exit_status(bus_print_object(bus, BUS_OBJECT_PROFILE, found, inv->opts.json));
}
