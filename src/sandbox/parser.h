/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's side of the parser processes (docs/sandbox.md): the same answers as
 * icc_info_parse_flags(), icc_info_compute_warnings() and edid_parse(), computed in confined
 * tinct-parse processes. A pool of them (one per CPU, at least 2 so that one slow input never
 * holds every other parse, at most 4) is started on demand, reused, and each is replaced after
 * it crashes, hangs past the timeout or sends a reply that does not validate; requests queued
 * behind a failed one go to another process, only the input that failed is rejected.
 *
 * Three ways to ask: one input, waiting for its answer (display EDIDs, warnings, start-up);
 * a batch, spread over the pool and pipelined, waiting for all of them (start-up directory
 * loads) or answered to a callback (rescans); or
 * asynchronously on the sd-event loop (client calls): the answer comes to a callback and the
 * loop serves others meanwhile. Waiting calls never run a callback: answers to asynchronous
 * requests that arrive while one waits are handed out later from the loop.
 *
 * Errors: the parser's own (-EBADMSG, -ENODATA, ... with its reason text), or, for the
 * sandbox: -ECHILD (the process died on this input), -ETIME (timeout), -EPROTO (invalid
 * reply), or the errno of starting it. *ret_error, when not NULL, gets a sentence. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "edid.h"
#include "icc-info.h"
#include "macro.h"

typedef struct Parser Parser;
typedef struct ParserCall ParserCall;

int parser_new(const char *helper_path, uint64_t timeout_usec, Parser **ret);
/* Cancels whatever is pending (no callback runs) and ends the processes. */
Parser *parser_free(Parser *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Parser *, parser_free);

/* Asynchronous calls need the loop; attach it once, before the first. */
int parser_attach_event(Parser *p, sd_event *event);
/* For benchmarks: at most n processes (1..4). */
void parser_set_max_processes(Parser *p, unsigned n);

/* Starts the first process now unless one runs: a daemon whose parser cannot start at all
 * says so once at start-up instead of failing every file. The start-up error is logged here. */
int parser_start(Parser *p);

int parser_icc_info(Parser *p, const void *data, size_t size, IccInfoFlags flags, IccInfo **ret,
                    char **ret_error);
int parser_icc_warnings(Parser *p, const void *data, size_t size, char ***ret, char **ret_error);
int parser_edid(Parser *p, const void *data, size_t size, Edid **ret, char **ret_error);

/* One input of a batch: data in (borrowed until parser_icc_info_many() returns), the
 * answer out: r, and info (r >= 0) or error (r < 0, may be NULL), both owned by the caller;
 * input_failed when the failure is the input's (refused, or the process died on it, hung or
 * lied), not the sandbox's (a process that could not start, memory). */
typedef struct ParserIccJob {
        const void *data;
        size_t size;
        int r;
        bool input_failed;
        IccInfo *info;
        char *error;
} ParserIccJob;

/* Parses every job, spread over the pool. Returns 0 (each job has its own answer) or
 * -ENOMEM before anything was asked. */
int parser_icc_info_many(Parser *p, ParserIccJob *jobs, size_t n, IccInfoFlags flags);

/* The same batch without waiting (rescans after start-up): the pool takes each job's data
 * (job->data is NULL afterwards; freed by the pool, also on failure) and fills in r,
 * input_failed, info and error; jobs[] is borrowed until done runs. done runs once, later,
 * from the event loop, never from inside this call; the loop serves others meanwhile. *ret
 * identifies the batch until done runs. n > 0. */
typedef struct ParserBatch ParserBatch;
typedef void (*ParserBatchDone)(ParserIccJob *jobs, size_t n, void *userdata);
int parser_icc_info_many_async(Parser *p, ParserIccJob *jobs, size_t n, IccInfoFlags flags, ParserBatchDone done,
                               void *userdata, ParserBatch **ret);
/* done will not run; the jobs' data is freed by the pool. */
void parser_batch_cancel(ParserBatch *b);

/* The answer to an asynchronous request: r and info (owned by the callee, NULL on error) or
 * error (may be NULL, valid during the call); data is handed back (the callee owns it). */
typedef void (*ParserIccInfoDone)(int r, IccInfo *info, const char *error, uint8_t *data, size_t size,
                                  void *userdata);

/* Takes ownership of data (also on failure). done runs later from the event loop, never
 * from inside this call. *ret identifies the request until done runs. */
int parser_icc_info_async(Parser *p, uint8_t *data, size_t size, IccInfoFlags flags, ParserIccInfoDone done,
                          void *userdata, ParserCall **ret);
/* The same for a profile's warnings (the idle pass of profile-warnings.c): r and w (owned by
 * the callee, NULL on error) or error. */
typedef void (*ParserWarningsDone)(int r, char **w, const char *error, void *userdata);
int parser_icc_warnings_async(Parser *p, uint8_t *data, size_t size, ParserWarningsDone done, void *userdata,
                              ParserCall **ret);

/* The same for an EDID (a display found after start-up): r and e (owned by the callee, NULL
 * on error) or error. */
typedef void (*ParserEdidDone)(int r, Edid *e, const char *error, void *userdata);
int parser_edid_async(Parser *p, uint8_t *data, size_t size, ParserEdidDone done, void *userdata, ParserCall **ret);

/* done will not run; the input already sent is parsed and its answer dropped. */
void parser_call_cancel(ParserCall *c);

/* For tests and benchmarks: processes started so far, requests sent so far. */
unsigned parser_spawn_count(const Parser *p);
uint64_t parser_request_count(const Parser *p);
