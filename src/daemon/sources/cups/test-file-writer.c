/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for file-writer.c on a real sd-event loop and a real directory: the answer comes
 * from the loop, never from the call, with the file complete and in place and no temporary
 * file left; a failed write leaves nothing; a cancelled write still lands whole, and freeing
 * the loop waits for it. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "file-writer.h"
#include "fileio.h"
#include "macro.h"
#include "tests.h"

#define SIZE (4u * 1000u * 1000u)

typedef struct Answer {
        sd_event *event;
        const char *path;
        bool done;
        int r;
} Answer;

static uint8_t *pattern(unsigned seed) {
        uint8_t *b = malloc(SIZE);
        assert_se(b);
        for (size_t i = 0; i < SIZE; i++)
                b[i] = (uint8_t) (i * 31u + seed);
        return b;
}

static bool holds_pattern(const char *path, unsigned seed) {
        uint8_t *data = NULL, *want = pattern(seed);
        size_t size = 0;
        bool ok = read_file_capped(path, SIZE, READ_REGULAR_ONLY, &data, &size, NULL) >= 0 && size == SIZE &&
                  memcmp(data, want, SIZE) == 0;
        free(data);
        free(want);
        return ok;
}

/* Entries of dir besides . and .. (a temporary file is a hidden one). */
static unsigned entries(const char *dir) {
        DIR *d = opendir(dir);
        assert_se(d);
        unsigned n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        n++;
        closedir(d);
        return n;
}

static void on_done(int r, uint8_t *data, size_t size, void *userdata) {
        Answer *a = userdata;
        a->done = true;
        a->r = r;
        assert_se(data && size == SIZE); /* handed back */
        free(data);
        assert_se(sd_event_exit(a->event, 0) >= 0);
}

/* One write on a loop of its own (a loop that exited takes no more sources). */
static int write_on_loop(const char *path, unsigned seed) {
        sd_event *e = NULL;
        assert_se(sd_event_new(&e) >= 0);
        Answer a = { .event = e, .path = path };
        FileWrite *w = NULL;
        assert_se(file_write_atomic_async(e, path, pattern(seed), SIZE, 0644, 0, on_done, &a, &w) == 0);
        assert_se(w && !a.done); /* never from inside the call */
        assert_se(sd_event_loop(e) >= 0);
        assert_se(a.done);
        sd_event_unref(e);
        return a.r;
}

static void test_written(const char *dir) {
        char *path = path_join(dir, "a.icc");
        assert_se(write_on_loop(path, 1) == 0);
        assert_se(holds_pattern(path, 1));
        struct stat st;
        assert_se(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
        assert_se(entries(dir) == 1);
        /* Replacing it the same way. */
        assert_se(write_on_loop(path, 2) == 0);
        assert_se(holds_pattern(path, 2) && entries(dir) == 1);
        assert_se(unlink(path) == 0);
        free(path);
}

static void test_failed(const char *dir) {
        char *missing = path_join(dir, "no-such-dir"), *path = path_join(missing, "b.icc");
        assert_se(write_on_loop(path, 3) == -ENOENT);
        assert_se(entries(dir) == 0);
        free(path);
        free(missing);
}

static void on_never(int r, uint8_t *data, size_t size, void *userdata) {
        abort();
}

static void test_cancelled(const char *dir) {
        sd_event *e = NULL;
        assert_se(sd_event_new(&e) >= 0);
        char *path = path_join(dir, "c.icc");
        FileWrite *w = NULL;
        assert_se(file_write_atomic_async(e, path, pattern(4), SIZE, 0644, 0, on_never, NULL, &w) == 0);
        file_write_cancel(w);
        /* Freeing the loop waits for the write under way and frees its request (ASan's
         * leak check says the latter); done never runs. */
        sd_event_unref(e);
        assert_se(holds_pattern(path, 4) && entries(dir) == 1);
        assert_se(unlink(path) == 0);
        free(path);
}

int main(void) {
        const char *tmp = getenv("TMPDIR");
        char *dir = NULL;
        assert_se(asprintf(&dir, "%s/test-file-writer.XXXXXX", tmp && *tmp ? tmp : "/tmp") > 0);
        assert_se(mkdtemp(dir));
        test_written(dir);
        test_failed(dir);
        test_cancelled(dir);
        assert_se(rmdir(dir) == 0);
        free(dir);
        return 0;
}
