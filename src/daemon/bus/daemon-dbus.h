/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bus objects' vtables (bus/, the *-dbus.c files) and their registration (bus-register.c), for
 * main.c; the signals the registry emits are signals.h's. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "manager.h"
#include "signals.h" /* what the model emits after it changed */

extern const sd_bus_vtable manager_vtable[];
extern const sd_bus_vtable device_vtable[];
extern const sd_bus_vtable profile_vtable[];
extern const sd_bus_vtable sensor_vtable[];

/* Installs every vtable, the node enumerators and the NameOwnerChanged match. */
int manager_bus_register(Manager *m);
