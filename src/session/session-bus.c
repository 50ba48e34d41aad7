/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The session bus connection and the ColorHelper name (see session-bus.h). */
#include "session-bus.h"

#include <errno.h>

#include "log.h"
#include "macro.h"

int session_bus_open(sd_event *event, sd_bus **ret) {
        sd_bus *bus = NULL;
        int r = sd_bus_open_user(&bus);
        if (r < 0)
                return r;
        r = sd_bus_attach_event(bus, event, 0);
        if (r < 0) {
                sd_bus_flush_close_unref(bus);
                return r;
        }
        *ret = bus;
        return 0;
}

static int on_name_lost(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *name;
        if (sd_bus_message_read(m, "s", &name) >= 0 && streq(name, COLOR_HELPER_NAME)) {
                log_info("Lost %s on the session bus; exiting", COLOR_HELPER_NAME);
                return sd_event_exit(userdata, 0);
        }
        return 0;
}

int session_bus_take_name(sd_bus *bus, sd_event *event) {
        int r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                    "NameLost", on_name_lost, event);
        if (r < 0)
                return r;
        /* Flags 0: no queueing, no replacing. -EEXIST: someone else has it. */
        r = sd_bus_request_name(bus, COLOR_HELPER_NAME, 0);
        if (r == -EALREADY)
                return 0;
        return r;
}
