/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cupsd's D-Bus notifier as the trigger to list the queues again (docs/printers.md): an IPP
 * subscription (Create-Printer-Subscriptions, notify-recipient-uri dbus://) makes cupsd
 * start its dbus notifier, which sends PrinterAdded, PrinterDeleted and PrinterModified
 * (interface org.cups.cupsd.Notifier) on the system bus when a queue changes, and
 * ServerStarted or ServerRestarted when cupsd starts again or reloads. Anyone may
 * send such a signal: it only makes the source ask cupsd sooner, never changes a device by
 * itself. The subscription has a lease and is renewed at half of it; when cupsd stops
 * answering it is forgotten and made again once cupsd answers. tinctd holds one: once
 * subscribed it cancels the earlier ones of its own (a killed tinctd's, found with
 * Get-Subscriptions), and it cancels its own when freed, waiting at most 2 s for cupsd. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "cups-ipp.h"

#define CUPS_LEASE_SEC 3600 /* the default of --cups-lease */

typedef struct CupsNotify CupsNotify;
/* A signal came: list the queues again. */
typedef void (*CupsNotifyPoke)(void *userdata);

/* Watches the signals on bus (when not NULL); subscribes with cupsd at server (which must
 * outlive it) from the first cups_notify_cupsd_answers(true) on, for lease_sec (renewed at
 * half). */
int cups_notify_new(sd_event *event, sd_bus *bus, const CupsServer *server, const char *server_name,
                    int32_t lease_sec, CupsNotifyPoke poke, void *userdata, CupsNotify **ret);
/* Cancels the subscription with cupsd first (blocking, bounded): call it once the loop ended. */
CupsNotify *cups_notify_free(CupsNotify *n);

/* After each listing: whether cupsd answered. */
void cups_notify_cupsd_answers(CupsNotify *n, bool answers);
/* Whether cupsd has our subscription now, so that polling can be slow. */
bool cups_notify_subscribed(const CupsNotify *n);
/* Whether a subscription is being made: its outcome, either way, pokes. */
bool cups_notify_subscribing(const CupsNotify *n);
