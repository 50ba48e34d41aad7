/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the registry tells the bus after it has changed state: colord's signals, in
 * colord's order, on the bus of manager_signal_bus() (none before the start-up scan is
 * done). The registry and the sources call these; the vtables that answer calls are bus/'s. */
#pragma once

#include <stdbool.h>

#include "manager.h"

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
