/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for ipp-wire.c: a request as RFC 8010 lays it out, responses built byte by
 * byte (a printer group with a printer-icc-profiles collection, as PWG 5100.13 describes
 * it), every way of truncating them. HTTP framing is src/http's (test-http.c), tinct-fetch's
 * reply src/fetch's (test-fetch-wire.c). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

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
                { IPP_TAG_OPERATION, IPP_TAG_BOOLEAN, "my-subscriptions", NULL, 1 },
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
        assert_se(msg.n_groups == 2 && msg.groups[0].tag == IPP_TAG_OPERATION && msg.groups[0].n_attrs == 5);
        bool mine = false;
        assert_se(ipp_attr_boolean(ipp_group_find(&msg.groups[0], "my-subscriptions"), 0, &mine) == 0 && mine);
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

int main(void) {
        test_decode();
        test_malformed();
        test_request();
        test_request_with();
        return 0;
}
