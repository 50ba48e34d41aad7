/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A minimal reader of the D-Bus wire format (D-Bus specification, "Message Format"), for
 * the one message sd-bus cannot read: CreateProfileWithFd with a handle that names no
 * passed fd (libcolord sends -1), where sd-bus refuses to read or skip the handle and so
 * cannot reach the properties after it. Pure: bytes in, values out; every offset checked. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct DBusWireCursor {
        const uint8_t *buf;   /* the whole message; alignment is relative to its start */
        size_t size;
        size_t pos;
        bool big_endian;
} DBusWireCursor;

/* Checks the fixed header and positions the cursor at the start of the body.
 * *ret_signature points into buf (NUL-terminated there) or is "" when absent. */
int dbus_wire_open(const uint8_t *buf, size_t size, DBusWireCursor *ret, const char **ret_signature);

int dbus_wire_read_u32(DBusWireCursor *c, uint32_t *ret);
/* Strings point into the buffer; they are checked to be NUL-terminated there. */
int dbus_wire_read_string(DBusWireCursor *c, const char **ret);
/* Enters an array whose elements align to `element_alignment`; *ret_end is where it ends. */
int dbus_wire_enter_array(DBusWireCursor *c, size_t element_alignment, size_t *ret_end);
int dbus_wire_align(DBusWireCursor *c, size_t alignment);
