/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Marshalling helpers shared by the vtable files. */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-errors.h"
#include "strmap.h"

int bus_append_strmap(sd_bus_message *m, const StrMap *map);
/* Reads a{ss}, enforcing colord's key/value length limits and our entry bound; a limit
 * violation sets InputInvalid in `domain` (colord §3.3). */
int bus_read_strmap(sd_bus_message *m, StrMap *ret, BusDomain domain, sd_bus_error *error);
/* Reads "as" into ret[0..max) without copying (the strings live as long as the message)
 * and NULL-terminates it: ret has room for max + 1. -E2BIG beyond max entries. */
int bus_read_string_array(sd_bus_message *m, const char **ret, size_t max, size_t *ret_n);
/* Checks one property key/value against the length limits. */
int bus_check_property(const char *key, const char *value, BusDomain domain, sd_bus_error *error);
/* The error of a polkit continuation whose object went away while polkit answered:
 * UnknownObject naming `what` ("device", "profile") and the message's path. */
int bus_error_object_gone(sd_bus_message *m, const char *what, sd_bus_error *error);
