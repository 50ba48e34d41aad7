/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CUPS queues as devices (docs/printers.md): every queue cupsd has becomes cups-<queue>
 * with the properties cupsd itself would send (colord §9.5), also those cupsd does not
 * register (queues without a PPD, temporary queues), and goes when the queue goes. cupsd is
 * asked with CUPS-Get-Printers over its local socket (cups-ipp.h), at start, when its D-Bus
 * notifier signals a change (cups-notify.h), and every CUPS_SAFETY_POLL_SEC (--cups-poll) in
 * case a signal was lost; every CUPS_POLL_SEC while there is no subscription. Never a duplicate: a device cupsd (or anyone) made for the id first is left
 * alone, and when cupsd registers a queue whose device tinct made, CreateDevice hands that
 * device over to cupsd in place (DeviceSourceVTable.handed_over). --no-cups turns it off. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "device-source.h"

#define CUPS_POLL_SEC 2
#define CUPS_SAFETY_POLL_SEC 60
#define CUPS_NOTIFY_DELAY_USEC 100000ULL /* a signal's burst makes one listing */
#define CUPS_CALL_TIMEOUT_SEC 10

typedef struct CupsWatch CupsWatch;

/* The source (device-source.h), whose entries do this. start: */
/* Starts following cupsd (CUPS_SERVER or the default socket); the first answer comes later
 * on the event loop. A CUPS_SERVER tinct cannot use is logged and leaves it off. */
/* yields_to_client: */
/* Whether d is a device the source made and still owns. */
/* handed_over: */
/* cupsd's own CreateDevice for d's id: the device is cupsd's from now on (the caller makes
 * it the creator's). */
/* choice_stored: */
/* A hard choice on d: kept under the printer's identity too, when d
 * has one (PRINTER_identity), so that the same printer under another queue gets it back. */
/* device_removed: */
/* Called by manager_remove_device() before a device is freed. */
extern const DeviceSourceVTable cups_source;
CupsWatch *cups_watch_free(CupsWatch *w);

/* The command line's settings of the CUPS source (tinctd --help). */
typedef struct CupsConfig {
        bool off;                       /* --no-cups: printers are not followed */
        uint64_t poll_usec;             /* --cups-poll: cupsd's queues listed while notified; 0: default */
        uint64_t lease_usec;            /* --cups-lease: of the notifier's subscription; 0: default */
        char *fetch_helper;             /* --fetch-helper: spawn tinct-fetch, else its socket (cups-fetch.h) */
} CupsConfig;

void cups_config_done(CupsConfig *c);
