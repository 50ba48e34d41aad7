/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verification results kept in the store (docs/verify.md): a client's result arrives as
 * Metadata keys (verify-keys.h), the date last; when the date arrives the whole result is
 * recorded in the store, and when a device appears (a display is made anew at every start)
 * its newest results are filled in again as the same keys. In the device's layer, as its
 * mappings (device_mapping_layer()): what a user records on their own device (the session's
 * displays are that user's temp devices) comes back on that user's devices only; the
 * system's on everyone's.
 *
 * Not here: the bus method (device-dbus.c), the table (src/store/store-verify.c). */
#pragma once

#include "device.h"
#include <systemd/sd-bus.h>

/* Before SetProperty(key, value) changes d: for a verification key, refuses (error set) when
 * the store cannot take it (read-only), and for the date key records the result made of
 * value and the other keys d holds. An incomplete or malformed result is not recorded
 * (logged) and the change goes ahead, as for any metadata. 0 or a negative errno. */
int device_verify_record(Device *d, const char *key, const char *value, sd_bus_error *error);

/* Fills in the keys of the newest stored result of each source that d does not hold yet.
 * Failures are logged: the device comes up without them. */
void device_verify_restore(Device *d);
