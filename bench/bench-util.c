/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Clock, statistics, /proc memory figures and RESULT lines for the benchmarks (see
 * bench-util.h). Nothing here measures anything by itself. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-util.h"

uint64_t now_nsec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

int samples_add(Samples *s, uint64_t value) {
        if (s->n >= s->allocated) {
                size_t want = s->allocated ? s->allocated * 2 : 4096;
                uint64_t *v = realloc(s->v, want * sizeof(uint64_t));
                if (!v)
                        return -ENOMEM;
                s->v = v;
                s->allocated = want;
        }
        s->v[s->n++] = value;
        return 0;
}

int samples_merge(Samples *s, const Samples *other) {
        for (size_t i = 0; i < other->n; i++) {
                int r = samples_add(s, other->v[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

void samples_done(Samples *s) {
        s->v = mfree(s->v);
        s->n = s->allocated = 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least p of all samples at or below it. */
static uint64_t percentile(const Samples *s, double p) {
        size_t rank = (size_t) ceil(p * (double) s->n);

        if (rank < 1)
                rank = 1;
        if (rank > s->n)
                rank = s->n;
        return s->v[rank - 1];
}

Stats samples_stats(Samples *s) {
        Stats st = { .n = s->n };
        double sum = 0;

        if (s->n == 0)
                return st;
        qsort(s->v, s->n, sizeof(uint64_t), cmp_u64);
        for (size_t i = 0; i < s->n; i++)
                sum += (double) s->v[i];
        st.median_usec = (double) percentile(s, 0.5) / NSEC_PER_USEC;
        st.p99_usec = (double) percentile(s, 0.99) / NSEC_PER_USEC;
        st.mean_usec = sum / (double) s->n / NSEC_PER_USEC;
        st.min_usec = (double) s->v[0] / NSEC_PER_USEC;
        st.max_usec = (double) s->v[s->n - 1] / NSEC_PER_USEC;
        return st;
}

int proc_memory_kib(pid_t pid, uint64_t *ret_rss, uint64_t *ret_hwm) {
        char path[64], line[256];
        uint64_t rss = 0, hwm = 0;
        bool got_rss = false, got_hwm = false;
        FILE *f;

        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (fgets(line, sizeof line, f)) {
                if (sscanf(line, "VmRSS: %" SCNu64, &rss) == 1)
                        got_rss = true;
                else if (sscanf(line, "VmHWM: %" SCNu64, &hwm) == 1)
                        got_hwm = true;
        }
        fclose(f);
        /* A zombie has neither line. */
        if (!got_rss || !got_hwm)
                return -ESRCH;
        if (ret_rss)
                *ret_rss = rss;
        if (ret_hwm)
                *ret_hwm = hwm;
        return 0;
}

int proc_anon_kib(pid_t pid, uint64_t *ret_anon) {
        char path[64], line[256];
        bool got = false;
        FILE *f;

        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (!got && fgets(line, sizeof line, f))
                got = sscanf(line, "RssAnon: %" SCNu64, ret_anon) == 1;
        fclose(f);
        return got ? 0 : -ESRCH;
}

void result_printf(double value, const char *unit, const char *key_fmt, ...) {
        char key[256];
        va_list ap;

        va_start(ap, key_fmt);
        vsnprintf(key, sizeof key, key_fmt, ap);
        va_end(ap);
        printf("RESULT\t%s\t%.3f\t%s\n", key, value, unit);
        fflush(stdout);
}

void result_stats(const char *key, const Stats *st) {
        result_printf(st->median_usec, "us", "%s.median", key);
        result_printf(st->p99_usec, "us", "%s.p99", key);
        result_printf((double) st->n, "calls", "%s.n", key);
}

int parse_double(const char *s, double *ret) {
        char *end;
        double d;

        errno = 0;
        d = strtod(s, &end);
        if (errno != 0 || end == s || *end || !(d > 0))
                return -EINVAL;
        *ret = d;
        return 0;
}

int parse_size(const char *s, size_t *ret) {
        char *end;
        unsigned long long v;

        if (*s == '-')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno != 0 || end == s || *end)
                return -EINVAL;
        *ret = (size_t) v;
        return 0;
}
