/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A rescan that runs once, a short delay after the first of a burst of events: inotify and
 * uevents only say "look again", and a file being written or a monitor being plugged sends
 * many of them. Used by the directory watcher (dirwatch.h: the daemon's profile directories,
 * tinct-session's user profiles), the daemon's display and scanner sources and
 * tinct-session's X display. A module of src/shared on sd-event (their own
 * library, shared_event_dep). */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef struct Debounce Debounce;

/* run(userdata) is called from the loop delay_usec after debounce_schedule() (accuracy
 * 10 ms: sd-event would otherwise allow itself 250 ms). */
int debounce_new(sd_event *event, uint64_t delay_usec, void (*run)(void *userdata), void *userdata,
                 Debounce **ret);
Debounce *debounce_free(Debounce *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(Debounce *, debounce_free);

/* Arms the timer unless it is armed already (then the pending run covers this event). */
void debounce_schedule(Debounce *d);
