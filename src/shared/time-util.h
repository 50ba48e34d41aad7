/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Time in microseconds from one clock the caller names: CLOCK_MONOTONIC for deadlines and
 * durations, CLOCK_REALTIME for timestamps a client sees (Created, Modified). The clock is
 * always explicit, so two helpers of the same name can no longer mean two clocks. */
#pragma once

#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC 1000000ULL
#define USEC_PER_MSEC 1000ULL

/* The clock's time in µs. Every clock the tree uses (monotonic, realtime, boottime) always
 * answers on Linux, so a failure is a programming error (a bad clock id): asserted. */
uint64_t now(clockid_t clock);
