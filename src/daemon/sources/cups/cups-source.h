/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CUPS queues as devices (docs/printers.md): every queue cupsd has becomes cups-<queue>
 * with the properties cupsd itself would send (colord §9.5), also those cupsd does not
 * register (queues without a PPD, temporary queues), and goes when the queue goes. cupsd is
 * asked with CUPS-Get-Printers over its local socket (cups-ipp.h), at start, when its D-Bus
 * notifier signals a change (cups-notify.h), and every CUPS_SAFETY_POLL_SEC (--cups-poll) in
 * case a signal was lost; every CUPS_POLL_SEC while there is no subscription. Never a duplicate: a device cupsd (or anyone) made for the id first is left
 * alone, and when cupsd registers a queue whose device tinct made, CreateDevice hands that
 * device over to cupsd in place (cups_source_hand_over). --no-cups turns it off. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "manager.h"

#define CUPS_POLL_SEC 2
#define CUPS_SAFETY_POLL_SEC 60
#define CUPS_NOTIFY_DELAY_USEC 100000ULL /* a signal's burst makes one listing */
#define CUPS_CALL_TIMEOUT_SEC 10

typedef struct CupsWatch CupsWatch;

/* Starts following cupsd (CUPS_SERVER or the default socket); the first answer comes later
 * on the event loop. A CUPS_SERVER tinct cannot use is logged and leaves it off. */
int cups_discovery_start(Manager *m);
CupsWatch *cups_watch_free(CupsWatch *w);

/* Whether d is a device the source made and still owns. */
bool cups_source_owns(Manager *m, const Device *d);
/* cupsd's own CreateDevice for d's id: the device is cupsd's from now on (the caller makes
 * it the creator's). */
void cups_source_hand_over(Manager *m, Device *d);
/* A hard choice on d (set) or its removal: kept under the printer's identity too, when d
 * has one (PRINTER_identity), so that the same printer under another queue gets it back. */
void cups_identity_store_choice(Manager *m, const Device *d, const char *profile_id, uint64_t timestamp, bool set);

/* Called by manager_remove_device() before a device is freed. */
void cups_device_removed(Manager *m, Device *d);
