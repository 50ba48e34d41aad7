/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A child process driven from the event loop, the one way the daemon runs one (tinct-parse,
 * tinct-sane-list, tinct-fetch, spotread): started with posix_spawn and its signals at their
 * defaults (spawn-util.h), joined to us by a pipe or a socket pair whose end of ours is
 * non-blocking, that end watched on the loop with a deadline, and at the end killed if it
 * still runs (SIGKILL: a child stuck in USB I/O or a hostile parse would not look at SIGTERM
 * soon) and reaped, its exit told in words. Nothing here blocks but the reaping of a child
 * that has ended or was just killed.
 *
 * Not here: what goes over the channel (each caller's format), pools and queues of children
 * (src/sandbox/parser.c), the confinement a child applies to itself. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef enum ChildChannel {
        CHILD_STDOUT_PIPE,   /* we read its stdout; its stdin is /dev/null (tinct-sane-list) */
        CHILD_STDIO_PIPES,   /* we write its stdin (in_fd) and read its stdout and stderr (spotread) */
        CHILD_STDIO_SOCKET,  /* one socket pair end is its stdin and stdout (tinct-fetch) */
        CHILD_FD_SOCKET,     /* one socket pair end is its fd `fd_target`, stdin and stdout /dev/null
                              * (tinct-parse) */
} ChildChannel;

typedef struct ChildSpec {
        const char *path;        /* what is run; argv[0] is what it is called */
        char *const *argv;
        char *const *envp;       /* NULL: ours */
        bool search_path;        /* path is looked up in PATH (posix_spawnp) */
        ChildChannel channel;
        int fd_target;           /* CHILD_FD_SOCKET: the child's number of the socket */
        bool close_other_fds;    /* nothing of ours beyond its stdin, stdout and stderr */
} ChildSpec;

typedef struct Child {
        pid_t pid;               /* 0: none, or not ours (a connection to a socket unit) */
        int fd;                  /* ours: what it writes, and with a socket what it reads */
        int in_fd;               /* CHILD_STDIO_PIPES: its stdin; else -1 */
        sd_event_source *io, *timer;
} Child;

#define CHILD_NULL ((Child) { .fd = -1, .in_fd = -1 })

/* How child_end() ends it. */
typedef enum ChildEnd {
        CHILD_KILL,              /* SIGKILL, then reaped: its output is complete or not wanted */
        CHILD_WAIT,              /* reaped as it is: it closed its end, so it has exited or will */
        CHILD_KILL_IF_RUNNING,   /* reaped if it has exited, else killed first: one that lingers
                                  * after closing its output gains nothing by being waited for */
} ChildEnd;

/* Starts it; c must be CHILD_NULL. 0, or a negative errno (c stays CHILD_NULL). */
int child_start(Child *c, const ChildSpec *spec);

/* c->fd (a child's, or any connected fd put there) watched on the loop: on_io when it can be
 * read, on_timeout once timeout_usec from now (UINT64_MAX: the timer is made but off, for
 * child_set_deadline()). */
int child_watch(Child *c, sd_event *event, uint64_t timeout_usec, sd_event_io_handler_t on_io,
                sd_event_time_handler_t on_timeout, void *userdata);
/* The timer again, timeout_usec from now. */
int child_set_deadline(Child *c, uint64_t timeout_usec);

/* Waits until it has exited or the deadline (CLOCK_MONOTONIC, µs) has passed, at most a
 * minute: a child whose socket closed is told apart from one that carries on. */
void child_wait_exit(const Child *c, uint64_t deadline);

/* Ends it: the watch off, our ends closed, the process ended as `how` says and reaped; its
 * wait status in *ret_status (-1 when there was none to reap), unless NULL. 1 when it was
 * killed here, 0 when it had ended (or was not ours). c is CHILD_NULL afterwards; nothing
 * happens to a CHILD_NULL. */
int child_end(Child *c, ChildEnd how, int *ret_status);

/* "was killed by signal 9 (Killed)", "exited with status 1", from a wait status; "" for -1. */
void child_describe_status(int status, char *buf, size_t size);
