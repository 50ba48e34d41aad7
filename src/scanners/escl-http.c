/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTTP/1.1 as much as one GET needs (see escl-http.h): RFC 9112's status line, header
 * fields, Content-Length and chunked transfer coding; everything else is refused. */
#include "escl-http.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

void http_url_done(HttpUrl *u) {
        free(u->host);
        free(u->port);
        free(u->path);
        *u = (HttpUrl) {};
}

int http_url_parse(const char *url, HttpUrl *ret) {
        HttpUrl u = {};
        if (strncasecmp(url, "https://", 8) == 0)
                return -EPROTONOSUPPORT;
        if (strncasecmp(url, "http://", 7) != 0)
                return -EINVAL;
        const char *host = url + 7, *host_end, *p;
        if (*host == '[') {
                host_end = strchr(++host, ']');
                if (!host_end)
                        return -EINVAL;
                p = host_end + 1;
        } else {
                host_end = host + strcspn(host, ":/");
                p = host_end;
        }
        if (host_end == host)
                return -EINVAL;
        const char *port = "80";
        size_t port_len = 2;
        if (*p == ':') {
                port = ++p;
                port_len = strspn(p, "0123456789");
                if (port_len == 0 || port_len > 5)
                        return -EINVAL;
                p += port_len;
        }
        if (*p && *p != '/')
                return -EINVAL;
        for (const char *c = p; *c; c++)
                if ((unsigned char) *c <= ' ' || *c == 0x7f)
                        return -EINVAL;
        if (!(u.host = strndup(host, (size_t) (host_end - host))) || !(u.port = strndup(port, port_len)) ||
            !(u.path = strdup(*p ? p : "/"))) {
                http_url_done(&u);
                return -ENOMEM;
        }
        *ret = u;
        return 0;
}

static const char *find_crlf(const char *p, const char *end) {
        for (; p + 1 < end; p++)
                if (p[0] == '\r' && p[1] == '\n')
                        return p;
        return NULL;
}

static int dechunk(const char *p, const char *end, char **ret, size_t *ret_len) {
        _cleanup_free_ char *out = NULL;
        size_t n = 0;
        for (;;) {
                const char *eol = find_crlf(p, end);
                if (!eol)
                        return -EBADMSG;
                char *stop;
                unsigned long size = strtoul(p, &stop, 16);
                if (stop == p || (stop != eol && *stop != ';') || size > (size_t) (end - eol))
                        return -EBADMSG;
                p = eol + 2;
                if (size == 0)
                        break;
                if ((size_t) (end - p) < size + 2 || p[size] != '\r' || p[size + 1] != '\n')
                        return -EBADMSG;
                char *grown = realloc(out, n + size + 1);
                if (!grown)
                        return -ENOMEM;
                out = grown;
                memcpy(out + n, p, size);
                n += size;
                p += size + 2;
        }
        if (!out && !(out = malloc(1)))
                return -ENOMEM;
        out[n] = 0;
        *ret = TAKE_PTR(out);
        *ret_len = n;
        return 0;
}

int http_response_parse(const char *buf, size_t len, int *ret_status, char **ret_body, size_t *ret_body_len) {
        const char *end = buf + len, *p = buf;
        const char *eol = find_crlf(p, end);
        if (!eol || eol - p < 12 || strncmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ' || !isdigit((unsigned char) p[9]) ||
            !isdigit((unsigned char) p[10]) || !isdigit((unsigned char) p[11]))
                return -EBADMSG;
        int status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
        bool chunked = false, have_length = false;
        size_t length = 0;
        for (p = eol + 2;; p = eol + 2) {
                eol = find_crlf(p, end);
                if (!eol)
                        return -EBADMSG; /* headers never ended */
                if (eol == p)
                        break;
                const char *colon = memchr(p, ':', (size_t) (eol - p));
                if (!colon)
                        return -EBADMSG;
                const char *v = colon + 1;
                while (v < eol && (*v == ' ' || *v == '\t'))
                        v++;
                size_t name_len = (size_t) (colon - p), value_len = (size_t) (eol - v);
                if (name_len == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0)
                        chunked = value_len >= 7 && strncasecmp(v, "chunked", 7) == 0;
                else if (name_len == 14 && strncasecmp(p, "Content-Length", 14) == 0) {
                        char *stop;
                        unsigned long long l = strtoull(v, &stop, 10);
                        if (stop == v || l > len)
                                return -EBADMSG;
                        length = (size_t) l;
                        have_length = true;
                }
        }
        const char *body = eol + 2;
        size_t available = (size_t) (end - body);
        if (chunked) {
                int r = dechunk(body, end, ret_body, ret_body_len);
                if (r < 0)
                        return r;
                *ret_status = status;
                return 0;
        }
        if (have_length) {
                if (available < length)
                        return -EBADMSG; /* truncated */
                available = length;
        }
        char *out = malloc(available + 1);
        if (!out)
                return -ENOMEM;
        memcpy(out, body, available);
        out[available] = 0;
        *ret_status = status;
        *ret_body = out;
        *ret_body_len = available;
        return 0;
}
