/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-parse: tinctd's parser process (docs/sandbox.md). Started by the daemon with its
 * socket as fd 3, it confines itself, then answers requests (parse-wire.h) one at a time
 * until the daemon closes the socket. Whatever hostile bytes do to lcms2 or the EDID
 * parser here, they do it in a process with nothing to lose: the daemon sees a crash, a
 * timeout or a reply that does not validate, and rejects that one file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "confine.h"
#include "log.h"
#include "main-func.h"
#include "parse-wire.h"
#include "strv.h"

#define SOCKET_FD 3

/* Requests come pipelined (docs/sandbox.md, "The protocol"): reading ahead into a buffer
 * takes a burst of small ones in one read. */
typedef struct Reader {
        uint8_t buf[64 * 1024];
        size_t start, end;
} Reader;

/* 1 read, 0 end of file before the first byte, negative errno (-EPIPE: cut short). */
static int read_exact(Reader *rd, int fd, void *buf, size_t n) {
        size_t got = 0;
        while (got < n) {
                if (rd->start < rd->end) {
                        size_t take = rd->end - rd->start < n - got ? rd->end - rd->start : n - got;
                        memcpy((uint8_t *) buf + got, rd->buf + rd->start, take);
                        rd->start += take;
                        got += take;
                        continue;
                }
                /* a large input goes straight to its buffer */
                bool direct = n - got >= sizeof rd->buf;
                ssize_t k = direct ? read(fd, (uint8_t *) buf + got, n - got) : read(fd, rd->buf, sizeof rd->buf);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : (got == 0 ? 0 : -EPIPE);
                if (direct)
                        got += (size_t) k;
                else {
                        rd->start = 0;
                        rd->end = (size_t) k;
                }
        }
        return 1;
}

/* The header and the payload in one call. */
static int write_reply(int fd, const ParseReplyHeader *rh, const void *payload, size_t size) {
        struct iovec iov[2] = { { (void *) rh, sizeof *rh }, { (void *) payload, size } };
        size_t total = sizeof *rh + size, done = 0;
        while (done < total) {
                ssize_t k = writev(fd, iov, 2);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                done += (size_t) k;
                for (size_t i = 0; i < 2; i++) {
                        size_t t = (size_t) k < iov[i].iov_len ? (size_t) k : iov[i].iov_len;
                        iov[i].iov_base = (uint8_t *) iov[i].iov_base + t;
                        iov[i].iov_len -= t;
                        k -= (ssize_t) t;
                }
        }
        return 0;
}

#ifdef TINCT_PARSER_TEST_HOOKS
/* Development builds only (meson option parser_test_hooks): a payload starting with one of
 * these words makes the parser misbehave on purpose, so tests can prove the daemon survives. */
static void test_hook(const uint8_t *data, size_t size, ParseBuffer *reply, int *status) {
        static const char prefix[] = "TINCT-TEST:";
        size_t n = sizeof prefix - 1;
        if (size < n || memcmp(data, prefix, n) != 0)
                return;
        const char *what = (const char *) data + n;
        size_t left = size - n;
#define IS(word) (left >= strlen(word) && memcmp(what, word, strlen(word)) == 0)
        if (IS("crash"))
                abort();
        if (IS("hang")) { /* a parser stuck in a loop */
                /* It blocks SIGUSR2 first, which no parser does otherwise: /proc/PID/status
                 * (SigBlk) then tells a test which process loops. Neither CPU time nor state
                 * tells a loop from a slow start under a sanitizer, and its stderr may be a
                 * file it cannot write (RLIMIT_FSIZE 0, confine.c). */
                sigset_t mark;
                sigemptyset(&mark);
                sigaddset(&mark, SIGUSR2);
                sigprocmask(SIG_BLOCK, &mark, NULL);
                for (volatile unsigned long i = 0;; i++)
                        ;
        }
        if (IS("exec")) {
                char *argv[] = { (char *) "/bin/true", NULL };
                execv(argv[0], argv); /* killed by the filter */
                *status = -errno;
                parse_encode_error(reply, "execv returned");
                return;
        }
        if (IS("open")) {
                FILE *f = fopen("/etc/passwd", "re");
                *status = f ? -EEXIST : -errno;
                parse_encode_error(reply, f ? "opened /etc/passwd" : "open refused");
                return;
        }
        if (IS("garbage")) {
                static const char junk[] = "\x05\x00\x00\x00zz";
                *status = 0;
                reply->data = malloc(sizeof junk);
                if (reply->data) {
                        memcpy(reply->data, junk, sizeof junk);
                        reply->size = reply->allocated = sizeof junk;
                }
                return;
        }
#undef IS
}
#endif

static void handle(const ParseRequestHeader *h, const uint8_t *data, ParseBuffer *reply, int *status) {
        _cleanup_free_ char *why = NULL;
        int r;

#ifdef TINCT_PARSER_TEST_HOOKS
        *status = 1;
        test_hook(data, h->size, reply, status);
        if (*status != 1)
                return;
#endif
        switch (h->op) {
        case PARSE_OP_ICC_INFO: {
                _cleanup_(icc_info_freep) IccInfo *info = NULL;
                r = icc_info_parse_flags(data, h->size, (IccInfoFlags) h->flags, &info, &why);
                if (r >= 0)
                        r = parse_encode_icc_info(reply, info);
                break;
        }
        case PARSE_OP_ICC_WARNINGS: {
                _cleanup_strv_free_ char **w = NULL;
                r = icc_info_compute_warnings(data, h->size, &w, &why);
                if (r >= 0)
                        r = parse_encode_warnings(reply, w);
                break;
        }
        case PARSE_OP_EDID: {
                _cleanup_(edid_freep) Edid *e = NULL;
                r = edid_parse(data, h->size, &e);
                if (r >= 0)
                        r = parse_encode_edid(reply, e);
                break;
        }
        default:
                r = -EOPNOTSUPP;
        }
        *status = r < 0 ? r : 0;
        if (r < 0) {
                parse_buffer_done(reply);
                (void) parse_encode_error(reply, why);
        }
}

/* Exit status: 1 when it cannot confine itself; after that it ends with _exit(): 0 when
 * the daemon closed the socket, 1 on a broken request or a failed write (no exit-time
 * handler runs under the filter, which could forbid what it calls). */
static int run(int argc, char **argv) {
        const char *step = NULL;
        log_set_program_name("tinct-parse");
        int r = confine_parser_process(SOCKET_FD, &step);
        if (r < 0)
                return log_error_errno(r, "Cannot confine the parser (%s): %m", step);
        static Reader rd;
        for (;;) {
                ParseRequestHeader h;
                r = read_exact(&rd, SOCKET_FD, &h, sizeof h);
                if (r <= 0 || h.size > PARSE_MAX_REQUEST)
                        _exit(r < 0 ? 1 : 0); /* the daemon went away (or is not one) */
                _cleanup_free_ uint8_t *data = malloc(h.size ? h.size : 1);
                if (!data || read_exact(&rd, SOCKET_FD, data, h.size) < 0)
                        _exit(1);

                ParseBuffer reply = {};
                int status = 0;
                handle(&h, data, &reply, &status);
                if (reply.error) {
                        status = reply.error;
                        parse_buffer_done(&reply);
                }
                ParseReplyHeader rh = { .status = status, .size = reply.size };
                r = write_reply(SOCKET_FD, &rh, reply.data, reply.size);
                parse_buffer_done(&reply);
                if (r < 0)
                        _exit(1);
        }
}

DEFINE_MAIN_FUNCTION(run)
