/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reaching a helper that systemd runs on its own socket (tinct-fetch, tinct-sane-list). */
#pragma once

/* Connects a stream socket (close-on-exec, blocking) to the AF_UNIX socket at path: the fd,
 * or -ENAMETOOLONG for a path that does not fit, or connect()'s -errno. A local socket
 * connects or fails at once, so the event loop may call it. */
int unix_connect(const char *path);
