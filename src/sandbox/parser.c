/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "parser.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "parse-wire.h"
#include "spawn-util.h"

extern char **environ;

#define PARSER_FD 3

struct Parser {
        char *path;
        uint64_t timeout_usec;
        int fd;         /* our end of the socket, -1 when no process runs */
        pid_t pid;
        unsigned spawned;
};

int parser_new(const char *helper_path, uint64_t timeout_usec, Parser **ret) {
        Parser *p = calloc(1, sizeof(Parser));
        if (!p || !(p->path = strdup(helper_path))) {
                free(p);
                return -ENOMEM;
        }
        p->timeout_usec = timeout_usec;
        p->fd = -1;
        *ret = p;
        return 0;
}

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

/* Waits until the process has exited or the deadline passed. Its socket closes a moment
 * before it becomes a zombie, so a crash seen as end-of-file needs this to be told apart
 * from a process that closed the socket and carries on. */
static void wait_exit(pid_t pid, uint64_t deadline) {
        int fd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return;
        uint64_t now = now_usec();
        if (now < deadline) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                uint64_t ms = (deadline - now + 999) / 1000;
                (void) poll(&pfd, 1, ms > 60000 ? 60000 : (int) ms);
        }
        close(fd);
}

/* Ends the process for good, whatever state it is in, and says how it ended if it ended on
 * its own before the deadline (buf), so a crash is told apart from our kill. */
static void stop(Parser *p, uint64_t deadline, char *buf, size_t size) {
        if (buf)
                buf[0] = 0;
        if (p->fd >= 0)
                close(p->fd);
        p->fd = -1;
        if (p->pid <= 0)
                return;
        wait_exit(p->pid, deadline);
        int status;
        pid_t r = waitpid(p->pid, &status, WNOHANG);
        if (r == 0) {
                (void) kill(p->pid, SIGKILL);
                while ((r = waitpid(p->pid, &status, 0)) < 0 && errno == EINTR)
                        ;
        } else if (r == p->pid && buf) {
                if (WIFSIGNALED(status))
                        snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
                                 strsignal(WTERMSIG(status)));
                else if (WIFEXITED(status))
                        snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
        }
        p->pid = 0;
}

Parser *parser_free(Parser *p) {
        if (!p)
                return NULL;
        stop(p, 0, NULL, 0);
        free(p->path);
        free(p);
        return NULL;
}

unsigned parser_spawn_count(const Parser *p) {
        return p->spawned;
}

static int spawn(Parser *p, char **ret_error) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        /* dup2 onto itself would keep O_CLOEXEC and lose the fd at exec */
        if (sv[1] == PARSER_FD) {
                int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, PARSER_FD + 1);
                close(sv[1]);
                if (moved < 0) {
                        close(sv[0]);
                        return -errno;
                }
                sv[1] = moved;
        }

        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        posix_spawn_file_actions_init(&fa);
        /* The parser must die of SIGKILL and SIGSYS alike. */
        spawn_attr_init_default_signals(&attr);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, sv[1], PARSER_FD);

        char *argv[] = { (char *) "tinct-parse", NULL };
        pid_t pid;
        int r = posix_spawn(&pid, p->path, &fa, &attr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        close(sv[1]);
        if (r != 0) {
                close(sv[0]);
                if (ret_error)
                        (void) asprintf(ret_error, "cannot start the parser %s: %s", p->path, strerror(r));
                log_error("Cannot start the parser %s: %s", p->path, strerror(r));
                return -r;
        }
        p->fd = sv[0];
        p->pid = pid;
        p->spawned++;
        return 0;
}

int parser_start(Parser *p) {
        if (p->fd >= 0)
                return 0;
        return spawn(p, NULL);
}

/* Waits for the socket until the deadline: 1 ready, 0 timed out, negative errno. */
static int wait_fd(int fd, short events, uint64_t deadline) {
        for (;;) {
                uint64_t now = now_usec();
                if (now >= deadline)
                        return 0;
                uint64_t left_ms = (deadline - now + 999) / 1000;
                struct pollfd pfd = { .fd = fd, .events = events };
                int r = poll(&pfd, 1, left_ms > 60000 ? 60000 : (int) left_ms);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r > 0)
                        return 1;
        }
}

/* 0 done, -ETIME, -EPIPE (the other end went away) or another negative errno. */
static int send_all(int fd, const void *buf, size_t n, uint64_t deadline) {
        for (size_t done = 0; done < n;) {
                ssize_t k = send(fd, (const uint8_t *) buf + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (k >= 0) {
                        done += (size_t) k;
                        continue;
                }
                if (errno == ECONNRESET)
                        return -EPIPE;
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
                int r = wait_fd(fd, POLLOUT, deadline);
                if (r <= 0)
                        return r < 0 ? r : -ETIME;
        }
        return 0;
}

static int recv_all(int fd, void *buf, size_t n, uint64_t deadline) {
        for (size_t got = 0; got < n;) {
                ssize_t k = recv(fd, (uint8_t *) buf + got, n - got, MSG_DONTWAIT);
                if (k > 0) {
                        got += (size_t) k;
                        continue;
                }
                if (k == 0 || errno == ECONNRESET)
                        return -EPIPE;
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
                int r = wait_fd(fd, POLLIN, deadline);
                if (r <= 0)
                        return r < 0 ? r : -ETIME;
        }
        return 0;
}

/* One round trip. On success *ret_status is the parser's status and *ret_payload its
 * payload (caller frees). A sandbox failure stops the process and explains itself. */
static int request(Parser *p, ParseOp op, uint32_t flags, const void *data, size_t size,
                   int *ret_status, uint8_t **ret_payload, size_t *ret_size, char **ret_error) {
        if (size > PARSE_MAX_REQUEST)
                return -EFBIG;
        int r;
        if (p->fd < 0 && (r = spawn(p, ret_error)) < 0)
                return r;

        uint64_t deadline = now_usec() + p->timeout_usec;
        ParseRequestHeader h = { .op = op, .flags = flags, .size = size };
        ParseReplyHeader rh;
        _cleanup_free_ uint8_t *payload = NULL;
        r = send_all(p->fd, &h, sizeof h, deadline);
        if (r >= 0)
                r = send_all(p->fd, data, size, deadline);
        if (r >= 0)
                r = recv_all(p->fd, &rh, sizeof rh, deadline);
        if (r >= 0 && (rh.size > PARSE_MAX_REPLY || rh.status > 0 || rh.reserved != 0))
                r = -EPROTO;
        if (r >= 0 && !(payload = malloc(rh.size ? rh.size : 1)))
                return -ENOMEM;
        if (r >= 0)
                r = recv_all(p->fd, payload, rh.size, deadline);
        if (r >= 0) {
                *ret_status = rh.status;
                *ret_payload = TAKE_PTR(payload);
                *ret_size = rh.size;
                return 0;
        }

        char how[128];
        /* end-of-file: it is exiting, give it until the deadline to say how */
        stop(p, r == -EPIPE ? deadline : 0, how, sizeof how);
        if (r == -ETIME)
                snprintf(how, sizeof how, "took longer than %.1f s", p->timeout_usec / 1e6);
        const char *what = r == -EPROTO ? "sent a reply that is not one" : how[0] ? how : "went away";
        log_warning("The parser process %s on %zu bytes of op %u; it is replaced, the input is rejected",
                    what, size, (unsigned) op);
        if (ret_error)
                (void) asprintf(ret_error, "the parser process %s on this input", what);
        return r == -ETIME || r == -EPROTO ? r : -ECHILD;
}

/* A reply that does not decode: the process is not to be trusted any more. */
static int invalid_reply(Parser *p, char **ret_error) {
        stop(p, 0, NULL, 0);
        log_warning("The parser process sent a reply that does not validate; it is replaced");
        if (ret_error)
                (void) asprintf(ret_error, "the parser process sent an invalid reply on this input");
        return -EPROTO;
}

/* A round trip up to the payload of a successful parse; the parser's own errors come back
 * as its status with its reason. */
static int call(Parser *p, ParseOp op, uint32_t flags, const void *data, size_t size, char **ret_error,
                uint8_t **ret_payload, size_t *ret_size) {
        _cleanup_free_ uint8_t *payload = NULL;
        size_t n;
        int status;
        int r = request(p, op, flags, data, size, &status, &payload, &n, ret_error);
        if (r < 0)
                return r;
        if (status < 0) {
                _cleanup_free_ char *why = NULL;
                if (parse_decode_error(payload, n, &why) < 0)
                        return invalid_reply(p, ret_error);
                if (ret_error)
                        *ret_error = TAKE_PTR(why);
                return status;
        }
        *ret_payload = TAKE_PTR(payload);
        *ret_size = n;
        return 0;
}

int parser_icc_info(Parser *p, const void *data, size_t size, IccInfoFlags flags, IccInfo **ret,
                    char **ret_error) {
        _cleanup_free_ uint8_t *payload = NULL;
        size_t n;
        int r = call(p, PARSE_OP_ICC_INFO, (uint32_t) flags, data, size, ret_error, &payload, &n);
        if (r >= 0 && (r = parse_decode_icc_info(payload, n, ret)) == -EBADMSG)
                return invalid_reply(p, ret_error);
        return r;
}

int parser_icc_warnings(Parser *p, const void *data, size_t size, char ***ret, char **ret_error) {
        _cleanup_free_ uint8_t *payload = NULL;
        size_t n;
        int r = call(p, PARSE_OP_ICC_WARNINGS, 0, data, size, ret_error, &payload, &n);
        if (r >= 0 && (r = parse_decode_warnings(payload, n, ret)) == -EBADMSG)
                return invalid_reply(p, ret_error);
        return r;
}

int parser_edid(Parser *p, const void *data, size_t size, Edid **ret, char **ret_error) {
        _cleanup_free_ uint8_t *payload = NULL;
        size_t n;
        int r = call(p, PARSE_OP_EDID, 0, data, size, ret_error, &payload, &n);
        if (r >= 0 && (r = parse_decode_edid(payload, n, ret)) == -EBADMSG)
                return invalid_reply(p, ret_error);
        return r;
}
