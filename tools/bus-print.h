/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-print: values and daemon objects as text (colormgr's layout) or JSON (docs/json.md),
 * as systemd's bus-print-properties prints apart from its call helpers. Not here: the calls
 * (bus-call.h), reading values (bus-properties.h). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "bus-properties.h"
#include "json.h"

void bus_value_write_json(const BusValue *v, JsonWriter *w);

/* Text: "Object Path: PATH" then one "  Name: value" line per property (arrays and
 * dictionaries continue on the following lines, aligned). */
void bus_object_print_text(const BusObject *o, FILE *f);
/* JSON: {"object_path": PATH, "<Property>": value, ...}. Lower-case keys are tinct's own,
 * capitalised ones are D-Bus property names. */
void bus_object_write_json(const BusObject *o, JsonWriter *w);
/* Finishes a JSON document on stdout; logs the error and returns it on failure. */
int bus_json_finish(JsonWriter *w);

/* Fetches and prints one object: text block, or a JSON document with the object itself. */
int bus_print_object(sd_bus *bus, BusObjectKind kind, const char *path, bool json);
/* Fetches and prints objects: text blocks separated by blank lines, or the JSON document
 * {"<list_key>": [objects...]}. */
int bus_print_objects(sd_bus *bus, BusObjectKind kind, char *const *paths, const char *list_key,
                      bool json);
