/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one HTTP/1.1 client framing of tinct (RFC 9112), for every request it makes: the
 * daemon's IPP to cupsd, tinct-fetch's IPP and profile downloads from a printer,
 * tinct-sane-list's eSCL ScannerCapabilities. A request head is built from parts that
 * cannot break its lines; a response is read incrementally from a buffer that grows, its
 * body framed by Content-Length, chunked transfer coding or the end of the connection.
 * What could be read two ways is refused, never guessed: both Content-Length and
 * Transfer-Encoding, differing lengths, a transfer coding other than a final chunked,
 * Transfer-Encoding in HTTP/1.0, folded or malformed field lines, a bare CR or any other
 * control character in a field. Pure: no I/O, no logging; sizes are checked against a
 * caller's cap, because the other side may be a printer or a scanner that lies. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HTTP_MAX_HEAD 16384

typedef struct HttpHead {
        int status;
        size_t head_len;        /* bytes up to and including the blank line */
        int64_t content_length; /* -1 when not given (or chunked) */
        bool chunked;
        bool no_body;           /* 1xx, 204, 304: RFC 9112 §6.3 item 1 */
        char content_type[128]; /* the media type only, lower case, without parameters; "" if none */
        char location[1024];    /* of a redirect; "" if none */
} HttpHead;

typedef struct HttpRequest {
        const char *method;       /* a token: "GET", "POST" */
        const char *authority;    /* the Host field (HttpUrl.authority) */
        const char *target;       /* the request target (HttpUrl.target) */
        const char *accept;       /* NULL: no Accept field */
        const char *user_agent;   /* NULL: no User-Agent field */
        const char *content_type; /* with a body; NULL: no body */
        const uint8_t *body;
        size_t body_len;
} HttpRequest;

/* "METHOD TARGET HTTP/1.1", Host, the optional fields, Connection: close, and for a body its
 * Content-Type and Content-Length, then the body. *ret is malloc'd. -EINVAL when a part
 * would break the head: a method that is not a token, a target or authority with a
 * control character or space, a field value with a control character (the URL parser
 * refuses those first; this is the last line). */
int http_build_request(const HttpRequest *req, uint8_t **ret, size_t *ret_len);

/* -EAGAIN: the head is not complete yet; -EBADMSG: not an HTTP/1.x response head, an
 * ambiguous or malformed one (see above), or over HTTP_MAX_HEAD. */
int http_parse_head(const uint8_t *buf, size_t len, HttpHead *ret);

/* The body after head->head_len. -EAGAIN while incomplete (eof: the peer has closed, which
 * ends a body without a length and makes a short one -EBADMSG); -EFBIG when it is or
 * announces more than cap; -EBADMSG for broken chunk framing. On success *ret_body points
 * into buf for a plain body, or is a malloc'd copy for a chunked one (*ret_owned set). A
 * malloc'd copy is NUL-terminated (not counted in *ret_len); a plain body is followed by
 * whatever buf holds. */
int http_body(const uint8_t *buf, size_t len, const HttpHead *head, size_t cap, bool eof,
              const uint8_t **ret_body, size_t *ret_len, uint8_t **ret_owned);
