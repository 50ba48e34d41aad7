/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for ipp-wire.c and http-wire.c: a request as RFC 8010 lays it out, responses
 * built byte by byte (a printer group with a printer-icc-profiles collection, as PWG 5100.13
 * describes it), every way of truncating them, and HTTP framing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "fetch-wire.h"
#include "http-wire.h"
#include "ipp-wire.h"
#include "macro.h"
#include "tests.h"

typedef struct Buf {
        uint8_t data[4096];
        size_t len;
} Buf;

static void put(Buf *b, const void *p, size_t n) {
        assert_se(b->len + n <= sizeof b->data);
        memcpy(b->data + b->len, p, n);
        b->len += n;
}

static void put_byte(Buf *b, uint8_t v) {
        put(b, &v, 1);
}

static void put_field(Buf *b, uint8_t tag, const char *name, const void *value, size_t len) {
        size_t n = strlen(name);
        put_byte(b, tag);
        put_byte(b, (uint8_t) (n >> 8));
        put_byte(b, (uint8_t) n);
        put(b, name, n);
        put_byte(b, (uint8_t) (len >> 8));
        put_byte(b, (uint8_t) len);
        put(b, value, len);
}

static void put_str(Buf *b, uint8_t tag, const char *name, const char *value) {
        put_field(b, tag, name, value, strlen(value));
}

static void build_response(Buf *b) {
        static const uint8_t header[8] = { 2, 0, 0, 0, 0, 0, 0, 7 };
        put(b, header, sizeof header);
        put_byte(b, IPP_TAG_OPERATION);
        put_str(b, IPP_TAG_CHARSET, "attributes-charset", "utf-8");
        put_byte(b, IPP_TAG_PRINTER);
        put_str(b, IPP_TAG_NAME, "printer-name", "Office");
        put_str(b, IPP_TAG_URI, "printer-uuid", "urn:uuid:6A1F8C3E-0000-4000-8000-00000000abcd");
        put_field(b, IPP_TAG_BOOLEAN, "color-supported", "\1", 1);
        static const uint8_t res[9] = { 0, 0, 2, 0x58, 0, 0, 2, 0x58, 3 };
        put_field(b, IPP_TAG_RESOLUTION, "printer-resolution-default", res, sizeof res);
        /* printer-icc-profiles: two collections, the second with the profile-uri spelling. */
        put_field(b, IPP_TAG_BEGIN_COLLECTION, "printer-icc-profiles", "", 0);
        put_str(b, IPP_TAG_MEMBER_NAME, "", "profile-name");
        put_str(b, IPP_TAG_NAME, "", "photographic-glossy");
        put_str(b, IPP_TAG_MEMBER_NAME, "", "profile-url");
        put_str(b, IPP_TAG_URI, "", "http://127.0.0.1:9/glossy.icc");
        put_field(b, IPP_TAG_END_COLLECTION, "", "", 0);
        put_field(b, IPP_TAG_BEGIN_COLLECTION, "", "", 0);
        put_str(b, IPP_TAG_MEMBER_NAME, "", "profile-name");
        static const uint8_t lang_text[] = { 0, 2, 'e', 'n', 0, 5, 'p', 'l', 'a', 'i', 'n' };
        put_field(b, IPP_TAG_NAME_LANG, "", lang_text, sizeof lang_text);
        put_str(b, IPP_TAG_MEMBER_NAME, "", "profile-uri");
        put_str(b, IPP_TAG_URI, "", "http://127.0.0.1:9/plain.icc");
        put_field(b, IPP_TAG_END_COLLECTION, "", "", 0);
        put_str(b, IPP_TAG_KEYWORD, "media-type-supported", "stationery");
        put_str(b, IPP_TAG_KEYWORD, "", "photographic-glossy");
        put_byte(b, IPP_TAG_PRINTER);
        put_str(b, IPP_TAG_NAME, "printer-name", "Second");
        put_byte(b, IPP_TAG_END);
}

static void test_decode(void) {
        Buf b = { 0 };
        build_response(&b);
        IppMessage msg;
        assert_se(ipp_decode(b.data, b.len, &msg) == 0);
        assert_se(msg.status == 0 && msg.request_id == 7 && msg.n_groups == 3);
        assert_se(msg.groups[1].tag == IPP_TAG_PRINTER && msg.groups[2].tag == IPP_TAG_PRINTER);
        const IppGroup *g = &msg.groups[1];
        char *s;
        assert_se(ipp_attr_string(ipp_group_find(g, "printer-name"), 0, &s) == 0);
        assert_streq(s, "Office");
        free(s);
        bool color;
        assert_se(ipp_attr_boolean(ipp_group_find(g, "color-supported"), 0, &color) == 0 && color);
        int32_t x, y;
        uint8_t units;
        assert_se(ipp_attr_resolution(ipp_group_find(g, "printer-resolution-default"), 0, &x, &y, &units) == 0);
        assert_se(x == 600 && y == 600 && units == 3);
        const IppAttr *profiles = ipp_group_find(g, "printer-icc-profiles");
        assert_se(profiles && profiles->n_values == 2);
        assert_se(ipp_attr_string(ipp_attr_member(&profiles->values[0], "profile-name"), 0, &s) == 0);
        assert_streq(s, "photographic-glossy");
        free(s);
        assert_se(ipp_attr_string(ipp_attr_member(&profiles->values[1], "profile-name"), 0, &s) == 0);
        assert_streq(s, "plain"); /* the text of a nameWithLanguage */
        free(s);
        assert_se(!ipp_attr_member(&profiles->values[1], "profile-url"));
        assert_se(ipp_attr_string(ipp_attr_member(&profiles->values[1], "profile-uri"), 0, &s) == 0);
        assert_streq(s, "http://127.0.0.1:9/plain.icc");
        free(s);
        const IppAttr *media = ipp_group_find(g, "media-type-supported");
        assert_se(media && media->n_values == 2);
        /* Typed reads of the wrong type. */
        assert_se(ipp_attr_boolean(ipp_group_find(g, "printer-name"), 0, &color) == -EBADMSG);
        assert_se(ipp_attr_string(ipp_group_find(g, "color-supported"), 0, &s) == -EBADMSG);
        assert_se(ipp_attr_string(media, 2, &s) == -ENOENT);
        assert_se(ipp_attr_string(NULL, 0, &s) == -ENOENT);
        ipp_message_done(&msg);

        /* Every truncation is refused, none crashes (ASan watches the reads). */
        for (size_t n = 0; n < b.len; n++)
                assert_se(ipp_decode(b.data, n, &msg) < 0);
}

static void test_malformed(void) {
        IppMessage msg;
        static const uint8_t header[8] = { 2, 0, 0, 0, 0, 0, 0, 1 };
        /* An attribute before any group. */
        Buf b = { 0 };
        put(&b, header, 8);
        put_str(&b, IPP_TAG_NAME, "printer-name", "x");
        put_byte(&b, IPP_TAG_END);
        assert_se(ipp_decode(b.data, b.len, &msg) == -EBADMSG);
        /* An additional value with no attribute. */
        b = (Buf) { 0 };
        put(&b, header, 8);
        put_byte(&b, IPP_TAG_PRINTER);
        put_str(&b, IPP_TAG_NAME, "", "x");
        put_byte(&b, IPP_TAG_END);
        assert_se(ipp_decode(b.data, b.len, &msg) == -EBADMSG);
        /* A collection never closed, and a member value before a member name. */
        b = (Buf) { 0 };
        put(&b, header, 8);
        put_byte(&b, IPP_TAG_PRINTER);
        put_field(&b, IPP_TAG_BEGIN_COLLECTION, "c", "", 0);
        put_str(&b, IPP_TAG_NAME, "", "x");
        put_byte(&b, IPP_TAG_END);
        assert_se(ipp_decode(b.data, b.len, &msg) == -EBADMSG);
        /* Nesting past the cap. */
        b = (Buf) { 0 };
        put(&b, header, 8);
        put_byte(&b, IPP_TAG_PRINTER);
        put_field(&b, IPP_TAG_BEGIN_COLLECTION, "c", "", 0);
        for (int i = 0; i < IPP_MAX_DEPTH + 2; i++) {
                put_str(&b, IPP_TAG_MEMBER_NAME, "", "m");
                put_field(&b, IPP_TAG_BEGIN_COLLECTION, "", "", 0);
        }
        put_byte(&b, IPP_TAG_END);
        assert_se(ipp_decode(b.data, b.len, &msg) == -E2BIG);
        /* A NUL inside a string value is refused when read. */
        b = (Buf) { 0 };
        put(&b, header, 8);
        put_byte(&b, IPP_TAG_PRINTER);
        put_field(&b, IPP_TAG_NAME, "printer-name", "a\0b", 3);
        put_byte(&b, IPP_TAG_END);
        assert_se(ipp_decode(b.data, b.len, &msg) == 0);
        char *s;
        assert_se(ipp_attr_string(ipp_group_find(&msg.groups[0], "printer-name"), 0, &s) == -EBADMSG);
        ipp_message_done(&msg);
        /* A wrong version. */
        static const uint8_t v9[9] = { 9, 0, 0, 0, 0, 0, 0, 1, IPP_TAG_END };
        assert_se(ipp_decode(v9, sizeof v9, &msg) == -EBADMSG);
}

static void test_request(void) {
        static const char *const requested[] = { "printer-name", "printer-uuid", NULL };
        uint8_t *buf;
        size_t len;
        assert_se(ipp_build_request(IPP_OP_GET_PRINTER_ATTRIBUTES, 3, "ipp://127.0.0.1:631/ipp/print", requested,
                                    &buf, &len) == 0);
        assert_se(buf[0] == 2 && buf[1] == 0 && buf[2] == 0 && buf[3] == 0x0b && buf[7] == 3);
        /* Our own decoder reads it back: one operation group with five values. */
        IppMessage msg;
        assert_se(ipp_decode(buf, len, &msg) == 0);
        assert_se(msg.n_groups == 1 && msg.groups[0].tag == IPP_TAG_OPERATION && msg.groups[0].n_attrs == 4);
        assert_streq(msg.groups[0].attrs[0].name, "attributes-charset");
        assert_streq(msg.groups[0].attrs[1].name, "attributes-natural-language");
        const IppAttr *req = ipp_group_find(&msg.groups[0], "requested-attributes");
        assert_se(req && req->n_values == 2);
        ipp_message_done(&msg);
        free(buf);
}

static void test_request_with(void) {
        /* A subscription request: operation attributes, then a subscription group with a 1setOf. */
        static const IppRequestAttr extra[] = {
                { IPP_TAG_OPERATION, IPP_TAG_NAME, "requesting-user-name", "tinctd", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_URI, "notify-recipient-uri", "dbus://", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, "notify-events", "printer-added", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_KEYWORD, NULL, "printer-deleted", 0 },
                { IPP_TAG_SUBSCRIPTION, IPP_TAG_INTEGER, "notify-lease-duration", NULL, 3600 },
        };
        uint8_t *buf;
        size_t len;
        assert_se(ipp_build_request_with(IPP_OP_CREATE_PRINTER_SUBSCRIPTIONS, 1, "ipp://localhost/", NULL, extra,
                                         ELEMENTSOF(extra), &buf, &len) == 0);
        IppMessage msg;
        assert_se(ipp_decode(buf, len, &msg) == 0);
        assert_se(msg.n_groups == 2 && msg.groups[0].tag == IPP_TAG_OPERATION && msg.groups[0].n_attrs == 4);
        assert_se(msg.groups[1].tag == IPP_TAG_SUBSCRIPTION && msg.groups[1].n_attrs == 3);
        const IppAttr *events = ipp_group_find(&msg.groups[1], "notify-events");
        char *s;
        assert_se(events && events->n_values == 2 && ipp_attr_string(events, 1, &s) == 0);
        assert_streq(s, "printer-deleted");
        free(s);
        int32_t lease;
        assert_se(ipp_attr_integer(ipp_group_find(&msg.groups[1], "notify-lease-duration"), 0, &lease) == 0);
        assert_se(lease == 3600);
        ipp_message_done(&msg);
        free(buf);
}

static void test_http(void) {
        static const char plain[] = "HTTP/1.1 200 OK\r\nContent-Type: application/IPP; charset=x\r\n"
                                    "Content-Length: 5\r\n\r\nhello";
        HttpHead h;
        const uint8_t *body;
        size_t len;
        uint8_t *owned;
        assert_se(http_parse_head((const uint8_t *) plain, sizeof plain - 1, &h) == 0);
        assert_se(h.status == 200 && h.content_length == 5 && !h.chunked);
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
        assert_se(len == 7 && memcmp(body, "abcdefg", 7) == 0 && owned);
        free(owned);
        assert_se(http_body((const uint8_t *) chunked, sizeof chunked - 1, &h, 6, false, &body, &len, &owned) == -EFBIG);
        for (size_t n = h.head_len; n < sizeof chunked - 1; n++)
                assert_se(http_body((const uint8_t *) chunked, n, &h, 100, false, &body, &len, &owned) == -EAGAIN);

        static const char redirect[] = "HTTP/1.1 302 Found\r\nLocation: http://10.0.0.1/x.icc\r\n\r\n";
        assert_se(http_parse_head((const uint8_t *) redirect, sizeof redirect - 1, &h) == 0);
        assert_se(h.status == 302);
        assert_streq(h.location, "http://10.0.0.1/x.icc");
        static const char garbage[] = "GARBAGE\r\n\r\n";
        assert_se(http_parse_head((const uint8_t *) garbage, sizeof garbage - 1, &h) == -EBADMSG);
        static const char two_lengths[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n";
        assert_se(http_parse_head((const uint8_t *) two_lengths, sizeof two_lengths - 1, &h) == -EBADMSG);
        /* An endless stream without a length: over the cap before the end. */
        static const char endless[] = "HTTP/1.0 200 OK\r\n\r\nxxxxxxxxxx";
        assert_se(http_parse_head((const uint8_t *) endless, sizeof endless - 1, &h) == 0 && h.content_length == -1);
        assert_se(http_body((const uint8_t *) endless, sizeof endless - 1, &h, 100, false, &body, &len, &owned) == -EAGAIN);
        assert_se(http_body((const uint8_t *) endless, sizeof endless - 1, &h, 5, false, &body, &len, &owned) == -EFBIG);

        uint8_t *req;
        assert_se(http_build_request("POST", "localhost", "/", "application/ipp", (const uint8_t *) "ab", 2, &req, &len) == 0);
        assert_se(len > 4 && memcmp(req + len - 4, "\r\nab", 4) == 0);
        free(req);
}

/* tinct-fetch's reply as the daemon reads it: what the writer makes reads back, and every
 * truncation, a wrong magic, trailing bytes and a NUL inside a string are refused. */
static void test_fetch_wire(void) {
        static const uint8_t icc[] = { 1, 2, 3, 4, 5 };
        FetchWriter w;
        fetch_writer_init(&w);
        fetch_write_string(&w, FETCH_UUID, "urn:uuid:0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
        fetch_write_string(&w, FETCH_PROBLEM, "profile x: HTTP 404");
        fetch_write_string(&w, FETCH_MEDIA_TYPE, "photographic-glossy");
        fetch_write_profile(&w, "photographic-glossy", "http://127.0.0.1/g.icc", icc, sizeof icc);
        assert_se(fetch_write_end(&w) == 0);
        FetchReply r;
        assert_se(fetch_reply_parse(w.buf, w.len, &r) == 0);
        assert_streq(r.uuid, "urn:uuid:0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
        assert_se(!r.device_id);
        assert_streq(r.problems[0], "profile x: HTTP 404");
        assert_se(!r.problems[1]);
        assert_streq(r.media_types[0], "photographic-glossy");
        assert_se(r.n_profiles == 1 && r.profiles[0].icc_len == sizeof icc);
        assert_se(memcmp(r.profiles[0].icc, icc, sizeof icc) == 0);
        assert_streq(r.profiles[0].url, "http://127.0.0.1/g.icc");
        fetch_reply_done(&r);
        for (size_t n = 0; n < w.len; n++)
                assert_se(fetch_reply_parse(w.buf, n, &r) == -EBADMSG);
        uint8_t *copy = malloc(w.len + 1);
        assert_se(copy);
        memcpy(copy, w.buf, w.len);
        copy[w.len] = 0;
        assert_se(fetch_reply_parse(copy, w.len + 1, &r) == -EBADMSG); /* after the end */
        copy[0] = 'X';
        assert_se(fetch_reply_parse(copy, w.len, &r) == -EBADMSG);
        copy[0] = 'T';
        copy[9] = 0; /* inside the uuid */
        assert_se(fetch_reply_parse(copy, w.len, &r) == -EBADMSG);
        free(copy);
        fetch_writer_done(&w);

        /* Two uuids, and an unknown record type. */
        fetch_writer_init(&w);
        fetch_write_string(&w, FETCH_UUID, "a");
        fetch_write_string(&w, FETCH_UUID, "b");
        assert_se(fetch_write_end(&w) == 0);
        assert_se(fetch_reply_parse(w.buf, w.len, &r) == -EBADMSG);
        fetch_writer_done(&w);
        fetch_writer_init(&w);
        fetch_write_string(&w, 77, "x");
        assert_se(fetch_write_end(&w) == 0);
        assert_se(fetch_reply_parse(w.buf, w.len, &r) == -EBADMSG);
        fetch_writer_done(&w);
}

int main(void) {
        test_fetch_wire();
        test_decode();
        test_malformed();
        test_request();
        test_request_with();
        test_http();
        return 0;
}
