/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct rescan-scanners: tinct's own Rescan method (docs/scanners.md), which answers when
 * the daemon's SANE helper has run (or with the last listing's result when the minute's
 * listings are spent). It waits as long as the daemon may (the daemon's --sane-timeout
 * bounds the helper, the minute's bound the wait for it), so the call's timeout is generous. */
#include <stdio.h>
#include <stdlib.h>

#include "bus-call.h"
#include "cm-names.h"
#include "log.h"
#include "verbs.h"

/* Above tinctd's --sane-timeout limit (3600 s) and a minute's wait: the daemon answers first. */
#define RESCAN_CALL_TIMEOUT_USEC (3700ULL * 1000000ULL)

int verb_rescan_scanners(Invocation *inv) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        const char *name, *reason;
        uint32_t n;
        int r;

        r = sd_bus_message_new_method_call(inv->bus, &call, CM_NAME, TINCT_SCANNERS_PATH, TINCT_SCANNERS_IFACE,
                                           "Rescan");
        if (r < 0) {
                bus_log_create_error(r);
                return EXIT_FAILURE;
        }
        r = bus_call_message_timeout(inv->bus, call, RESCAN_CALL_TIMEOUT_USEC, &reply);
        if (r < 0)
                return bus_exit_status(r);
        r = sd_bus_message_read(reply, "u", &n);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(ss)");
        if (r < 0) {
                bus_log_parse_error(r);
                return EXIT_FAILURE;
        }
        printf("Scanners: %u\n", n);
        while ((r = sd_bus_message_read(reply, "(ss)", &name, &reason)) > 0)
                printf("Not answering: %s: %s\n", name, reason);
        if (r < 0) {
                bus_log_parse_error(r);
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
