/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A profile's Warnings (colord §4.7) take several colour transforms: about a millisecond per
 * profile, nearly all of a cold start at 5000 profiles. So the startup scan registers
 * profiles without them. They are computed when first asked for (the Warnings property,
 * automatic assignment of EDID profiles), or by a background pass at idle priority (in a
 * parser process, asynchronously), and then cached with the file's other facts, so a warm
 * start has them all. Clients' profiles get theirs with their load (profile-load.c). */
#pragma once

#include "profile.h"

/* The profile's warnings, or NULL while they are not known: the loop never computes them
 * itself (docs/sandbox.md). A file that cannot be read any more has none. */
char *const *profile_warnings(Profile *p);

/* Has them computed now (in a parser process) unless known or under way; the manager hears
 * when they are (manager_profile_warnings_known()). waiter, when not NULL, is a call kept
 * until then and dispatched again after (bus-order.h). Returns 1 when waiter waits. */
struct BusCall;
int profile_warnings_request(Profile *p, struct BusCall *waiter);

/* The bus-order prepare hook (bus-order.h): a Properties.Get of Warnings or a GetAll of a
 * profile whose warnings are not known waits for them (only that caller waits). */
int profile_warnings_prepare(sd_bus_message *msg, void *userdata);

/* Called when a profile joins or leaves the registry: one without warnings is queued for
 * the background pass. */
void profile_warnings_queue(Profile *p);
void profile_warnings_dequeue(Profile *p);

/* Frees the background pass's event source. */
void profile_warnings_shutdown(Manager *m);
