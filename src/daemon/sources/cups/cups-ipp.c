/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An asynchronous IPP request to cupsd (see cups-ipp.h). The request is sent whole with
 * Connection: close; the response is framed by http-wire.c and decoded by ipp-wire.c. */
#include "cups-ipp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "http-wire.h"
#include "macro.h"

#define CUPS_DEFAULT_SOCKET "/run/cups/cups.sock"
#define IPP_PORT 631

void cups_server_done(CupsServer *s) {
        free(s->socket_path);
        free(s->host);
        *s = (CupsServer) { 0 };
}

int cups_server_parse(const char *value, CupsServer *ret) {
        CupsServer s = { 0 };
        if (isempty(value))
                value = CUPS_DEFAULT_SOCKET;
        if (value[0] == '/') {
                if (strlen(value) >= sizeof(((struct sockaddr_un *) NULL)->sun_path))
                        return -EINVAL;
                if (!(s.socket_path = strdup(value)))
                        return -ENOMEM;
                *ret = s;
                return 0;
        }
        /* host, host:port, [v6]:port; libcups' "/version=1.1" suffix is dropped. */
        _cleanup_free_ char *copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        char *slash = strchr(copy, '/');
        if (slash)
                *slash = 0;
        char *host = copy, *port = NULL;
        if (host[0] == '[') {
                char *close = strchr(host, ']');
                if (!close)
                        return -EINVAL;
                *close = 0;
                host++;
                if (close[1] == ':')
                        port = close + 2;
                else if (close[1])
                        return -EINVAL;
        } else if ((port = strchr(host, ':'))) {
                *port++ = 0;
        }
        s.port = IPP_PORT;
        if (port) {
                char *end;
                long p = strtol(port, &end, 10);
                if (*end || p <= 0 || p > 65535)
                        return -EINVAL;
                s.port = (uint16_t) p;
        }
        struct in6_addr a6;
        struct in_addr a4;
        if (!streq(host, "localhost") && inet_pton(AF_INET, host, &a4) != 1 && inet_pton(AF_INET6, host, &a6) != 1)
                return -EINVAL;
        if (!(s.host = strdup(host)))
                return -ENOMEM;
        *ret = s;
        return 0;
}

const char *cups_server_name(const CupsServer *s, char *buf, size_t size) {
        if (s->socket_path)
                snprintf(buf, size, "%s", s->socket_path);
        else
                snprintf(buf, size, "%s:%u", s->host, (unsigned) s->port);
        return buf;
}

struct IppCall {
        sd_event_source *io, *timer;
        int fd;
        uint8_t *out;
        size_t out_len, out_pos;
        uint8_t *in;
        size_t in_len, in_size;
        IppCallback cb;
        void *userdata;
};

IppCall *ipp_call_free(IppCall *c) {
        if (!c)
                return NULL;
        sd_event_source_disable_unref(c->io);
        sd_event_source_disable_unref(c->timer);
        closep(&c->fd);
        free(c->out);
        free(c->in);
        free(c);
        return NULL;
}

static void finish(IppCall *c, int error, IppMessage *msg) {
        /* Stop first: the callback may free the call. */
        (void) sd_event_source_set_enabled(c->io, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
        c->cb(c, error, msg, c->userdata);
}

/* 1 when the response is complete and handed on, 0 to read more, < 0 an error. */
static int try_complete(IppCall *c, bool eof) {
        HttpHead head;
        int r = http_parse_head(c->in, c->in_len, &head);
        if (r == -EAGAIN)
                return eof ? -EBADMSG : 0;
        if (r < 0)
                return r;
        if (head.status == 100) {
                /* "100 Continue" before the real answer: drop it. */
                memmove(c->in, c->in + head.head_len, c->in_len - head.head_len);
                c->in_len -= head.head_len;
                return try_complete(c, eof);
        }
        if (head.status != 200)
                return -EPROTO;
        const uint8_t *body;
        size_t len;
        _cleanup_free_ uint8_t *owned = NULL;
        r = http_body(c->in, c->in_len, &head, IPP_MAX_RESPONSE, eof, &body, &len, &owned);
        if (r == -EAGAIN)
                return 0;
        if (r < 0)
                return r;
        IppMessage msg;
        r = ipp_decode(body, len, &msg);
        if (r < 0)
                return r;
        finish(c, 0, &msg);
        return 1;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        IppCall *c = userdata;
        int r;
        if (c->out_pos < c->out_len) {
                if (c->out_pos == 0) {
                        int err = 0;
                        socklen_t len = sizeof err;
                        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                                err = errno;
                        if (err) {
                                finish(c, -err, NULL);
                                return 0;
                        }
                }
                ssize_t n = send(fd, c->out + c->out_pos, c->out_len - c->out_pos, MSG_NOSIGNAL);
                if (n < 0) {
                        if (errno != EAGAIN && errno != EINTR)
                                finish(c, -errno, NULL);
                        return 0;
                }
                c->out_pos += (size_t) n;
                if (c->out_pos == c->out_len)
                        (void) sd_event_source_set_io_events(s, EPOLLIN);
                return 0;
        }
        if (c->in_size - c->in_len < 65536) {
                if (c->in_size > IPP_MAX_RESPONSE + HTTP_MAX_HEAD) {
                        finish(c, -EFBIG, NULL);
                        return 0;
                }
                size_t size = c->in_size ? c->in_size * 2 : 131072;
                uint8_t *grown = realloc(c->in, size);
                if (!grown) {
                        finish(c, -ENOMEM, NULL);
                        return 0;
                }
                c->in = grown;
                c->in_size = size;
        }
        ssize_t n = recv(fd, c->in + c->in_len, c->in_size - c->in_len, 0);
        if (n < 0) {
                if (errno != EAGAIN && errno != EINTR)
                        finish(c, -errno, NULL);
                return 0;
        }
        c->in_len += (size_t) n;
        r = try_complete(c, n == 0);
        if (r < 0)
                finish(c, r, NULL);
        else if (r == 0 && n == 0)
                finish(c, -EBADMSG, NULL);
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        finish(userdata, -ETIMEDOUT, NULL);
        return 0;
}

static int connect_server(const CupsServer *server) {
        union {
                struct sockaddr sa;
                struct sockaddr_un un;
                struct sockaddr_in in;
                struct sockaddr_in6 in6;
        } addr = { 0 };
        socklen_t len;
        if (server->socket_path) {
                addr.un.sun_family = AF_UNIX;
                strncpy(addr.un.sun_path, server->socket_path, sizeof addr.un.sun_path - 1);
                len = sizeof addr.un;
        } else if (streq(server->host, "localhost") || inet_pton(AF_INET, server->host, &addr.in.sin_addr) == 1) {
                addr.in.sin_family = AF_INET;
                addr.in.sin_port = htons(server->port);
                if (streq(server->host, "localhost"))
                        addr.in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                len = sizeof addr.in;
        } else if (inet_pton(AF_INET6, server->host, &addr.in6.sin6_addr) == 1) {
                addr.in6.sin6_family = AF_INET6;
                addr.in6.sin6_port = htons(server->port);
                len = sizeof addr.in6;
        } else {
                return -EINVAL;
        }
        _cleanup_close_ int fd = socket(addr.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, &addr.sa, len) < 0 && errno != EINPROGRESS)
                return -errno;
        return TAKE_FD(fd);
}

int ipp_call_start(sd_event *event, const CupsServer *server, uint16_t operation, const char *printer_uri,
                   const char *const *requested, const IppRequestAttr *extra, size_t n_extra,
                   uint64_t timeout_usec, IppCallback cb, void *userdata, IppCall **ret) {
        IppCall *c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        c->fd = -EBADF;
        c->cb = cb;
        c->userdata = userdata;
        _cleanup_free_ uint8_t *ipp = NULL;
        size_t ipp_len;
        /* One request per connection: its id only has to be non-zero (RFC 8011 §4.1.2). */
        int r = ipp_build_request_with(operation, 1, printer_uri, requested, extra, n_extra, &ipp, &ipp_len);
        if (r >= 0)
                r = http_build_request(&(HttpRequest) { .method = "POST", .authority = "localhost", .target = "/",
                                                        .content_type = "application/ipp", .body = ipp, .body_len = ipp_len },
                                       &c->out, &c->out_len);
        if (r >= 0) {
                c->fd = connect_server(server);
                r = c->fd;
        }
        if (r >= 0)
                r = sd_event_add_io(event, &c->io, c->fd, EPOLLOUT, on_io, c);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &c->timer, CLOCK_MONOTONIC, timeout_usec, 0, on_timeout, c);
        if (r < 0) {
                ipp_call_free(c);
                return r;
        }
        *ret = c;
        return 0;
}
