/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTTP/1.1 framing (see http-wire.h): RFC 9112 §4 status line, §5 fields, §6.3 message body
 * length, §7.1 chunked transfer coding. Anything else (trailers, chunk extensions) is
 * skipped or refused, never guessed. */
#include "http-wire.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

int http_build_request(const char *method, const char *host, const char *path, const char *content_type,
                       const uint8_t *body, size_t body_len, uint8_t **ret, size_t *ret_len) {
        char *head = NULL;
        int n;
        if (content_type)
                n = asprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Type: %s\r\n"
                             "Content-Length: %zu\r\n\r\n", method, path, host, content_type, body_len);
        else
                n = asprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", method, path, host);
        if (n < 0)
                return -ENOMEM;
        uint8_t *buf = realloc(head, (size_t) n + body_len);
        if (!buf) {
                free(head);
                return -ENOMEM;
        }
        if (body_len > 0)
                memcpy(buf + n, body, body_len);
        *ret = buf;
        *ret_len = (size_t) n + body_len;
        return 0;
}

static const uint8_t *find_crlf(const uint8_t *p, const uint8_t *end) {
        for (; p + 1 < end; p++)
                if (p[0] == '\r' && p[1] == '\n')
                        return p;
        return NULL;
}

/* The value of a header line "Name: value" when the name matches (case-insensitive), with
 * leading and trailing blanks cut; NULL otherwise. */
static bool header_value(const uint8_t *line, size_t len, const char *name, const uint8_t **ret, size_t *ret_len) {
        size_t n = strlen(name);
        if (len <= n || line[n] != ':' || strncasecmp((const char *) line, name, n) != 0)
                return false;
        const uint8_t *v = line + n + 1, *end = line + len;
        while (v < end && (*v == ' ' || *v == '\t'))
                v++;
        while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
                end--;
        *ret = v;
        *ret_len = (size_t) (end - v);
        return true;
}

static void copy_lower(char *dst, size_t size, const uint8_t *src, size_t len) {
        size_t i = 0;
        for (; i < len && i + 1 < size; i++)
                dst[i] = (char) tolower(src[i]);
        dst[i] = 0;
}

int http_parse_head(const uint8_t *buf, size_t len, HttpHead *ret) {
        const uint8_t *end = buf + (len < HTTP_MAX_HEAD ? len : HTTP_MAX_HEAD);
        HttpHead h = { .content_length = -1 };
        const uint8_t *line = buf, *eol = find_crlf(line, end);
        if (!eol)
                return len >= HTTP_MAX_HEAD ? -EBADMSG : -EAGAIN;
        /* "HTTP/1.x NNN reason" */
        if (eol - line < 12 || memcmp(line, "HTTP/1.", 7) != 0 || line[8] != ' ' ||
            !isdigit(line[9]) || !isdigit(line[10]) || !isdigit(line[11]))
                return -EBADMSG;
        h.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        for (;;) {
                line = eol + 2;
                eol = find_crlf(line, end);
                if (!eol)
                        return len >= HTTP_MAX_HEAD ? -EBADMSG : -EAGAIN;
                if (eol == line)
                        break;
                const uint8_t *v;
                size_t vlen;
                size_t llen = (size_t) (eol - line);
                if (header_value(line, llen, "Content-Length", &v, &vlen)) {
                        if (vlen == 0 || vlen > 18)
                                return -EBADMSG;
                        int64_t n = 0;
                        for (size_t i = 0; i < vlen; i++) {
                                if (!isdigit(v[i]))
                                        return -EBADMSG;
                                n = n * 10 + (v[i] - '0');
                        }
                        if (h.content_length >= 0 && h.content_length != n)
                                return -EBADMSG; /* two different lengths: RFC 9112 §6.3 */
                        h.content_length = n;
                } else if (header_value(line, llen, "Transfer-Encoding", &v, &vlen)) {
                        if (vlen != 7 || strncasecmp((const char *) v, "chunked", 7) != 0)
                                return -EBADMSG; /* no other coding is asked for */
                        h.chunked = true;
                } else if (header_value(line, llen, "Content-Type", &v, &vlen)) {
                        const uint8_t *semi = memchr(v, ';', vlen);
                        size_t tlen = semi ? (size_t) (semi - v) : vlen;
                        while (tlen > 0 && (v[tlen - 1] == ' ' || v[tlen - 1] == '\t'))
                                tlen--;
                        copy_lower(h.content_type, sizeof h.content_type, v, tlen);
                } else if (header_value(line, llen, "Location", &v, &vlen)) {
                        size_t n = vlen < sizeof h.location - 1 ? vlen : sizeof h.location - 1;
                        memcpy(h.location, v, n);
                        h.location[n] = 0;
                }
        }
        h.head_len = (size_t) (eol + 2 - buf);
        if (h.chunked)
                h.content_length = -1; /* RFC 9112 §6.3: chunked wins */
        *ret = h;
        return 0;
}

static int parse_hex(const uint8_t *p, const uint8_t *end, uint64_t *ret) {
        uint64_t n = 0;
        const uint8_t *q = p;
        for (; q < end && isxdigit(*q); q++) {
                if (n >> 56)
                        return -EFBIG;
                n = n * 16 + (uint64_t) (isdigit(*q) ? *q - '0' : tolower(*q) - 'a' + 10);
        }
        if (q == p || (q < end && *q != ';' && *q != ' ' && *q != '\t'))
                return -EBADMSG;
        *ret = n;
        return 0;
}

static int dechunk(const uint8_t *p, const uint8_t *end, size_t cap, bool eof, uint8_t **ret, size_t *ret_len) {
        /* First pass: find the end and the total, without copying. */
        size_t total = 0;
        const uint8_t *q = p;
        for (;;) {
                const uint8_t *eol = find_crlf(q, end);
                if (!eol)
                        return eof ? -EBADMSG : -EAGAIN;
                uint64_t n;
                int r = parse_hex(q, eol, &n);
                if (r < 0)
                        return r;
                if (n > cap || total + n > cap)
                        return -EFBIG;
                q = eol + 2;
                if (n == 0) {
                        /* Trailer fields up to a blank line (RFC 9112 §7.1.2), skipped. */
                        for (;;) {
                                eol = find_crlf(q, end);
                                if (!eol)
                                        return eof ? -EBADMSG : -EAGAIN;
                                bool blank = eol == q;
                                q = eol + 2;
                                if (blank)
                                        break;
                        }
                        break;
                }
                if ((uint64_t) (end - q) < n + 2)
                        return eof ? -EBADMSG : -EAGAIN;
                if (q[n] != '\r' || q[n + 1] != '\n')
                        return -EBADMSG;
                total += n;
                q += n + 2;
        }
        uint8_t *out = malloc(total ? total : 1);
        if (!out)
                return -ENOMEM;
        size_t off = 0;
        for (q = p;;) {
                const uint8_t *eol = find_crlf(q, end);
                uint64_t n = 0;
                int r = eol ? parse_hex(q, eol, &n) : -EBADMSG;
                assert(r == 0); /* the first pass checked every chunk line */
                q = eol + 2;
                if (n == 0)
                        break;
                memcpy(out + off, q, n);
                off += n;
                q += n + 2;
        }
        assert(off == total);
        *ret = out;
        *ret_len = total;
        return 0;
}

int http_body(const uint8_t *buf, size_t len, const HttpHead *head, size_t cap, bool eof,
              const uint8_t **ret_body, size_t *ret_len, uint8_t **ret_owned) {
        assert(head->head_len <= len);
        const uint8_t *p = buf + head->head_len, *end = buf + len;
        size_t have = (size_t) (end - p);
        *ret_owned = NULL;
        if (head->chunked) {
                uint8_t *out;
                size_t n;
                int r = dechunk(p, end, cap, eof, &out, &n);
                if (r < 0)
                        return r;
                *ret_body = out;
                *ret_len = n;
                *ret_owned = out;
                return 0;
        }
        if (head->content_length >= 0) {
                if ((uint64_t) head->content_length > cap)
                        return -EFBIG;
                if (have < (size_t) head->content_length)
                        return eof ? -EBADMSG : -EAGAIN;
                *ret_body = p;
                *ret_len = (size_t) head->content_length;
                return 0;
        }
        if (have > cap)
                return -EFBIG;
        if (!eof)
                return -EAGAIN;
        *ret_body = p;
        *ret_len = have;
        return 0;
}
