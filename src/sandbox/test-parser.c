/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parser pool (parser.c, parser-worker.c) against the real tinct-parse of this build,
 * built with parser_test_hooks (inputs starting with "TINCT-TEST:<word>" make it crash, hang
 * or lie, docs/sandbox.md); skipped (77) without them.
 *  - A batch of 40 inputs with a crash, an invalid reply and a hang among valid profiles:
 *    exactly those three fail, blamed on the input, every other one (some pipelined behind
 *    a failing one in the same process) gets its answer.
 *  - Asynchronous requests on an sd-event loop: a cancelled one never calls back; a request
 *    that waits (the loop's own) is answered while an asynchronous one hangs, whose answer
 *    comes only at the timeout, from the loop, as an error.
 *  - The same batch asynchronously (rescans): one callback from the loop with every answer,
 *    a waiting request answered while its hang goes on; cancelled, it never calls back.
 *  - A batch with no process at all (a helper path that does not exist): every job fails
 *    with the start error, not blamed on the input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "parser.h"
#include "tests.h"

#define N_BATCH 40

static size_t hook_bytes(const char *word, uint8_t buf[256]) {
        memset(buf, 0, 256);
        snprintf((char *) buf, 36, "TINCT-TEST:%s", word);
        memcpy(buf + 36, "acsp", 4);
        return 256;
}

static void test_batch(const uint8_t *icc, size_t icc_size) {
        _cleanup_(parser_freep) Parser *p = NULL;
        assert_se(parser_new(TINCT_PARSE_HELPER, 2 * 1000 * 1000, &p) == 0);
        uint8_t crash[256], garbage[256], hang[256];
        hook_bytes("crash", crash);
        hook_bytes("garbage", garbage);
        hook_bytes("hang", hang);
        ParserIccJob jobs[N_BATCH];
        for (size_t i = 0; i < N_BATCH; i++)
                jobs[i] = (ParserIccJob) { .data = icc, .size = icc_size };
        jobs[5] = (ParserIccJob) { .data = crash, .size = sizeof crash };
        jobs[6] = (ParserIccJob) { .data = garbage, .size = sizeof garbage };
        jobs[17] = (ParserIccJob) { .data = hang, .size = sizeof hang };
        assert_se(parser_icc_info_many(p, jobs, N_BATCH, ICC_INFO_SKIP_WARNINGS) == 0);
        assert_se(jobs[0].r == 0);
        char want[sizeof jobs[0].info->checksum];
        memcpy(want, jobs[0].info->checksum, sizeof want);
        for (size_t i = 0; i < N_BATCH; i++) {
                if (i == 5 || i == 6 || i == 17) {
                        printf("job %zu: %d %s\n", i, jobs[i].r, jobs[i].error);
                        assert_se(jobs[i].r == (i == 5 ? -ECHILD : i == 6 ? -EPROTO : -ETIME));
                        assert_se(jobs[i].input_failed && jobs[i].error && !jobs[i].info);
                } else {
                        if (jobs[i].r != 0)
                                fprintf(stderr, "job %zu: %d %s\n", i, jobs[i].r, jobs[i].error);
                        assert_se(jobs[i].r == 0 && jobs[i].info && !jobs[i].error);
                        assert_streq(jobs[i].info->checksum, want);
                }
                icc_info_free(jobs[i].info);
                free(jobs[i].error);
        }
        /* three processes replaced; at most four ran at once */
        printf("batch: %u processes started, %llu requests sent\n", parser_spawn_count(p),
               (unsigned long long) parser_request_count(p));
        assert_se(parser_spawn_count(p) >= 4);
        assert_se(parser_request_count(p) >= N_BATCH);
}

typedef struct Answer {
        int calls, r;
        char checksum[64];
} Answer;

static void on_answer(int r, IccInfo *info, const char *error, uint8_t *data, size_t size, void *userdata) {
        Answer *a = userdata;
        a->calls++;
        a->r = r;
        if (info)
                snprintf(a->checksum, sizeof a->checksum, "%s", info->checksum);
        icc_info_free(info);
        free(data);
}

static uint8_t *copy(const void *data, size_t size) {
        uint8_t *c = malloc(size);
        assert_se(c);
        memcpy(c, data, size);
        return c;
}

static void test_async(const uint8_t *icc, size_t icc_size) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        assert_se(sd_event_new(&e) >= 0);
        _cleanup_(parser_freep) Parser *p = NULL;
        assert_se(parser_new(TINCT_PARSE_HELPER, 2 * 1000 * 1000, &p) == 0);
        assert_se(parser_attach_event(p, e) >= 0);

        uint8_t hang[256];
        hook_bytes("hang", hang);
        Answer slow = { 0 }, valid = { 0 }, dropped = { 0 };
        ParserCall *c_slow, *c_valid, *c_dropped;
        assert_se(parser_icc_info_async(p, copy(hang, sizeof hang), sizeof hang, 0, on_answer, &slow, &c_slow) == 0);
        assert_se(parser_icc_info_async(p, copy(icc, icc_size), icc_size, 0, on_answer, &valid, &c_valid) == 0);
        assert_se(parser_icc_info_async(p, copy(icc, icc_size), icc_size, 0, on_answer, &dropped, &c_dropped) == 0);
        parser_call_cancel(c_dropped);
        assert_se(slow.calls == 0 && valid.calls == 0); /* never from inside the call */

        /* the loop runs until the valid one is answered; the hang is not */
        while (valid.calls == 0)
                assert_se(sd_event_run(e, UINT64_MAX) >= 0);
        assert_se(valid.r == 0 && valid.checksum[0]);
        assert_se(slow.calls == 0);

        /* a waiting request is answered while the hang goes on */
        IccInfo *info = NULL;
        assert_se(parser_icc_info(p, icc, icc_size, 0, &info, NULL) == 0);
        assert_streq(info->checksum, valid.checksum);
        icc_info_free(info);
        assert_se(slow.calls == 0);

        /* the hang ends at the timeout, from the loop, as an error */
        while (slow.calls == 0)
                assert_se(sd_event_run(e, UINT64_MAX) >= 0);
        assert_se(slow.r == -ETIME);
        assert_se(dropped.calls == 0 && valid.calls == 1 && slow.calls == 1);
        p = parser_free(p);
}

typedef struct BatchDone {
        unsigned calls;
        size_t n;
} BatchDone;

static void on_batch(ParserIccJob *jobs, size_t n, void *userdata) {
        BatchDone *d = userdata;
        d->calls++;
        d->n = n;
}

/* The asynchronous batch (rescans): answered once, from the loop, with the same answers as
 * the waiting one, while a request that waits is answered meanwhile; one cancelled with a
 * hang in flight never calls back and leaks nothing. */
static void test_batch_async(const uint8_t *icc, size_t icc_size) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        assert_se(sd_event_new(&e) >= 0);
        _cleanup_(parser_freep) Parser *p = NULL;
        assert_se(parser_new(TINCT_PARSE_HELPER, 2 * 1000 * 1000, &p) == 0);
        assert_se(parser_attach_event(p, e) >= 0);

        uint8_t hang[256], crash[256];
        hook_bytes("hang", hang);
        hook_bytes("crash", crash);
        ParserIccJob jobs[6];
        for (size_t i = 0; i < 6; i++)
                jobs[i] = (ParserIccJob) { .data = copy(icc, icc_size), .size = icc_size };
        free((void *) jobs[1].data);
        jobs[1] = (ParserIccJob) { .data = copy(hang, sizeof hang), .size = sizeof hang };
        free((void *) jobs[4].data);
        jobs[4] = (ParserIccJob) { .data = copy(crash, sizeof crash), .size = sizeof crash };
        BatchDone done = { 0 };
        ParserBatch *b;
        assert_se(parser_icc_info_many_async(p, jobs, 6, ICC_INFO_SKIP_WARNINGS, on_batch, &done, &b) == 0);
        assert_se(done.calls == 0); /* never from inside the call */
        for (size_t i = 0; i < 6; i++)
                assert_se(!jobs[i].data); /* the pool took them */

        /* a waiting request is answered while the batch's hang goes on */
        IccInfo *info = NULL;
        assert_se(parser_icc_info(p, icc, icc_size, 0, &info, NULL) == 0);
        assert_se(done.calls == 0);
        while (done.calls == 0)
                assert_se(sd_event_run(e, UINT64_MAX) >= 0);
        assert_se(done.calls == 1 && done.n == 6);
        for (size_t i = 0; i < 6; i++) {
                if (i == 1 || i == 4) {
                        printf("async batch job %zu: %d %s\n", i, jobs[i].r, jobs[i].error);
                        assert_se(jobs[i].r == (i == 1 ? -ETIME : -ECHILD) && jobs[i].input_failed && !jobs[i].info);
                } else {
                        assert_se(jobs[i].r == 0 && jobs[i].info && !jobs[i].error);
                        assert_streq(jobs[i].info->checksum, info->checksum);
                }
                icc_info_free(jobs[i].info);
                free(jobs[i].error);
        }
        icc_info_free(info);

        /* cancelled while its hang is in flight: no callback, nothing leaks */
        ParserIccJob more[2] = { { .data = copy(hang, sizeof hang), .size = sizeof hang },
                                 { .data = copy(icc, icc_size), .size = icc_size } };
        assert_se(parser_icc_info_many_async(p, more, 2, 0, on_batch, &done, &b) == 0);
        assert_se(sd_event_run(e, 0) >= 0); /* written to a process */
        parser_batch_cancel(b);
        info = NULL;
        assert_se(parser_icc_info(p, icc, icc_size, 0, &info, NULL) == 0);
        icc_info_free(info);
        assert_se(done.calls == 1);
        p = parser_free(p);
}

static void test_no_process(const uint8_t *icc, size_t icc_size) {
        _cleanup_(parser_freep) Parser *p = NULL;
        assert_se(parser_new("/nonexistent/tinct-parse", 1000 * 1000, &p) == 0);
        ParserIccJob jobs[3];
        for (size_t i = 0; i < 3; i++)
                jobs[i] = (ParserIccJob) { .data = icc, .size = icc_size };
        assert_se(parser_icc_info_many(p, jobs, 3, 0) == 0);
        for (size_t i = 0; i < 3; i++) {
                assert_se(jobs[i].r < 0 && !jobs[i].input_failed && !jobs[i].info);
                assert_se(jobs[i].error && strstr(jobs[i].error, "cannot start the parser"));
                free(jobs[i].error);
        }
}

int main(void) {
#ifndef TINCT_PARSER_TEST_HOOKS
        fprintf(stderr, "tinct-parse built without parser_test_hooks; skipping\n");
        return 77;
#endif
        uint8_t *icc;
        size_t icc_size;
        assert_se(read_file_capped(CORPUS_DIR "/icc/colord-data--sRGB.icc", ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &icc,
                                   &icc_size, NULL) >= 0);
        test_batch(icc, icc_size);
        test_async(icc, icc_size);
        test_batch_async(icc, icc_size);
        test_no_process(icc, icc_size);
        free(icc);
        printf("test-parser: ok\n");
        return 0;
}
