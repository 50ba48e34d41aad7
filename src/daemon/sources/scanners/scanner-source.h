/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scanners from SANE (docs/scanners.md): SANE's local scanners as `sane-<model>` devices
 * (colord §9.1) and sane-airscan's eSCL network scanners as `escl-<uuid>`. The listing is
 * done by tinct-sane-list, a confined helper process started afresh for every rescan and
 * read from the event loop, never by the daemon itself: SANE backends are slow, can hang
 * and are vendors' code. A helper that does not finish in time is killed and the devices
 * stay as they were. A rescan runs at start (without holding up the bus name), after
 * udev usb/scsi events (debounced), and on demand (scanner-dbus.c), at most
 * LIMIT_SCANNER_RESCANS_PER_MINUTE a minute whoever asks. What the listing no
 * longer has is removed; stored mappings stay in the store, so a scanner that comes back
 * gets its profiles again. It never creates a device for a USB scanner udev already gave
 * one (udev.c's `sysfs-…` device wins). Off with --no-udev or --sysfs-root (those are
 * not this machine's devices) unless --sane-discovery. */
#pragma once

#include "cm-names.h"
#include "device-source.h"

typedef struct ScannerSource ScannerSource;

/* The command line's settings of the scanner source (tinctd --help). */
typedef struct ScannerConfig {
        bool discovery;                 /* on unless --no-udev or --sysfs-root, or with --sane-discovery */
        bool test_devices;              /* --sane-test-devices: SANE's vendor-Noname devices too */
        char *helper;                   /* tinct-sane-list, spawned as a child */
        char *socket;                   /* --sane-socket: tinct-sane-list's socket unit instead */
        uint64_t timeout_usec;          /* --sane-timeout */
} ScannerConfig;

void scanner_config_done(ScannerConfig *c);

typedef struct ScanResult {
        int error;               /* 0, or why the listing failed (devices unchanged) */
        const char *message;     /* the failure, for the caller */
        unsigned n_scanners;     /* devices of ours after the rescan */
        char **unanswered;       /* name, reason, name, reason, … (scanners that did not answer) */
} ScanResult;

typedef void (*ScanDone)(const ScanResult *result, void *userdata);

/* The source (device-source.h). start: registers the bus object and starts the first
 * rescan. hotplug: udev saw a device come or go (usb, scsi: SANE's scanners hang off them),
 * rescan soon (bursts give one rescan). device_removed: DeleteDevice on ours. */
extern const DeviceSourceVTable scanner_source;

ScannerSource *scanner_source_free(ScannerSource *s);
/* The registry it adds its devices to. */
Manager *scanner_source_manager(const ScannerSource *s);

/* done(result, userdata) is called with the result of the listing that runs at this call,
 * else of one started now, else (LIMIT_SCANNER_RESCANS_PER_MINUTE started in the last
 * minute) of the last one, at once, or, when udev saw a change since, of the next one the
 * bound allows. -EBUSY when too many callers wait. */
int scanner_source_rescan(ScannerSource *s, ScanDone done, void *userdata);

/* The D-Bus side (scanner-dbus.c). */
int scanner_dbus_register(ScannerSource *s, sd_bus *bus, sd_bus_slot **ret_slot);
