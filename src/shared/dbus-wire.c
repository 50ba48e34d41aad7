/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include "dbus-wire.h"

#include <errno.h>
#include <string.h>

#define HEADER_FIXED 16
#define FIELD_SIGNATURE 8

static uint32_t get_u32(const DBusWireCursor *c, size_t at) {
        const uint8_t *p = c->buf + at;
        return c->big_endian ? (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3]
                             : (uint32_t) p[3] << 24 | (uint32_t) p[2] << 16 | (uint32_t) p[1] << 8 | p[0];
}

int dbus_wire_align(DBusWireCursor *c, size_t alignment) {
        /* The cursor never passes the end: every read below relies on size - pos. */
        assert(c->pos <= c->size && alignment && !(alignment & (alignment - 1)));
        size_t p = (c->pos + alignment - 1) & ~(alignment - 1);
        if (p > c->size)
                return -EBADMSG;
        c->pos = p;
        return 0;
}

int dbus_wire_read_u32(DBusWireCursor *c, uint32_t *ret) {
        if (dbus_wire_align(c, 4) < 0 || c->size - c->pos < 4)
                return -EBADMSG;
        *ret = get_u32(c, c->pos);
        c->pos += 4;
        return 0;
}

int dbus_wire_read_string(DBusWireCursor *c, const char **ret) {
        uint32_t len;
        if (dbus_wire_read_u32(c, &len) < 0)
                return -EBADMSG;
        if (len >= c->size - c->pos || c->buf[c->pos + len] != 0 || memchr(c->buf + c->pos, 0, len))
                return -EBADMSG;
        *ret = (const char *) c->buf + c->pos;
        c->pos += (size_t) len + 1;
        return 0;
}

static int read_signature(DBusWireCursor *c, const char **ret) {
        if (c->pos >= c->size)
                return -EBADMSG;
        size_t len = c->buf[c->pos];
        if (len >= c->size - c->pos - 1 || c->buf[c->pos + 1 + len] != 0)
                return -EBADMSG;
        *ret = (const char *) c->buf + c->pos + 1;
        c->pos += len + 2;
        return 0;
}

int dbus_wire_enter_array(DBusWireCursor *c, size_t element_alignment, size_t *ret_end) {
        uint32_t len;
        if (dbus_wire_read_u32(c, &len) < 0 || dbus_wire_align(c, element_alignment) < 0)
                return -EBADMSG;
        if (len > c->size - c->pos)
                return -EBADMSG;
        *ret_end = c->pos + len;
        return 0;
}

int dbus_wire_open(const uint8_t *buf, size_t size, DBusWireCursor *ret, const char **ret_signature) {
        if (size < HEADER_FIXED || (buf[0] != 'l' && buf[0] != 'B') || buf[3] != 1)
                return -EBADMSG;
        DBusWireCursor c = { .buf = buf, .size = size, .big_endian = buf[0] == 'B' };
        uint32_t body_len = get_u32(&c, 4);
        const char *signature = "";

        /* Header fields: array of (byte code, variant), each struct 8-aligned. */
        c.pos = 12;
        size_t end;
        if (dbus_wire_enter_array(&c, 8, &end) < 0)
                return -EBADMSG;
        while (c.pos < end) {
                if (dbus_wire_align(&c, 8) < 0 || c.pos + 1 > end)
                        return -EBADMSG;
                uint8_t code = c.buf[c.pos++];
                const char *vsig;
                if (read_signature(&c, &vsig) < 0 || strlen(vsig) != 1)
                        return -EBADMSG;
                const char *s;
                uint32_t u;
                int r;
                switch (vsig[0]) {
                case 's':
                case 'o':
                        r = dbus_wire_read_string(&c, &s);
                        break;
                case 'g':
                        r = read_signature(&c, &s);
                        if (r >= 0 && code == FIELD_SIGNATURE)
                                signature = s;
                        break;
                case 'u':
                        r = dbus_wire_read_u32(&c, &u);
                        break;
                default:
                        r = -EBADMSG; /* no other header field types exist */
                }
                if (r < 0 || c.pos > end)
                        return -EBADMSG;
        }
        if (dbus_wire_align(&c, 8) < 0 || body_len > c.size - c.pos)
                return -EBADMSG;
        c.size = c.pos + body_len;
        *ret = c;
        *ret_signature = signature;
        return 0;
}
