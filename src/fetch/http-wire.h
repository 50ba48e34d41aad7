/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The little of HTTP/1.1 (RFC 9112) that IPP and a profile download need: a request head,
 * and a response read incrementally from a buffer that grows, with its body framed by
 * Content-Length, chunked transfer coding or the end of the connection. Pure: no I/O, no
 * logging; sizes are checked against a caller's cap, because the other side may be a printer
 * that lies. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HTTP_MAX_HEAD 16384

typedef struct HttpHead {
        int status;
        size_t head_len;        /* bytes up to and including the blank line */
        int64_t content_length; /* -1 when not given */
        bool chunked;
        char content_type[128]; /* the media type only, lower case, without parameters; "" if none */
        char location[1024];    /* of a redirect; "" if none */
} HttpHead;

/* "METHOD PATH HTTP/1.1" with Host, Connection: close, and for a body its Content-Type and
 * Content-Length. *ret is malloc'd; body is appended. */
int http_build_request(const char *method, const char *host, const char *path, const char *content_type,
                       const uint8_t *body, size_t body_len, uint8_t **ret, size_t *ret_len);

/* -EAGAIN: the head is not complete yet; -EBADMSG: not an HTTP/1.x response head, or over
 * HTTP_MAX_HEAD. */
int http_parse_head(const uint8_t *buf, size_t len, HttpHead *ret);

/* The body after head->head_len. -EAGAIN while incomplete (eof: the peer has closed, which
 * ends a body without a length and makes a short one -EBADMSG); -EFBIG when it is or
 * announces more than cap; -EBADMSG for broken chunk framing. On success *ret_body points
 * into buf for a plain body, or is a malloc'd copy for a chunked one (*ret_owned true). */
int http_body(const uint8_t *buf, size_t len, const HttpHead *head, size_t cap, bool eof,
              const uint8_t **ret_body, size_t *ret_len, uint8_t **ret_owned);
