/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bytes of a received message, for the one case sd-bus cannot read (see dbus-wire.h).
 * sd-bus offers no access to a message's wire form, but it can forward a sealed message on
 * another connection unchanged; we forward it over a private socket pair to ourselves and
 * read it back. Only used for CreateProfileWithFd with a handle that names no fd. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/* At most LIMIT bytes (the message is refused beyond that). */
int bus_message_wire_bytes(sd_bus_message *m, size_t limit, uint8_t **ret, size_t *ret_size);
