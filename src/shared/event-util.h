/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The event loop a long-running tinct program starts with (tinctd, tinct-session). */
#pragma once

#include <systemd/sd-event.h>

/* The thread's default loop, which SIGTERM and SIGINT end cleanly (they are blocked and
 * handled as loop events, so every cleanup runs); SIGPIPE is ignored, a peer that went away
 * being an error return of the write. */
int event_new_exit_on_signals(sd_event **ret);
