/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure: the two ends of the one HTTP request the SANE helper makes, GET
 * <base>/ScannerCapabilities: splitting an http:// URL, and reading the response bytes
 * (status line, headers, a body by Content-Length, chunks or until the end). https is not
 * spoken (docs/scanners.md). No I/O, no logging. */
#pragma once

#include <stddef.h>

typedef struct HttpUrl {
        char *host;  /* without brackets for IPv6 */
        char *port;  /* "80" when not given */
        char *path;  /* "/eSCL" */
} HttpUrl;

/* -EPROTONOSUPPORT for another scheme (https), -EINVAL for a malformed URL, -ENOMEM. */
int http_url_parse(const char *url, HttpUrl *ret);
void http_url_done(HttpUrl *u);

/* Reads a complete response of len bytes (the connection is closed after it). *ret_body
 * is a new buffer (NUL-terminated, not counted). -EBADMSG for a malformed or truncated
 * response, -ENOMEM. */
int http_response_parse(const char *buf, size_t len, int *ret_status, char **ret_body, size_t *ret_body_len);
