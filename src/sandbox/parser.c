/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pool of parser processes. Each process answers its requests in order, so requests
 * are pipelined: a process gets up to MAX_IN_FLIGHT of them written ahead, and the head of
 * its list is the one being parsed. A failure (end of file, timeout, a reply that is not
 * one) is blamed on the head alone; the rest go back to the queue for another process.
 * Every socket is non-blocking; waiting calls poll the sockets themselves, the loop watches
 * them with io and timer sources, and both drive the same state. */
#include "parser.h"

#include <assert.h>
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
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "list.h"
#include "log.h"
#include "parse-wire.h"
#include "strv.h"

extern char **environ;

#define PARSER_FD 3
#define MAX_PROCESSES 4
/* Enough to keep a process busy while the daemon sleeps, few enough that a batch spreads. */
#define MAX_IN_FLIGHT 16
#define RX_CHUNK (64u * 1024)

typedef struct Worker Worker;

struct ParserCall {
        ListLink link;          /* in the queue, a worker's in-flight list or the finished list */
        Parser *parser;
        Worker *worker;         /* while in flight */
        ParseRequestHeader header;
        const void *group;      /* pipelined only with requests of its group (pick_worker()) */
        const uint8_t *data;
        uint8_t *owned;         /* asynchronous requests own their bytes */
        size_t sent;            /* of header and data */

        bool done, cancelled;
        bool blamed;            /* the failure is the input's: the process refused, died on it, hung or lied */
        int r;
        char *error;
        void *result;           /* IccInfo *, char ** or Edid *, by op */

        bool async;             /* answered through one of the callbacks, by op */
        ParserIccInfoDone info_done;
        ParserWarningsDone warnings_done;
        void *userdata;
};

struct Worker {
        Parser *parser;
        unsigned slot;
        int fd;
        pid_t pid;
        sd_event_source *io, *timer;
        List in_flight;         /* ParserCall, in the order sent */
        uint64_t head_since;    /* when the head's parse could begin: its deadline counts from here */
        uint8_t *rx;
        size_t rx_start, rx_end, rx_allocated;
};

struct Parser {
        char *path;
        uint64_t timeout_usec;
        unsigned max_workers;
        Worker *workers[MAX_PROCESSES];
        List queue;             /* not yet given to a process */
        List finished;          /* asynchronous answers not yet handed out */
        sd_event *event;
        sd_event_source *defer;
        unsigned spawned;
        uint64_t requests;
};

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static size_t call_total(const ParserCall *c) {
        return sizeof c->header + c->header.size;
}

static void call_free_result(ParserCall *c) {
        switch (c->header.op) {
        case PARSE_OP_ICC_INFO:
                icc_info_free(c->result);
                break;
        case PARSE_OP_ICC_WARNINGS:
                strv_free(c->result);
                break;
        case PARSE_OP_EDID:
                edid_free(c->result);
                break;
        }
        c->result = NULL;
}

static void call_free(ParserCall *c) {
        call_free_result(c);
        free(c->error);
        free(c->owned);
        free(c);
}

static ParserCall *call_new(Parser *p, ParseOp op, uint32_t flags, const void *data, size_t size) {
        ParserCall *c = calloc(1, sizeof *c);
        if (!c)
                return NULL;
        c->parser = p;
        c->header = (ParseRequestHeader) { .op = op, .flags = flags, .size = size };
        c->group = c; /* alone, unless a batch says otherwise */
        c->data = data;
        return c;
}

/* ---- processes ------------------------------------------------------------------------ */

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
static void worker_stop(Worker *w, uint64_t deadline, char *buf, size_t size) {
        if (buf)
                buf[0] = 0;
        w->io = sd_event_source_disable_unref(w->io);
        w->timer = sd_event_source_disable_unref(w->timer);
        if (w->fd >= 0)
                close(w->fd);
        w->fd = -1;
        if (w->pid <= 0)
                return;
        wait_exit(w->pid, deadline);
        int status;
        pid_t r = waitpid(w->pid, &status, WNOHANG);
        if (r == 0) {
                (void) kill(w->pid, SIGKILL);
                while ((r = waitpid(w->pid, &status, 0)) < 0 && errno == EINTR)
                        ;
        } else if (r == w->pid && buf) {
                if (WIFSIGNALED(status))
                        snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status),
                                 strsignal(WTERMSIG(status)));
                else if (WIFEXITED(status))
                        snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
        }
        w->pid = 0;
}

static int spawn_process(Parser *p, int *ret_fd, pid_t *ret_pid, char **ret_error) {
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
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawn_file_actions_init(&fa);
        posix_spawnattr_init(&attr);
        /* The daemon's event loop blocks signals; the parser must die of SIGKILL and SIGSYS
         * alike, and must not inherit our handlers' dispositions. */
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
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
        if (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) {
                r = -errno;
                close(sv[0]);
                (void) kill(pid, SIGKILL);
                (void) waitpid(pid, NULL, 0);
                return r;
        }
        *ret_fd = sv[0];
        *ret_pid = pid;
        return 0;
}

static void worker_free(Worker *w);
static int worker_arm(Worker *w);
static int on_worker_io(sd_event_source *s, int fd, uint32_t revents, void *userdata);
static int on_worker_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* The loop's sources for a process, once the pool has a loop. */
static int worker_watch(Worker *w) {
        Parser *p = w->parser;
        if (!p->event || w->io)
                return 0;
        int r = sd_event_add_io(p->event, &w->io, w->fd, EPOLLIN, on_worker_io, w);
        if (r >= 0)
                r = sd_event_add_time(p->event, &w->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_worker_timer, w);
        if (r >= 0)
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        return r;
}

static int worker_new(Parser *p, unsigned slot, char **ret_error) {
        assert(!p->workers[slot]);
        Worker *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        w->parser = p;
        w->slot = slot;
        list_init(&w->in_flight);
        int r = spawn_process(p, &w->fd, &w->pid, ret_error);
        if (r < 0) {
                free(w);
                return r;
        }
        p->workers[slot] = w;
        p->spawned++;
        r = worker_watch(w);
        if (r < 0) {
                worker_free(w);
                return r;
        }
        return 0;
}

/* ---- answers ---------------------------------------------------------------------------- */

static void call_finish(ParserCall *c, int r, char *error) {
        Parser *p = c->parser;
        c->r = r;
        free(c->error);
        c->error = error;
        c->done = true;
        c->worker = NULL;
        if (r < 0)
                call_free_result(c);
        if (c->async) {
                list_append(&p->finished, &c->link);
                if (p->defer)
                        (void) sd_event_source_set_enabled(p->defer, SD_EVENT_ONESHOT);
        }
}

/* Puts what a failed process had in flight behind its head back at the front of the queue,
 * in order: those inputs did nothing wrong. */
static void worker_requeue_rest(Worker *w) {
        Parser *p = w->parser;
        while (w->in_flight.size > 0) {
                ListLink *last = w->in_flight.head.prev;
                ParserCall *c = list_entry(last, ParserCall, link);
                list_unlink(&w->in_flight, &c->link);
                c->worker = NULL;
                c->sent = 0;
                if (c->cancelled) {
                        call_free(c); /* nobody waits for it */
                        continue;
                }
                /* prepend */
                c->link.next = p->queue.head.next;
                c->link.prev = &p->queue.head;
                p->queue.head.next->prev = &c->link;
                p->queue.head.next = &c->link;
                p->queue.size++;
                /* handed out again from the loop (a waiting caller does it itself) */
                if (p->defer)
                        (void) sd_event_source_set_enabled(p->defer, SD_EVENT_ONESHOT);
        }
}

static void worker_free(Worker *w) {
        if (!w)
                return;
        worker_stop(w, 0, NULL, 0);
        worker_requeue_rest(w);
        w->parser->workers[w->slot] = NULL;
        free(w->rx);
        free(w);
}

/* The process failed on its head: that input is rejected with the reason, the process
 * replaced, the others asked again elsewhere. r: -EPIPE (end of file), -ETIME, -EPROTO. */
static void worker_fail(Worker *w, int r, const char *reason) {
        Parser *p = w->parser;
        ParserCall *head = w->in_flight.size > 0 ? list_entry(w->in_flight.head.next, ParserCall, link) : NULL;
        char how[128];
        /* end-of-file: it is exiting, give it until the deadline to say how */
        worker_stop(w, r == -EPIPE ? w->head_since + p->timeout_usec : 0, how, sizeof how);
        if (r == -ETIME)
                snprintf(how, sizeof how, "took longer than %.1f s", p->timeout_usec / 1e6);
        const char *what = reason ? reason : how[0] ? how : "went away";
        if (head) {
                log_warning("The parser process %s on %zu bytes of op %u; it is replaced, the input is rejected",
                            what, (size_t) head->header.size, (unsigned) head->header.op);
                list_unlink(&w->in_flight, &head->link);
                char *error = NULL;
                (void) asprintf(&error, "the parser process %s on this input", what);
                head->blamed = true;
                call_finish(head, r == -ETIME || r == -EPROTO ? r : -ECHILD, error);
        } else if (r != -EPIPE)
                log_warning("The parser process %s while idle; it is replaced", what);
        worker_free(w);
}

static int decode(ParserCall *c, const uint8_t *payload, size_t n) {
        switch (c->header.op) {
        case PARSE_OP_ICC_INFO:
                return parse_decode_icc_info(payload, n, (IccInfo **) &c->result);
        case PARSE_OP_ICC_WARNINGS:
                return parse_decode_warnings(payload, n, (char ***) &c->result);
        case PARSE_OP_EDID:
                return parse_decode_edid(payload, n, (Edid **) &c->result);
        }
        assert(false); /* only the ops above are ever sent */
        return -EINVAL;
}

/* One whole reply for the head. Returns 0, or negative when the process failed (w is gone). */
static int worker_reply(Worker *w, int32_t status, const uint8_t *payload, size_t n) {
        if (w->in_flight.size == 0) {
                worker_fail(w, -EPROTO, "sent a reply nobody asked for");
                return -EPROTO;
        }
        ParserCall *c = list_entry(w->in_flight.head.next, ParserCall, link);
        int r;
        char *why = NULL;
        if (status < 0)
                r = parse_decode_error(payload, n, &why);
        else
                r = decode(c, payload, n);
        if (r == -ENOMEM) {
                list_unlink(&w->in_flight, &c->link);
                call_finish(c, -ENOMEM, NULL);
        } else if (r < 0) {
                /* A reply that does not decode: the process is not to be trusted any more. */
                call_free_result(c);
                worker_fail(w, -EPROTO, "sent an invalid reply");
                return -EPROTO;
        } else {
                list_unlink(&w->in_flight, &c->link);
                c->blamed = status < 0;
                call_finish(c, status < 0 ? status : 0, why);
        }
        w->head_since = now_usec();
        return 0;
}

/* Reads what is there and completes every whole reply. Returns 0, or negative when the
 * process failed (w is gone). */
static int worker_receive(Worker *w) {
        for (;;) {
                if (w->rx_allocated - w->rx_end < RX_CHUNK) {
                        /* compact, then grow */
                        if (w->rx_start > 0) {
                                memmove(w->rx, w->rx + w->rx_start, w->rx_end - w->rx_start);
                                w->rx_end -= w->rx_start;
                                w->rx_start = 0;
                        }
                        if (w->rx_allocated - w->rx_end < RX_CHUNK) {
                                size_t want = w->rx_end + RX_CHUNK;
                                uint8_t *t = realloc(w->rx, want);
                                if (!t)
                                        return -ENOMEM; /* tried again on the next event */
                                w->rx = t;
                                w->rx_allocated = want;
                        }
                }
                ssize_t k = recv(w->fd, w->rx + w->rx_end, w->rx_allocated - w->rx_end, MSG_DONTWAIT);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && errno == EAGAIN)
                        return 0;
                if (k <= 0) {
                        worker_fail(w, -EPIPE, NULL);
                        return -EPIPE;
                }
                w->rx_end += (size_t) k;

                while (w->rx_end - w->rx_start >= sizeof(ParseReplyHeader)) {
                        ParseReplyHeader rh;
                        memcpy(&rh, w->rx + w->rx_start, sizeof rh);
                        if (rh.size > PARSE_MAX_REPLY || rh.status > 0 || rh.reserved != 0) {
                                worker_fail(w, -EPROTO, "sent a reply that is not one");
                                return -EPROTO;
                        }
                        size_t whole = sizeof rh + (size_t) rh.size;
                        if (w->rx_end - w->rx_start < whole) {
                                /* make room for the rest of a large reply at once */
                                if (w->rx_allocated - w->rx_start < whole + RX_CHUNK && w->rx_start > 0) {
                                        memmove(w->rx, w->rx + w->rx_start, w->rx_end - w->rx_start);
                                        w->rx_end -= w->rx_start;
                                        w->rx_start = 0;
                                }
                                if (w->rx_allocated < whole) {
                                        uint8_t *t = realloc(w->rx, whole + RX_CHUNK);
                                        if (!t)
                                                return -ENOMEM;
                                        w->rx = t;
                                        w->rx_allocated = whole + RX_CHUNK;
                                }
                                break;
                        }
                        const uint8_t *payload = w->rx + w->rx_start + sizeof rh;
                        w->rx_start += whole;
                        int r = worker_reply(w, rh.status, payload, (size_t) rh.size);
                        if (r < 0)
                                return r;
                }
                if (w->rx_start == w->rx_end)
                        w->rx_start = w->rx_end = 0;
        }
}

static bool worker_has_unsent(const Worker *w) {
        if (w->in_flight.size == 0)
                return false;
        ParserCall *last = list_entry(w->in_flight.head.prev, ParserCall, link);
        return last->sent < call_total(last);
}

/* Writes as much of the pipelined requests as the socket takes. Returns 0, or negative when
 * the process failed (w is gone). */
static int worker_send(Worker *w) {
        for (;;) {
                struct iovec iov[2 * MAX_IN_FLIGHT];
                size_t n = 0;
                ParserCall *c;
                LIST_FOREACH(&w->in_flight, c, ParserCall, link) {
                        if (c->sent >= call_total(c))
                                continue;
                        size_t hs = sizeof c->header;
                        if (c->sent < hs)
                                iov[n++] = (struct iovec) { (uint8_t *) &c->header + c->sent, hs - c->sent };
                        size_t off = c->sent > hs ? c->sent - hs : 0;
                        if (c->header.size > off)
                                iov[n++] = (struct iovec) { (uint8_t *) c->data + off, c->header.size - off };
                }
                if (n == 0)
                        return 0;
                struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n };
                ssize_t k = sendmsg(w->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && errno == EAGAIN)
                        return 0;
                if (k < 0) {
                        worker_fail(w, -EPIPE, NULL);
                        return -EPIPE;
                }
                size_t left = (size_t) k;
                LIST_FOREACH(&w->in_flight, c, ParserCall, link) {
                        size_t want = call_total(c) - c->sent;
                        size_t take = left < want ? left : want;
                        c->sent += take;
                        left -= take;
                        if (left == 0)
                                break;
                }
        }
}

/* The loop's view of a process: write interest while something is unsent, the timer at
 * its head's deadline while anything is in flight. */
static int worker_arm(Worker *w) {
        if (!w->io)
                return 0;
        int r = sd_event_source_set_io_events(w->io, EPOLLIN | (worker_has_unsent(w) ? EPOLLOUT : 0));
        if (r < 0)
                return r;
        if (w->in_flight.size == 0)
                return sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        r = sd_event_source_set_time(w->timer, w->head_since + w->parser->timeout_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
        return r;
}

/* ---- the pool --------------------------------------------------------------------------- */

static unsigned running_workers(const Parser *p) {
        unsigned n = 0;
        for (unsigned i = 0; i < MAX_PROCESSES; i++)
                n += p->workers[i] != NULL;
        return n;
}

/* The group of a process's work: requests share a process only within one group (one
 * batch), so nothing is ever queued behind another caller's input, which may be the one
 * that hangs until the timeout. NULL when idle. */
static const void *worker_group(const Worker *w) {
        if (w->in_flight.size == 0)
                return NULL;
        return list_entry(w->in_flight.head.next, ParserCall, link)->group;
}

static int spawn_in_free_slot(Parser *p, unsigned limit, char **ret_error) {
        for (unsigned i = 0; i < limit; i++)
                if (!p->workers[i]) {
                        int r = worker_new(p, i, ret_error);
                        return r < 0 ? r : (int) i;
                }
        return -EBUSY;
}

/* The process for c: an idle one; else a new one while there are fewer than one per CPU;
 * else the least loaded one already working on c's batch; else, for a caller that waits
 * (the loop itself), a new one up to MAX_PROCESSES, so that the loop never waits behind
 * clients' inputs. NULL: c waits in the queue (or, with no process at all, *ret_r says why
 * none could start). */
static Worker *pick_worker(Parser *p, const ParserCall *c, int *ret_r, char **ret_error) {
        Worker *best = NULL;
        for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                Worker *w = p->workers[i];
                if (!w)
                        continue;
                if (w->in_flight.size == 0)
                        return w;
                if (worker_group(w) == c->group && w->in_flight.size < MAX_IN_FLIGHT &&
                    (!best || w->in_flight.size < best->in_flight.size))
                        best = w;
        }
        unsigned running = running_workers(p);
        if (running < p->max_workers) {
                int r = spawn_in_free_slot(p, MAX_PROCESSES, running > 0 ? NULL : ret_error);
                if (r >= 0)
                        return p->workers[r];
                *ret_r = r;
        }
        if (best)
                return best;
        if (!c->async && running > 0 && running < MAX_PROCESSES) {
                int r = spawn_in_free_slot(p, MAX_PROCESSES, NULL);
                if (r >= 0)
                        return p->workers[r];
        }
        return NULL;
}

/* Hands queued requests to processes and writes them. A request that finds no process waits;
 * those behind it of other groups are still placed. */
static void pool_assign(Parser *p) {
        const void *waiting[8];
        size_t n_waiting = 0;
        ParserCall *c;
        LIST_FOREACH(&p->queue, c, ParserCall, link) {
                bool skip = false;
                for (size_t i = 0; i < n_waiting; i++)
                        skip = skip || waiting[i] == c->group;
                if (skip)
                        continue; /* its group found no room just now */
                _cleanup_free_ char *error = NULL;
                int r = -ECHILD;
                Worker *w = pick_worker(p, c, &r, &error);
                if (!w && running_workers(p) == 0) {
                        list_unlink(&p->queue, &c->link);
                        call_finish(c, r < 0 ? r : -ECHILD, TAKE_PTR(error));
                        continue;
                }
                if (!w) {
                        if (n_waiting == ELEMENTSOF(waiting))
                                break;
                        waiting[n_waiting++] = c->group;
                        continue;
                }
                list_unlink(&p->queue, &c->link);
                if (w->in_flight.size == 0)
                        w->head_since = now_usec();
                c->worker = w;
                list_append(&w->in_flight, &c->link);
                p->requests++;
        }
        for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                Worker *w = p->workers[i];
                if (w && worker_has_unsent(w) && worker_send(w) < 0)
                        continue;
                if (p->workers[i] && worker_arm(p->workers[i]) < 0)
                        log_warning("Cannot watch a parser process; its answers wait for the next call");
        }
}

static void dispatch_finished(Parser *p) {
        while (p->finished.size > 0) {
                ParserCall *c = list_entry(p->finished.head.next, ParserCall, link);
                list_unlink(&p->finished, &c->link);
                if (!c->cancelled && c->header.op == PARSE_OP_ICC_INFO) {
                        IccInfo *info = c->r >= 0 ? TAKE_PTR(c->result) : NULL;
                        uint8_t *data = TAKE_PTR(c->owned);
                        c->info_done(c->r, info, c->error, data, (size_t) c->header.size, c->userdata);
                } else if (!c->cancelled) {
                        assert(c->header.op == PARSE_OP_ICC_WARNINGS); /* the asynchronous ops */
                        char **w = c->r >= 0 ? TAKE_PTR(c->result) : NULL;
                        c->warnings_done(c->r, w, c->error, c->userdata);
                }
                call_free(c);
        }
}

static int on_worker_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Worker *w = userdata;
        Parser *p = w->parser;
        int r = 0;
        if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                r = worker_receive(w);
        if (r >= 0 && (revents & EPOLLOUT))
                (void) worker_send(w);
        pool_assign(p);
        dispatch_finished(p);
        return 0;
}

static int on_worker_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Worker *w = userdata;
        Parser *p = w->parser;
        if (w->in_flight.size > 0 && now_usec() >= w->head_since + p->timeout_usec)
                worker_fail(w, -ETIME, NULL);
        pool_assign(p);
        dispatch_finished(p);
        return 0;
}

static int on_defer(sd_event_source *s, void *userdata) {
        Parser *p = userdata;
        pool_assign(p);
        dispatch_finished(p);
        return 0;
}

/* Polls the processes until every call of calls[] is done. Answers to asynchronous requests
 * met on the way wait in the finished list for the loop. */
static void pool_wait(Parser *p, ParserCall **calls, size_t n) {
        size_t next = 0;
        for (;;) {
                pool_assign(p);
                while (next < n && calls[next]->done)
                        next++;
                if (next == n)
                        return;

                struct pollfd pfd[MAX_PROCESSES];
                Worker *ws[MAX_PROCESSES];
                size_t k = 0;
                uint64_t deadline = UINT64_MAX;
                for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                        Worker *w = p->workers[i];
                        if (!w || w->in_flight.size == 0)
                                continue;
                        ws[k] = w;
                        pfd[k++] = (struct pollfd) { .fd = w->fd,
                                                     .events = POLLIN | (worker_has_unsent(w) ? POLLOUT : 0) };
                        if (w->head_since + p->timeout_usec < deadline)
                                deadline = w->head_since + p->timeout_usec;
                }
                /* A process that failed while written to gave its calls back to the queue:
                 * hand them out again. */
                if (k == 0)
                        continue;
                uint64_t now = now_usec();
                uint64_t ms = deadline > now ? (deadline - now + 999) / 1000 : 0;
                int r = poll(pfd, k, ms > 60000 ? 60000 : (int) ms);
                if (r < 0 && errno != EINTR) {
                        log_warning_errno(-errno, "Cannot wait for the parser processes: %m");
                        continue;
                }
                for (size_t i = 0; r > 0 && i < k; i++) {
                        Worker *w = ws[i];
                        if (!pfd[i].revents)
                                continue;
                        int q = 0;
                        if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
                                q = worker_receive(w);
                        if (q >= 0 && (pfd[i].revents & POLLOUT))
                                (void) worker_send(w);
                }
                now = now_usec();
                for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                        Worker *w = p->workers[i];
                        if (w && w->in_flight.size > 0 && now >= w->head_since + p->timeout_usec)
                                worker_fail(w, -ETIME, NULL);
                }
        }
}

/* ---- the interface -------------------------------------------------------------------- */

int parser_new(const char *helper_path, uint64_t timeout_usec, Parser **ret) {
        Parser *p = calloc(1, sizeof(Parser));
        if (!p || !(p->path = strdup(helper_path))) {
                free(p);
                return -ENOMEM;
        }
        p->timeout_usec = timeout_usec;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        parser_set_max_processes(p, cpus < 2 ? 2 : (unsigned) cpus);
        list_init(&p->queue);
        list_init(&p->finished);
        *ret = p;
        return 0;
}

void parser_set_max_processes(Parser *p, unsigned n) {
        p->max_workers = n < 1 ? 1 : n > MAX_PROCESSES ? MAX_PROCESSES : n;
}

static void drop_list(List *l) {
        while (l->size > 0) {
                ParserCall *c = list_entry(l->head.next, ParserCall, link);
                list_unlink(l, &c->link);
                call_free(c);
        }
}

Parser *parser_free(Parser *p) {
        if (!p)
                return NULL;
        for (unsigned i = 0; i < MAX_PROCESSES; i++)
                if (p->workers[i]) {
                        drop_list(&p->workers[i]->in_flight);
                        worker_free(p->workers[i]);
                }
        drop_list(&p->queue);
        drop_list(&p->finished);
        sd_event_source_disable_unref(p->defer);
        sd_event_unref(p->event);
        free(p->path);
        free(p);
        return NULL;
}

int parser_attach_event(Parser *p, sd_event *event) {
        assert(!p->event);
        int r = sd_event_add_defer(event, &p->defer, on_defer, p);
        if (r < 0)
                return r;
        r = sd_event_source_set_enabled(p->defer, SD_EVENT_OFF);
        if (r < 0) {
                p->defer = sd_event_source_disable_unref(p->defer);
                return r;
        }
        p->event = sd_event_ref(event);
        for (unsigned i = 0; i < MAX_PROCESSES; i++)
                if (p->workers[i] && (r = worker_watch(p->workers[i])) < 0)
                        return r;
        return 0;
}

unsigned parser_spawn_count(const Parser *p) {
        return p->spawned;
}

uint64_t parser_request_count(const Parser *p) {
        return p->requests;
}

int parser_start(Parser *p) {
        if (running_workers(p) > 0)
                return 0;
        return worker_new(p, 0, NULL);
}

/* Asks one input and waits. On success *ret_result is the decoded answer. */
static int ask(Parser *p, ParseOp op, uint32_t flags, const void *data, size_t size, void **ret_result,
               char **ret_error) {
        if (size > PARSE_MAX_REQUEST)
                return -EFBIG;
        ParserCall *c = call_new(p, op, flags, data, size);
        if (!c)
                return -ENOMEM;
        list_append(&p->queue, &c->link);
        pool_wait(p, &c, 1);
        int r = c->r;
        if (r >= 0)
                *ret_result = TAKE_PTR(c->result);
        else if (ret_error)
                *ret_error = TAKE_PTR(c->error);
        call_free(c);
        return r;
}

int parser_icc_info(Parser *p, const void *data, size_t size, IccInfoFlags flags, IccInfo **ret,
                    char **ret_error) {
        return ask(p, PARSE_OP_ICC_INFO, (uint32_t) flags, data, size, (void **) ret, ret_error);
}

int parser_icc_warnings(Parser *p, const void *data, size_t size, char ***ret, char **ret_error) {
        return ask(p, PARSE_OP_ICC_WARNINGS, 0, data, size, (void **) ret, ret_error);
}

int parser_edid(Parser *p, const void *data, size_t size, Edid **ret, char **ret_error) {
        return ask(p, PARSE_OP_EDID, 0, data, size, (void **) ret, ret_error);
}

int parser_icc_info_many(Parser *p, ParserIccJob *jobs, size_t n, IccInfoFlags flags) {
        _cleanup_free_ ParserCall **calls = calloc(n ? n : 1, sizeof *calls);
        if (!calls)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                jobs[i].info = NULL;
                jobs[i].error = NULL;
                jobs[i].r = -EFBIG;
                jobs[i].input_failed = true;
                if (jobs[i].size > PARSE_MAX_REQUEST)
                        continue;
                calls[k] = call_new(p, PARSE_OP_ICC_INFO, (uint32_t) flags, jobs[i].data, jobs[i].size);
                if (!calls[k]) {
                        for (size_t j = 0; j < k; j++) {
                                list_unlink(&p->queue, &calls[j]->link);
                                call_free(calls[j]);
                        }
                        return -ENOMEM;
                }
                calls[k]->userdata = &jobs[i];
                calls[k]->group = calls;
                list_append(&p->queue, &calls[k]->link);
                k++;
        }
        pool_wait(p, calls, k);
        for (size_t j = 0; j < k; j++) {
                ParserIccJob *job = calls[j]->userdata;
                job->r = calls[j]->r;
                job->input_failed = calls[j]->blamed;
                job->info = TAKE_PTR(calls[j]->result);
                job->error = TAKE_PTR(calls[j]->error);
                call_free(calls[j]);
        }
        return 0;
}

/* Queues an asynchronous request; it is written from the loop, so that no callback ever
 * runs inside the call that asked. Takes data. */
static int ask_async(Parser *p, ParseOp op, uint32_t flags, uint8_t *data, size_t size, ParserCall **ret) {
        assert(p->event); /* parser_attach_event() first */
        _cleanup_free_ uint8_t *owned = data;
        if (size > PARSE_MAX_REQUEST)
                return -EFBIG;
        ParserCall *c = call_new(p, op, flags, data, size);
        if (!c)
                return -ENOMEM;
        c->owned = TAKE_PTR(owned);
        c->async = true;
        list_append(&p->queue, &c->link);
        int r = sd_event_source_set_enabled(p->defer, SD_EVENT_ONESHOT);
        if (r < 0) {
                list_unlink(&p->queue, &c->link);
                call_free(c);
                return r;
        }
        *ret = c;
        return 0;
}

int parser_icc_info_async(Parser *p, uint8_t *data, size_t size, IccInfoFlags flags, ParserIccInfoDone done,
                          void *userdata, ParserCall **ret) {
        int r = ask_async(p, PARSE_OP_ICC_INFO, (uint32_t) flags, data, size, ret);
        if (r < 0)
                return r;
        (*ret)->info_done = done;
        (*ret)->userdata = userdata;
        return 0;
}

int parser_icc_warnings_async(Parser *p, uint8_t *data, size_t size, ParserWarningsDone done, void *userdata,
                              ParserCall **ret) {
        int r = ask_async(p, PARSE_OP_ICC_WARNINGS, 0, data, size, ret);
        if (r < 0)
                return r;
        (*ret)->warnings_done = done;
        (*ret)->userdata = userdata;
        return 0;
}

void parser_call_cancel(ParserCall *c) {
        if (!c)
                return;
        Parser *p = c->parser;
        assert(!c->cancelled);
        if (c->done) {
                list_unlink(&p->finished, &c->link);
                call_free(c);
        } else if (!c->worker) {
                list_unlink(&p->queue, &c->link);
                call_free(c);
        } else
                c->cancelled = true; /* in flight: freed when its answer comes (call_finish) */
}
