/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TLS for tinct-fetch (docs/printers.md, "TLS"): ipps printers and https profile URLs, on
 * GnuTLS, over a non-blocking socket the caller has connected and polls. Any certificate is
 * accepted (printers' are self-signed; the trust rule and why are in docs/printers.md): TLS
 * here keeps the bytes from passive listeners, it does not prove who the printer is. The
 * same-host rule of the caller stays what limits where tinct-fetch connects.
 * Everything that reads files (GnuTLS's system configuration, credentials) happens in
 * fetch_tls_creds_new(), before confinement; a session afterwards needs only memory,
 * getrandom, send, recv and poll, which the seccomp filter allows. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct FetchTlsCreds FetchTlsCreds;
typedef struct FetchTls FetchTls;

/* Before confinement. 0 or -ENOMEM / -EIO. */
int fetch_tls_creds_new(FetchTlsCreds **ret);
FetchTlsCreds *fetch_tls_creds_free(FetchTlsCreds *c);

/* A client session on fd (connected, non-blocking); host is sent as SNI unless it is an
 * address. */
int fetch_tls_new(const FetchTlsCreds *c, int fd, const char *host, FetchTls **ret);
FetchTls *fetch_tls_free(FetchTls *t);

/* Each returns -EAGAIN when it must wait for fetch_tls_wants() (POLLIN or POLLOUT) and be
 * called again; -EPROTO on a TLS failure (fetch_tls_error() says which). */
int fetch_tls_handshake(FetchTls *t);
ssize_t fetch_tls_send(FetchTls *t, const void *p, size_t n);
/* 0 at the end of the stream (close_notify, or the peer's TCP close: the HTTP framing, as
 * on plain TCP, tells a cut-off body). */
ssize_t fetch_tls_recv(FetchTls *t, void *p, size_t n);
short fetch_tls_wants(FetchTls *t);
/* Decrypted bytes are waiting: recv before polling. */
bool fetch_tls_pending(FetchTls *t);
const char *fetch_tls_error(const FetchTls *t);
