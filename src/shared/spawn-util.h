/* SPDX-License-Identifier: GPL-2.0-or-later */
/* posix_spawn attributes for the daemon's child processes (the parser, spotread, the SANE
 * helper): the daemon blocks the signals its event loop reads and ignores SIGPIPE, and a
 * child must inherit neither, or it would not die of a signal sent to it. */
#pragma once

#include <spawn.h>

/* posix_spawnattr_init() with an empty signal mask and every signal at its default. */
void spawn_attr_init_default_signals(posix_spawnattr_t *attr);

/* In a confined helper started as root (developers, tests; the shipped unit runs the daemon
 * as its own user): becomes "nobody" (65534 when there is no such user) with only these
 * supplementary groups, having emptied the capability bounding set first, while it still
 * may. Not root: nothing to do, 0. A negative errno when a step fails. */
int spawn_drop_to_nobody(const gid_t *groups, size_t n_groups);

/* Empties the effective, permitted and inheritable capability sets: what a helper holds when
 * it was not root (so the user drop changed nothing) but was given capabilities. Holding none
 * already (the shipped units, whose filters forbid capset) is 0 without the call. A negative
 * errno when capset fails. Used by confine.c and sane-confine.c alike. */
int spawn_drop_capabilities(void);

/* A confined helper must not outlive the process it serves: SIGKILL when its parent ends.
 * Call after the user drop, since a change of the effective uid clears the death signal
 * (prctl(2)): set before it, it was lost whenever tinctd ran as root (developers, tests) and
 * a hung helper outlived a killed tinctd. parent: getppid() when the helper started; another
 * parent now means that one died before the signal was set: -ESRCH. */
int spawn_follow_parent(pid_t parent);
