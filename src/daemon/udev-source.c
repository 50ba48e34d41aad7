/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading one device's udev properties and sysfs attributes, from libsystemd's sd-device or
 * from a fake tree laid out as on a real system (see udev-source.h). */
#include "udev-source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"

#define ATTR_MAX 4096

static int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (s && !(*ret = strdup(s)))
                return -ENOMEM;
        return 0;
}

static int dup_attr(sd_device *d, const char *attr, char **ret) {
        const char *v = NULL;
        (void) sd_device_get_sysattr_value(d, attr, &v);
        return dup_or_null(v, ret);
}

int udev_info_from_device(sd_device *d, UdevInfo *ret) {
        UdevInfo i = {};
        const char *syspath = NULL, *subsystem = NULL, *devname = NULL, *key, *value;
        int r = sd_device_get_syspath(d, &syspath);
        if (r < 0)
                return r;
        (void) sd_device_get_subsystem(d, &subsystem);
        (void) sd_device_get_devname(d, &devname);
        if ((r = dup_or_null(syspath, &i.syspath)) < 0 || (r = dup_or_null(subsystem, &i.subsystem)) < 0 ||
            (r = dup_or_null(devname, &i.devnode)) < 0)
                goto fail;
        for (key = sd_device_get_property_first(d, &value); key; key = sd_device_get_property_next(d, &value))
                if ((r = udev_info_add_property(&i, key, value)) < 0)
                        goto fail;
        if ((r = dup_attr(d, "bDeviceClass", &i.device_class)) < 0 || (r = dup_attr(d, "manufacturer", &i.manufacturer)) < 0 ||
            (r = dup_attr(d, "product", &i.product)) < 0)
                goto fail;
        /* The nearest device up the tree that says whether it is removable (the port). */
        for (sd_device *p = d; p && !i.removable;) {
                if ((r = dup_attr(p, "removable", &i.removable)) < 0)
                        goto fail;
                if (sd_device_get_parent(p, &p) < 0)
                        p = NULL;
        }
        *ret = i;
        return 0;
fail:
        udev_info_done(&i);
        return r;
}

/* ---- the fake tree ------------------------------------------------------------------- */

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

int udev_info_from_db_file(const char *root, const char *db_name, UdevInfo *ret) {
        _cleanup_free_ char *real_root = NULL, *db = NULL, *link = NULL, *dir = NULL;
        UdevInfo i = {};
        int r;

        if (!valid_db_name(db_name))
                return -EINVAL;
        if (!(real_root = realpath(root, NULL)))
                return -errno;
        if (asprintf(&db, "%s/run/udev/data/%s", root, db_name) < 0 ||
            asprintf(&link, "%s/sys/dev/char/%s", root, db_name + 1) < 0)
                return -ENOMEM;
        if (!(dir = realpath(link, NULL)))
                return -errno;
        size_t n = strlen(real_root);
        if (strncmp(dir, real_root, n) != 0 || dir[n] != '/')
                return -ENOENT; /* a link out of the tree is not a device of it */
        if ((r = dup_or_null(dir + n, &i.syspath)) < 0 || (r = fake_subsystem(dir, &i.subsystem)) < 0 ||
            (r = fake_devnode(dir, &i.devnode)) < 0 || (r = read_db(db, &i)) < 0 ||
            (r = read_attr(dir, "bDeviceClass", &i.device_class)) < 0 ||
            (r = read_attr(dir, "manufacturer", &i.manufacturer)) < 0 || (r = read_attr(dir, "product", &i.product)) < 0)
                goto fail;
        /* Up to ROOT/sys/devices, as sd_device_get_parent() would go. */
        for (char *p = dir; !i.removable && strlen(p) > n + strlen("/sys/devices");) {
                if ((r = read_attr(p, "removable", &i.removable)) < 0)
                        goto fail;
                *strrchr(p, '/') = 0;
        }
        *ret = i;
        return 0;
fail:
        udev_info_done(&i);
        return r;
}
