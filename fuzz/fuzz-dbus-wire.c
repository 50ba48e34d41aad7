/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the minimal D-Bus wire reader (src/shared/dbus-wire.c). Any bytes:
 * dbus_wire_open() accepts or refuses; when it accepts, the body is walked by its own
 * signature (s, o, g-less basic types, u, h, a{ss}) and the way the daemon reads
 * CreateProfileWithFd ("ssha{ss}"). Checked: the cursor never leaves the message, the body
 * lies inside the input, every string returned lies inside it and is NUL-terminated there,
 * and reads only move forward. ASan catches any read outside the buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dbus-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *base;
static size_t base_size;

static void check_cursor(const DBusWireCursor *c) {
        if (c->buf != base || c->size > base_size || c->pos > c->size)
                abort();
}

static void check_string(const char *s) {
        const uint8_t *u = (const uint8_t *) s;
        if (u < base || u >= base + base_size || !memchr(u, 0, base_size - (size_t) (u - base)))
                abort();
}

static int read_string(DBusWireCursor *c) {
        const char *s;
        size_t before = c->pos;
        int r = dbus_wire_read_string(c, &s);
        check_cursor(c);
        if (r >= 0) {
                check_string(s);
                if (c->pos <= before)
                        abort();
        }
        return r;
}

static int read_u32(DBusWireCursor *c) {
        uint32_t u;
        size_t before = c->pos;
        int r = dbus_wire_read_u32(c, &u);
        check_cursor(c);
        if (r >= 0 && c->pos < before + 4)
                abort();
        return r;
}

/* a{ss}: dict entries are 8-aligned structs. */
static int read_dict(DBusWireCursor *c) {
        size_t end;
        int r = dbus_wire_enter_array(c, 8, &end);
        check_cursor(c);
        if (r < 0)
                return r;
        if (end < c->pos || end > c->size)
                abort();
        while (c->pos < end) {
                if (dbus_wire_align(c, 8) < 0 || read_string(c) < 0 || read_string(c) < 0)
                        return -1;
                check_cursor(c);
                if (c->pos > end)
                        return -1;
        }
        return 0;
}

static void walk(DBusWireCursor c, const char *sig) {
        for (const char *t = sig; *t; t++) {
                int r;
                if (*t == 's' || *t == 'o')
                        r = read_string(&c);
                else if (*t == 'u' || *t == 'h')
                        r = read_u32(&c);
                else if (strncmp(t, "a{ss}", 5) == 0) {
                        r = read_dict(&c);
                        t += 4;
                } else
                        return; /* a type this reader does not know: the daemon stops too */
                if (r < 0)
                        return;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        DBusWireCursor c;
        const char *sig = NULL;

        base = data;
        base_size = size;
        if (dbus_wire_open(data, size, &c, &sig) < 0)
                return 0;
        check_cursor(&c);
        if (!sig)
                abort();
        if (*sig)
                check_string(sig);
        walk(c, sig);
        /* The daemon's sequence, whatever the signature says. */
        walk(c, "ssha{ss}");
        return 0;
}
