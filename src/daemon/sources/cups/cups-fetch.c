/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A run of tinct-fetch (see cups-fetch.h): the request is written at once (one short line),
 * the reply read on the event loop until the helper closes its end, then validated. */
#include "cups-fetch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "child-process.h"
#include "macro.h"
#include "socket-util.h"

struct FetchRun {
        Child child;         /* a spawned helper, or (pid 0) the connection to its socket */
        uint8_t *buf;
        size_t len, size;
        FetchCallback cb;
        void *userdata;
};

FetchRun *fetch_run_free(FetchRun *run) {
        if (!run)
                return NULL;
        child_end(&run->child, CHILD_KILL, NULL);
        free(run->buf);
        free(run);
        return NULL;
}

static void finish(FetchRun *run, int error) {
        /* Its end of the socket is closed (EOF): it has exited or will at once. */
        child_end(&run->child, error < 0 ? CHILD_KILL : CHILD_WAIT, NULL);
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
        char *argv[] = { (char *) helper, NULL };
        ChildSpec spec = { .path = helper, .argv = argv, .channel = CHILD_STDIO_SOCKET };
        int r = child_start(&run->child, &spec);
        return r < 0 ? r : run->child.fd;
}

int fetch_run_start(sd_event *event, const char *helper, const char *printer_uri, FetchCallback cb, void *userdata,
                    FetchRun **ret) {
        if (strlen(printer_uri) + 1 >= FETCH_MAX_REQUEST || strchr(printer_uri, '\n'))
                return -EINVAL;
        FetchRun *run = calloc(1, sizeof *run);
        if (!run)
                return -ENOMEM;
        run->child = CHILD_NULL;
        run->cb = cb;
        run->userdata = userdata;
        int r = helper ? spawn_helper(run, helper) : unix_connect(FETCH_SOCKET);
        if (r >= 0)
                run->child.fd = r;
        if (r >= 0) {
                /* One line into an empty socket buffer: it never blocks. */
                _cleanup_free_ char *line = NULL;
                if (asprintf(&line, "%s\n", printer_uri) < 0)
                        r = -ENOMEM;
                else if (send(run->child.fd, line, strlen(line), MSG_NOSIGNAL) != (ssize_t) strlen(line))
                        r = -errno ?: -EIO;
        }
        if (r >= 0)
                r = fcntl(run->child.fd, F_SETFL, fcntl(run->child.fd, F_GETFL) | O_NONBLOCK) < 0 ? -errno : 0;
        if (r >= 0)
                r = child_watch(&run->child, event, FETCH_TIMEOUT_SEC * 1000000ULL, on_io, on_timeout, run);
        if (r < 0) {
                fetch_run_free(run);
                return r;
        }
        *ret = run;
        return 0;
}
