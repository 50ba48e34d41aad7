/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A thread per durable write (see file-writer.h). The only thread tinctd starts: it gets a
 * request the loop fills in and then leaves alone (path, data, size, mode, flags), calls
 * write_file_atomic() on it (which touches nothing else: errno is the thread's own), stores
 * the result in r and writes to the request's eventfd. Only then does the loop read r, join
 * the thread and hand data back. No lock is needed: the eventfd write/read pair orders the
 * thread's stores before the loop's loads. Not here: a pool or a queue (one printer's
 * profiles are written one at a time, cups-source.c), cancelling a write midway. */
#include "file-writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/eventfd.h>

#include "macro.h"

struct FileWrite {
        /* The request: written by the loop before the thread starts, then the thread's until
         * it signals. */
        char *path;
        uint8_t *data;
        size_t size;
        mode_t mode;
        WriteFlags flags;
        int r;                  /* the thread's answer, read by the loop after the signal */
        /* The loop's alone. */
        int efd;
        pthread_t thread;
        bool running;           /* started and not joined */
        sd_event_source *source;
        FileWriteDone done;     /* NULL once cancelled */
        void *userdata;
};

static void *writer_thread(void *userdata) {
        FileWrite *w = userdata;
        w->r = write_file_atomic(w->path, w->data, w->size, w->mode, w->flags);
        /* An eventfd write of 1 cannot block or fail short of a bad fd; if it did, the loop
         * would never learn of the end, so there is nothing better than to say so. */
        uint64_t one = 1;
        if (write(w->efd, &one, sizeof one) != sizeof one)
                abort();
        return NULL;
}

/* The source's destroy callback, so that whoever frees the source (the answer, or the loop
 * freed with a write under way) frees the request, after the thread is done with it. */
static void file_write_free(void *userdata) {
        FileWrite *w = userdata;
        if (w->running)
                (void) pthread_join(w->thread, NULL);
        if (w->efd >= 0)
                close(w->efd);
        free(w->path);
        free(w->data);
        free(w);
}

static int on_written(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        FileWrite *w = userdata;
        uint64_t n;
        if (read(fd, &n, sizeof n) < 0 && errno == EAGAIN)
                return 0; /* not yet */
        (void) pthread_join(w->thread, NULL);
        w->running = false;
        if (w->done)
                w->done(w->r, TAKE_PTR(w->data), w->size, w->userdata);
        sd_event_source_disable_unref(s); /* frees w (file_write_free) */
        return 0;
}

int file_write_atomic_async(sd_event *e, const char *path, uint8_t *data, size_t size, mode_t mode,
                            WriteFlags flags, FileWriteDone done, void *userdata, FileWrite **ret) {
        _cleanup_free_ uint8_t *owned = data;
        FileWrite *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        *w = (FileWrite) { .size = size, .mode = mode, .flags = flags, .done = done, .userdata = userdata };
        w->path = strdup(path);
        w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (!w->path || w->efd < 0) {
                int r = w->path ? -errno : -ENOMEM;
                free(w->path);
                if (w->efd >= 0)
                        close(w->efd);
                free(w);
                return r;
        }
        w->data = TAKE_PTR(owned);
        int r = sd_event_add_io(e, &w->source, w->efd, EPOLLIN, on_written, w);
        if (r < 0) {
                file_write_free(w);
                return r;
        }
        r = sd_event_source_set_destroy_callback(w->source, file_write_free);
        if (r < 0) {
                sd_event_source_disable_unref(w->source);
                file_write_free(w);
                return r;
        }
        r = -pthread_create(&w->thread, NULL, writer_thread, w);
        if (r < 0) {
                sd_event_source_disable_unref(w->source); /* frees w (file_write_free) */
                return r;
        }
        w->running = true;
        /* The loop holds the source (and so the request) until the answer, and frees it
         * with itself should the daemon end with a write under way (the destroy callback
         * then waits for it). Should that fail, our reference is the one on_written() drops. */
        if (sd_event_source_set_floating(w->source, true) >= 0)
                sd_event_source_unref(w->source);
        *ret = w;
        return 0;
}

void file_write_cancel(FileWrite *w) {
        if (w)
                w->done = NULL;
}
