/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TLS for tinct-fetch on GnuTLS (see fetch-tls.h). */
#include "fetch-tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"

struct FetchTlsCreds {
        gnutls_certificate_credentials_t cert;
};

struct FetchTls {
        gnutls_session_t session;
        int fd;
        int error; /* the last GnuTLS error, for fetch_tls_error() */
};

int fetch_tls_creds_new(FetchTlsCreds **ret) {
        FetchTlsCreds *c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        if (gnutls_global_init() < 0) {
                free(c);
                return -EIO;
        }
        /* No trust store: no certificate is verified (fetch-tls.h). */
        if (gnutls_certificate_allocate_credentials(&c->cert) < 0) {
                gnutls_global_deinit();
                free(c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

FetchTlsCreds *fetch_tls_creds_free(FetchTlsCreds *c) {
        if (!c)
                return NULL;
        gnutls_certificate_free_credentials(c->cert);
        gnutls_global_deinit();
        free(c);
        return NULL;
}

/* GnuTLS's own transport writes with sendmsg, which the seccomp filter does not allow; send
 * is sendto. MSG_NOSIGNAL: a peer that hangs up is an error, not SIGPIPE. */
static ssize_t push(gnutls_transport_ptr_t ptr, const void *p, size_t n) {
        FetchTls *t = ptr;
        ssize_t k = send(t->fd, p, n, MSG_NOSIGNAL);
        if (k < 0)
                gnutls_transport_set_errno(t->session, errno);
        return k;
}

static ssize_t pull(gnutls_transport_ptr_t ptr, void *p, size_t n) {
        FetchTls *t = ptr;
        ssize_t k = recv(t->fd, p, n, 0);
        if (k < 0)
                gnutls_transport_set_errno(t->session, errno);
        return k;
}

static int pull_timeout(gnutls_transport_ptr_t ptr, unsigned ms) {
        FetchTls *t = ptr;
        struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
        return poll(&pfd, 1, ms == GNUTLS_INDEFINITE_TIMEOUT ? -1 : (int) ms);
}

int fetch_tls_new(const FetchTlsCreds *c, int fd, const char *host, FetchTls **ret) {
        FetchTls *t = calloc(1, sizeof *t);
        if (!t)
                return -ENOMEM;
        t->fd = fd;
        if (gnutls_init(&t->session, GNUTLS_CLIENT | GNUTLS_NONBLOCK) < 0) {
                free(t);
                return -ENOMEM;
        }
        struct in6_addr a6;
        struct in_addr a4;
        bool address = inet_pton(AF_INET, host, &a4) == 1 || inet_pton(AF_INET6, host, &a6) == 1;
        int r = gnutls_set_default_priority(t->session);
        if (r >= 0)
                r = gnutls_credentials_set(t->session, GNUTLS_CRD_CERTIFICATE, c->cert);
        if (r >= 0 && !address)
                r = gnutls_server_name_set(t->session, GNUTLS_NAME_DNS, host, strlen(host));
        if (r < 0) {
                fetch_tls_free(t);
                return -ENOMEM;
        }
        gnutls_transport_set_ptr(t->session, t);
        gnutls_transport_set_push_function(t->session, push);
        gnutls_transport_set_pull_function(t->session, pull);
        gnutls_transport_set_pull_timeout_function(t->session, pull_timeout);
        *ret = t;
        return 0;
}

FetchTls *fetch_tls_free(FetchTls *t) {
        if (!t)
                return NULL;
        gnutls_deinit(t->session);
        free(t);
        return NULL;
}

static ssize_t result(FetchTls *t, ssize_t r) {
        if (r >= 0)
                return r;
        if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED)
                return -EAGAIN;
        t->error = (int) r;
        return -EPROTO;
}

int fetch_tls_handshake(FetchTls *t) {
        return (int) result(t, gnutls_handshake(t->session));
}

ssize_t fetch_tls_send(FetchTls *t, const void *p, size_t n) {
        return result(t, gnutls_record_send(t->session, p, n));
}

ssize_t fetch_tls_recv(FetchTls *t, void *p, size_t n) {
        ssize_t k = gnutls_record_recv(t->session, p, n);
        if (k == GNUTLS_E_PREMATURE_TERMINATION)
                return 0;
        return result(t, k);
}

short fetch_tls_wants(FetchTls *t) {
        return gnutls_record_get_direction(t->session) ? POLLOUT : POLLIN;
}

bool fetch_tls_pending(FetchTls *t) {
        return gnutls_record_check_pending(t->session) > 0;
}

const char *fetch_tls_error(const FetchTls *t) {
        return t->error ? gnutls_strerror(t->error) : "no error";
}
