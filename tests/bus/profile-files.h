/* SPDX-License-Identifier: GPL-2.0-or-later */
/* File-system helpers of the profile-watch, restart and CLI tests: reading and writing
 * files the ways real writers do (in place, atomically, moved in), a monotonic clock for
 * the watch delays, ICC profile ids, crafting an ICC file with a 'meta' dictionary
 * (MAPPING_device_id), and capturing the daemon's log of one start. Everything aborts on
 * an I/O error of its own: a broken test environment must never look like a pass. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "macro.h"
#include "tests.h"

static inline uint64_t mono_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

static inline char *pf_asprintf(const char *fmt, ...) _printf_(1, 2);
static inline char *pf_asprintf(const char *fmt, ...) {
        va_list ap;
        char *s;
        va_start(ap, fmt);
        int r = vasprintf(&s, fmt, ap);
        va_end(ap);
        assert_se(r >= 0);
        return s;
}

static inline uint8_t *pf_read(const char *path, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                fprintf(stderr, "cannot open %s: %m\n", path);
                abort();
        }
        uint8_t *buf = malloc((size_t) st.st_size + 1);
        assert_se(buf);
        size_t n = 0;
        while (n < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + n, (size_t) st.st_size - n);
                assert_se(k > 0);
                n += (size_t) k;
        }
        buf[n] = 0;
        *ret_size = n;
        return buf;
}

static inline void pf_write_fd(int fd, const void *data, size_t len, const char *what) {
        const uint8_t *p = data;
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0) {
                        fprintf(stderr, "cannot write %s: %m\n", what);
                        abort();
                }
                p += k;
                len -= (size_t) k;
        }
}

/* What cp(1) does: open with O_TRUNC (creating), write, close. */
static inline void pf_write_in_place(const char *path, const void *data, size_t len) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
                fprintf(stderr, "cannot create %s: %m\n", path);
                abort();
        }
        pf_write_fd(fd, data, len, path);
        assert_se(close(fd) == 0);
}

/* What GLib's g_file_replace_contents() and most editors do: a hidden temporary file in the
 * same directory, then rename() over the target. */
static inline void pf_write_atomic(const char *dir, const char *name, const void *data, size_t len) {
        _cleanup_free_ char *tmp = pf_asprintf("%s/.%s.XXXXXX", dir, name);
        _cleanup_free_ char *dst = pf_asprintf("%s/%s", dir, name);
        int fd = mkstemp(tmp);
        if (fd < 0) {
                fprintf(stderr, "mkstemp %s: %m\n", tmp);
                abort();
        }
        assert_se(fchmod(fd, 0644) == 0);
        pf_write_fd(fd, data, len, tmp);
        assert_se(close(fd) == 0);
        if (rename(tmp, dst) < 0) {
                fprintf(stderr, "rename %s → %s: %m\n", tmp, dst);
                abort();
        }
}

static inline void pf_copy_in_place(const char *src, const char *dst) {
        size_t n;
        _cleanup_free_ uint8_t *d = pf_read(src, &n);
        pf_write_in_place(dst, d, n);
}

static inline void pf_rename(const char *from, const char *to) {
        if (rename(from, to) < 0) {
                fprintf(stderr, "rename %s → %s: %m\n", from, to);
                abort();
        }
}

static inline void pf_unlink(const char *path) {
        if (unlink(path) < 0) {
                fprintf(stderr, "unlink %s: %m\n", path);
                abort();
        }
}

static inline void pf_mkdir(const char *path) {
        if (mkdir(path, 0755) < 0) {
                fprintf(stderr, "mkdir %s: %m\n", path);
                abort();
        }
}

/* "icc-<embedded profile id>" of a corpus file (only files that carry an id are used by
 * the tests, so nothing here has to compute an MD5). */
static inline char *pf_embedded_id(const char *corpus_name) {
        _cleanup_free_ char *path = harness_corpus_file(corpus_name);
        size_t n;
        _cleanup_free_ uint8_t *d = pf_read(path, &n);
        char hex[33];
        bool zero = true;
        assert_se(n >= 132);
        for (size_t i = 0; i < 16; i++) {
                snprintf(hex + 2 * i, 3, "%02x", d[84 + i]);
                zero = zero && d[84 + i] == 0;
        }
        if (zero) {
                fprintf(stderr, "%s has no embedded profile id\n", corpus_name);
                abort();
        }
        return pf_asprintf("icc-%s", hex);
}

static inline void put_be32(uint8_t *p, uint32_t v) {
        p[0] = (uint8_t) (v >> 24);
        p[1] = (uint8_t) (v >> 16);
        p[2] = (uint8_t) (v >> 8);
        p[3] = (uint8_t) v;
}

static inline uint32_t get_be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* A copy of a real profile without a 'meta' tag, with one added: a dictType (ICC.1:2010
 * 10.3, 'dict') holding the given pairs (ASCII), so the daemon reads MAPPING_device_id and
 * friends from a system file. The tag table grows by one entry (every old offset moves by
 * 12); the dict goes at the end; the size field is updated; the profile id stays zero, so
 * the id is the MD5 of the new bytes and differs for every distinct dictionary. */
static inline uint8_t *pf_icc_with_meta(const char *corpus_name, const char *const *kv, size_t *ret_size) {
        _cleanup_free_ char *path = harness_corpus_file(corpus_name);
        size_t n;
        _cleanup_free_ uint8_t *src = pf_read(path, &n);
        assert_se(n >= 132);
        uint32_t count = get_be32(src + 128);
        size_t table_end = 132 + 12 * (size_t) count;
        assert_se(table_end <= n);
        for (uint32_t i = 0; i < count; i++)
                assert_se(memcmp(src + 132 + 12 * i, "meta", 4) != 0);
        for (size_t i = 84; i < 100; i++)
                assert_se(src[i] == 0);

        size_t pairs = 0, strings = 0;
        for (const char *const *p = kv; p[0]; p += 2) {
                assert_se(p[1]);
                pairs++;
                strings += 2 * (strlen(p[0]) + strlen(p[1]));
        }
        size_t dict_size = 16 + 16 * pairs + strings;
        size_t base = n + 12, dict_off = (base + 3) & ~(size_t) 3;
        size_t total = (dict_off + dict_size + 3) & ~(size_t) 3;
        uint8_t *out = calloc(1, total);
        assert_se(out);

        memcpy(out, src, 128);
        put_be32(out, (uint32_t) total);
        put_be32(out + 128, count + 1);
        for (uint32_t i = 0; i < count; i++) {
                const uint8_t *e = src + 132 + 12 * i;
                uint8_t *o = out + 132 + 12 * i;
                memcpy(o, e, 4);
                put_be32(o + 4, get_be32(e + 4) + 12);
                put_be32(o + 8, get_be32(e + 8));
        }
        uint8_t *ne = out + 132 + 12 * count;
        memcpy(ne, "meta", 4);
        put_be32(ne + 4, (uint32_t) dict_off);
        put_be32(ne + 8, (uint32_t) dict_size);
        memcpy(out + table_end + 12, src + table_end, n - table_end);

        uint8_t *d = out + dict_off;
        memcpy(d, "dict", 4);
        put_be32(d + 8, (uint32_t) pairs);
        put_be32(d + 12, 16);
        size_t str = 16 + 16 * pairs, i = 0;
        for (const char *const *p = kv; p[0]; p += 2, i++) {
                uint8_t *rec = d + 16 + 16 * i;
                for (size_t k = 0; k < 2; k++) {
                        size_t len = strlen(p[k]);
                        put_be32(rec + 8 * k, (uint32_t) str);
                        put_be32(rec + 8 * k + 4, (uint32_t) (2 * len));
                        for (size_t c = 0; c < len; c++) {
                                d[str + 2 * c] = 0;
                                d[str + 2 * c + 1] = (uint8_t) p[k][c];
                        }
                        str += 2 * len;
                }
        }
        *ret_size = total;
        return out;
}

/* ---- the daemon's log of one start -------------------------------------------------------
 * tinctd logs to stderr, which it inherits from the test. While a start is captured the
 * test's own stderr points at an unlinked temporary file, so the daemon keeps writing there
 * for its whole life; daemon_log_flush() copies what is new to the real stderr (so nothing
 * the daemon says, sanitizer reports included, is lost from the test log). */
typedef struct DaemonLog {
        int fd;        /* read side of the current capture file, -1 if none */
        off_t shown;   /* bytes already copied to stderr */
} DaemonLog;

static inline void daemon_log_flush(DaemonLog *l) {
        if (l->fd < 0)
                return;
        char buf[4096];
        ssize_t k;
        while ((k = pread(l->fd, buf, sizeof buf, l->shown)) > 0) {
                fprintf(stderr, "%.*s", (int) k, buf);
                l->shown += k;
        }
}

static inline void daemon_log_close(DaemonLog *l) {
        daemon_log_flush(l);
        if (l->fd >= 0)
                close(l->fd);
        l->fd = -1;
        l->shown = 0;
}

/* Redirects stderr into a new capture; returns the saved stderr for daemon_log_end(). */
static inline int daemon_log_begin(DaemonLog *l) {
        char path[] = "/tmp/tinct-daemon-log-XXXXXX";
        daemon_log_close(l);
        fprintf(stderr, "    (daemon start: its log is captured, shown below)\n");
        fflush(stderr);
        int fd = mkstemp(path);
        assert_se(fd >= 0);
        assert_se(unlink(path) == 0);
        int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        assert_se(saved >= 0);
        assert_se(dup2(fd, STDERR_FILENO) == STDERR_FILENO);
        l->fd = fd;
        l->shown = 0;
        return saved;
}

/* Restores stderr and returns everything captured so far (the start-up lines: tinctd logs
 * them before it signals readiness). */
static inline char *daemon_log_end(DaemonLog *l, int saved) {
        fflush(stderr);
        assert_se(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
        close(saved);
        struct stat st;
        assert_se(fstat(l->fd, &st) == 0);
        char *text = calloc(1, (size_t) st.st_size + 1);
        assert_se(text);
        assert_se(pread(l->fd, text, (size_t) st.st_size, 0) == st.st_size);
        daemon_log_flush(l);
        return text;
}

#define assert_log_contains(log, needle)                                                         \
        do {                                                                                     \
                if (!strstr((log), (needle))) {                                                  \
                        fprintf(stderr, "%s:%d: the daemon's log lacks \"%s\"\n", __FILE__,      \
                                __LINE__, (needle));                                             \
                        abort();                                                                 \
                }                                                                                \
        } while (0)
