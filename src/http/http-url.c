/* SPDX-License-Identifier: GPL-2.0-or-later */
/* URLs of printers and scanners (see http-url.h): RFC 3986 §3 (scheme, authority, path,
 * query, fragment), §2.1 (percent-encoding), §3.2.2 (hosts). */
#include "http-url.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

void http_url_done(HttpUrl *u) {
        free(u->target);
        *u = (HttpUrl) {};
}

bool http_url_tls(const HttpUrl *u) {
        return streq(u->scheme, "https") || streq(u->scheme, "ipps");
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_hex(char c) {
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* RFC 3986 §2.3 unreserved, §2.2 sub-delims, and ":" "@" of pchar (§3.3), "/" and "?" of
 * path and query: what a request target carries as it is. */
static bool target_char(char c) {
        return is_alpha(c) || is_digit(c) || strchr("-._~!$&'()*+,;=:@/?", c);
}

static uint16_t default_port(const char *scheme) {
        return streq(scheme, "http") ? 80 : streq(scheme, "https") ? 443 : 631; /* ipp, ipps: RFC 8010 §4 */
}

/* A host name or an IPv4 address (§3.2.2 reg-name, restricted to what DNS and mDNS names
 * use), or the inside of an IPv6 literal. */
static bool valid_host(const char *h, size_t n, bool ipv6) {
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = h[i];
                if (ipv6 ? !(is_hex(c) || c == ':' || c == '.') : !(is_alpha(c) || is_digit(c) || strchr("-._~", c)))
                        return false;
        }
        return !ipv6 || memchr(h, ':', n);
}

/* The path and query [p, end) as a request target, percent-encoded where a request line
 * cannot carry a byte as it is (§2.1: "%" and two hex digits). */
static int make_target(const char *p, const char *end, char **ret) {
        size_t n = (size_t) (end - p);
        char *t = malloc(n * 3 + 2), *o = t;
        if (!t)
                return -ENOMEM;
        if (p == end || *p != '/')
                *o++ = '/'; /* "http://host" or "http://host?q": §6.2.3, the empty path is "/" */
        for (; p < end; p++) {
                unsigned char c = (unsigned char) *p;
                if (target_char((char) c) || (c == '%' && end - p >= 3 && is_hex(p[1]) && is_hex(p[2])))
                        *o++ = (char) c;
                else
                        o += sprintf(o, "%%%02X", c);
        }
        *o = 0;
        *ret = t;
        return 0;
}

int http_url_parse(const char *url, HttpUrl *ret) {
        HttpUrl u = {};
        size_t len = strnlen(url, HTTP_URL_MAX + 1);
        if (len > HTTP_URL_MAX)
                return -EINVAL;
        /* Nothing that could end a request line or a field, or split a request target: a
         * URL is copied into "GET <target> HTTP/1.1" and "Host: <authority>". */
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) url[i] <= ' ' || url[i] == 0x7f)
                        return -EINVAL;

        /* scheme "://" (§3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )) */
        const char *p = url;
        if (!is_alpha(*p))
                return -EINVAL;
        while (is_alpha(*p) || is_digit(*p) || *p == '+' || *p == '-' || *p == '.')
                p++;
        if (strncmp(p, "://", 3) != 0)
                return -EINVAL;
        size_t scheme_len = (size_t) (p - url);
        if (scheme_len >= sizeof u.scheme)
                return -EPROTONOSUPPORT;
        for (size_t i = 0; i < scheme_len; i++)
                u.scheme[i] = (char) (url[i] | 0x20); /* lower case (digits and "+-." keep that bit) */
        if (!streq(u.scheme, "http") && !streq(u.scheme, "https") && !streq(u.scheme, "ipp") &&
            !streq(u.scheme, "ipps"))
                return -EPROTONOSUPPORT;
        p += 3;

        /* authority = host [ ":" port ]; no userinfo */
        const char *auth_end = p + strcspn(p, "/?#");
        if (memchr(p, '@', (size_t) (auth_end - p)))
                return -EINVAL;
        const char *host = p, *host_end;
        bool ipv6 = *p == '[';
        if (ipv6) {
                host_end = memchr(p, ']', (size_t) (auth_end - p));
                if (!host_end)
                        return -EINVAL;
                host++;
                p = host_end + 1;
        } else {
                host_end = memchr(p, ':', (size_t) (auth_end - p));
                if (!host_end)
                        host_end = auth_end;
                p = host_end;
        }
        size_t host_len = (size_t) (host_end - host);
        if (host_len >= sizeof u.host || !valid_host(host, host_len, ipv6))
                return -EINVAL;
        memcpy(u.host, host, host_len);
        u.port = default_port(u.scheme);
        if (p < auth_end) {
                if (*p != ':' || p + 1 == auth_end || auth_end - (p + 1) > 5)
                        return -EINVAL;
                unsigned port = 0;
                for (p++; p < auth_end; p++) {
                        if (!is_digit(*p))
                                return -EINVAL;
                        port = port * 10 + (unsigned) (*p - '0');
                }
                if (port == 0 || port > 65535)
                        return -EINVAL;
                u.port = (uint16_t) port;
        }
        if (u.port == default_port(u.scheme))
                snprintf(u.authority, sizeof u.authority, ipv6 ? "[%s]" : "%s", u.host);
        else
                snprintf(u.authority, sizeof u.authority, ipv6 ? "[%s]:%u" : "%s:%u", u.host, u.port);

        /* path-abempty [ "?" query ], and the fragment, which is never sent (RFC 9110 §4.2.4) */
        const char *end = p + strcspn(p, "#");
        int r = make_target(p, end, &u.target);
        if (r < 0)
                return r;
        *ret = u;
        return 0;
}
