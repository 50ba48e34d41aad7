/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for the minimal D-Bus wire reader: a CreateProfileWithFd message built by hand
 * (little- and big-endian), then every truncation and every single-byte corruption of it,
 * which must be refused or read without going outside the buffer (run under ASan). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dbus-wire.h"
#include "tests.h"

typedef struct Builder {
        uint8_t buf[1024];
        size_t n;
        bool be;
} Builder;

static void pad(Builder *b, size_t a) {
        while (b->n % a)
                b->buf[b->n++] = 0;
}

static void put_u32_at(Builder *b, size_t at, uint32_t v) {
        for (int i = 0; i < 4; i++)
                b->buf[at + i] = (uint8_t) (b->be ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void put_u32(Builder *b, uint32_t v) {
        pad(b, 4);
        put_u32_at(b, b->n, v);
        b->n += 4;
}

static void put_string(Builder *b, const char *s) {
        put_u32(b, (uint32_t) strlen(s));
        memcpy(b->buf + b->n, s, strlen(s) + 1);
        b->n += strlen(s) + 1;
}

static void put_signature(Builder *b, const char *s) {
        b->buf[b->n++] = (uint8_t) strlen(s);
        memcpy(b->buf + b->n, s, strlen(s) + 1);
        b->n += strlen(s) + 1;
}

static size_t build(Builder *b, bool be) {
        *b = (Builder) { .be = be };
        b->buf[0] = be ? 'B' : 'l';
        b->buf[1] = 1; /* method call */
        b->buf[3] = 1;
        b->n = 12;
        put_u32(b, 0); /* header fields length, patched below */
        size_t fields = b->n;
        /* PATH (1, o), MEMBER (3, s), SIGNATURE (8, g) */
        pad(b, 8);
        b->buf[b->n++] = 1;
        put_signature(b, "o");
        put_string(b, "/org/freedesktop/ColorManager");
        pad(b, 8);
        b->buf[b->n++] = 3;
        put_signature(b, "s");
        put_string(b, "CreateProfileWithFd");
        pad(b, 8);
        b->buf[b->n++] = 8;
        put_signature(b, "g");
        put_signature(b, "ssha{ss}");
        put_u32_at(b, 12, (uint32_t) (b->n - fields));
        pad(b, 8);
        size_t body = b->n;
        put_string(b, "prof-id");
        put_string(b, "temp");
        put_u32(b, UINT32_MAX);
        put_u32(b, 0); /* array length, patched */
        size_t len_at = b->n - 4;
        pad(b, 8);
        size_t start = b->n;
        const char *kv[] = { "Qualifier", "RGB.Plain.300dpi", "Format", "ColorSpace.Paper.Resolution" };
        for (int i = 0; i < 4; i += 2) {
                pad(b, 8);
                put_string(b, kv[i]);
                put_string(b, kv[i + 1]);
        }
        put_u32_at(b, len_at, (uint32_t) (b->n - start));
        put_u32_at(b, 4, (uint32_t) (b->n - body));
        return b->n;
}

/* Reads the whole body; returns 0 when it is well-formed. */
static int read_all(const uint8_t *buf, size_t size, char out[256]) {
        DBusWireCursor c;
        const char *sig, *id, *scope, *k, *v;
        uint32_t h;
        size_t end;
        out[0] = 0;
        if (dbus_wire_open(buf, size, &c, &sig) < 0 || strcmp(sig, "ssha{ss}") != 0 ||
            dbus_wire_read_string(&c, &id) < 0 || dbus_wire_read_string(&c, &scope) < 0 ||
            dbus_wire_read_u32(&c, &h) < 0 || dbus_wire_enter_array(&c, 8, &end) < 0)
                return -1;
        snprintf(out, 256, "%s %s %d", id, scope, (int) h);
        while (c.pos < end) {
                if (dbus_wire_align(&c, 8) < 0 || dbus_wire_read_string(&c, &k) < 0 ||
                    dbus_wire_read_string(&c, &v) < 0 || c.pos > end)
                        return -1;
                size_t n = strlen(out);
                snprintf(out + n, 256 - n, " %s=%s", k, v);
        }
        return 0;
}

int main(void) {
        for (int be = 0; be <= 1; be++) {
                Builder b;
                size_t n = build(&b, be);
                char out[256];
                assert_se(read_all(b.buf, n, out) == 0);
                assert_streq(out, "prof-id temp -1 Qualifier=RGB.Plain.300dpi Format=ColorSpace.Paper.Resolution");

                /* Every truncation, in a buffer of exactly that size. */
                for (size_t len = 0; len < n; len++) {
                        uint8_t *t = malloc(len ? len : 1);
                        memcpy(t, b.buf, len);
                        assert_se(read_all(t, len, out) < 0);
                        free(t);
                }
                /* Every single-byte corruption: refused or read in bounds, never a crash. */
                for (size_t i = 0; i < n; i++)
                        for (int v = 0; v < 256; v += 51) {
                                uint8_t *t = malloc(n);
                                memcpy(t, b.buf, n);
                                t[i] ^= (uint8_t) (v | 1);
                                (void) read_all(t, n, out);
                                free(t);
                        }
        }
        printf("test-dbus-wire: ok\n");
        return 0;
}
