/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-call: how tinct's bus verbs call the daemon (verb-bus*.c, verb-doctor.c,
 * verb-virtual.c). The connection (opened once, by main, for the verbs that need it:
 * cli.h), method calls that log the daemon's D-Bus error (name and message), colormgr's
 * ID|PATH argument rule.
 *
 * A failed call returns a negative errno that says what kind of failure it was, so the
 * verb turns it into the exit status with bus_exit_status() (no state is kept between
 * calls): -ENOENT the daemon has no such object, -EACCES it (polkit) refused the caller,
 * -EHOSTUNREACH no daemon or no bus, anything else a plain failure. Each function that
 * fails has already logged why.
 *
 * Not here: reading properties into values (bus-properties.h), printing them (bus-print.h).
 * Deliberately not a client library: synchronous calls only, no signals, no caching. */
#pragma once

#include <systemd/sd-bus.h>

#include "cli.h"
#include "cm-names.h"

/* The exit status of a verb whose last step returned r: 0 for r >= 0, else the status of
 * cli.h the errno stands for (see above), else EXIT_FAILURE. */
int bus_exit_status(int r);

/* Opens the system bus ($DBUS_SYSTEM_BUS_ADDRESS when set); on failure logs why and
 * returns -EHOSTUNREACH. */
int bus_connect(sd_bus **ret);

/* Calls a method of the daemon (service CM_NAME). On failure logs
 * "<error name>: <message>" and returns a negative errno (see above). */
int bus_call(sd_bus *bus, const char *path, const char *iface, const char *member,
             sd_bus_message **ret_reply, const char *types, ...);
/* The same with a prepared message (for arguments such as string arrays). */
int bus_call_message(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply);
/* The same with a reply timeout other than sd-bus's 25 s (0: that default). */
int bus_call_message_timeout(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_message **ret_reply);
int bus_new_method_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                        sd_bus_message **ret);
/* Logs a reply that does not have the expected shape, or a message that could not be
 * built; returns r. */
int bus_log_parse_error(int r);
int bus_log_create_error(int r);

/* Reads the one object path of a reply into *ret_path (a copy); logs a reply of another shape. */
int bus_read_path(sd_bus_message *reply, char **ret_path);
/* bus_call_message() of a method answering one object path, read into *ret_path. */
int bus_call_message_path(sd_bus *bus, sd_bus_message *m, char **ret_path);
/* Calls a method answering one object path (Find*, Create*, GetStandardSpace...). */
int bus_call_path(sd_bus *bus, const char *path, const char *iface, const char *member,
                  char **ret_path, const char *types, ...);
/* Calls a method answering `ao`. */
int bus_call_paths(sd_bus *bus, const char *path, const char *iface, const char *member,
                   char ***ret_paths, const char *types, ...);

typedef enum BusObjectKind {
        BUS_OBJECT_DEVICE,
        BUS_OBJECT_PROFILE,
        BUS_OBJECT_SENSOR,
} BusObjectKind;

const char *bus_object_kind_interface(BusObjectKind kind);

/* colormgr's argument rule: a valid object path is used as it is, anything else is an id
 * resolved with FindDeviceById / FindProfileById / FindSensorById. */
int bus_resolve(sd_bus *bus, BusObjectKind kind, const char *arg, char **ret_path);
