/* SPDX-License-Identifier: GPL-2.0-or-later */
/* HTTP/1.1 framing (see http-wire.h): RFC 9112 §3 request line, §4 status line, §5 field
 * lines, §6 message body and its length, §7.1 chunked transfer coding; RFC 9110 §5.5 field
 * values, §5.6 lists and tokens, §8.6 Content-Length. Trailers and chunk extensions are
 * checked and skipped; anything else is refused, never guessed. */
#include "http-wire.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

/* RFC 9110 §5.6.2 tchar */
static bool is_tchar(uint8_t c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* RFC 9110 §5.5: field-vchar, SP and HTAB; obs-text is taken as it is. No other control
 * character: a bare CR, a LF or a NUL inside a field is refused (RFC 9112 §2.2). */
static bool is_field_char(uint8_t c) {
        return c == '\t' || (c >= ' ' && c != 0x7f);
}

static bool is_digit(uint8_t c) {
        return c >= '0' && c <= '9';
}

static int hex_value(uint8_t c) {
        return is_digit(c) ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

static bool is_ows(uint8_t c) {
        return c == ' ' || c == '\t';
}

static bool all_chars(const char *s, bool (*ok)(uint8_t)) {
        for (; *s; s++)
                if (!ok((uint8_t) *s))
                        return false;
        return true;
}

/* A request target or an authority: visible ASCII only, no space (http-url.h encodes). */
static bool is_target_char(uint8_t c) {
        return c > ' ' && c < 0x7f;
}

int http_build_request(const HttpRequest *req, uint8_t **ret, size_t *ret_len) {
        if (!req->method[0] || !all_chars(req->method, is_tchar) || !req->target[0] ||
            !all_chars(req->target, is_target_char) || !req->authority[0] ||
            !all_chars(req->authority, is_target_char) ||
            (req->accept && !all_chars(req->accept, is_field_char)) ||
            (req->user_agent && !all_chars(req->user_agent, is_field_char)) ||
            (req->content_type && !all_chars(req->content_type, is_field_char)))
                return -EINVAL;
        char *head = NULL;
        size_t head_len = 0;
        FILE *f = open_memstream(&head, &head_len);
        if (!f)
                return -ENOMEM;
        fprintf(f, "%s %s HTTP/1.1\r\nHost: %s\r\n", req->method, req->target, req->authority);
        if (req->accept)
                fprintf(f, "Accept: %s\r\n", req->accept);
        if (req->user_agent)
                fprintf(f, "User-Agent: %s\r\n", req->user_agent);
        fputs("Connection: close\r\n", f);
        if (req->content_type)
                fprintf(f, "Content-Type: %s\r\nContent-Length: %zu\r\n", req->content_type, req->body_len);
        fputs("\r\n", f);
        if (fclose(f) != 0) {
                free(head);
                return -ENOMEM;
        }
        size_t body_len = req->content_type ? req->body_len : 0;
        uint8_t *buf = realloc(head, head_len + body_len + 1);
        if (!buf) {
                free(head);
                return -ENOMEM;
        }
        if (body_len > 0)
                memcpy(buf + head_len, req->body, body_len);
        *ret = buf;
        *ret_len = head_len + body_len;
        return 0;
}

static const uint8_t *find_crlf(const uint8_t *p, const uint8_t *end) {
        for (; p + 1 < end; p++)
                if (p[0] == '\r' && p[1] == '\n')
                        return p;
        return NULL;
}

static void trim(const uint8_t **p, const uint8_t **end) {
        while (*p < *end && is_ows(**p))
                (*p)++;
        while (*end > *p && is_ows((*end)[-1]))
                (*end)--;
}

/* Calls element() on each element of a comma-separated list (RFC 9110 §5.6.1), OWS cut;
 * empty elements are skipped, as a recipient must. */
static int for_each_element(const uint8_t *v, const uint8_t *end, void *userdata,
                            int (*element)(const uint8_t *p, size_t n, void *userdata)) {
        while (v <= end) {
                const uint8_t *comma = memchr(v, ',', (size_t) (end - v));
                const uint8_t *e = comma ? comma : end, *s = v;
                trim(&s, &e);
                if (e > s) {
                        int r = element(s, (size_t) (e - s), userdata);
                        if (r < 0)
                                return r;
                }
                if (!comma)
                        break;
                v = comma + 1;
        }
        return 0;
}

/* Content-Length = 1*DIGIT (RFC 9110 §8.6); a list of one value repeated is that value,
 * any other difference is -EBADMSG (RFC 9112 §6.3 item 5). */
static int length_element(const uint8_t *p, size_t n, void *userdata) {
        int64_t *length = userdata, v = 0;
        if (n > 18)
                return -EBADMSG;
        for (size_t i = 0; i < n; i++) {
                if (!is_digit(p[i]))
                        return -EBADMSG;
                v = v * 10 + (p[i] - '0');
        }
        if (*length >= 0 && *length != v)
                return -EBADMSG;
        *length = v;
        return 0;
}

/* Transfer-Encoding: the only coding read is chunked, once, and it must be the final one
 * (RFC 9112 §6.1, §7); gzip or anything before it would need decoding this reader does not
 * do, so the whole list is exactly "chunked". */
static int coding_element(const uint8_t *p, size_t n, void *userdata) {
        unsigned *n_chunked = userdata;
        if (n != 7 || strncasecmp((const char *) p, "chunked", 7) != 0)
                return -EBADMSG;
        (*n_chunked)++;
        return 0;
}

static void copy_lower(char *dst, size_t size, const uint8_t *src, size_t len) {
        size_t i = 0;
        for (; i < len && i + 1 < size; i++)
                dst[i] = (char) (src[i] >= 'A' && src[i] <= 'Z' ? src[i] | 0x20 : src[i]);
        dst[i] = 0;
}

static bool name_is(const uint8_t *name, size_t len, const char *want) {
        return len == strlen(want) && strncasecmp((const char *) name, want, len) == 0;
}

int http_parse_head(const uint8_t *buf, size_t len, HttpHead *ret) {
        const uint8_t *end = buf + (len < HTTP_MAX_HEAD ? len : HTTP_MAX_HEAD);
        HttpHead h = { .content_length = -1 };
        const uint8_t *line = buf, *eol = find_crlf(line, end);
        if (!eol)
                return len >= HTTP_MAX_HEAD ? -EBADMSG : -EAGAIN;
        /* status-line = HTTP-version SP status-code SP [ reason-phrase ] (§4; the SP before an
         * empty reason is often left out, and harmless) */
        size_t slen = (size_t) (eol - line);
        if (slen < 12 || memcmp(line, "HTTP/1.", 7) != 0 || !is_digit(line[7]) || line[8] != ' ' ||
            !is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11]) || (slen > 12 && line[12] != ' '))
                return -EBADMSG;
        for (size_t i = 12; i < slen; i++)
                if (!is_field_char(line[i]))
                        return -EBADMSG;
        bool http10 = line[7] == '0';
        h.status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        bool te_seen = false;
        unsigned n_chunked = 0;
        for (;;) {
                line = eol + 2;
                eol = find_crlf(line, end);
                if (!eol)
                        return len >= HTTP_MAX_HEAD ? -EBADMSG : -EAGAIN;
                if (eol == line)
                        break;
                /* field-line = field-name ":" OWS field-value OWS (§5); no space before the
                 * colon (§5.1), no obs-fold (§5.2: refused rather than unfolded) */
                const uint8_t *colon = line;
                while (colon < eol && is_tchar(*colon))
                        colon++;
                if (colon == line || colon == eol || *colon != ':')
                        return -EBADMSG;
                for (const uint8_t *c = colon + 1; c < eol; c++)
                        if (!is_field_char(*c))
                                return -EBADMSG;
                const uint8_t *v = colon + 1, *vend = eol;
                trim(&v, &vend);
                size_t nlen = (size_t) (colon - line), vlen = (size_t) (vend - v);
                int r = 0;
                if (name_is(line, nlen, "Content-Length")) {
                        if (vlen == 0)
                                return -EBADMSG;
                        r = for_each_element(v, vend, &h.content_length, length_element);
                        if (r >= 0 && h.content_length < 0)
                                r = -EBADMSG; /* only commas */
                } else if (name_is(line, nlen, "Transfer-Encoding")) {
                        te_seen = true;
                        r = for_each_element(v, vend, &n_chunked, coding_element);
                } else if (name_is(line, nlen, "Content-Type")) {
                        const uint8_t *semi = memchr(v, ';', vlen), *tend = semi ? semi : vend;
                        const uint8_t *t = v;
                        trim(&t, &tend);
                        copy_lower(h.content_type, sizeof h.content_type, t, (size_t) (tend - t));
                } else if (name_is(line, nlen, "Location")) {
                        size_t n = vlen < sizeof h.location - 1 ? vlen : sizeof h.location - 1;
                        memcpy(h.location, v, n);
                        h.location[n] = 0;
                }
                if (r < 0)
                        return r;
        }
        /* §6.1: chunked exactly once; Transfer-Encoding in HTTP/1.0 is faulty framing; with
         * Content-Length beside it, the two could be read two ways (request smuggling,
         * response splitting: §6.3 item 3 lets a client treat it as an error, and it does). */
        if (te_seen && (n_chunked != 1 || http10 || h.content_length >= 0))
                return -EBADMSG;
        h.chunked = te_seen;
        h.no_body = h.status < 200 || h.status == 204 || h.status == 304;
        h.head_len = (size_t) (eol + 2 - buf);
        *ret = h;
        return 0;
}

/* chunk-size [ chunk-ext ] (§7.1.1): hex digits, then optional BWS and ";" extensions
 * (checked to hold no control character, and skipped). */
static int parse_chunk_line(const uint8_t *p, const uint8_t *end, uint64_t *ret) {
        uint64_t n = 0;
        const uint8_t *q = p;
        for (int d; q < end && (d = hex_value(*q)) >= 0; q++) {
                if (n >> 56)
                        return -EFBIG;
                n = n * 16 + (uint64_t) d;
        }
        if (q == p)
                return -EBADMSG;
        while (q < end && is_ows(*q))
                q++;
        if (q < end && *q != ';')
                return -EBADMSG;
        for (; q < end; q++)
                if (!is_field_char(*q))
                        return -EBADMSG;
        *ret = n;
        return 0;
}

/* The trailer section (§7.1.2): field lines up to a blank line, checked and skipped. */
static int skip_trailers(const uint8_t **q, const uint8_t *end, bool eof) {
        for (;;) {
                const uint8_t *eol = find_crlf(*q, end);
                if (!eol)
                        return eof ? -EBADMSG : -EAGAIN;
                bool blank = eol == *q;
                const uint8_t *c = *q;
                while (c < eol && is_tchar(*c))
                        c++;
                if (!blank && (c == *q || c == eol || *c != ':'))
                        return -EBADMSG;
                for (; c < eol; c++)
                        if (!is_field_char(*c))
                                return -EBADMSG;
                *q = eol + 2;
                if (blank)
                        return 0;
        }
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
                int r = parse_chunk_line(q, eol, &n);
                if (r < 0)
                        return r;
                if (n > cap || total + n > cap)
                        return -EFBIG;
                q = eol + 2;
                if (n == 0) {
                        r = skip_trailers(&q, end, eof);
                        if (r < 0)
                                return r;
                        break;
                }
                if ((uint64_t) (end - q) < n + 2)
                        return eof ? -EBADMSG : -EAGAIN;
                if (q[n] != '\r' || q[n + 1] != '\n')
                        return -EBADMSG;
                total += n;
                q += n + 2;
        }
        uint8_t *out = malloc(total + 1);
        if (!out)
                return -ENOMEM;
        size_t off = 0;
        for (q = p;;) {
                const uint8_t *eol = find_crlf(q, end);
                uint64_t n = 0;
                int r = eol ? parse_chunk_line(q, eol, &n) : -EBADMSG;
                assert(r == 0); /* the first pass checked every chunk line */
                q = eol + 2;
                if (n == 0)
                        break;
                memcpy(out + off, q, n);
                off += n;
                q += n + 2;
        }
        assert(off == total);
        out[total] = 0;
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
        if (head->no_body) {
                *ret_body = p;
                *ret_len = 0;
                return 0;
        }
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
