/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus-side entry points shared between the model files and the vtable files: object
 * registration and the signal helpers the model calls after it has changed state. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "manager.h"

extern const sd_bus_vtable manager_vtable[];
extern const sd_bus_vtable device_vtable[];
extern const sd_bus_vtable profile_vtable[];
extern const sd_bus_vtable sensor_vtable[];

/* Installs every vtable, the node enumerators and the NameOwnerChanged match. */
int manager_bus_register(Manager *m);

/* Manager-interface signal with one object-path argument (DeviceAdded, ...). */
void manager_emit_path_signal(Manager *m, const char *member, const char *path);

/* After a relation or inhibitor change: PropertiesChanged(Profiles[, Modified], extra...),
 * Device.Changed and the manager's DeviceChanged — in colord's order (colord §3.2). */
void device_emit_relations_changed(Device *d, bool modified, const char *extra_property);
/* PropertiesChanged for the listed device properties only (NULL-terminated). */
void device_emit_properties(Device *d, const char *first, ...);

/* PropertiesChanged(prop) and, unless only metadata changed, Profile.Changed and the
 * manager's ProfileChanged (colord §4.2). */
void profile_emit_property_changed(Profile *p, const char *property);

void sensor_emit_properties(Sensor *s, const char *first, ...);
