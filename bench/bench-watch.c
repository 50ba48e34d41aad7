/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-bench-watch: the time from a file operation in a watched profile directory to the
 * daemon's signal (issue 22: "a change costs what changed").
 *
 *     tinct-bench-watch --profile-dir DIR --source FILE [--rounds N] [--key KEY] [--timeout SEC]
 *
 * Against whatever owns org.freedesktop.ColorManager on $DBUS_SYSTEM_BUS_ADDRESS, which must
 * watch DIR. Each round copies FILE (an ICC profile none of DIR's files duplicates) to a
 * staging name beside DIR (same file system, outside the watch), then times rename into DIR
 * → ProfileAdded, and unlink → ProfileRemoved. Prints watch.KEY.added and watch.KEY.removed
 * (median, p99, n) as RESULT lines. A signal that does not come within --timeout seconds
 * (default 10) ends the run with exit 1: no wait is without a limit. Not measured: the
 * daemon's start (tinct-bench-startup does that). */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-util.h"
#include "fileio.h"

#define CM_NAME "org.freedesktop.ColorManager"
#define CM_PATH "/org/freedesktop/ColorManager"

typedef struct Wait {
        const char *member;     /* the signal waited for */
        bool seen;
} Wait;

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Wait *w = userdata;
        if (w->member && streq(sd_bus_message_get_member(m), w->member))
                w->seen = true;
        return 0;
}

/* Runs the bus until w->member arrives; -ETIMEDOUT after timeout_nsec. */
static int wait_signal(sd_bus *bus, Wait *w, uint64_t timeout_nsec) {
        uint64_t deadline = now_nsec() + timeout_nsec;
        while (!w->seen) {
                int r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                uint64_t now = now_nsec();
                if (now >= deadline)
                        return -ETIMEDOUT;
                r = sd_bus_wait(bus, (deadline - now) / NSEC_PER_USEC);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Renames from to target (or, with from NULL, removes target) and adds the time until
 * ProfileAdded (ProfileRemoved) arrives to into. */
static int timed(sd_bus *bus, Wait *w, const char *from, const char *target, uint64_t timeout, Samples *into) {
        *w = (Wait) { .member = from ? "ProfileAdded" : "ProfileRemoved" };
        uint64_t t0 = now_nsec();
        if ((from ? rename(from, target) : unlink(target)) < 0)
                return -errno;
        int r = wait_signal(bus, w, timeout);
        if (r < 0)
                return r;
        return samples_add(into, now_nsec() - t0);
}

static int write_staged(const char *path, const uint8_t *data, size_t size) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        for (size_t done = 0; done < size;) {
                ssize_t k = write(fd, data + done, size - done);
                if (k < 0)
                        return -errno;
                done += (size_t) k;
        }
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "profile-dir", required_argument, NULL, 'd' },
                { "source", required_argument, NULL, 's' },
                { "rounds", required_argument, NULL, 'n' },
                { "key", required_argument, NULL, 'k' },
                { "timeout", required_argument, NULL, 't' },
                {}
        };
        const char *dir = NULL, *source = NULL, *key = "run";
        size_t rounds = 20;
        double timeout_sec = 10;
        int c;
        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'd': dir = optarg; break;
                case 's': source = optarg; break;
                case 'k': key = optarg; break;
                case 'n':
                        if (parse_size(optarg, &rounds) < 0 || rounds == 0)
                                return fprintf(stderr, "invalid --rounds: %s\n", optarg), 2;
                        break;
                case 't':
                        if (parse_double(optarg, &timeout_sec) < 0)
                                return fprintf(stderr, "invalid --timeout: %s\n", optarg), 2;
                        break;
                default:
                        return 2;
                }
        if (!dir || !source || optind != argc) {
                fprintf(stderr, "usage: %s --profile-dir DIR --source FILE [--rounds N] [--key KEY] [--timeout SEC]\n",
                        argv[0]);
                return 2;
        }

        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        int r = read_file_capped(source, 64 << 20, READ_REGULAR_ONLY, &data, &size, NULL);
        if (r < 0)
                return fprintf(stderr, "reading %s: %s\n", source, strerror(-r)), 1;
        _cleanup_free_ char *staged = NULL, *target = NULL;
        if (asprintf(&staged, "%s.bench-watch-staged.icc", dir) < 0 || asprintf(&target, "%s/zz-bench-watch.icc", dir) < 0)
                return 1;

        sd_bus *bus = NULL;
        Wait w = {};
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, CM_NAME, CM_PATH, CM_NAME, NULL, on_signal, &w);
        if (r < 0) {
                fprintf(stderr, "system bus: %s\n", strerror(-r));
                sd_bus_flush_close_unref(bus);
                return 1;
        }

        Samples added = {}, removed = {};
        uint64_t timeout = (uint64_t) (timeout_sec * NSEC_PER_SEC);
        for (size_t i = 0; r >= 0 && i < rounds; i++) {
                r = write_staged(staged, data, size);
                if (r < 0) {
                        fprintf(stderr, "writing %s: %s\n", staged, strerror(-r));
                        break;
                }
                r = timed(bus, &w, staged, target, timeout, &added);
                if (r >= 0)
                        r = timed(bus, &w, NULL, target, timeout, &removed);
                if (r < 0)
                        fprintf(stderr, "round %zu: %s: %s\n", i, target, strerror(-r));
        }
        (void) unlink(staged);
        sd_bus_flush_close_unref(bus);
        if (r >= 0) {
                _cleanup_free_ char *k_added = NULL, *k_removed = NULL;
                Stats sa = samples_stats(&added), sr = samples_stats(&removed);
                if (asprintf(&k_added, "watch.%s.added", key) >= 0 && asprintf(&k_removed, "watch.%s.removed", key) >= 0) {
                        result_stats(k_added, &sa);
                        result_stats(k_removed, &sr);
                }
        }
        samples_done(&added);
        samples_done(&removed);
        return r < 0 ? 1 : 0;
}
