/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the bus tests that make the parser hang share (development builds: tinct-parse loops on
 * an input that starts with "TINCT-TEST:hang", docs/sandbox.md): that input, the daemon's
 * tinct-parse children found and killed through /proc, and asynchronous calls whose answers
 * are collected. */
#pragma once

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>

#include "bus-test.h"

static inline int memfd_with(const void *data, size_t len) {
        int fd = memfd_create("tinct-test", MFD_CLOEXEC);
        assert_se(fd >= 0);
        assert_se(write(fd, data, len) == (ssize_t) len);
        return fd;
}

/* A small /proc file as a string (NULL when it cannot be read: the process is gone). */
static inline char *read_proc(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *text = calloc(1, 4096);
        assert_se(text);
        size_t n = fread(text, 1, 4095, f);
        text[n] = 0;
        fclose(f);
        return text;
}

/* The daemon's live tinct-parse children, at most max; returns how many. Children are found
 * by their parent in /proc/PID/stat (the task's "children" file may skip one while another
 * exits, which here is the moment that matters). */
static inline size_t list_parsers(pid_t daemon, pid_t *out, size_t max) {
        DIR *d = opendir("/proc");
        assert_se(d);
        size_t n = 0;
        for (struct dirent *de; n < max && (de = readdir(d));) {
                char *end;
                long pid = strtol(de->d_name, &end, 10);
                if (*end || pid <= 0)
                        continue;
                _cleanup_free_ char *path = xasprintf("/proc/%ld/stat", pid);
                _cleanup_free_ char *stat = read_proc(path);
                /* pid (comm) state ppid ... */
                char *close = stat ? strrchr(stat, ')') : NULL;
                char state;
                long ppid;
                if (!close || !strstr(stat, "(tinct-parse)") || sscanf(close + 1, " %c %ld", &state, &ppid) != 2)
                        continue;
                if (ppid == daemon && state != 'Z')
                        out[n++] = (pid_t) pid;
        }
        closedir(d);
        return n;
}

/* SIGKILLs every tinct-parse child of the daemon; returns how many. */
static inline int kill_parsers(pid_t daemon) {
        pid_t procs[16];
        size_t n = list_parsers(daemon, procs, 16);
        int killed = 0;
        for (size_t i = 0; i < n; i++)
                killed += kill(procs[i], SIGKILL) == 0;
        return killed;
}

/* Whether a process blocks SIGUSR2: parse-helper.c's hang hook does so before it loops,
 * and no other parser does. Neither CPU time nor state tells a loop from a slow start under a
 * sanitizer on a busy machine. */
static inline bool blocks_sigusr2(pid_t pid) {
        _cleanup_free_ char *path = xasprintf("/proc/%d/status", (int) pid);
        _cleanup_free_ char *status = read_proc(path);
        const char *line = status ? strstr(status, "\nSigBlk:") : NULL;
        if (!line)
                return false;
        unsigned long long mask = strtoull(line + strlen("\nSigBlk:"), NULL, 16);
        return (mask >> (SIGUSR2 - 1)) & 1;
}

/* The daemon's live parser processes looping on a hang input, at most max; returns how many. */
static inline size_t hung_parsers(Harness *h, pid_t *out, size_t max) {
        pid_t live[16];
        size_t n_live = list_parsers(harness_daemon_pid(h), live, 16), n = 0;
        for (size_t i = 0; i < n_live && n < max; i++)
                if (blocks_sigusr2(live[i]))
                        out[n++] = live[i];
        return n;
}

/* The one hung parser, waiting for it (with GetProfiles from b meanwhile, each answered
 * with want profiles). */
static inline pid_t wait_hung_parser(Harness *h, sd_bus *b, size_t want) {
        pid_t pid;
        while (hung_parsers(h, &pid, 1) < 1) {
                _cleanup_strv_free_ char **p = harness_call_strv(b, CM_PATH, CM_IFACE, "GetProfiles", NULL);
                assert_se(p && (want == SIZE_MAX || strv_length(p) == want));
        }
        return pid;
}

typedef struct Pending {
        bool done;
        char *error_name, *error_message;
} Pending;

static inline int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Pending *p = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        p->done = true;
        if (e) {
                p->error_name = strdup(e->name);
                p->error_message = strdup(strempty(e->message));
        }
        return 0;
}

/* Everything that has arrived on bus is dispatched. */
static inline void drain(sd_bus *bus) {
        while (sd_bus_process(bus, NULL) > 0)
                ;
}

/* An input on which the parser loops for ever (development builds, docs/sandbox.md). */
static inline void hang_input(uint8_t buf[static 256]) {
        memset(buf, 0, 256);
        snprintf((char *) buf, 36, "TINCT-TEST:hang");
        memcpy(buf + 36, "acsp", 4);
}

/* Waits until some of the n connections has a new answer; returns how many have one. */
static inline int wait_answers(sd_bus **conns, Pending *pending, int n) {
        int before = 0, answered;
        for (int i = 0; i < n; i++)
                before += pending[i].done;
        for (;;) {
                answered = 0;
                for (int i = 0; i < n; i++) {
                        drain(conns[i]);
                        answered += pending[i].done;
                }
                if (answered > before)
                        return answered;
                struct pollfd pfd[16];
                assert_se(n <= 16);
                for (int i = 0; i < n; i++)
                        pfd[i] = (struct pollfd) { .fd = sd_bus_get_fd(conns[i]), .events = POLLIN };
                assert_se(poll(pfd, n, -1) > 0);
        }
}
