/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-properties: reading D-Bus values into a small typed tree (BusValue), and a daemon
 * object's properties (GetAll) into one, as systemd's bus-map-properties reads them apart
 * from its call helpers. Not here: the calls (bus-call.h), printing (bus-print.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "bus-call.h"
#include "macro.h"

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

typedef struct BusObject {
        char *path;
        BusValue *properties; /* BUS_VALUE_DICT: property name → value (GetAll) */
} BusObject;

BusObject *bus_object_free(BusObject *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusObject *, bus_object_free);
/* GetAll of the kind's interface; a failure is logged and returned as bus-call.h says. */
int bus_object_get(sd_bus *bus, BusObjectKind kind, const char *path, BusObject **ret);
