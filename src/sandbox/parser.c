/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pool of parser processes. Each process answers its requests in order, so a batch's
 * requests are pipelined: a process gets up to MAX_IN_FLIGHT of one group written ahead,
 * and the head of its list is the one being parsed; requests of different groups (callers)
 * never share a process (pick_worker()). A failure (end of file, timeout, a reply that is
 * not one) is blamed on the head alone; the rest go back to the queue for another process.
 * Every socket is non-blocking; waiting calls poll the sockets themselves, the loop watches
 * them with io and timer sources, and both drive the same state. */
#include "parser-internal.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "strv.h"

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

static int on_worker_io(sd_event_source *s, int fd, uint32_t revents, void *userdata);
static int on_worker_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* The loop's sources for a process, once the pool has a loop: the pool's, so that a
 * process's news ends in the pool's next assignment. */
static int worker_watch(Worker *w) {
        Parser *p = w->parser;
        if (!p->event || w->child.io)
                return 0;
        return child_watch(&w->child, p->event, UINT64_MAX, on_worker_io, on_worker_timer, w);
}

/* A new process in the slot, watched. */
static int worker_start(Parser *p, unsigned slot, char **ret_error) {
        int r = parser_worker_new(p, slot, ret_error);
        if (r < 0)
                return r;
        r = worker_watch(p->workers[slot]);
        if (r < 0)
                parser_worker_free(p->workers[slot]);
        return r;
}

static int spawn_in_free_slot(Parser *p, unsigned limit, char **ret_error) {
        for (unsigned i = 0; i < limit; i++)
                if (!p->workers[i]) {
                        int r = worker_start(p, i, ret_error);
                        return r < 0 ? r : (int) i;
                }
        return -EBUSY;
}

/* The process for c: an idle one; else a new one while there are fewer than one per CPU;
 * else the least loaded one already working on c's batch (or none: a batch waits for its
 * own processes); else a new one up to MAX_PROCESSES: every process is busy with other callers' inputs, any of which may be one
 * that hangs until the timeout, and neither the loop nor another client should wait for
 * that. NULL: c waits in the queue (or, with no process at all, *ret_r says why none could
 * start). */
static Worker *pick_worker(Parser *p, const ParserCall *c, int *ret_r, char **ret_error) {
        Worker *best = NULL;
        bool group_has_one = false;
        for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                Worker *w = p->workers[i];
                if (!w)
                        continue;
                if (w->in_flight.size == 0)
                        return w;
                if (worker_group(w) != c->group)
                        continue;
                group_has_one = true;
                if (w->in_flight.size < MAX_IN_FLIGHT && (!best || w->in_flight.size < best->in_flight.size))
                        best = w;
        }
        unsigned running = running_workers(p);
        if (running < p->max_workers) {
                int r = spawn_in_free_slot(p, MAX_PROCESSES, running > 0 ? NULL : ret_error);
                if (r >= 0)
                        return p->workers[r];
                *ret_r = r;
        }
        /* a batch whose processes are full waits for them rather than oversubscribe the CPUs */
        if (best || group_has_one)
                return best;
        if (running > 0 && running < MAX_PROCESSES) {
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
                        parser_call_finish(c, r < 0 ? r : -ECHILD, TAKE_PTR(error));
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
                        w->head_since = now(CLOCK_MONOTONIC);
                c->worker = w;
                list_append(&w->in_flight, &c->link);
                p->requests++;
        }
        for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                Worker *w = p->workers[i];
                if (w && parser_worker_has_unsent(w) && parser_worker_send(w) < 0)
                        continue;
                if (p->workers[i] && parser_worker_arm(p->workers[i]) < 0)
                        log_warning("Cannot watch a parser process; its answers wait for the next call");
        }
}

/* One answer of an asynchronous batch into its job; the last one hands the batch back. */
static void batch_answer(ParserCall *c) {
        ParserBatch *b = c->batch;
        ParserIccJob *job = c->userdata;
        job->r = c->r;
        job->input_failed = c->blamed;
        job->info = TAKE_PTR(c->result);
        job->error = TAKE_PTR(c->error);
        b->calls[job - b->jobs] = NULL;
        parser_call_free(c);
        assert(b->pending > 0);
        if (--b->pending > 0)
                return;
        ParserBatchDone done = b->done;
        void *userdata = b->userdata;
        ParserIccJob *jobs = b->jobs;
        size_t n = b->n;
        free(b->calls);
        free(b);
        done(jobs, n, userdata);
}

static void dispatch_finished(Parser *p) {
        while (p->finished.size > 0) {
                ParserCall *c = list_entry(p->finished.head.next, ParserCall, link);
                list_unlink(&p->finished, &c->link);
                if (!c->cancelled && c->batch) {
                        batch_answer(c);
                        continue;
                } else if (!c->cancelled && c->header.op == PARSE_OP_ICC_INFO) {
                        IccInfo *info = c->r >= 0 ? TAKE_PTR(c->result) : NULL;
                        uint8_t *data = TAKE_PTR(c->owned);
                        c->info_done(c->r, info, c->error, data, (size_t) c->header.size, c->userdata);
                } else if (!c->cancelled && c->header.op == PARSE_OP_EDID) {
                        Edid *e = c->r >= 0 ? TAKE_PTR(c->result) : NULL;
                        c->edid_done(c->r, e, c->error, c->userdata);
                } else if (!c->cancelled) {
                        assert(c->header.op == PARSE_OP_ICC_WARNINGS); /* the asynchronous ops */
                        char **w = c->r >= 0 ? TAKE_PTR(c->result) : NULL;
                        c->warnings_done(c->r, w, c->error, c->userdata);
                }
                parser_call_free(c);
        }
}

/* Hands queued requests out and the finished answers back (from the loop). */
static void parser_pool_kick(Parser *p) {
        pool_assign(p);
        dispatch_finished(p);
}

static int on_defer(sd_event_source *s, void *userdata) {
        parser_pool_kick(userdata);
        return 0;
}

static int on_worker_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Worker *w = userdata;
        Parser *p = w->parser;
        int r = 0;
        if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))
                r = parser_worker_receive(w);
        if (r >= 0 && (revents & EPOLLOUT))
                (void) parser_worker_send(w);
        parser_pool_kick(p);
        return 0;
}

static int on_worker_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Worker *w = userdata;
        Parser *p = w->parser;
        parser_worker_check_deadline(w);
        parser_pool_kick(p);
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
                        pfd[k++] = (struct pollfd) { .fd = w->child.fd,
                                                     .events = POLLIN | (parser_worker_has_unsent(w) ? POLLOUT : 0) };
                        if (w->head_since + p->timeout_usec < deadline)
                                deadline = w->head_since + p->timeout_usec;
                }
                /* A process that failed while written to gave its calls back to the queue:
                 * hand them out again. */
                if (k == 0)
                        continue;
                uint64_t t = now(CLOCK_MONOTONIC);
                uint64_t ms = deadline > t ? (deadline - t + 999) / 1000 : 0;
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
                                q = parser_worker_receive(w);
                        if (q >= 0 && (pfd[i].revents & POLLOUT))
                                (void) parser_worker_send(w);
                }
                for (unsigned i = 0; i < MAX_PROCESSES; i++)
                        if (p->workers[i])
                                parser_worker_check_deadline(p->workers[i]);
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
                parser_call_free(c);
        }
}

Parser *parser_free(Parser *p) {
        if (!p)
                return NULL;
        for (unsigned i = 0; i < MAX_PROCESSES; i++)
                if (p->workers[i]) {
                        drop_list(&p->workers[i]->in_flight);
                        parser_worker_free(p->workers[i]);
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
        for (unsigned i = 0; i < MAX_PROCESSES; i++) {
                if (!p->workers[i])
                        continue;
                r = worker_watch(p->workers[i]);
                if (r < 0)
                        return r;
        }
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
        return worker_start(p, 0, NULL);
}

/* Asks one input and waits. On success *ret_result is the decoded answer. */
static int ask(Parser *p, ParseOp op, uint32_t flags, const void *data, size_t size, void **ret_result,
               char **ret_error) {
        if (size > PARSE_MAX_REQUEST)
                return -EFBIG;
        ParserCall *c = call_new(p, op, flags, data, size);
        if (!c)
                return -ENOMEM;
        /* One line per parse the caller's loop waits for: tests count them (docs/sandbox.md). */
        log_debug("The loop waits for the parser: one input");
        list_append(&p->queue, &c->link);
        pool_wait(p, &c, 1);
        int r = c->r;
        if (r >= 0)
                *ret_result = TAKE_PTR(c->result);
        else if (ret_error)
                *ret_error = TAKE_PTR(c->error);
        parser_call_free(c);
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
                                parser_call_free(calls[j]);
                        }
                        return -ENOMEM;
                }
                calls[k]->userdata = &jobs[i];
                calls[k]->group = calls;
                list_append(&p->queue, &calls[k]->link);
                k++;
        }
        log_debug("The loop waits for the parser: a batch of %zu", k);
        pool_wait(p, calls, k);
        for (size_t j = 0; j < k; j++) {
                ParserIccJob *job = calls[j]->userdata;
                job->r = calls[j]->r;
                job->input_failed = calls[j]->blamed;
                job->info = TAKE_PTR(calls[j]->result);
                job->error = TAKE_PTR(calls[j]->error);
                parser_call_free(calls[j]);
        }
        return 0;
}

int parser_icc_info_many_async(Parser *p, ParserIccJob *jobs, size_t n, IccInfoFlags flags, ParserBatchDone done,
                               void *userdata, ParserBatch **ret) {
        assert(p->event); /* parser_attach_event() first */
        assert(n > 0);
        ParserBatch *b = calloc(1, sizeof *b);
        ParserCall **calls = calloc(n, sizeof *calls);
        if (!b || !calls) {
                free(b);
                free(calls);
                return -ENOMEM;
        }
        *b = (ParserBatch) { .jobs = jobs, .n = n, .calls = calls, .done = done, .userdata = userdata };
        for (size_t i = 0; i < n; i++) {
                ParserCall *c = call_new(p, PARSE_OP_ICC_INFO, (uint32_t) flags, jobs[i].data, jobs[i].size);
                if (!c) {
                        parser_batch_cancel(b);
                        for (size_t j = i; j < n; j++) /* the pool took those before i */
                                free((void *) jobs[j].data);
                        for (size_t j = 0; j < n; j++)
                                jobs[j].data = NULL;
                        return -ENOMEM;
                }
                c->owned = (uint8_t *) jobs[i].data;
                jobs[i] = (ParserIccJob) { .size = jobs[i].size, .r = -EFBIG, .input_failed = true };
                c->async = true;
                c->group = b;
                c->batch = b;
                c->userdata = &jobs[i];
                b->calls[i] = c;
                b->pending++;
                if (jobs[i].size > PARSE_MAX_REQUEST) {
                        c->blamed = true;
                        parser_call_finish(c, -EFBIG, NULL); /* answered from the loop, like the rest */
                } else
                        list_append(&p->queue, &c->link);
        }
        int r = sd_event_source_set_enabled(p->defer, SD_EVENT_ONESHOT);
        if (r < 0) {
                parser_batch_cancel(b);
                return r;
        }
        *ret = b;
        return 0;
}

void parser_batch_cancel(ParserBatch *b) {
        if (!b)
                return;
        for (size_t i = 0; i < b->n; i++)
                if (b->calls[i])
                        parser_call_cancel(b->calls[i]);
        free(b->calls);
        free(b);
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
                parser_call_free(c);
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

int parser_edid_async(Parser *p, uint8_t *data, size_t size, ParserEdidDone done, void *userdata, ParserCall **ret) {
        int r = ask_async(p, PARSE_OP_EDID, 0, data, size, ret);
        if (r < 0)
                return r;
        (*ret)->edid_done = done;
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
                parser_call_free(c);
        } else if (!c->worker) {
                list_unlink(&p->queue, &c->link);
                parser_call_free(c);
        } else
                c->cancelled = true; /* in flight: freed when its answer comes (parser_call_finish) */
}
