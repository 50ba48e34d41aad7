/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reaching a helper that systemd runs on its own socket (tinct-fetch, tinct-sane-list), and
 * the one wait for an fd with a deadline that the confined helpers use on their sockets. */
#pragma once

#include <stdint.h>

/* Connects a stream socket (close-on-exec, blocking) to the AF_UNIX socket at path: the fd,
 * or -ENAMETOOLONG for a path that does not fit, or connect()'s -errno. A local socket
 * connects or fails at once, so the event loop may call it. */
int unix_connect(const char *path);

/* Waits until fd is ready for events (poll's POLLIN, POLLOUT, …) or the deadline passes
 * (CLOCK_MONOTONIC µs, now()'s): 0, -ETIMEDOUT, or poll()'s -errno. EINTR waits on. */
int fd_wait_until(int fd, short events, uint64_t deadline);
