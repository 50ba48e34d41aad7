/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Inside the parser pool (parser.c: the queue, the choice of process, the callers' API;
 * parser-worker.c: one process, its socket and its failures). Not for the daemon: it uses
 * parser.h. */
#pragma once

#include "time-util.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "child-process.h"
#include "list.h"
#include "parse-wire.h"
#include "parser.h"

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
        ParserEdidDone edid_done;
        void *userdata;
        ParserBatch *batch;     /* of parser_icc_info_many_async(); userdata is its job */
};

struct ParserBatch {
        ParserIccJob *jobs;
        size_t n, pending;
        ParserCall **calls;     /* by job; NULL once answered */
        ParserBatchDone done;
        void *userdata;
};

struct Worker {
        Parser *parser;
        unsigned slot;
        Child child;            /* the process, its socket (fd) and their watch on the loop */
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


void parser_call_free_result(ParserCall *c);
void parser_call_free(ParserCall *c);
/* Records the answer; an asynchronous call goes to the finished list for the loop. */
void parser_call_finish(ParserCall *c, int r, char *error);

/* A new process in slot (the loop's sources too, once the pool has a loop). */
int parser_worker_new(Parser *p, unsigned slot, char **ret_error);
/* Ends the process; what it had in flight goes back to the queue. */
void parser_worker_free(Worker *w);
/* The process failed on its head: that input is rejected with the reason, the process
 * ended, the others queued again. r: -EPIPE (end of file), -ETIME, -EPROTO. */
void parser_worker_fail(Worker *w, int r, const char *reason);
/* Read what is there (completing whole replies), write what the socket takes. 0, or
 * negative when the process failed (w is gone). */
int parser_worker_receive(Worker *w);
int parser_worker_send(Worker *w);
bool parser_worker_has_unsent(const Worker *w);
/* Fails the process (ETIME) when its head is past its deadline and no answer is waiting. */
void parser_worker_check_deadline(Worker *w);
/* The loop's view: write interest while something is unsent, the timer at the head's deadline. */
int parser_worker_arm(Worker *w);
