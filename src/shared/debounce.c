/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "debounce.h"

#include <errno.h>
#include <stdlib.h>

struct Debounce {
        sd_event_source *timer;
        uint64_t delay_usec;
        void (*run)(void *userdata);
        void *userdata;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Debounce *d = userdata;
        d->run(d->userdata);
        return 0;
}

int debounce_new(sd_event *event, uint64_t delay_usec, void (*run)(void *userdata), void *userdata,
                 Debounce **ret) {
        Debounce *d = calloc(1, sizeof *d);
        if (!d)
                return -ENOMEM;
        *d = (Debounce) { .delay_usec = delay_usec, .run = run, .userdata = userdata };
        int r = sd_event_add_time(event, &d->timer, CLOCK_MONOTONIC, UINT64_MAX, 10 * 1000, on_timer, d);
        if (r >= 0)
                r = sd_event_source_set_enabled(d->timer, SD_EVENT_OFF);
        if (r < 0) {
                debounce_free(d);
                return r;
        }
        *ret = d;
        return 0;
}

Debounce *debounce_free(Debounce *d) {
        if (!d)
                return NULL;
        sd_event_source_disable_unref(d->timer);
        free(d);
        return NULL;
}

void debounce_schedule(Debounce *d) {
        if (!d || sd_event_source_get_enabled(d->timer, NULL) > 0)
                return;
        uint64_t now;
        (void) sd_event_now(sd_event_source_get_event(d->timer), CLOCK_MONOTONIC, &now);
        (void) sd_event_source_set_time(d->timer, now + d->delay_usec);
        (void) sd_event_source_set_enabled(d->timer, SD_EVENT_ONESHOT);
}
