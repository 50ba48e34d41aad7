/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for src/http, what a printer or a scanner sends tinct's helpers: the
 * first byte picks the URL parser (a profile-url, an eSCL base URL) or the response reader.
 * Any bytes must give a clean error or a result that keeps the module's promises: a URL
 * accepted makes a request head whose first line is the one request line (no CR, LF or
 * space in its target, so no injected field or second request); a response is read the
 * same whole and split at every point a read could end, and a body is never longer than
 * the cap. Seeds: fuzz/corpus/http (fuzz/corpus/make-seeds.py). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http-url.h"
#include "http-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_url(const uint8_t *data, size_t size) {
        char *s = strndup((const char *) data, size);
        if (!s)
                return;
        HttpUrl u;
        int r = http_url_parse(s, &u);
        if (r == 0) {
                for (const char *c = u.target; *c; c++)
                        if ((unsigned char) *c <= ' ' || (unsigned char) *c >= 0x7f)
                                abort();
                HttpRequest req = { .method = "GET", .authority = u.authority, .target = u.target };
                uint8_t *head;
                size_t len;
                if (http_build_request(&req, &head, &len) != 0)
                        abort();
                /* one request line of three parts, then "Host:" */
                const uint8_t *eol = memchr(head, '\n', len);
                size_t spaces = 0;
                for (const uint8_t *c = head; eol && c < eol; c++)
                        spaces += *c == ' ';
                if (!eol || spaces != 2 || memcmp(eol + 1, "Host: ", 6) != 0)
                        abort();
                free(head);
                http_url_done(&u);
        } else if (r != -EINVAL && r != -EPROTONOSUPPORT && r != -ENOMEM)
                abort();
        free(s);
}

/* The body as read when the connection ended after n bytes (eof) or is still open. */
static int read_body(const uint8_t *data, size_t n, bool eof, size_t cap, size_t *ret_len) {
        HttpHead h;
        int r = http_parse_head(data, n, &h);
        if (r < 0)
                return r;
        const uint8_t *body;
        uint8_t *owned;
        r = http_body(data, n, &h, cap, eof, &body, ret_len, &owned);
        if (r == 0 && *ret_len > cap)
                abort();
        free(owned);
        return r;
}

static void fuzz_response(const uint8_t *data, size_t size) {
        size_t cap = 4096, whole_len = 0;
        int whole = read_body(data, size, true, cap, &whole_len);
        if (whole != 0 && whole != -EBADMSG && whole != -EFBIG && whole != -EAGAIN && whole != -ENOMEM)
                abort();
        /* Cut short with the connection open: never a different answer, only "not yet" or
         * the same verdict once a length-delimited body is complete. */
        for (size_t n = 0; n < size && n < 512; n++) {
                size_t len;
                int r = read_body(data, n, false, cap, &len);
                if (r != 0 && r != -EAGAIN && r != -EBADMSG && r != -EFBIG && r != -ENOMEM)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        if (data[0] & 1)
                fuzz_url(data + 1, size - 1);
        else
                fuzz_response(data + 1, size - 1);
        return 0;
}
