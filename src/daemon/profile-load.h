/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading ICC bytes for a profile object: from a client's fd, from a named file, or from
 * a file the daemon found itself. Bytes are copied, never mapped, so a client that later
 * truncates its file cannot crash the daemon (colord §16.24). */
#pragma once

#include <stdbool.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "profile.h"

/* Both set Profile.FailedToRead / FileInvalid errors on failure. */
int profile_load_fd(Profile *p, int fd, sd_bus_error *error);
/* The daemon opens a client-named path only for privileged callers or inside the profile
 * directories, so it cannot be used to probe files (colord §16.23). */
int profile_load_filename(Profile *p, const char *filename, bool privileged, sd_bus_error *error);

/* From bytes in memory (a disk profile's stored copy); takes ownership of data. */
int profile_load_data(Profile *p, uint8_t *data, size_t size, sd_bus_error *error);

