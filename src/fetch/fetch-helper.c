/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-fetch: asks one printer for its identity and its vendor profiles (PWG 5100.13's
 * printer-icc-profiles) and downloads them, for the daemon, which has no network itself
 * (docs/printers.md). It reads the printer URI (ipp://host[:port]/path) as one line on
 * stdin, writes a fetch-wire.h reply on stdout, and exits. The host is resolved once,
 * before confinement (confine.h: no files, TCP only); after that it connects to those
 * addresses only, each in turn until one accepts (`localhost` is ::1 first on most
 * systems, and an IPP-over-USB daemon may listen on 127.0.0.1 only): a profile URL on
 * another host, a redirect, a wrong content type, a 404 or a stream over the size cap is a
 * problem line in the reply, never a second request elsewhere. Every URL goes through
 * src/http's parser, and every request and response through its framing: a URL with a
 * control character or a space is never requested (docs/printers.md, "Profile URLs").
 * Every exchange has a deadline; SIGALRM ends the whole run as a backstop. It does not parse ICC bytes: the daemon hands them to
 * tinct-parse. ipps printers and https profile URLs go over TLS (fetch-tls.h: any
 * certificate, the same host only). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "fetch-tls.h"
#include "fetch-wire.h"
#include "http-url.h"
#include "http-wire.h"
#include "icc-info.h"
#include "ipp-wire.h"
#include "log.h"
#include "macro.h"
#include "main-func.h"
#include "socket-util.h"
#include "time-util.h"

#define EXCHANGE_TIMEOUT_MS 10000
#define RUN_DEADLINE_SEC 60
#define IPP_REPLY_CAP (4u * 1024u * 1024u)
/* Addresses of the printer's host tried in turn; a host has one or two (IPv6, IPv4). */
#define MAX_ADDRESSES 8

typedef struct Printer {
        HttpUrl url;
        FetchTlsCreds *tls;      /* made before confinement */
        struct sockaddr_storage addrs[MAX_ADDRESSES]; /* in getaddrinfo()'s order */
        socklen_t addr_lens[MAX_ADDRESSES];
        char numeric[MAX_ADDRESSES][INET6_ADDRSTRLEN];
        size_t n_addrs;
} Printer;

static void printer_done(Printer *pr) {
        http_url_done(&pr->url);
        pr->tls = fetch_tls_creds_free(pr->tls);
}

/* One connection to the printer, plain or TLS; each call waits until the deadline. */
typedef struct Conn {
        int fd;
        FetchTls *tls;
        uint64_t deadline;      /* CLOCK_MONOTONIC µs */
} Conn;

static void conn_done(Conn *c) {
        c->tls = fetch_tls_free(c->tls);
        closep(&c->fd);
}

/* A TCP connection to one address by the deadline, in c->fd. */
static int conn_connect(Conn *c, const struct sockaddr_storage *a, socklen_t len, uint16_t port, uint64_t deadline) {
        struct sockaddr_storage addr = *a;
        if (addr.ss_family == AF_INET)
                ((struct sockaddr_in *) &addr)->sin_port = htons(port);
        else
                ((struct sockaddr_in6 *) &addr)->sin6_port = htons(port);
        closep(&c->fd);
        c->fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (c->fd < 0)
                return -errno;
        if (connect(c->fd, (struct sockaddr *) &addr, len) >= 0)
                return 0;
        if (errno != EINPROGRESS)
                return -errno;
        int r = fd_wait_until(c->fd, POLLOUT, deadline);
        if (r < 0)
                return r;
        int err = 0;
        socklen_t err_len = sizeof err;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &err_len) < 0)
                return -errno;
        return -err;
}

static int conn_open(Conn *c, const Printer *pr, const HttpUrl *url) {
        /* Each address in turn, as every HTTP client does; one that neither accepts nor
         * refuses gets its share of the time left, so a later one still has a chance. The
         * last address's error is the one reported. */
        int r = -EHOSTUNREACH;
        for (size_t i = 0; i < pr->n_addrs; i++) {
                uint64_t t = now(CLOCK_MONOTONIC);
                uint64_t left = c->deadline > t ? c->deadline - t : 0;
                uint64_t deadline = t + left / (pr->n_addrs - i);
                r = conn_connect(c, &pr->addrs[i], pr->addr_lens[i], url->port, deadline);
                if (r >= 0)
                        break;
        }
        if (r < 0)
                return r;
        if (!http_url_tls(url))
                return 0;
        r = fetch_tls_new(pr->tls, c->fd, url->host, &c->tls);
        if (r < 0)
                return r;
        while ((r = fetch_tls_handshake(c->tls)) == -EAGAIN) {
                r = fd_wait_until(c->fd, fetch_tls_wants(c->tls), c->deadline);
                if (r < 0)
                        return r;
        }
        return r;
}

static int conn_send(Conn *c, const uint8_t *p, size_t n) {
        for (size_t done = 0; done < n;) {
                ssize_t k;
                if (c->tls) {
                        k = fetch_tls_send(c->tls, p + done, n - done);
                        if (k == -EAGAIN) {
                                int r = fd_wait_until(c->fd, fetch_tls_wants(c->tls), c->deadline);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        if (k < 0)
                                return (int) k;
                } else {
                        int r = fd_wait_until(c->fd, POLLOUT, c->deadline);
                        if (r < 0)
                                return r;
                        k = send(c->fd, p + done, n - done, MSG_NOSIGNAL);
                        if (k < 0 && errno != EAGAIN && errno != EINTR)
                                return -errno;
                }
                if (k > 0)
                        done += (size_t) k;
        }
        return 0;
}

/* Some bytes, 0 at the end of the stream, or -errno. */
static ssize_t conn_recv(Conn *c, uint8_t *p, size_t n) {
        for (;;) {
                if (c->tls && fetch_tls_pending(c->tls))
                        return fetch_tls_recv(c->tls, p, n);
                int r = fd_wait_until(c->fd, c->tls ? fetch_tls_wants(c->tls) : POLLIN, c->deadline);
                if (r < 0)
                        return r;
                ssize_t k = c->tls ? fetch_tls_recv(c->tls, p, n) : recv(c->fd, p, n, 0);
                if (!c->tls && k < 0)
                        k = errno == EAGAIN || errno == EINTR ? -EAGAIN : -errno;
                if (k != -EAGAIN)
                        return k;
        }
}

/* One HTTP exchange with the printer's address on url's port (over TLS for https and
 * ipps); the response is kept in *ret_buf (caller frees), its head in *ret_head and its
 * body in *ret_body and *ret_len. A TLS failure is -EPROTO with *ret_tls_error saying why. */
static int exchange(const Printer *pr, const HttpUrl *url, const uint8_t *req, size_t req_len, size_t cap,
                    HttpHead *ret_head, uint8_t **ret_buf, const uint8_t **ret_body, size_t *ret_len,
                    uint8_t **ret_owned, const char **ret_tls_error) {
        _cleanup_(conn_done) Conn c = { .fd = -1, .deadline = now(CLOCK_MONOTONIC) + EXCHANGE_TIMEOUT_MS * USEC_PER_MSEC };
        int r = conn_open(&c, pr, url);
        if (r >= 0)
                r = conn_send(&c, req, req_len);
        if (r < 0) {
                if (r == -EPROTO)
                        *ret_tls_error = fetch_tls_error(c.tls);
                return r;
        }
        _cleanup_free_ uint8_t *buf = NULL;
        size_t len = 0, size = 0;
        HttpHead head = { 0 };
        bool have_head = false;
        for (;;) {
                if (size - len < 65536) {
                        if (size > cap + HTTP_MAX_HEAD + 65536)
                                return -EFBIG; /* the body check below says so first */
                        size_t grown_size = size ? size * 2 : 65536;
                        uint8_t *grown = realloc(buf, grown_size);
                        if (!grown)
                                return -ENOMEM;
                        buf = grown;
                        size = grown_size;
                }
                ssize_t n = conn_recv(&c, buf + len, size - len);
                if (n < 0) {
                        if (n == -EPROTO)
                                *ret_tls_error = fetch_tls_error(c.tls);
                        return (int) n;
                }
                len += (size_t) n;
                if (!have_head) {
                        r = http_parse_head(buf, len, &head);
                        if (r == -EAGAIN && n > 0)
                                continue;
                        if (r < 0)
                                return r == -EAGAIN ? -EBADMSG : r;
                        have_head = true;
                        if (head.status != 200)
                                break; /* the head says all a refusal needs */
                }
                r = http_body(buf, len, &head, cap, n == 0, ret_body, ret_len, ret_owned);
                if (r == -EAGAIN)
                        continue;
                if (r < 0)
                        return r;
                break;
        }
        *ret_head = head;
        *ret_buf = TAKE_PTR(buf);
        return 0;
}

static void problem(FetchWriter *w, const char *fmt, ...) _printf_(2, 3);
static void problem(FetchWriter *w, const char *fmt, ...) {
        char line[FETCH_MAX_STRING];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        /* One line: the daemon logs it as it is. */
        for (char *c = line; *c; c++)
                if ((unsigned char) *c < ' ')
                        *c = ' ';
        fetch_write_string(w, FETCH_PROBLEM, line);
}

/* tls_error: GnuTLS's reason for -EPROTO. */
static const char *describe(int r, const char *tls_error) {
        switch (r) {
        case -ETIMEDOUT: return "no answer in time";
        case -EFBIG: return "more bytes than the cap";
        case -EBADMSG: return "not HTTP";
        case -EPROTO: return tls_error;
        default: return strerror(-r);
        }
}

static void fetch_profile(FetchWriter *w, const Printer *pr, const char *name, const char *url_str, size_t *budget) {
        _cleanup_(http_url_done) HttpUrl url = {};
        int r = http_url_parse(url_str, &url);
        if (r == -EINVAL) {
                /* A control character or a space would end the request line or add fields
                 * to it (docs/printers.md, "Profile URLs"): never sent. */
                problem(w, "profile %s: %s is not a URL a request can carry (a control character, a space or a "
                        "malformed part); not fetched", name, url_str);
                return;
        }
        if (r < 0 || (!streq(url.scheme, "http") && !streq(url.scheme, "https"))) {
                problem(w, "profile %s: %s is not an http or https URL; skipped", name, url_str);
                return;
        }
        bool same_host = streq(url.host, pr->url.host);
        for (size_t i = 0; i < pr->n_addrs && !same_host; i++)
                same_host = streq(url.host, pr->numeric[i]);
        if (!same_host) {
                problem(w, "profile %s: %s is not on the printer's host %s; not fetched", name, url_str, pr->url.host);
                return;
        }
        _cleanup_free_ uint8_t *req = NULL, *buf = NULL, *owned = NULL;
        size_t req_len, len;
        const uint8_t *body;
        HttpHead head;
        size_t cap = *budget < ICC_MAX_FILE_SIZE ? *budget : ICC_MAX_FILE_SIZE;
        const char *tls_error = NULL;
        r = http_build_request(&(HttpRequest) { .method = "GET", .authority = url.authority, .target = url.target },
                               &req, &req_len);
        if (r >= 0)
                r = exchange(pr, &url, req, req_len, cap, &head, &buf, &body, &len, &owned, &tls_error);
        if (r < 0) {
                problem(w, "profile %s from %s: %s%s", name, url_str, r == -EPROTO ? "TLS: " : "",
                        describe(r, tls_error));
                return;
        }
        if (head.status >= 300 && head.status < 400) {
                problem(w, "profile %s from %s: a redirect (HTTP %d) to %s, not followed", name, url_str, head.status,
                        head.location[0] ? head.location : "nowhere");
                return;
        }
        if (head.status != 200) {
                problem(w, "profile %s from %s: HTTP %d", name, url_str, head.status);
                return;
        }
        if (!streq(head.content_type, "application/vnd.iccprofile")) {
                problem(w, "profile %s from %s: content type '%s', not application/vnd.iccprofile", name, url_str,
                        head.content_type);
                return;
        }
        fetch_write_profile(w, name, url_str, body, len);
        *budget -= len;
}

static char *group_string(const IppGroup *g, const char *name) {
        char *s = NULL;
        (void) ipp_attr_string(ipp_group_find(g, name), 0, &s);
        return s;
}

static void ask_printer(FetchWriter *w, const Printer *pr, const char *uri) {
        static const char *const requested[] = {
                "printer-uuid", "printer-device-id", "printer-icc-profiles", "media-type-supported", NULL,
        };
        _cleanup_free_ uint8_t *ipp = NULL, *req = NULL, *buf = NULL, *owned = NULL;
        size_t ipp_len, req_len, len;
        const uint8_t *body;
        HttpHead head;
        const char *tls_error = NULL;
        int r = ipp_build_request(IPP_OP_GET_PRINTER_ATTRIBUTES, 1, uri, requested, &ipp, &ipp_len);
        if (r >= 0)
                r = http_build_request(&(HttpRequest) { .method = "POST", .authority = pr->url.authority,
                                                        .target = pr->url.target, .content_type = "application/ipp",
                                                        .body = ipp, .body_len = ipp_len },
                                       &req, &req_len);
        if (r >= 0)
                r = exchange(pr, &pr->url, req, req_len, IPP_REPLY_CAP, &head, &buf, &body, &len, &owned,
                             &tls_error);
        if (r < 0)
                {
                        problem(w, "Get-Printer-Attributes: %s%s", r == -EPROTO ? "TLS: " : "",
                                describe(r, tls_error));
                        return;
                }
        if (head.status != 200)
                {
                        problem(w, "Get-Printer-Attributes: HTTP %d", head.status);
                        return;
                }
        _cleanup_(ipp_message_done) IppMessage msg = { 0 };
        r = ipp_decode(body, len, &msg);
        if (r < 0)
                {
                        problem(w, "Get-Printer-Attributes: a malformed IPP answer");
                        return;
                }
        if (msg.status >= 0x100)
                {
                        problem(w, "Get-Printer-Attributes: IPP status 0x%04x", msg.status);
                        return;
                }
        const IppGroup *g = NULL;
        for (size_t i = 0; i < msg.n_groups && !g; i++)
                if (msg.groups[i].tag == IPP_TAG_PRINTER)
                        g = &msg.groups[i];
        if (!g)
                {
                        problem(w, "Get-Printer-Attributes: no printer attributes");
                        return;
                }
        _cleanup_free_ char *uuid = group_string(g, "printer-uuid"), *device_id = group_string(g, "printer-device-id");
        if (uuid)
                fetch_write_string(w, FETCH_UUID, uuid);
        if (device_id && *device_id)
                fetch_write_string(w, FETCH_DEVICE_ID, device_id);
        const IppAttr *media = ipp_group_find(g, "media-type-supported");
        for (size_t i = 0; media && i < media->n_values && i < 64; i++) {
                _cleanup_free_ char *s = NULL;
                if (ipp_attr_string(media, i, &s) >= 0 && *s)
                        fetch_write_string(w, FETCH_MEDIA_TYPE, s);
        }
        const IppAttr *profiles = ipp_group_find(g, "printer-icc-profiles");
        size_t budget = FETCH_MAX_TOTAL;
        for (size_t i = 0; profiles && i < profiles->n_values; i++) {
                if (i >= FETCH_MAX_PROFILES) {
                        problem(w, "printer-icc-profiles: more than %d profiles; the rest skipped", FETCH_MAX_PROFILES);
                        break;
                }
                const IppValue *v = &profiles->values[i];
                _cleanup_free_ char *name = NULL, *url = NULL;
                (void) ipp_attr_string(ipp_attr_member(v, "profile-name"), 0, &name);
                if (ipp_attr_string(ipp_attr_member(v, "profile-url"), 0, &url) < 0)
                        (void) ipp_attr_string(ipp_attr_member(v, "profile-uri"), 0, &url);
                if (!name || !*name || !url) {
                        problem(w, "printer-icc-profiles: entry %zu lacks profile-name or profile-url", i + 1);
                        continue;
                }
                fetch_profile(w, pr, name, url, &budget);
        }
}

static int read_request(char *buf, size_t size) {
        size_t len = 0;
        while (len < size - 1) {
                ssize_t n = read(STDIN_FILENO, buf + len, size - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t) n;
                if (memchr(buf, '\n', len))
                        break;
        }
        buf[len] = 0;
        char *nl = strchr(buf, '\n');
        if (!nl)
                return -EBADMSG;
        *nl = 0;
        return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return -errno;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

/* Exit status: 0 with a reply on stdout (problems included), 2 without a request, 1 when
 * it could not set itself up or write the reply (the daemon then sees no reply). */
static int run(int argc, char **argv) {
        _cleanup_(printer_done) Printer pr = {};
        _cleanup_(fetch_writer_done) FetchWriter w = {};
        char uri[FETCH_MAX_REQUEST];
        const char *step = NULL;

        log_set_program_name("tinct-fetch");
        /* The whole run, whatever happens: the daemon sees a helper that died. */
        alarm(RUN_DEADLINE_SEC);
        if (read_request(uri, sizeof uri) < 0) {
                log_error("Expected a printer URI and a newline on stdin.");
                return 2;
        }
        int r = http_url_parse(uri, &pr.url);
        if (r < 0 || (!streq(pr.url.scheme, "ipp") && !streq(pr.url.scheme, "ipps"))) {
                problem(&w, "%s: not an ipp:// or ipps:// printer URI; vendor profiles not fetched", uri);
        } else {
                struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
                r = getaddrinfo(pr.url.host, NULL, &hints, &ai);
                for (const struct addrinfo *a = r == 0 ? ai : NULL; a && pr.n_addrs < MAX_ADDRESSES; a = a->ai_next) {
                        if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) ||
                            a->ai_addrlen > sizeof pr.addrs[0])
                                continue;
                        memcpy(&pr.addrs[pr.n_addrs], a->ai_addr, a->ai_addrlen);
                        pr.addr_lens[pr.n_addrs] = a->ai_addrlen;
                        (void) getnameinfo(a->ai_addr, a->ai_addrlen, pr.numeric[pr.n_addrs],
                                           sizeof pr.numeric[0], NULL, 0, NI_NUMERICHOST);
                        pr.n_addrs++;
                }
                if (pr.n_addrs == 0) {
                        problem(&w, "%s: cannot resolve %s: %s", uri, pr.url.host, r ? gai_strerror(r) : "no address");
                        pr.url.host[0] = 0;
                }
                if (ai)
                        freeaddrinfo(ai);
        }
        /* GnuTLS reads its configuration here, before the filter forbids files. */
        r = fetch_tls_creds_new(&pr.tls);
        if (r < 0)
                return log_error_errno(r, "Cannot set up TLS: %m");
        r = confine_fetch_process(&step);
        if (r < 0)
                return log_error_errno(r, "Cannot confine itself (%s): %m", step);
        if (pr.n_addrs > 0)
                ask_printer(&w, &pr, uri);
        r = fetch_write_end(&w);
        if (r < 0)
                return log_error_errno(r, "Cannot make the reply: %m");
        r = write_all(STDOUT_FILENO, w.buf, w.len);
        if (r < 0)
                return log_error_errno(r, "Cannot write the reply: %m");
        return 0;
}

DEFINE_MAIN_FUNCTION(run)
