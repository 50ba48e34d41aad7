/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading ICC bytes for a profile object: from a client's fd, from a named file, or from
 * a file the daemon found itself. Bytes are copied, never mapped, so a client that later
 * truncates its file cannot crash the daemon (colord §16.24). */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "profile.h"

typedef struct ProfileLoad ProfileLoad;

/* Read a client's bytes (Profile.FailedToRead on failure); *ret_data is the caller's. */
int profile_read_fd(int fd, uint8_t **ret_data, size_t *ret_size, sd_bus_error *error);
/* The daemon opens a client-named path only for privileged callers or inside the profile
 * directories, so it cannot be used to probe files (colord §16.23). */
int profile_read_filename(Manager *m, const char *filename, bool privileged, uint8_t **ret_data, size_t *ret_size,
                          sd_bus_error *error);

/* From bytes in memory (a disk profile's stored copy), waiting for the parser (start-up);
 * takes ownership of data. */
int profile_load_data(Profile *p, uint8_t *data, size_t size, sd_bus_error *error);

/* The rest of a bus call once its profile's bytes are parsed into *p. It replies itself on
 * success and may take *p (set it NULL); on a negative return the error (or errno) is sent
 * as the reply. */
typedef int (*ProfileLoadContinuation)(sd_bus_message *msg, Manager *m, Profile **p, void *userdata,
                                       sd_bus_error *error);

/* Parses data (taken) for the call msg in a parser process while the loop serves others,
 * then applies the facts to p (taken) and runs cont, or answers Profile.FailedToRead.
 * userdata is freed with free_userdata in any case. At most LIMIT_PENDING_LOADS calls wait
 * at once, LIMIT_PENDING_LOADS_PER_UID of one user: more are refused at once, so one user
 * sending slow files cannot make everyone else wait. Returns 1 (the answer comes later) or
 * a negative errno with error set. */
int profile_load_async(Profile *p, uint8_t *data, size_t size, sd_bus_message *msg, uid_t uid,
                       ProfileLoadContinuation cont, void *userdata, void (*free_userdata)(void *),
                       sd_bus_error *error);
/* Drops every waiting call without an answer (daemon shutdown). */
void profile_load_cancel_all(Manager *m);
