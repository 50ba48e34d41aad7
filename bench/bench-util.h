/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the benchmark programs: the monotonic clock, latency statistics
 * (median, p99 over a sorted sample array), reading a process's memory figures from
 * /proc/PID/status, and the one output format every program uses:
 *
 *         RESULT <tab> key <tab> value <tab> unit
 *
 * on stdout (progress and diagnostics go to stderr), which bench/report.py turns into the
 * side-by-side table and the chart. Deliberately not here: anything that talks to the bus
 * or knows which daemon is being measured. */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t now_nsec(void);

/* A growable array of latency samples (nanoseconds). */
typedef struct Samples {
        uint64_t *v;
        size_t n, allocated;
} Samples;

int samples_add(Samples *s, uint64_t value);
/* Appends every sample of other (used to merge per-thread arrays). */
int samples_merge(Samples *s, const Samples *other);
void samples_done(Samples *s);

typedef struct Stats {
        size_t n;
        double median_usec;
        double p99_usec;
        double mean_usec;
        double min_usec;
        double max_usec;
} Stats;

/* Sorts the samples in place and computes the figures (nearest-rank percentiles). */
Stats samples_stats(Samples *s);

/* VmRSS and VmHWM of pid in KiB. Returns 0 or a negative errno (-ESRCH once it is gone). */
int proc_memory_kib(pid_t pid, uint64_t *ret_rss, uint64_t *ret_hwm);
/* RssAnon: the heap and other private memory, without the library pages that VmRSS also
 * counts (a code page first run adds 4 KiB to VmRSS and says nothing about leaks). */
int proc_anon_kib(pid_t pid, uint64_t *ret_anon);

/* Prints one "RESULT key value unit" line; key is printf-formatted. */
void result_printf(double value, const char *unit, const char *key_fmt, ...) _printf_(3, 4);

/* Prints median, p99 and n of a measurement as three RESULT lines under key. */
void result_stats(const char *key, const Stats *st);

/* Parses a positive decimal number ("2", "0.5"); -EINVAL on anything else. */
int parse_double(const char *s, double *ret);
int parse_size(const char *s, size_t *ret);
