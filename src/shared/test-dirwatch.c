/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test of the directory watcher on a real inotify fd and sd-event loop, in a temporary
 * directory: names reported with their net change (a temporary name that came and went in
 * one burst as removed: that is all the events can tell), a rename over an existing name
 * followed by its removal reported as a removal, a file being written held back until it is closed, a missing directory
 * waited for and its coming and going reported as a rescan, a real queue overflow turned
 * into a rescan, and no fd left behind, also when setting up fails. Every step waits for the
 * report (the loop runs until the handler was called), never for a time.
 *
 * One race is made to happen on purpose: a missing directory made, with a file in it, between
 * the watcher's failed attempt to watch it and its watch on the parent (what `mkdir -p` beside
 * a busy watcher does). This file's inotify_add_watch() stands in for libc's (the watcher is
 * linked into this program) and, once asked to, makes the directory right after that failed
 * attempt; the kernel's inotify does all the rest. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "dirwatch.h"
#include "tests.h"

/* Set by test_race(): when watching this path fails, the other writer wins the race. */
static const char *race_path;
static void (*race_action)(void);

int inotify_add_watch(int fd, const char *path, uint32_t mask) {
        int wd = (int) syscall(SYS_inotify_add_watch, fd, path, mask);
        if (wd < 0 && race_path && strcmp(path, race_path) == 0) {
                int saved = errno;
                race_path = NULL;
                race_action();
                errno = saved;
        }
        return wd;
}

typedef struct Ctx {
        const char *root;
        DirWatch *w;
        char log[1024];
        bool reported;
} Ctx;

static void on_changes(const DirWatchChange *changes, size_t n, void *userdata) {
        static const char kinds[] = { '+', '~', '-', 'R' };
        Ctx *c = userdata;
        size_t len = strlen(c->root);
        for (size_t i = 0; i < n; i++) {
                const char *dir = strncmp(changes[i].dir, c->root, len) == 0 ? changes[i].dir + len : changes[i].dir;
                size_t at = strlen(c->log);
                snprintf(c->log + at, sizeof c->log - at, "%s%s:%s%c", at ? " " : "", *dir ? dir + 1 : ".",
                         changes[i].name ? changes[i].name : "", kinds[changes[i].change]);
        }
        c->reported = true;
}

/* Runs the loop until the next report and returns it. */
static const char *next_report(sd_event *e, Ctx *c) {
        c->log[0] = 0;
        c->reported = false;
        while (!c->reported)
                assert_se(sd_event_run(e, UINT64_MAX) >= 0);
        return c->log;
}

static char *path_in(const char *root, const char *name) {
        char *p;
        assert_se(asprintf(&p, "%s/%s", root, name) >= 0);
        return p;
}

static void write_file(const char *root, const char *name, const char *text) {
        _cleanup_free_ char *p = path_in(root, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_se(fd >= 0);
        assert_se(write(fd, text, strlen(text)) == (ssize_t) strlen(text));
        assert_se(close(fd) == 0);
}

static void do_rename(const char *root, const char *from, const char *to) {
        _cleanup_free_ char *a = path_in(root, from), *b = path_in(root, to);
        assert_se(rename(a, b) == 0);
}

static void do_unlink(const char *root, const char *name) {
        _cleanup_free_ char *p = path_in(root, name);
        assert_se(unlink(p) == 0);
}

static void do_mkdir(const char *root, const char *name) {
        _cleanup_free_ char *p = path_in(root, name);
        assert_se(mkdir(p, 0755) == 0);
}

static void do_rmdir(const char *root, const char *name) {
        _cleanup_free_ char *p = path_in(root, name);
        assert_se(rmdir(p) == 0);
}

static size_t count_fds(void) {
        DIR *d = opendir("/proc/self/fd");
        size_t n = 0;
        assert_se(d);
        while (readdir(d))
                n++;
        closedir(d);
        return n;
}

static long max_queued_events(void) {
        FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "re");
        long n = -1;
        if (f) {
                if (fscanf(f, "%ld", &n) != 1)
                        n = -1;
                fclose(f);
        }
        return n;
}

static void test_names(sd_event *e, Ctx *c, DirWatch *w) {
        /* written, created empty, renamed in from a temporary name */
        write_file(c->root, "a.icc", "one");
        write_file(c->root, "b.icc", "");
        write_file(c->root, ".c.tmp", "three");
        do_rename(c->root, ".c.tmp", "c.icc");
        assert_streq(next_report(e, c), ".:.c.tmp- .:a.icc+ .:b.icc+ .:c.icc+");

        /* rewritten, removed, renamed inside */
        write_file(c->root, "a.icc", "one again");
        do_unlink(c->root, "b.icc");
        do_rename(c->root, "c.icc", "d.icc");
        assert_streq(next_report(e, c), ".:a.icc~ .:b.icc- .:c.icc- .:d.icc+");

        /* renamed over an existing name and then removed, in one burst (udevd's database) */
        write_file(c->root, ".d.tmp", "new d");
        do_rename(c->root, ".d.tmp", "d.icc");
        do_unlink(c->root, "d.icc");
        assert_streq(next_report(e, c), ".:.d.tmp- .:d.icc-");

        /* a file being written is held back until closed, even when another one is reported */
        _cleanup_free_ char *p = path_in(c->root, "w.icc");
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_se(fd >= 0);
        assert_se(write(fd, "half", 4) == 4);
        write_file(c->root, "x.icc", "x");
        assert_streq(next_report(e, c), ".:x.icc+");
        assert_se(write(fd, " and the rest", 13) == 13);
        assert_se(close(fd) == 0);
        assert_streq(next_report(e, c), ".:w.icc+");

        /* dirwatch_flush() reports at once, without the delay */
        do_unlink(c->root, "x.icc");
        c->log[0] = 0;
        c->reported = false;
        dirwatch_flush(w);
        assert_se(c->reported);
        assert_streq(c->log, ".:x.icc-");
}

static void test_missing_dir(sd_event *e, Ctx *c, DirWatch *w) {
        /* two levels missing: waited for on the watched root, then on sub */
        _cleanup_free_ char *deeper = path_in(c->root, "sub/deeper");
        assert_se(dirwatch_add(w, deeper) == 0);
        do_mkdir(c->root, "sub");
        do_mkdir(c->root, "sub/deeper");
        write_file(c->root, "sub/deeper/in.icc", "in");
        assert_streq(next_report(e, c), ".:sub+ sub/deeper:R");

        /* once there, names again */
        write_file(c->root, "sub/deeper/more.icc", "more");
        assert_streq(next_report(e, c), "sub/deeper:more.icc+");

        /* removed: a rescan (it went), and back: a rescan (it came) */
        do_unlink(c->root, "sub/deeper/in.icc");
        do_unlink(c->root, "sub/deeper/more.icc");
        do_rmdir(c->root, "sub/deeper");
        assert_streq(next_report(e, c), "sub/deeper:R");
        do_mkdir(c->root, "sub/deeper");
        assert_streq(next_report(e, c), "sub/deeper:R");
        write_file(c->root, "sub/deeper/back.icc", "back");
        assert_streq(next_report(e, c), "sub/deeper:back.icc+");
}

static void test_overflow(sd_event *e, Ctx *c) {
        long max = max_queued_events();
        if (max <= 0 || max > 1000000) {
                fprintf(stderr, "overflow: skipped, max_queued_events is %ld\n", max);
                return;
        }
        /* Two events a file (IN_CREATE, IN_CLOSE_WRITE), all queued before the loop reads. */
        for (long i = 0; i < max / 2 + 100; i++) {
                char name[64];
                snprintf(name, sizeof name, "f%06ld", i);
                write_file(c->root, name, "");
        }
        /* Every directory must be listed again, the names are not told. */
        assert_streq(next_report(e, c), ".:R sub/deeper:R");
}

static const char *race_root;

static void make_icc_with_file(void) {
        do_mkdir(race_root, "race/icc");
        write_file(race_root, "race/icc/late.icc", "late");
}

static void test_race(sd_event *e, Ctx *c) {
        /* race/icc waited for on the root; race made: the watcher tries race/icc (which fails,
         * and then the other writer makes it with a file in it) and watches race. No event
         * will ever tell of race/icc: it must be found all the same, as a rescan. */
        _cleanup_free_ char *target = path_in(c->root, "race/icc");
        race_root = c->root;
        assert_se(dirwatch_add(c->w, target) == 0);
        race_path = target;
        race_action = make_icc_with_file;
        do_mkdir(c->root, "race");
        assert_streq(next_report(e, c), ".:race+ race/icc:R");
        assert_se(!race_path); /* the race did happen */

        /* and it is watched itself now */
        write_file(c->root, "race/icc/more.icc", "more");
        assert_streq(next_report(e, c), "race/icc:more.icc+");

        /* A directory renamed in with a directory and file already in it (no race needed:
         * the rename is one event). */
        do_mkdir(c->root, ".prep");
        do_mkdir(c->root, ".prep/icc");
        write_file(c->root, ".prep/icc/moved.icc", "moved");
        _cleanup_free_ char *moved = path_in(c->root, "moved/icc");
        assert_se(dirwatch_add(c->w, moved) == 0);
        assert_streq(next_report(e, c), ".:.prep+");
        do_rename(c->root, ".prep", "moved");
        assert_streq(next_report(e, c), ".:.prep- .:moved+ moved/icc:R");
        write_file(c->root, "moved/icc/more.icc", "more");
        assert_streq(next_report(e, c), "moved/icc:more.icc+");
}

int main(void) {
        _cleanup_free_ char *root = strdup("/tmp/test-dirwatch.XXXXXX");
        sd_event *e = NULL;
        Ctx c = {};
        DirWatch *w = NULL;

        assert_se(root && mkdtemp(root));
        c.root = root;
        assert_se(sd_event_new(&e) >= 0);
        /* sd-event keeps a timerfd per clock once one was used: made here, it is not ours. */
        sd_event_source *t = NULL;
        assert_se(sd_event_add_time(e, &t, CLOCK_MONOTONIC, UINT64_MAX, 0, NULL, NULL) >= 0);
        sd_event_source_disable_unref(t);
        size_t fds = count_fds();

        assert_se(dirwatch_new(e, 10 * 1000, on_changes, &c, &w) >= 0);
        c.w = w;
        assert_se(dirwatch_add(w, root) == 0);
        assert_se(dirwatch_add(w, root) == 0); /* again: no second entry, no second report */
        test_names(e, &c, w);
        test_missing_dir(e, &c, w);
        test_overflow(e, &c);
        test_race(e, &c);
        w = dirwatch_free(w);
        assert_se(count_fds() == fds);

        /* Set-up failing after the inotify fd was made (a loop that has finished refuses new
         * sources): the fd is closed again. */
        sd_event *done = NULL;
        assert_se(sd_event_new(&done) >= 0);
        assert_se(sd_event_exit(done, 0) >= 0);
        assert_se(sd_event_loop(done) == 0);
        fds = count_fds();
        assert_se(dirwatch_new(done, 1000, on_changes, &c, &w) < 0 && !w);
        assert_se(count_fds() == fds);
        sd_event_unref(done);
        sd_event_unref(e);

        _cleanup_free_ char *cmd = NULL;
        assert_se(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
        assert_se(system(cmd) == 0);
        return 0;
}
