/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A run of tinct-fetch (see cups-fetch.h): the request is written at once (one short line),
 * the reply read on the event loop until the helper closes its end, then validated. */
#include "cups-fetch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "socket-util.h"

struct FetchRun {
        sd_event_source *io, *timer;
        int fd;
        pid_t pid;           /* a spawned helper, or 0 */
        uint8_t *buf;
        size_t len, size;
        FetchCallback cb;
        void *userdata;
};

static void reap(FetchRun *run, bool kill_first) {
        if (run->pid <= 0)
                return;
        if (kill_first)
                (void) kill(run->pid, SIGKILL);
        /* Its end of the socket is closed (EOF) or it was killed: waitpid returns at once. */
        while (waitpid(run->pid, NULL, 0) < 0 && errno == EINTR)
                ;
        run->pid = 0;
}

FetchRun *fetch_run_free(FetchRun *run) {
        if (!run)
                return NULL;
        sd_event_source_disable_unref(run->io);
        sd_event_source_disable_unref(run->timer);
        closep(&run->fd);
        reap(run, true);
        free(run->buf);
        free(run);
        return NULL;
}

static void finish(FetchRun *run, int error) {
        (void) sd_event_source_set_enabled(run->io, SD_EVENT_OFF);
        (void) sd_event_source_set_enabled(run->timer, SD_EVENT_OFF);
        reap(run, error < 0);
        if (error < 0) {
                run->cb(run, error, NULL, run->userdata);
                return;
        }
        FetchReply reply;
        int r = fetch_reply_parse(run->buf, run->len, &reply);
        run->cb(run, r, r < 0 ? NULL : &reply, run->userdata);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        FetchRun *run = userdata;
        if (run->size - run->len < 65536) {
                if (run->size > FETCH_MAX_TOTAL + 2 * 65536) {
                        finish(run, -EFBIG);
                        return 0;
                }
                size_t size = run->size ? run->size * 2 : 65536;
                uint8_t *grown = realloc(run->buf, size);
                if (!grown) {
                        finish(run, -ENOMEM);
                        return 0;
                }
                run->buf = grown;
                run->size = size;
        }
        ssize_t n = recv(fd, run->buf + run->len, run->size - run->len, 0);
        if (n < 0) {
                if (errno != EAGAIN && errno != EINTR)
                        finish(run, -errno);
                return 0;
        }
        if (n == 0) {
                finish(run, 0);
                return 0;
        }
        run->len += (size_t) n;
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        finish(userdata, -ETIMEDOUT);
        return 0;
}

static int spawn_helper(FetchRun *run, const char *helper) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
                return -errno;
        posix_spawn_file_actions_t actions;
        posix_spawnattr_t attr;
        sigset_t none, defaults;
        sigemptyset(&none);
        sigfillset(&defaults);
        posix_spawnattr_init(&attr);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &defaults);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO);
        char *argv[] = { (char *) helper, NULL };
        extern char **environ;
        int r = -posix_spawn(&run->pid, helper, &actions, &attr, argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attr);
        close(pair[1]);
        if (r < 0) {
                close(pair[0]);
                run->pid = 0;
                return r;
        }
        return pair[0];
}

int fetch_run_start(sd_event *event, const char *helper, const char *printer_uri, FetchCallback cb, void *userdata,
                    FetchRun **ret) {
        if (strlen(printer_uri) + 1 >= FETCH_MAX_REQUEST || strchr(printer_uri, '\n'))
                return -EINVAL;
        FetchRun *run = calloc(1, sizeof *run);
        if (!run)
                return -ENOMEM;
        run->cb = cb;
        run->userdata = userdata;
        run->fd = helper ? spawn_helper(run, helper) : unix_connect(FETCH_SOCKET);
        int r = run->fd;
        if (r >= 0) {
                /* One line into an empty socket buffer: it never blocks. */
                _cleanup_free_ char *line = NULL;
                if (asprintf(&line, "%s\n", printer_uri) < 0)
                        r = -ENOMEM;
                else if (send(run->fd, line, strlen(line), MSG_NOSIGNAL) != (ssize_t) strlen(line))
                        r = -errno ?: -EIO;
        }
        if (r >= 0)
                r = fcntl(run->fd, F_SETFL, fcntl(run->fd, F_GETFL) | O_NONBLOCK) < 0 ? -errno : 0;
        if (r >= 0)
                r = sd_event_add_io(event, &run->io, run->fd, EPOLLIN, on_io, run);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &run->timer, CLOCK_MONOTONIC, FETCH_TIMEOUT_SEC * 1000000ULL, 0,
                                               on_timeout, run);
        if (r < 0) {
                fetch_run_free(run);
                return r;
        }
        *ret = run;
        return 0;
}
