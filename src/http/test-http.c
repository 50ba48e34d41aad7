/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/http: the URL parser (printers' and scanners' URLs, the injection of
 * docs/printers.md "Profile URLs" refused, what a request line cannot carry encoded), the
 * request head, and the response reader: every framing RFC 9112 allows, every truncation,
 * and each ambiguity it refuses. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "http-url.h"
#include "http-wire.h"
#include "macro.h"
#include "tests.h"

static void test_url(void) {
        HttpUrl u;
        assert_se(http_url_parse("http://127.0.0.1:8080/eSCL", &u) == 0);
        assert_streq(u.scheme, "http");
        assert_streq(u.host, "127.0.0.1");
        assert_se(u.port == 8080);
        assert_streq(u.authority, "127.0.0.1:8080");
        assert_streq(u.target, "/eSCL");
        assert_se(!http_url_tls(&u));
        http_url_done(&u);
        assert_se(http_url_parse("HTTPS://[::1]/eSCL/", &u) == 0);
        assert_streq(u.scheme, "https");
        assert_streq(u.host, "::1");
        assert_se(u.port == 443 && http_url_tls(&u));
        assert_streq(u.authority, "[::1]");
        http_url_done(&u);
        assert_se(http_url_parse("ipp://printer.local/ipp/print", &u) == 0);
        assert_se(u.port == 631);
        assert_streq(u.authority, "printer.local");
        http_url_done(&u);
        assert_se(http_url_parse("ipps://[fe80::1]:8631/ipp/print", &u) == 0);
        assert_se(u.port == 8631 && http_url_tls(&u));
        assert_streq(u.authority, "[fe80::1]:8631");
        http_url_done(&u);
        assert_se(http_url_parse("http://scanner.local", &u) == 0);
        assert_streq(u.target, "/");
        http_url_done(&u);
        /* The default port given is the default port; the query goes, the fragment does not. */
        assert_se(http_url_parse("http://h:80?x=1#frag", &u) == 0);
        assert_streq(u.authority, "h");
        assert_streq(u.target, "/?x=1");
        http_url_done(&u);
        /* What a request line cannot carry is percent-encoded; a valid escape stays. */
        assert_se(http_url_parse("http://h/a\"b<c>{d}|e\\f^g`h[i]/%41%zz%/\xc3\xa9.icc", &u) == 0);
        assert_streq(u.target, "/a%22b%3Cc%3E%7Bd%7D%7Ce%5Cf%5Eg%60h%5Bi%5D/%41%25zz%25/%C3%A9.icc");
        http_url_done(&u);

        static const char *const refused[] = {
                /* the injection: CR LF, a space, any control character, anywhere */
                "http://127.0.0.1:631/a.icc HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET /second.icc",
                "http://127.0.0.1/a\r\nb.icc",
                "http://127.0.0.1/a\nb.icc",
                "http://127.0.0.1/a b.icc",
                "http://127.0.0.1/a\tb.icc",
                "http://127.0.0.1/a\x7f.icc",
                "http://127.0.0.1/a.icc?x\x01",
                "http://127.0.0.1\r\nX: y/a.icc",
                "http://127.0.0.1/a.icc#\r\n",
                /* malformed */
                "", "http:", "http:/h/", "//h/", "1http://h/", "http://:80/", "http://h:123456/", "http://h:0/",
                "http://h:/", "http://h:8x/", "http://[::1/", "http://[zz]/", "http://[1.2.3.4]/", "http://user@h/",
                "http://h_h:@x/", "http://h!h/", "http:///a",
        };
        for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
                int r = http_url_parse(refused[i], &u);
                if (r != -EINVAL)
                        fprintf(stderr, "refused[%zu] gave %d\n", i, r);
                assert_se(r == -EINVAL);
        }
        assert_se(http_url_parse("ftp://x/", &u) == -EPROTONOSUPPORT);
        assert_se(http_url_parse("file://x/", &u) == -EPROTONOSUPPORT);
        assert_se(http_url_parse("javascript-and-more://x/", &u) == -EPROTONOSUPPORT);
        char *long_url = malloc(HTTP_URL_MAX + 2);
        assert_se(long_url);
        memset(long_url, 'a', HTTP_URL_MAX + 1);
        memcpy(long_url, "http://h/", 9);
        long_url[HTTP_URL_MAX + 1] = 0;
        assert_se(http_url_parse(long_url, &u) == -EINVAL);
        long_url[HTTP_URL_MAX] = 0;
        assert_se(http_url_parse(long_url, &u) == 0);
        http_url_done(&u);
        free(long_url);
}

static void test_request(void) {
        uint8_t *req;
        size_t len;
        HttpRequest post = { .method = "POST", .authority = "localhost", .target = "/", .content_type = "application/ipp",
                             .body = (const uint8_t *) "ab", .body_len = 2 };
        assert_se(http_build_request(&post, &req, &len) == 0);
        static const char want[] = "POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                                   "Content-Type: application/ipp\r\nContent-Length: 2\r\n\r\nab";
        assert_se(len == sizeof want - 1 && memcmp(req, want, len) == 0);
        free(req);
        HttpRequest get = { .method = "GET", .authority = "[::1]:8080", .target = "/eSCL/ScannerCapabilities",
                            .accept = "text/xml", .user_agent = "tinct" };
        assert_se(http_build_request(&get, &req, &len) == 0);
        static const char want_get[] = "GET /eSCL/ScannerCapabilities HTTP/1.1\r\nHost: [::1]:8080\r\n"
                                       "Accept: text/xml\r\nUser-Agent: tinct\r\nConnection: close\r\n\r\n";
        assert_se(len == sizeof want_get - 1 && memcmp(req, want_get, len) == 0);
        free(req);
        /* The last line of defence: nothing that breaks the head is written. */
        HttpRequest bad = get;
        bad.target = "/a.icc HTTP/1.1\r\nX-Injected: 1";
        assert_se(http_build_request(&bad, &req, &len) == -EINVAL);
        bad.target = "/a b";
        assert_se(http_build_request(&bad, &req, &len) == -EINVAL);
        bad = get;
        bad.authority = "h\r\nX: 1";
        assert_se(http_build_request(&bad, &req, &len) == -EINVAL);
        bad = get;
        bad.method = "GET /x";
        assert_se(http_build_request(&bad, &req, &len) == -EINVAL);
        bad = get;
        bad.user_agent = "x\ny";
        assert_se(http_build_request(&bad, &req, &len) == -EINVAL);
}

/* A complete response: head and body at once, the end of the connection after it. */
static int read_all(const char *text, HttpHead *h, char **ret_body, size_t *ret_len) {
        size_t n = strlen(text);
        int r = http_parse_head((const uint8_t *) text, n, h);
        if (r < 0)
                return r == -EAGAIN ? -EBADMSG : r;
        const uint8_t *body;
        uint8_t *owned;
        r = http_body((const uint8_t *) text, n, h, 1000, true, &body, ret_len, &owned);
        if (r < 0)
                return r;
        *ret_body = strndup((const char *) body, *ret_len);
        free(owned);
        return 0;
}

static void test_response(void) {
        static const char plain[] = "HTTP/1.1 200 OK\r\nContent-Type: application/IPP; charset=x\r\n"
                                    "Content-Length: 5\r\n\r\nhello";
        HttpHead h;
        const uint8_t *body;
        size_t len;
        uint8_t *owned;
        assert_se(http_parse_head((const uint8_t *) plain, sizeof plain - 1, &h) == 0);
        assert_se(h.status == 200 && h.content_length == 5 && !h.chunked && !h.no_body);
        assert_streq(h.content_type, "application/ipp");
        assert_se(http_body((const uint8_t *) plain, sizeof plain - 2, &h, 100, false, &body, &len, &owned) == -EAGAIN);
        assert_se(http_body((const uint8_t *) plain, sizeof plain - 2, &h, 100, true, &body, &len, &owned) == -EBADMSG);
        assert_se(http_body((const uint8_t *) plain, sizeof plain - 1, &h, 100, false, &body, &len, &owned) == 0);
        assert_se(len == 5 && memcmp(body, "hello", 5) == 0 && !owned);
        assert_se(http_body((const uint8_t *) plain, sizeof plain - 1, &h, 4, false, &body, &len, &owned) == -EFBIG);
        for (size_t n = 0; n < 50; n++)
                assert_se(http_parse_head((const uint8_t *) plain, n, &h) == -EAGAIN);

        static const char chunked[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                      "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nX-Trailer: 1\r\n\r\n";
        assert_se(http_parse_head((const uint8_t *) chunked, sizeof chunked - 1, &h) == 0 && h.chunked);
        assert_se(http_body((const uint8_t *) chunked, sizeof chunked - 1, &h, 100, false, &body, &len, &owned) == 0);
        assert_se(len == 7 && memcmp(body, "abcdefg", 7) == 0 && owned && owned[7] == 0);
        free(owned);
        assert_se(http_body((const uint8_t *) chunked, sizeof chunked - 1, &h, 6, false, &body, &len, &owned) == -EFBIG);
        for (size_t n = h.head_len; n < sizeof chunked - 1; n++) {
                assert_se(http_body((const uint8_t *) chunked, n, &h, 100, false, &body, &len, &owned) == -EAGAIN);
                assert_se(http_body((const uint8_t *) chunked, n, &h, 100, true, &body, &len, &owned) == -EBADMSG);
        }

        static const char redirect[] = "HTTP/1.1 302 Found\r\nLocation: http://10.0.0.1/x.icc\r\n\r\n";
        assert_se(http_parse_head((const uint8_t *) redirect, sizeof redirect - 1, &h) == 0);
        assert_se(h.status == 302);
        assert_streq(h.location, "http://10.0.0.1/x.icc");
        /* An endless stream without a length: over the cap before the end. */
        static const char endless[] = "HTTP/1.0 200 OK\r\n\r\nxxxxxxxxxx";
        assert_se(http_parse_head((const uint8_t *) endless, sizeof endless - 1, &h) == 0 && h.content_length == -1);
        assert_se(http_body((const uint8_t *) endless, sizeof endless - 1, &h, 100, false, &body, &len, &owned) == -EAGAIN);
        assert_se(http_body((const uint8_t *) endless, sizeof endless - 1, &h, 5, false, &body, &len, &owned) == -EFBIG);

        /* Read whole, as tinct-sane-list does. */
        char *text;
        assert_se(read_all("HTTP/1.0 404 Not Found\r\n\r\nnope", &h, &text, &len) == 0);
        assert_se(h.status == 404 && len == 4);
        assert_streq(text, "nope");
        free(text);
        assert_se(read_all("HTTP/1.1 200\r\nContent-Length: 2, 2\r\nContent-Length:2\r\n\r\nok", &h, &text, &len) == 0);
        assert_streq(text, "ok");
        free(text);
        assert_se(read_all("HTTP/1.1 200 OK\r\nTransfer-Encoding: ,chunked ,\r\n\r\n2 ;a=\"b\"\r\nok\r\n0\r\n\r\n", &h,
                           &text, &len) == 0);
        assert_streq(text, "ok");
        free(text);
        /* No body whatever follows: 204, 304, 1xx (RFC 9112 §6.3 item 1). */
        assert_se(read_all("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", &h, &text, &len) == 0);
        assert_se(h.no_body && len == 0);
        free(text);

        static const char *const bad[] = {
                "",
                "garbage\r\n\r\n",
                "HTTP/2 200 OK\r\n\r\n",
                "HTTP/1.1 20 OK\r\n\r\n",
                "HTTP/1.1 200OK\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
                "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
                "HTTP/1.1 200 OK\r\n: no name\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx",      /* space before the colon */
                "HTTP/1.1 200 OK\r\nX: a\r\n folded\r\n\r\n",            /* obs-fold */
                "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n",                     /* a bare CR */
                "HTTP/1.1 200 OK\r\nX: a\nb\r\n\r\n",                     /* a bare LF */
                "HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
                "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nab",
                "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: ,\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999\r\n\r\n",
                /* Transfer-Encoding is a list; chunked once, final, and alone (this reader
                 * decodes no other coding); never with Content-Length; never in HTTP/1.0. */
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunkedx\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\nx",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\n\r\nx",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                /* chunk framing */
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\nab\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhelXX0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3x\r\nhel\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\nhel\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;a\rb\r\nhel\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nno colon\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *b = NULL;
                int r = read_all(bad[i], &h, &b, &len);
                if (r != -EBADMSG && r != -EFBIG)
                        fprintf(stderr, "bad[%zu] gave %d\n", i, r);
                assert_se(r == -EBADMSG || r == -EFBIG);
                assert_se(!b);
        }
        /* A NUL inside a field (strlen() above stops at it). */
        static const char nul[] = "HTTP/1.1 200 OK\r\nX: a\0b\r\nContent-Length: 0\r\n\r\n";
        assert_se(http_parse_head((const uint8_t *) nul, sizeof nul - 1, &h) == -EBADMSG);
        /* A head that never ends. */
        char *huge = malloc(HTTP_MAX_HEAD + 100);
        assert_se(huge);
        memset(huge, 'a', HTTP_MAX_HEAD + 100);
        memcpy(huge, "HTTP/1.1 200 OK\r\nX: ", 20);
        assert_se(http_parse_head((const uint8_t *) huge, HTTP_MAX_HEAD - 1, &h) == -EAGAIN);
        assert_se(http_parse_head((const uint8_t *) huge, HTTP_MAX_HEAD + 100, &h) == -EBADMSG);
        free(huge);
}

int main(void) {
        test_url();
        test_request();
        test_response();
        return 0;
}
