/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One run of tinct-fetch (src/fetch/fetch-helper.c) for a printer URI, asynchronously: the
 * daemon has no network, so the helper does the asking and the downloading, confined, and
 * answers a fetch-wire.h reply that is validated here (docs/printers.md). The helper is
 * reached through its systemd socket (FETCH_SOCKET, tinct-fetch.socket: one confined
 * service instance per connection, with the network the daemon's unit does not have), or,
 * with tinctd --fetch-helper PATH (tests, development), spawned as a child on a socket pair. */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "fetch-wire.h"

#define FETCH_SOCKET "/run/tinct-fetch.sock"
#define FETCH_TIMEOUT_SEC 90 /* the helper's own deadline is 60 s; this is the backstop */

typedef struct FetchRun FetchRun;
/* error < 0 (the helper could not be reached, died, timed out or lied: reply NULL), or 0
 * with the reply, which the callback owns (fetch_reply_done; its bytes live until
 * fetch_run_free). */
typedef void (*FetchCallback)(FetchRun *run, int error, FetchReply *reply, void *userdata);

/* helper: a path to spawn, or NULL for FETCH_SOCKET. */
int fetch_run_start(sd_event *event, const char *helper, const char *printer_uri, FetchCallback cb, void *userdata,
                    FetchRun **ret);
FetchRun *fetch_run_free(FetchRun *run); /* kills a helper still running */
