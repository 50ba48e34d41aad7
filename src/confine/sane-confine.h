/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SANE helper's confinement (docs/scanners.md): it loads vendors' backends, so it runs
 * as nobody (started as root) with only the `scanner` group, which SANE's udev rules give
 * the scanners' device nodes; no capabilities, no new privileges, not dumpable, no core
 * files, no file writes, a memory limit, and it dies with the daemon. No seccomp filter:
 * SANE backends use too wide and varied a set of system calls (USB, threads, sockets) for
 * an allow-list to hold. The network stays open: network scanners are the point.
 * A helper of its own unit (tinct-sane-list@.service) is not the daemon's child: it does
 * not die with the daemon, its own time limit and the unit's bound it instead. */
#pragma once

#include <stdbool.h>

/* daemon_child: started by tinctd (it dies with it), not by systemd on its socket.
 * Returns 0, or a negative errno with *ret_step naming what failed (static string). */
int sane_confine(bool daemon_child, const char **ret_step);
