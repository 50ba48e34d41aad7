/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake tree's udev devices (see udev-source.h), for tests: what udevd's database files
 * and a sysfs laid out as on a real system say, followed with the directory watcher. Not
 * here: which devices are ours (udev-match.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dirwatch.h"
#include "hashmap.h"
#include "log.h"
#include "strv.h"
#include "udev-source-backend.h"

#define ATTR_MAX 4096
/* udevd renames its database files into place: one event each, no burst to wait out. */
#define CHANGE_DELAY_USEC (10 * 1000ULL)

/* A device announced from its database file, for the remove (its sysfs directory may be
 * gone by then). */
typedef struct DbDevice {
        char *syspath;
        char name[];
} DbDevice;

typedef struct Fake {
        DirWatch *dirwatch;
        char *data_dir;         /* ROOT/run/udev/data */
        char **class_dirs;      /* ROOT/sys/class/<subsystem> */
        Hashmap *devices;       /* database file name → DbDevice */
} Fake;

/* A sysfs attribute without its trailing newline; NULL (and 0) when it is missing. */
static int read_attr(const char *dir, const char *name, char **ret) {
        _cleanup_free_ char *path = NULL;
        *ret = NULL;
        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return 0;
        char *buf = malloc(ATTR_MAX + 1);
        if (!buf)
                return -ENOMEM;
        ssize_t n = read(fd, buf, ATTR_MAX);
        if (n < 0) {
                free(buf);
                return 0;
        }
        buf[n] = 0;
        buf[strcspn(buf, "\n")] = 0;
        *ret = buf;
        return 0;
}

/* E:KEY=VALUE lines are the properties; the other records (S:, L:, I:, G:...) are not ours. */
static int read_db(const char *path, UdevInfo *i) {
        FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        char *line = NULL;
        size_t size = 0;
        int r = 0;
        while (r >= 0 && getline(&line, &size, f) > 0) {
                line[strcspn(line, "\n")] = 0;
                char *eq = strchr(line, '=');
                if (strncmp(line, "E:", 2) != 0 || !eq || eq == line + 2)
                        continue;
                *eq = 0;
                r = udev_info_add_property(i, line + 2, eq + 1);
        }
        free(line);
        fclose(f);
        return r;
}

static bool valid_db_name(const char *name) {
        unsigned major, minor;
        int end = 0;
        return name[0] == 'c' && sscanf(name + 1, "%u:%u%n", &major, &minor, &end) == 2 && name[1 + end] == 0;
}

static int fake_subsystem(const char *dir, char **ret) {
        _cleanup_free_ char *link = NULL;
        char target[PATH_MAX];
        *ret = NULL;
        if (asprintf(&link, "%s/subsystem", dir) < 0)
                return -ENOMEM;
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
                return 0;
        target[n] = 0;
        const char *base = strrchr(target, '/');
        return dup_or_null(base ? base + 1 : target, ret);
}

/* DEVNAME in the device's uevent file names its node under /dev. */
static int fake_devnode(const char *dir, char **ret) {
        _cleanup_free_ char *path = NULL;
        *ret = NULL;
        if (asprintf(&path, "%s/uevent", dir) < 0)
                return -ENOMEM;
        FILE *f = fopen(path, "re");
        if (!f)
                return 0;
        char *line = NULL;
        size_t size = 0;
        int r = 0;
        while (getline(&line, &size, f) > 0) {
                line[strcspn(line, "\n")] = 0;
                if (strncmp(line, "DEVNAME=", 8) == 0 && line[8]) {
                        r = asprintf(ret, "%s%s", line[8] == '/' ? "" : "/dev/", line + 8) < 0 ? -ENOMEM : 0;
                        break;
                }
        }
        free(line);
        fclose(f);
        return r;
}

/* What the device's sysfs directory (dir, below a root of root_len characters) and its
 * database file db say. dir is cut short on the way up. */
static int read_device(char *dir, size_t root_len, const char *db, UdevInfo *i) {
        int r = dup_or_null(dir + root_len, &i->syspath);
        if (r < 0)
                return r;
        r = fake_subsystem(dir, &i->subsystem);
        if (r < 0)
                return r;
        r = fake_devnode(dir, &i->devnode);
        if (r < 0)
                return r;
        r = read_db(db, i);
        if (r < 0)
                return r;
        r = read_attr(dir, "bDeviceClass", &i->device_class);
        if (r < 0)
                return r;
        r = read_attr(dir, "manufacturer", &i->manufacturer);
        if (r < 0)
                return r;
        r = read_attr(dir, "product", &i->product);
        if (r < 0)
                return r;
        /* Up to ROOT/sys/devices, as sd_device_get_parent() would go. */
        while (!i->removable && strlen(dir) > root_len + strlen("/sys/devices")) {
                r = read_attr(dir, "removable", &i->removable);
                if (r < 0)
                        return r;
                *strrchr(dir, '/') = 0;
        }
        return 0;
}

/* The device whose udev database file is ROOT/run/udev/data/<db_name>, its syspath as the
 * kernel would name it (without ROOT), into i (which the caller clears, also on failure).
 * -ENOENT when the file or the device's sysfs directory is missing; -EINVAL for a name that
 * is not c<major>:<minor>. */
static int read_db_device(const char *root, const char *db_name, UdevInfo *i) {
        _cleanup_free_ char *real_root = NULL, *db = NULL, *link = NULL, *dir = NULL;

        if (!valid_db_name(db_name))
                return -EINVAL;
        real_root = realpath(root, NULL);
        if (!real_root)
                return -errno;
        if (asprintf(&db, "%s/run/udev/data/%s", root, db_name) < 0 ||
            asprintf(&link, "%s/sys/dev/char/%s", root, db_name + 1) < 0)
                return -ENOMEM;
        dir = realpath(link, NULL);
        if (!dir)
                return -errno;
        size_t n = strlen(real_root);
        if (strncmp(dir, real_root, n) != 0 || dir[n] != '/')
                return -ENOENT; /* a link out of the tree is not a device of it */
        return read_device(dir, n, db, i);
}

/* ---- following the tree ---------------------------------------------------------------- */

static void db_device_free(DbDevice *d) {
        if (d)
                free(d->syspath);
        free(d);
}

static void fake_done(UdevSource *s) {
        Fake *f = s->state;
        if (!f)
                return;
        dirwatch_free(f->dirwatch);
        void *i = NULL, *v;
        while (hashmap_iterate(f->devices, &i, NULL, &v))
                db_device_free(v);
        hashmap_free(f->devices);
        strv_free(f->class_dirs);
        free(f->data_dir);
        free(f);
}

static int fake_state(UdevSource *s, Fake **ret) {
        Fake *f = s->state;
        if (!f) {
                if (!(f = s->state = calloc(1, sizeof *f)) || !(f->devices = hashmap_new()) ||
                    asprintf(&f->data_dir, "%s/run/udev/data", s->root) < 0) {
                        if (f)
                                f->data_dir = NULL;
                        return -ENOMEM;
                }
                STRV_FOREACH(sub, s->subsystems) {
                        char *dir;
                        if (asprintf(&dir, "%s/sys/class/%s", s->root, *sub) < 0 || strv_consume(&f->class_dirs, dir) < 0)
                                return -ENOMEM;
                }
        }
        *ret = f;
        return 0;
}

static void db_removed(UdevSource *s, Fake *f, const char *name) {
        DbDevice *d = hashmap_remove(f->devices, name);
        if (!d)
                return;
        UdevInfo i = { .syspath = d->syspath };
        s->handler(UDEV_ACTION_REMOVE, &i, s->userdata);
        db_device_free(d);
}

static void db_added(UdevSource *s, Fake *f, const char *name) {
        UdevInfo i = {};
        /* udevd writes a temporary file (dot name) and renames it; block devices (b…),
         * network interfaces (n…) and others (+…) are not ours. */
        if (name[0] != 'c')
                return;
        int r = read_db_device(s->root, name, &i);
        if (r < 0) {
                if (r != -EINVAL)
                        log_debug_errno(r, "udev database %s: no device: %m", name);
                udev_info_done(&i);
                return;
        }
        if (udev_source_wants(s, i.subsystem)) {
                size_t len = strlen(name);
                DbDevice *d = calloc(1, sizeof *d + len + 1);
                if (!d || !(d->syspath = strdup(i.syspath))) {
                        db_device_free(d);
                        udev_info_done(&i);
                        log_oom();
                        return;
                }
                memcpy(d->name, name, len + 1);
                db_device_free(hashmap_remove(f->devices, name));
                if (hashmap_put(f->devices, d->name, d) < 0) {
                        db_device_free(d);
                        log_oom(); /* announced all the same; its remove is not seen */
                }
                s->handler(UDEV_ACTION_ADD, &i, s->userdata);
        }
        udev_info_done(&i);
}

static int fake_enumerate(UdevSource *s) {
        Fake *f;
        int r = fake_state(s, &f);
        if (r < 0)
                return r;
        DIR *d = opendir(f->data_dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        struct dirent *de;
        while ((de = readdir(d)))
                db_added(s, f, de->d_name);
        closedir(d);
        return 0;
}

/* Events were lost or the directory came or went: what is there now is added, what went
 * removed. */
static void db_rescan(UdevSource *s, Fake *f) {
        _cleanup_strv_free_ char **gone = NULL;
        void *i = NULL, *v;
        (void) fake_enumerate(s);
        while (hashmap_iterate(f->devices, &i, NULL, &v)) {
                _cleanup_free_ char *path = NULL;
                const DbDevice *d = v;
                if (asprintf(&path, "%s/%s", f->data_dir, d->name) < 0 ||
                    (access(path, F_OK) < 0 && strv_extend(&gone, d->name) < 0)) {
                        log_oom();
                        return;
                }
        }
        STRV_FOREACH(name, gone)
                db_removed(s, f, *name);
}

/* The device directories of a class, each watched: a test rewrites their files. */
static void watch_class(Fake *f, const char *class_dir) {
        int r = dirwatch_add(f->dirwatch, class_dir);
        if (r < 0)
                log_debug_errno(r, "Cannot watch %s: %m", class_dir);
        DIR *d = opendir(class_dir);
        if (!d)
                return;
        struct dirent *de;
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL;
                if (de->d_name[0] == '.' || asprintf(&path, "%s/%s", class_dir, de->d_name) < 0)
                        continue;
                (void) dirwatch_add(f->dirwatch, path); /* not a directory: waited for, harmless */
        }
        closedir(d);
}

static void on_changes(const DirWatchChange *changes, size_t n, void *userdata) {
        UdevSource *s = userdata;
        Fake *f = s->state;
        size_t root_len = strlen(s->root);
        for (size_t k = 0; k < n; k++) {
                const DirWatchChange *c = &changes[k];
                if (streq(c->dir, f->data_dir)) {
                        if (c->change == DIR_RESCAN)
                                db_rescan(s, f);
                        else if (c->change == DIR_NAME_REMOVED)
                                db_removed(s, f, c->name);
                        else
                                db_added(s, f, c->name);
                        continue;
                }
                /* A class directory or a device's: a change of that device (or a new one). */
                _cleanup_free_ char *path = NULL;
                bool is_class = strv_contains(f->class_dirs, c->dir);
                if (is_class && c->change == DIR_RESCAN)
                        watch_class(f, c->dir);
                if (asprintf(&path, "%s%s%s", c->dir, is_class && c->name ? "/" : "", is_class ? strempty(c->name) : "") < 0) {
                        log_oom();
                        continue;
                }
                if (is_class && c->change == DIR_NAME_ADDED)
                        (void) dirwatch_add(f->dirwatch, path);
                UdevInfo i = { .syspath = path + root_len };
                s->handler(UDEV_ACTION_CHANGE, &i, s->userdata);
        }
}

static int fake_watch(UdevSource *s) {
        Fake *f;
        int r = fake_state(s, &f);
        if (r < 0)
                return r;
        r = dirwatch_new(s->event, CHANGE_DELAY_USEC, on_changes, s, &f->dirwatch);
        if (r < 0)
                return r;
        r = dirwatch_add(f->dirwatch, f->data_dir);
        if (r < 0)
                return r;
        STRV_FOREACH(dir, f->class_dirs)
                watch_class(f, *dir);
        return 0;
}

const UdevSourceBackend udev_source_fake = {
        .watch = fake_watch,
        .enumerate = fake_enumerate,
        .done = fake_done,
};
