/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-client: what tinct's bus verbs (verb-bus*.c) share. The connection to the system bus
 * (opened once, by main, for the verbs that need it: cli.h), method calls that report the
 * daemon's D-Bus error (name and message) on stderr, colormgr's ID|PATH argument rule, and
 * an object's properties read into a small typed tree that prints as text or as JSON
 * (through src/shared/json.h's writer).
 *
 * Deliberately not a client library: synchronous calls only, no signals, no caching. Each
 * function that fails has already said why on stderr, so verbs only map r < 0 to exit 1. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#include "cli.h"
#include "json.h"
#include "macro.h"

/* The exit status for a verb's result: EXIT_FAILURE becomes one of the statuses above when
 * the last failed call says so; anything else is returned as it is. */
int bus_exit_status(int status);

#define CM_SERVICE "org.freedesktop.ColorManager"
#define CM_PATH "/org/freedesktop/ColorManager"
#define CM_IFACE "org.freedesktop.ColorManager"
#define CM_IFACE_DEVICE "org.freedesktop.ColorManager.Device"
#define CM_IFACE_PROFILE "org.freedesktop.ColorManager.Profile"
#define CM_IFACE_SENSOR "org.freedesktop.ColorManager.Sensor"

/* ---- holding something until Ctrl-C (device-inhibit, sensor-lock) -------------------- */

/* A number of seconds (0..INT32_MAX, decimal); -EINVAL otherwise. */
int parse_seconds(const char *s, unsigned long *ret);
/* Blocks SIGINT and SIGTERM (*mask), before the call that takes something, so a signal
 * arriving early is not lost. Prints the error. */
int block_interrupts(sigset_t *mask);
/* Waits for one of the signals in *mask, or seconds (0: no time limit). */
int hold_until_signal(const sigset_t *mask, unsigned long seconds);

/* ---- calls ---------------------------------------------------------------------------- */

/* Opens the system bus ($DBUS_SYSTEM_BUS_ADDRESS when set); on failure prints why, and the
 * exit status becomes EXIT_UNREACHABLE. */
int bus_connect(sd_bus **ret);

/* Calls a method of the daemon (service CM_SERVICE). On failure prints
 * "tinct: <error name>: <message>" and returns a negative errno. */
int bus_call(sd_bus *bus, const char *path, const char *iface, const char *member,
             sd_bus_message **ret_reply, const char *types, ...);
/* The same with a prepared message (for arguments such as string arrays). */
int bus_call_message(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply);
int bus_new_method_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                        sd_bus_message **ret);
/* Reports a reply that does not have the expected shape; returns r. */
int bus_log_parse_error(int r);
int bus_log_create_error(int r);

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

/* ---- values and objects --------------------------------------------------------------- */

typedef enum BusValueType {
        BUS_VALUE_STRING,   /* s, o, g */
        BUS_VALUE_BOOLEAN,  /* b */
        BUS_VALUE_SIGNED,   /* n, i, x, h */
        BUS_VALUE_UNSIGNED, /* y, q, u, t */
        BUS_VALUE_DOUBLE,   /* d */
        BUS_VALUE_ARRAY,    /* arrays other than dictionaries, and structs */
        BUS_VALUE_DICT,     /* a{..}: keys sorted, so output does not depend on send order */
} BusValueType;

typedef struct BusValue BusValue;
struct BusValue {
        BusValueType type;
        char *string;
        bool boolean;
        int64_t i;
        uint64_t u;
        double d;
        char **keys;      /* BUS_VALUE_DICT: n keys (basic keys are turned into strings) */
        BusValue **items; /* BUS_VALUE_ARRAY: n items; BUS_VALUE_DICT: the value of keys[i] */
        size_t n;
};

BusValue *bus_value_free(BusValue *v);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusValue *, bus_value_free);
/* Reads the next complete value of m; variants are unwrapped. */
int bus_value_read(sd_bus_message *m, BusValue **ret);
/* NULL unless dict is a BUS_VALUE_DICT holding key. */
const BusValue *bus_value_get(const BusValue *dict, const char *key);
/* The string value of dict[key], or NULL when absent or not a string. */
const char *bus_value_get_string(const BusValue *dict, const char *key);
void bus_value_write_json(const BusValue *v, JsonWriter *w);

typedef struct BusObject {
        char *path;
        BusValue *properties; /* BUS_VALUE_DICT: property name → value (GetAll) */
} BusObject;

BusObject *bus_object_free(BusObject *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusObject *, bus_object_free);
int bus_object_get(sd_bus *bus, BusObjectKind kind, const char *path, BusObject **ret);

/* Text: "Object Path: PATH" then one "  Name: value" line per property (arrays and
 * dictionaries continue on the following lines, aligned). */
void bus_object_print_text(const BusObject *o, FILE *f);
/* JSON: {"object_path": PATH, "<Property>": value, ...}. Lower-case keys are tinct's own,
 * capitalised ones are D-Bus property names. */
void bus_object_write_json(const BusObject *o, JsonWriter *w);
/* Finishes a JSON document on stdout; prints the error and returns it on failure. */
int bus_json_finish(JsonWriter *w);

/* Fetches and prints one object: text block, or a JSON document with the object itself. */
int bus_print_object(sd_bus *bus, BusObjectKind kind, const char *path, bool json);
/* Fetches and prints objects: text blocks separated by blank lines, or the JSON document
 * {"<list_key>": [objects...]}. */
int bus_print_objects(sd_bus *bus, BusObjectKind kind, char *const *paths, const char *list_key,
                      bool json);
