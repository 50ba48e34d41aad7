/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One parser process of the pool (parser-internal.h): a child (child-process.h) on a socket
 * pair, requests written as the socket takes them, replies read and decoded as they
 * come, its deadline, and its end: a crash, a timeout or a reply that is not one is blamed
 * on the input it was parsing. Which process gets which request is parser.c's business. */
#include "parser-internal.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "strv.h"

#define PARSER_FD 3

static size_t call_total(const ParserCall *c) {
        return sizeof c->header + c->header.size;
}

void parser_call_free_result(ParserCall *c) {
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

void parser_call_free(ParserCall *c) {
        parser_call_free_result(c);
        free(c->error);
        free(c->owned);
        free(c);
}

/* ---- processes ------------------------------------------------------------------------ */

/* Ends the process for good, whatever state it is in, and says how it ended if it ended on
 * its own before the deadline (buf), so a crash is told apart from our kill. Its socket
 * closes a moment before it becomes a zombie, so a crash seen as end-of-file needs the wait
 * to be told apart from a process that closed the socket and carries on. */
static void worker_stop(Worker *w, uint64_t deadline, char *buf, size_t size) {
        if (buf)
                buf[0] = 0;
        child_wait_exit(&w->child, deadline);
        int status;
        if (child_end(&w->child, CHILD_KILL_IF_RUNNING, &status) == 0 && buf)
                child_describe_status(status, buf, size);
}

static int spawn_process(Parser *p, Child *ret, char **ret_error) {
        char *argv[] = { (char *) "tinct-parse", NULL };
        ChildSpec spec = { .path = p->path, .argv = argv, .channel = CHILD_FD_SOCKET, .fd_target = PARSER_FD };
        int r = child_start(ret, &spec);
        if (r < 0) {
                if (ret_error)
                        (void) asprintf(ret_error, "cannot start the parser %s: %s", p->path, strerror(-r));
                log_error("Cannot start the parser %s: %s", p->path, strerror(-r));
        }
        return r;
}

void parser_worker_free(Worker *w);

int parser_worker_new(Parser *p, unsigned slot, char **ret_error) {
        assert(!p->workers[slot]);
        Worker *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        w->parser = p;
        w->slot = slot;
        list_init(&w->in_flight);
        w->child = CHILD_NULL;
        int r = spawn_process(p, &w->child, ret_error);
        if (r < 0) {
                free(w);
                return r;
        }
        p->workers[slot] = w;
        p->spawned++;
        return 0;
}

/* ---- answers ---------------------------------------------------------------------------- */

void parser_call_finish(ParserCall *c, int r, char *error) {
        Parser *p = c->parser;
        c->r = r;
        free(c->error);
        c->error = error;
        c->done = true;
        c->worker = NULL;
        if (r < 0)
                parser_call_free_result(c);
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
                        parser_call_free(c); /* nobody waits for it */
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

void parser_worker_free(Worker *w) {
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
void parser_worker_fail(Worker *w, int r, const char *reason) {
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
                parser_call_finish(head, r == -ETIME || r == -EPROTO ? r : -ECHILD, error);
        } else if (r != -EPIPE)
                log_warning("The parser process %s while idle; it is replaced", what);
        parser_worker_free(w);
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
                parser_worker_fail(w, -EPROTO, "sent a reply nobody asked for");
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
                parser_call_finish(c, -ENOMEM, NULL);
        } else if (r < 0) {
                /* A reply that does not decode: the process is not to be trusted any more. */
                parser_call_free_result(c);
                parser_worker_fail(w, -EPROTO, "sent an invalid reply");
                return -EPROTO;
        } else {
                list_unlink(&w->in_flight, &c->link);
                c->blamed = status < 0;
                parser_call_finish(c, status < 0 ? status : 0, why);
        }
        w->head_since = now(CLOCK_MONOTONIC);
        return 0;
}

/* Reads what is there and completes every whole reply. Returns 0, or negative when the
 * process failed (w is gone). */
int parser_worker_receive(Worker *w) {
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
                ssize_t k = recv(w->child.fd, w->rx + w->rx_end, w->rx_allocated - w->rx_end, MSG_DONTWAIT);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && errno == EAGAIN)
                        return 0;
                if (k <= 0) {
                        parser_worker_fail(w, -EPIPE, NULL);
                        return -EPIPE;
                }
                w->rx_end += (size_t) k;

                while (w->rx_end - w->rx_start >= sizeof(ParseReplyHeader)) {
                        ParseReplyHeader rh;
                        memcpy(&rh, w->rx + w->rx_start, sizeof rh);
                        if (rh.size > PARSE_MAX_REPLY || rh.status > 0 || rh.reserved != 0) {
                                parser_worker_fail(w, -EPROTO, "sent a reply that is not one");
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

bool parser_worker_has_unsent(const Worker *w) {
        if (w->in_flight.size == 0)
                return false;
        ParserCall *last = list_entry(w->in_flight.head.prev, ParserCall, link);
        return last->sent < call_total(last);
}

/* Writes as much of the pipelined requests as the socket takes. Returns 0, or negative when
 * the process failed (w is gone). */
int parser_worker_send(Worker *w) {
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
                ssize_t k = sendmsg(w->child.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && errno == EAGAIN)
                        return 0;
                if (k < 0) {
                        /* The process is gone. Replies it wrote before dying may wait unread:
                         * they are answers, and the input it died on is the head after them,
                         * so read them first (that read meets the end and fails the process). */
                        if (parser_worker_receive(w) >= 0)
                                parser_worker_fail(w, -EPIPE, NULL);
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
int parser_worker_arm(Worker *w) {
        if (!w->child.io)
                return 0;
        int r = sd_event_source_set_io_events(w->child.io, EPOLLIN | (parser_worker_has_unsent(w) ? EPOLLOUT : 0));
        if (r < 0)
                return r;
        if (w->in_flight.size == 0)
                return sd_event_source_set_enabled(w->child.timer, SD_EVENT_OFF);
        r = sd_event_source_set_time(w->child.timer, w->head_since + w->parser->timeout_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(w->child.timer, SD_EVENT_ONESHOT);
        return r;
}

void parser_worker_check_deadline(Worker *w) {
        Parser *p = w->parser;
        if (w->in_flight.size == 0 || now(CLOCK_MONOTONIC) < w->head_since + p->timeout_usec)
                return;
        /* An answer may be waiting unread: then the head is not late (a new head's clock
         * starts with it). */
        if (parser_worker_receive(w) < 0)
                return; /* it failed meanwhile: w is gone */
        if (w->in_flight.size > 0 && now(CLOCK_MONOTONIC) >= w->head_since + p->timeout_usec)
                parser_worker_fail(w, -ETIME, NULL);
}
