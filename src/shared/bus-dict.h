/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a D-Bus a{sv} dictionary (options, properties) entry by entry: the container
 * walk is here once, what a key means stays with the caller. It neither interprets nor
 * keeps any value. */
#pragma once

#include <systemd/sd-bus.h>

/* Called with the message positioned at the entry's variant, which it must read or skip
 * whole. A negative return ends the walk and is returned (an error reply set in error). */
typedef int (*BusDictEntry)(sd_bus_message *m, const char *key, void *userdata, sd_bus_error *error);

/* Reads the a{sv} at the message's read position, calling entry once per key in order. */
int bus_message_read_dict(sd_bus_message *m, BusDictEntry entry, void *userdata, sd_bus_error *error);
