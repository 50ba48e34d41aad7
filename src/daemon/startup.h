/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Start-up (startup.c): what the daemon has before the bus name is taken, and the sources'
 * own settings, which main.c parses from the command line and start-up hands each source.
 * The registry never looks inside them. */
#pragma once

#include "cups-source.h"
#include "manager.h"
#include "scanner-source.h"
#include "sensor-dummy.h"

typedef struct SourcesConfig {
        CupsConfig cups;
        ScannerConfig scanners;
        DummySensorConfig dummy_sensor;
} SourcesConfig;

/* Frees what the settings own; a cleanup function for a SourcesConfig on the stack. */
void sources_config_done(SourcesConfig *c);

/* Loads profiles, restores disk devices, starts the device sources, makes the dummy sensor;
 * call before taking the bus name so the first answer is already complete. `sources` must
 * stay as long as the Manager does. */
int manager_startup(Manager *m, const SourcesConfig *sources);
