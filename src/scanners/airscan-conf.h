/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure: the [devices] section of sane-airscan's configuration (airscan.conf and
 * the files in airscan.d): `"Name" = http://host:port/eSCL[, eSCL]` lines, the scanners a user
 * configured by address. sane-airscan lists such a scanner under that name whether or not
 * it answers, and never says its UUID, so the helper asks the URL itself (docs/scanners.md).
 * WSD entries and `disable` are skipped. No I/O, no logging. */
#pragma once

#include <stddef.h>

typedef struct AirscanDevice {
        char *name;
        char *url; /* as written, without a trailing slash */
} AirscanDevice;

/* Appends the eSCL devices of one file's text to *devices (*n_devices of them). */
int airscan_conf_parse(const char *text, AirscanDevice **devices, size_t *n_devices);
void airscan_devices_free(AirscanDevice *devices, size_t n);
