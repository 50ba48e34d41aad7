/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device sources: where the registry's devices come from besides clients and the store
 * (CUPS queues, SANE and eSCL scanners, displays, udev devices and sensors; one folder each
 * under sources/). The registry knows them only through this table of functions, as
 * systemd's manager knows its unit types only through UnitVTable: it starts them in the
 * order startup.c lists them, tells them what became of their devices, asks them the
 * questions below and stops them. Nothing in the registry or the bus objects names a
 * source; a new one is a folder under sources/ and one line in startup.c.
 *
 * Not here: the bus objects of its devices (the one fallback vtable in bus/ serves them all),
 * a source's own bus object (it registers that itself, as the scanners' Rescan). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "manager.h"

typedef struct DeviceSourceVTable {
        /* For the log. */
        const char *name;
        /* Makes the devices there now, or starts asking for them, and follows their changes,
         * as its own settings say (`config`: the source's, parsed by main.c, kept as long as
         * the source runs; NULL for a source without settings of its own). *ret_state is set
         * as soon as there is state to free (stop() frees it even after a failure); left
         * NULL when the source is switched off. A failure is logged here, and the daemon
         * runs on without the source. */
        int (*start)(Manager *m, const void *config, void **ret_state);
        /* Frees the state. Its devices stay in the registry, which frees them itself. */
        void (*stop)(void *state);

        /* Optional, each of them. */

        /* udev saw a device of this subsystem come or go: what the source sees may have
         * changed (SANE's scanners hang off usb and scsi). */
        void (*hotplug)(void *state, const char *subsystem);
        /* One of the registry's devices is being removed (a client's DeleteDevice, its
         * creator left, the source itself removed it): forget it before it is freed. */
        void (*device_removed)(void *state, Device *d);
        /* The id of the device a client's lookup of `id` means, when `id` is no device's own
         * (identical monitors get "<plain>-<connector>", the plain id names the first);
         * NULL when it means nothing to this source. */
        const char *(*alias_target)(void *state, const char *id);
        /* Whether `d` is this source's and a client's CreateDevice of its id takes it over
         * (cupsd registering its own queue) instead of being refused as a duplicate. */
        bool (*yields_to_client)(void *state, const Device *d);
        /* That client has taken `d` over: it is no longer the source's to remove. */
        void (*handed_over)(void *state, Device *d);
        /* An authorized hard choice of `profile_id` for `d` was stored under d's id; the
         * source may keep it under its own identity of the thing too (a printer's choice
         * follows the printer to its next queue). */
        void (*choice_stored)(void *state, const Device *d, const char *profile_id, uint64_t timestamp);
        /* Whether a profile id is the source's own and refused to every client's CreateProfile
         * (printers' vendor profiles: their ids can be computed before tinct asks the
         * printer). Asked of every source, running or not: the ids stay reserved. */
        bool (*profile_id_reserved)(const char *id);
} DeviceSourceVTable;

/* A source to start, with its settings. */
typedef struct DeviceSourceSetup {
        const DeviceSourceVTable *vtable;
        const void *config;
} DeviceSourceSetup;

/* One running source, in the Manager's table. */
typedef struct DeviceSource {
        const DeviceSourceVTable *vtable;
        void *state;
} DeviceSource;

/* Starts each of the n sources, in their order (a later one may rely on an earlier one's
 * devices). One that fails is logged by itself and left out. */
int manager_start_sources(Manager *m, const DeviceSourceSetup *sources, size_t n);
/* Stops them all, in the order they started (manager_free()). */
void manager_stop_sources(Manager *m);

/* What a source's own code uses to find its state again: NULL when it is not running. */
void *manager_source_state(Manager *m, const DeviceSourceVTable *vtable);

/* The registry's questions and news, put to every running source. */
void manager_sources_hotplug(Manager *m, const char *subsystem);
void manager_sources_device_removed(Manager *m, Device *d);
const char *manager_sources_alias_target(Manager *m, const char *id);
/* The source that yields `d` to a client's CreateDevice, or NULL. */
DeviceSource *manager_source_yielding(Manager *m, const Device *d);
void manager_sources_choice_stored(Manager *m, const Device *d, const char *profile_id, uint64_t timestamp);
/* Whether any source, running or not, keeps this profile id for itself. */
bool manager_sources_reserve_profile_id(Manager *m, const char *id);
