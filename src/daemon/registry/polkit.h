/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asynchronous authorization (colord §12.2, done without blocking: colord §16.19). uid 0, the
 * daemon's own uid and a caller on its own temp objects pass at once; anyone else is
 * checked with polkit's CheckAuthorization, and the method continues when the answer
 * arrives. No authority, an error or no answer
 * within the timeout means "denied", with colord's error in the method's domain. */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "client.h"
#include "manager.h"

/* Runs the rest of a method once the caller is authorized. The message is rewound, so the
 * continuation reads the arguments from the start. It replies itself on success; on a
 * negative return the error (or errno) is sent as the reply. */
typedef int (*AuthContinuation)(sd_bus_message *msg, Manager *m, Client *caller, sd_bus_error *error);

/* Returns what an sd-bus method handler returns: the continuation's result when decided
 * at once, 1 when the answer comes later, or a negative errno with *error set. */
int polkit_authorize(Manager *m, sd_bus_message *msg, const char *action, BusDomain domain,
                     AuthContinuation cont, sd_bus_error *error);

/* The same, except that a caller acting on its own temp object is not asked at all: such an
 * object lives only while its creator is connected and is seen by nobody else as theirs, so
 * a session in any seat, local or remote (xrdp, VNC), manages its own without a password
 * prompt (docs/compatibility.md row 50). owner POLKIT_CALLER: the object is being created by
 * the caller (CreateDevice/CreateProfile with scope temp). */
#define POLKIT_CALLER ((uid_t) -1)
int polkit_authorize_object(Manager *m, sd_bus_message *msg, const char *action, BusDomain domain, bool temp,
                            uid_t owner, AuthContinuation cont, sd_bus_error *error);

/* Cancels every pending check (daemon shutdown). */
void polkit_cancel_all(Manager *m);
