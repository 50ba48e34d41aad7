/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hold: holding something until Ctrl-C or for a number of seconds (device-inhibit,
 * sensor-lock). Not here: the calls that take and release it (bus-call.h). */
#pragma once

#include <signal.h>

/* A number of seconds (0..INT32_MAX, decimal); -EINVAL otherwise. */
int parse_seconds(const char *s, unsigned long *ret);
/* Blocks SIGINT and SIGTERM (*mask), before the call that takes something, so a signal
 * arriving early is not lost. Logs the error. */
int block_interrupts(sigset_t *mask);
/* Waits for one of the signals in *mask, or seconds (0: no time limit). */
int hold_until_signal(const sigset_t *mask, unsigned long seconds);
