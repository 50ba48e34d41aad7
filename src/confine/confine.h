/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parser process's confinement (docs/sandbox.md): only fd 3 (its socket to tinctd) and
 * stderr stay open; root becomes "nobody"; no capabilities, no new privileges, not dumpable;
 * rlimits on memory, files and processes; and a seccomp allow-list of the few system calls a
 * parse needs (memory, the socket, exit). Calls that name a path fail with EACCES, anything
 * else outside the list kills the process. */
#pragma once

/* Returns 0, or a negative errno with *ret_step naming what failed (static string). */
int confine_parser_process(int socket_fd, const char **ret_step);

/* tinct-fetch (docs/printers.md): the same user, capability, privilege and rlimit rules
 * (RLIMIT_NOFILE 8: stdio and a socket or two), and a filter that allows, beyond the
 * parser's calls, TCP sockets (AF_INET, AF_INET6 only) and what a blocking client with a
 * deadline needs (connect, poll, socket options, alarm). Which address it connects to is
 * the helper's own check: seccomp cannot read a sockaddr. */
int confine_fetch_process(const char **ret_step);
