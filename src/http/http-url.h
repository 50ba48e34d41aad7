/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one URL parser of tinct's network helpers (RFC 3986, as RFC 9110 §4.2 uses it for
 * http and https, and RFC 8010 §4 for ipp and ipps): a printer's URI and its profile URLs
 * (tinct-fetch), a scanner's eSCL base URL (tinct-sane-list). What a device sends is
 * hostile, and the request target goes into a request line: a URL holding a control
 * character or a space anywhere is refused (the injection of docs/printers.md,
 * "Profile URLs"), and a byte a request line cannot carry (non-ASCII, `"`, `<`, `{`, a `%`
 * not followed by two hex digits …) is percent-encoded. Pure: no I/O, no logging. It does
 * not resolve names, follow relative references or accept user information (`user@host`):
 * no device needs them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define HTTP_URL_MAX 4096 /* longer is refused: no printer or scanner needs more */

typedef struct HttpUrl {
        char scheme[8];     /* lower case: http, https, ipp or ipps */
        char host[256];     /* as written, IPv6 without its brackets */
        uint16_t port;      /* the scheme's default when not given */
        char authority[264]; /* the Host field: host (IPv6 in brackets), ":port" when not the default */
        char *target;       /* the request target: "/" and the path and query, percent-encoded
                             * where needed, without the fragment; never a control character or space */
} HttpUrl;

/* -EPROTONOSUPPORT for another scheme, -EINVAL for a malformed URL (or one with a control
 * character or a space, a host that is neither a name, an IPv4 address nor an IPv6 literal,
 * a port out of range, user information), -ENOMEM. */
int http_url_parse(const char *url, HttpUrl *ret);
void http_url_done(HttpUrl *u);

/* Whether the scheme is spoken over TLS (https, ipps). */
bool http_url_tls(const HttpUrl *u);
