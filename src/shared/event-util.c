/* SPDX-License-Identifier: GPL-2.0-or-later */
/* event_new_exit_on_signals() (event-util.h). */
#include <errno.h>
#include <signal.h>

#include "event-util.h"
#include "macro.h"

int event_new_exit_on_signals(sd_event **ret) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        r = sigprocmask(SIG_BLOCK, &mask, NULL);
        if (r < 0)
                return -errno;
        signal(SIGPIPE, SIG_IGN);

        r = sd_event_default(&e);
        if (r < 0)
                return r;
        /* No handler: sd-event exits the loop on a signal source without one. */
        r = sd_event_add_signal(e, NULL, SIGTERM, NULL, NULL);
        if (r < 0)
                return r;
        r = sd_event_add_signal(e, NULL, SIGINT, NULL, NULL);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(e);
        return 0;
}
