/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One IPP request to cupsd, asynchronously on the event loop: connect (non-blocking),
 * write, read until the response is complete, decode, callback, with a deadline. tinct
 * speaks to cupsd as libcups does (CUPS_SERVER: a socket path, or host[:port]; else the
 * default socket), with its own small client because libcups blocks and the daemon must
 * not (docs/printers.md). It does no name resolution: a host is an IP address or
 * "localhost". */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "ipp-wire.h"

typedef struct CupsServer {
        char *socket_path;      /* a unix socket, or NULL */
        char *host;             /* else this numeric address or "localhost" */
        uint16_t port;
} CupsServer;

void cups_server_done(CupsServer *s);
/* From CUPS_SERVER's value (NULL or empty: the default socket, /run/cups/cups.sock).
 * -EINVAL for a value tinct cannot use (a host name to resolve, a bad port). */
int cups_server_parse(const char *value, CupsServer *ret);
/* For log lines. */
const char *cups_server_name(const CupsServer *s, char *buf, size_t size);

typedef struct IppCall IppCall;
/* error < 0 (with msg NULL) or 0 with the decoded response, which the callback owns. */
typedef void (*IppCallback)(IppCall *call, int error, IppMessage *msg, void *userdata);

/* The request as ipp_build_request_with() makes it (extra: further attributes, or NULL). */
int ipp_call_start(sd_event *event, const CupsServer *server, uint16_t operation, const char *printer_uri,
                   const char *const *requested, const IppRequestAttr *extra, size_t n_extra,
                   uint64_t timeout_usec, IppCallback cb, void *userdata, IppCall **ret);
/* Cancels a call still running (no callback). */
IppCall *ipp_call_free(IppCall *c);
