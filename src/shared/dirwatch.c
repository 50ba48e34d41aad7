/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directory watcher (see dirwatch.h): inotify events folded into one pending entry per
 * name, reported after the debounce delay. */
#include "dirwatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "debounce.h"
#include "hashmap.h"

/* IN_MASK_ADD: a directory can be one entry's target and another's parent at once (a
 * missing sub-directory waits on its watched parent); its masks must add up, not replace
 * each other. */
#define TARGET_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | \
                     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK | IN_MASK_ADD)
#define PARENT_MASK (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK | IN_MASK_ADD)
#define GONE_MASK (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_UNMOUNT)
#define RESOLVE_AGAIN_MAX 16

typedef struct Pending {
        bool existed;   /* no IN_CREATE or IN_MOVED_TO as the first event since the last report */
        bool exists;    /* after the last one */
        bool writing;   /* modified and not closed since */
        char name[];
} Pending;

typedef struct Dir {
        char *path;
        int wd;         /* its own watch, or the parent's it waits on; -1: none */
        bool present;   /* wd is its own */
        bool rescan;
        Hashmap *pending; /* name → Pending; NULL while empty */
} Dir;

struct DirWatch {
        int fd;
        sd_event_source *io;
        Debounce *debounce;
        Dir **dirs;
        size_t n_dirs;
        DirWatchHandler handler;
        void *userdata;
};

static void dir_clear_pending(Dir *d) {
        void *i = NULL, *v;
        while (hashmap_iterate(d->pending, &i, NULL, &v))
                free(v);
        d->pending = hashmap_free(d->pending);
}

static Dir *dir_free(Dir *d) {
        if (!d)
                return NULL;
        dir_clear_pending(d);
        free(d->path);
        free(d);
        return NULL;
}

DirWatch *dirwatch_free(DirWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->io);
        debounce_free(w->debounce);
        closep(&w->fd);
        for (size_t i = 0; i < w->n_dirs; i++)
                dir_free(w->dirs[i]);
        free(w->dirs);
        free(w);
        return NULL;
}

static bool wd_in_use(const DirWatch *w, int wd) {
        for (size_t i = 0; i < w->n_dirs; i++)
                if (w->dirs[i]->wd == wd)
                        return true;
        return false;
}

/* Whether the directory on the way from parent (an ancestor of target, or ".") down to
 * target exists now. */
static bool next_dir_exists(const char *target, const char *parent) {
        const char *rest = target + (streq(parent, ".") ? 0 : strlen(parent));
        rest += strspn(rest, "/");
        _cleanup_free_ char *next = strndup(target, (size_t) (rest - target) + strcspn(rest, "/"));
        struct stat st;
        return next && stat(next, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Watches the directory itself, or else its nearest existing parent. */
static int resolve(DirWatch *w, Dir *d) {
        _cleanup_free_ char *path = strdup(d->path);
        unsigned again = 0;
        if (!path)
                return -ENOMEM;
        for (;;) {
                bool own = streq(path, d->path);
                int wd = inotify_add_watch(w->fd, path, own ? TARGET_MASK : PARENT_MASK);
                /* A parent's watch tells what is made in it from now on. What was made between
                 * the failed attempt below and this watch (mkdir -p, or a directory made with
                 * its files in it) tells nothing any more: look down again from the top. Bounded,
                 * against a directory made and removed over and over; the next event of the
                 * parent tries again. */
                if (wd >= 0 && !own && again < RESOLVE_AGAIN_MAX && next_dir_exists(d->path, path)) {
                        again++;
                        if (wd != d->wd && !wd_in_use(w, wd))
                                (void) inotify_rm_watch(w->fd, wd);
                        free(path);
                        if (!(path = strdup(d->path)))
                                return -ENOMEM;
                        continue;
                }
                if (wd >= 0) {
                        d->wd = wd;
                        d->present = own;
                        return 0;
                }
                if ((errno != ENOENT && errno != ENOTDIR) || streq(path, "/") || streq(path, "."))
                        break;
                char *slash = strrchr(path, '/');
                if (!slash)
                        strcpy(path, ".");
                else if (slash == path)
                        slash[1] = 0;
                else
                        *slash = 0;
        }
        d->wd = -1;
        d->present = false;
        return -errno;
}

/* After its watch went, or its parent saw something: where the directory is now. Coming or
 * going (or losing the watch it had) means it must be listed again. */
static void relocate(DirWatch *w, Dir *d, bool lost) {
        int old = d->wd;
        bool was_present = d->present;
        (void) resolve(w, d); /* with no watch at all, the next overflow or add tries again */
        if (d->present != was_present || (lost && was_present)) {
                d->rescan = true;
                dir_clear_pending(d);
        }
        if (old >= 0 && old != d->wd && !wd_in_use(w, old))
                (void) inotify_rm_watch(w->fd, old); /* fails harmlessly when already gone */
}

static void note(Dir *d, const struct inotify_event *ev) {
        Pending *p = d->pending ? hashmap_get(d->pending, ev->name) : NULL;
        if (!p) {
                size_t len = strlen(ev->name);
                if (!d->pending && !(d->pending = hashmap_new()))
                        goto lost;
                p = calloc(1, sizeof *p + len + 1);
                if (!p)
                        goto lost;
                memcpy(p->name, ev->name, len + 1);
                p->existed = !(ev->mask & (IN_CREATE | IN_MOVED_TO));
                if (hashmap_put(d->pending, p->name, p) < 0) {
                        free(p);
                        goto lost;
                }
        }
        p->exists = !(ev->mask & (IN_DELETE | IN_MOVED_FROM));
        if (ev->mask & IN_MODIFY)
                p->writing = true;
        else if (ev->mask & (IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE))
                p->writing = false;
        return;
lost:
        /* Out of memory: the name is not lost, the whole directory is listed again. */
        d->rescan = true;
        dir_clear_pending(d);
}

static void handle(DirWatch *w, const struct inotify_event *ev) {
        if (ev->mask & IN_Q_OVERFLOW) {
                for (size_t i = 0; i < w->n_dirs; i++) {
                        relocate(w, w->dirs[i], false);
                        w->dirs[i]->rescan = true;
                        dir_clear_pending(w->dirs[i]);
                }
                return;
        }
        for (size_t i = 0; i < w->n_dirs; i++) {
                Dir *d = w->dirs[i];
                if (d->wd != ev->wd)
                        continue;
                if (ev->mask & GONE_MASK)
                        relocate(w, d, true);
                else if (!d->present) {
                        if (ev->mask & (IN_CREATE | IN_MOVED_TO))
                                relocate(w, d, false);
                } else if (ev->len > 0 && !d->rescan)
                        note(d, ev);
        }
}

static void drain(DirWatch *w) {
        char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
        for (;;) {
                ssize_t n = read(w->fd, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        handle(w, ev);
                        p += sizeof *ev + ev->len;
                }
        }
}

static int compare_pending(const void *a, const void *b) {
        return strcmp((*(Pending *const *) a)->name, (*(Pending *const *) b)->name);
}

void dirwatch_flush(DirWatch *w) {
        size_t n = 0, n_taken = 0;
        drain(w);
        for (size_t i = 0; i < w->n_dirs; i++)
                n += w->dirs[i]->rescan ? 1 : hashmap_size(w->dirs[i]->pending);
        if (n == 0)
                return;
        DirWatchChange *changes = calloc(n, sizeof *changes);
        Pending **taken = calloc(n, sizeof *taken);
        if (!changes || !taken) {
                free(changes);
                free(taken);
                debounce_schedule(w->debounce); /* kept: tried again */
                return;
        }
        n = 0;
        for (size_t i = 0; i < w->n_dirs; i++) {
                Dir *d = w->dirs[i];
                if (d->rescan) {
                        changes[n++] = (DirWatchChange) { .dir = d->path, .change = DIR_RESCAN };
                        d->rescan = false;
                        dir_clear_pending(d);
                        continue;
                }
                /* Everything but the files being written, which stay pending. */
                size_t first = n_taken;
                void *it = NULL, *v;
                while (hashmap_iterate(d->pending, &it, NULL, &v))
                        if (!((Pending *) v)->writing)
                                taken[n_taken++] = v;
                qsort(taken + first, n_taken - first, sizeof *taken, compare_pending);
                for (size_t k = first; k < n_taken; k++) {
                        const Pending *p = taken[k];
                        (void) hashmap_remove(d->pending, p->name);
                        /* A name made within the burst is reported removed all the same:
                         * a rename over an existing entry says only IN_MOVED_TO, so what
                         * was there before is not known here. */
                        DirChange change = !p->exists ? DIR_NAME_REMOVED : p->existed ? DIR_NAME_CHANGED : DIR_NAME_ADDED;
                        changes[n++] = (DirWatchChange) { d->path, p->name, change };
                }
                if (hashmap_size(d->pending) == 0)
                        d->pending = hashmap_free(d->pending);
        }
        if (n > 0)
                w->handler(changes, n, w->userdata);
        for (size_t k = 0; k < n_taken; k++)
                free(taken[k]);
        free(taken);
        free(changes);
}

static void on_debounce(void *userdata) {
        dirwatch_flush(userdata);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        DirWatch *w = userdata;
        drain(w);
        debounce_schedule(w->debounce);
        return 0;
}

int dirwatch_new(sd_event *event, uint64_t delay_usec, DirWatchHandler handler, void *userdata, DirWatch **ret) {
        _cleanup_(dirwatch_freep) DirWatch *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        *w = (DirWatch) { .handler = handler, .userdata = userdata };
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->fd < 0)
                return -errno;
        int r = sd_event_add_io(event, &w->io, w->fd, EPOLLIN, on_io, w);
        if (r < 0)
                return r;
        r = debounce_new(event, delay_usec, on_debounce, w, &w->debounce);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

int dirwatch_add(DirWatch *w, const char *dir) {
        for (size_t i = 0; i < w->n_dirs; i++) {
                Dir *d = w->dirs[i];
                if (!streq(d->path, dir))
                        continue;
                /* Known: watched again where it is now. Its watch may follow an inode that
                 * moved away with a parent, while the caller lists the path. */
                int old = d->wd;
                int r = resolve(w, d);
                if (old >= 0 && old != d->wd && !wd_in_use(w, old))
                        (void) inotify_rm_watch(w->fd, old);
                return r == -ENOENT ? 0 : r;
        }
        Dir **grown = realloc(w->dirs, (w->n_dirs + 1) * sizeof *grown);
        if (!grown)
                return -ENOMEM;
        w->dirs = grown;
        Dir *d = calloc(1, sizeof *d);
        if (!d || !(d->path = strdup(dir))) {
                free(d);
                return -ENOMEM;
        }
        /* "a/b/" is "a/b": the parent of what is watched is found by cutting at '/'. */
        for (size_t len = strlen(d->path); len > 1 && d->path[len - 1] == '/'; len--)
                d->path[len - 1] = 0;
        int r = resolve(w, d);
        if (r < 0 && r != -ENOENT) {
                dir_free(d);
                return r;
        }
        w->dirs[w->n_dirs++] = d;
        return 0;
}
