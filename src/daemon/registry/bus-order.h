/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each client's calls are answered in the order it made them, as colord's single loop answers
 * them, while the loop goes on serving every other connection (docs/compatibility.md,
 * "Replies in each client's order"). mutter pipelines CreateProfileWithFd for each profile and
 * then CreateDevice, and counts on the profiles being there when the device comes.
 *
 * The rule, kept at the bus edge for every method: a call that is answered later (its handler
 * returns without replying: a parse, polkit, a sensor reading, a rescan) is kept with
 * bus_call_keep(). Until it is freed, that sender's later method calls wait in a queue of
 * their own, and so does the bus's NameOwnerChanged that says the sender left (its calls came
 * before it). When the kept call is freed, after its reply, the waiting messages go back to
 * sd-bus's read queue one at a time and are dispatched as if they had just arrived: a call
 * answered at once lets the next one go, one kept again holds the rest.
 *
 * Not here: any order between two connections, or of signals that no call caused. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef struct BusOrder BusOrder;

/* Installs the filter on bus (before any object is registered: filters run before objects). */
int bus_order_new(sd_bus *bus, sd_event *event, BusOrder **ret);
/* Drops the waiting messages unanswered (the daemon is exiting). */
BusOrder *bus_order_free(BusOrder *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusOrder *, bus_order_free);

/* A method call whose reply is sent later. msg is the call (referenced); reply to it, then
 * free the BusCall (also when no reply will be sent: the sender left, the daemon exits). */
typedef struct BusCall {
        BusOrder *order;
        sd_bus_message *msg;
} BusCall;

/* Keeps msg, the call being dispatched or one kept already (a continuation that keeps it
 * again), so that its sender's later calls wait for it. NULL when out of memory. */
BusCall *bus_call_keep(BusOrder *o, sd_bus_message *msg);
BusCall *bus_call_free(BusCall *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(BusCall *, bus_call_free);

/* Runs for each method call just before sd-bus dispatches it (its sender has nothing kept).
 * It returns 0 to go on, or 1 when it kept the call (bus_call_keep()) to dispatch it later with
 * bus_call_redispatch(): a call that needs something computed first (a property the loop must
 * not compute itself) waits for it without anyone else waiting. */
typedef int (*BusPrepare)(sd_bus_message *msg, void *userdata);
void bus_order_set_prepare(BusOrder *o, BusPrepare prepare, void *userdata);
/* Dispatches the kept call again, before its sender's later calls, and frees c. */
void bus_call_redispatch(BusCall *c);
