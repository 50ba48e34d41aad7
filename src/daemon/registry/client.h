/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who is calling: the identity of a bus client (uid and pid from the bus, seat and command
 * line from logind and /proc), looked up once per connection and kept until it leaves the
 * bus (manager_client_vanished()). Every permission check and the OwnerCmdline metadata
 * property starts here. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

typedef struct Manager Manager;

/* What the bus tells us about a client connection, cached per unique name. */
typedef struct Client {
        char *name;
        uid_t uid;
        pid_t pid;
        bool watched; /* owns temp objects, inhibits or locks: clean up when it leaves */
        /* Set by polkit.c just before it runs a continuation, for that call only: true when the
         * caller is root, the daemon or was authorized by polkit; false when it was let through
         * without a check on its own temp object (row 50). Its choices then go to its own
         * layer of mappings, never the system's (docs/compatibility.md row 64). */
        bool authorized;
        /* Read from /proc and logind at the first CreateDevice, then kept: a connection's
         * process does not change, and the lookups cost more than the rest of the call. */
        bool process_known;
        char *seat, *cmdline;
} Client;

/* The caller of msg, from the cache or asked of the bus once (uid, pid). */
int manager_get_client(Manager *m, sd_bus_message *msg, Client **ret);
/* Fills seat and cmdline, once. */
void client_read_process(Client *c);
void client_free(Client *c);
