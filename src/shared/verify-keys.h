/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device Metadata keys of a verification result (docs/verify.md): one key per figure
 * under a prefix, VERIFY_KEYS_LAST for the latest `tinct verify`, VERIFY_KEYS_PROFILED for
 * the calibration helper's check right after profiling. Clients write the date key last: when
 * it arrives, the daemon records the whole result in its store (src/daemon/registry/device-verify.c),
 * and fills the keys in again on the device after a restart. Doctor reads them. */
#pragma once

#define VERIFY_KEYS_LAST "TINCT_verify_"
#define VERIFY_KEYS_PROFILED "TINCT_profiled_"

/* The suffixes, in the order clients write them: the date last. */
#define VERIFY_KEY_MEAN "dE2000_mean"
#define VERIFY_KEY_MAX "dE2000_max"
#define VERIFY_KEY_PROFILE "profile"
#define VERIFY_KEY_PATCHES "patches"
#define VERIFY_KEY_DATE "date"
#define VERIFY_N_KEYS 5u
