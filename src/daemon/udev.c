/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev discovery (see udev.h): the bus objects for what udev-match.c accepts, and the two
 * ways of hearing about hotplug. Every object is remembered by its sysfs path, which is
 * all a remove event is sure to carry. */
#include "udev.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <systemd/sd-device.h>
#include <unistd.h>

#include "device.h"
#include "log.h"
#include "scanner-source.h"
#include "sensor.h"
#include "udev-match.h"
#include "udev-source.h"

typedef struct UdevEntry {
        char *syspath;   /* the key */
        char *db_name;   /* fake tree: the database file it came from */
        Device *device;  /* one of the two */
        Sensor *sensor;
} UdevEntry;

struct UdevWatch {
        Manager *manager;
        char *root;          /* the fake tree, or NULL for the real system */
        char *data_dir;      /* <root>/run/udev/data */
        Hashmap *entries;    /* syspath → UdevEntry */
        unsigned next_sensor_index; /* never goes back: ids are not reused */
        sd_device_monitor *monitor;
        int inotify_fd;
        sd_event_source *io;
};

static void entry_free(UdevEntry *e) {
        if (!e)
                return;
        free(e->syspath);
        free(e->db_name);
        free(e);
}

UdevWatch *udev_watch_free(UdevWatch *w) {
        if (!w)
                return NULL;
        /* The manager frees the devices and sensors itself. */
        void *it = NULL, *v;
        while (hashmap_iterate(w->entries, &it, NULL, &v))
                entry_free(v);
        hashmap_free(w->entries);
        sd_device_monitor_unref(w->monitor);
        sd_event_source_disable_unref(w->io);
        closep(&w->inotify_fd);
        free(w->root);
        free(w->data_dir);
        free(w);
        return NULL;
}

static void forget(UdevWatch *w, UdevEntry *e) {
        hashmap_remove_value(w->entries, e->syspath, e);
        entry_free(e);
}

void udev_device_removed(Manager *m, Device *d) {
        UdevWatch *w = m->udev_watch;
        void *it = NULL, *v;
        if (!w)
                return;
        while (hashmap_iterate(w->entries, &it, NULL, &v)) {
                UdevEntry *e = v;
                if (e->device == d) {
                        forget(w, e); /* a replug adds it again */
                        return;
                }
        }
}

/* ---- adding ------------------------------------------------------------------------- */

static int add_device(UdevWatch *w, const UdevInfo *i, const UdevMatch *um, UdevEntry *e) {
        Manager *m = w->manager;
        _cleanup_(device_freep) Device *d = NULL;
        _cleanup_free_ char *path = manager_object_path(m, DEVICE_PATH_PREFIX, um->device_id, 0);
        int r;
        if (!path)
                return -ENOMEM;
        Device *other = manager_find_device_by_path(m, path);
        if (other) {
                /* A stored disk device or a root client got there first; leave it alone. */
                log_notice("%s: device %s already exists (scope %s), not adding the %s", i->syspath, um->device_id,
                           scope_to_string(other->scope), um->kind);
                return 0;
        }
        if ((r = device_new(m, um->device_id, 0, SCOPE_NORMAL, &d)) < 0)
                return r;
        /* Kind first: the model clean-up depends on it. */
        if ((r = device_set_property(d, "Kind", um->kind, NULL)) < 0 ||
            (r = device_set_property(d, "Mode", "physical", NULL)) < 0 ||
            (r = device_set_property(d, "Colorspace", "rgb", NULL)) < 0 ||
            (um->vendor && (r = device_set_property(d, "Vendor", um->vendor, NULL)) < 0) ||
            (um->model && (r = device_set_property(d, "Model", um->model, NULL)) < 0) ||
            (r = device_set_property(d, "Serial", um->serial, NULL)) < 0 ||
            (r = device_set_property(d, "Seat", um->seat, NULL)) < 0 ||
            (um->embedded && (r = device_set_property(d, "Embedded", "", NULL)) < 0))
                return r;
        bool enabled;
        if (m->store && store_device_get_enabled(m->store, um->device_id, &enabled) >= 0)
                d->enabled = enabled;
        if ((r = manager_add_device(m, d)) < 0)
                return r;
        e->device = TAKE_PTR(d);
        log_info("%s: %s %s", i->syspath, um->kind, um->device_id);
        return 1;
}

static int add_sensor(UdevWatch *w, const UdevInfo *i, const UdevMatch *um, UdevEntry *e) {
        _cleanup_free_ char *id = NULL;
        Sensor *s;
        if (asprintf(&id, "%s-%02u", um->kind, w->next_sensor_index) < 0)
                return -ENOMEM;
        int r = sensor_new_udev(w->manager, id, um->kind, um->vendor, um->model, um->serial, um->caps, um->embedded,
                                i->syspath, i->devnode, &s);
        if (r < 0)
                return r;
        if ((r = manager_add_sensor(w->manager, s)) < 0) {
                sensor_free(s);
                return r;
        }
        w->next_sensor_index++;
        e->sensor = s;
        log_info("%s: sensor %s (%s %s)", i->syspath, id, um->vendor, um->model);
        return 1;
}

/* Takes a device udev announced; db_name is its database file in a fake tree. */
static void device_added(UdevWatch *w, const UdevInfo *i, const char *db_name) {
        UdevMatch um;
        int r;
        if (!i->syspath || hashmap_get(w->entries, i->syspath))
                return; /* known already: an add after coldplug, or a "change" */
        if ((r = udev_match(i, &um)) < 0) {
                log_oom();
                return;
        }
        if (um.type == UDEV_MATCH_NONE) {
                if (!streq(um.why_not, "no colord property") && !streq(um.why_not, "not a usb or video4linux device"))
                        log_debug("%s: not ours: %s", i->syspath, um.why_not);
                return;
        }
        UdevEntry *e = calloc(1, sizeof *e);
        if (!e || !(e->syspath = strdup(i->syspath)) || (db_name && !(e->db_name = strdup(db_name)))) {
                entry_free(e);
                udev_match_done(&um);
                log_oom();
                return;
        }
        r = um.type == UDEV_MATCH_SENSOR ? add_sensor(w, i, &um, e) : add_device(w, i, &um, e);
        udev_match_done(&um);
        if (r <= 0 || hashmap_put(w->entries, e->syspath, e) < 0) {
                if (r < 0)
                        log_warning_errno(r, "%s: cannot add it: %m", i->syspath);
                /* Not ours after all (its id was taken); an entry only tracks what we made. */
                if (e->device)
                        manager_remove_device(w->manager, e->device);
                else if (e->sensor)
                        manager_remove_sensor(w->manager, e->sensor);
                entry_free(e);
        }
}

static void device_gone(UdevWatch *w, UdevEntry *e) {
        Manager *m = w->manager;
        log_info("%s: removed", e->syspath);
        if (e->sensor) {
                Sensor *s = e->sensor;
                forget(w, e);
                manager_remove_sensor(m, s);
        } else {
                manager_remove_device(m, e->device); /* udev_device_removed() forgets e */
        }
}

/* ---- the real system ----------------------------------------------------------------- */

static int on_uevent(sd_device_monitor *monitor, sd_device *device, void *userdata) {
        UdevWatch *w = userdata;
        sd_device_action_t action;
        const char *syspath;
        if (sd_device_get_action(device, &action) < 0 || sd_device_get_syspath(device, &syspath) < 0)
                return 0;
        /* SANE's scanners hang off usb and scsi: any add or remove may be one (scanner-source.h). */
        if (action == SD_DEVICE_ADD || action == SD_DEVICE_REMOVE)
                scanner_source_hotplug(w->manager);
        const char *subsystem;
        if (sd_device_get_subsystem(device, &subsystem) >= 0 && streq(subsystem, "scsi"))
                return 0; /* only SANE's */
        if (action == SD_DEVICE_REMOVE) {
                /* Matched by path alone: remove events often lack the properties. */
                UdevEntry *e = hashmap_get(w->entries, syspath);
                if (e)
                        device_gone(w, e);
        } else if (action == SD_DEVICE_ADD || action == SD_DEVICE_BIND) {
                UdevInfo i;
                if (udev_info_from_device(device, &i) >= 0) {
                        device_added(w, &i, NULL);
                        udev_info_done(&i);
                }
        }
        return 0;
}

static int coldplug_system(UdevWatch *w) {
        sd_device_enumerator *en = NULL;
        int r;
        if ((r = sd_device_enumerator_new(&en)) < 0)
                return r;
        if ((r = sd_device_enumerator_add_match_subsystem(en, "usb", true)) >= 0 &&
            (r = sd_device_enumerator_add_match_subsystem(en, "video4linux", true)) >= 0)
                for (sd_device *d = sd_device_enumerator_get_device_first(en); d; d = sd_device_enumerator_get_device_next(en)) {
                        UdevInfo i;
                        if (udev_info_from_device(d, &i) >= 0) {
                                device_added(w, &i, NULL);
                                udev_info_done(&i);
                        }
                }
        sd_device_enumerator_unref(en);
        return r;
}

static int watch_system(UdevWatch *w) {
        Manager *m = w->manager;
        int r;
        if ((r = sd_device_monitor_new(&w->monitor)) < 0 ||
            (r = sd_device_monitor_filter_add_match_subsystem_devtype(w->monitor, "usb", NULL)) < 0 ||
            (r = sd_device_monitor_filter_add_match_subsystem_devtype(w->monitor, "video4linux", NULL)) < 0 ||
            (r = sd_device_monitor_filter_add_match_subsystem_devtype(w->monitor, "scsi", NULL)) < 0 ||
            (r = sd_device_monitor_attach_event(w->monitor, m->event)) < 0 ||
            (r = sd_device_monitor_start(w->monitor, on_uevent, w)) < 0)
                return r;
        return 0;
}

/* ---- a fake tree --------------------------------------------------------------------- */

static void db_file_added(UdevWatch *w, const char *name) {
        UdevInfo i;
        int r;
        if (name[0] != 'c')
                return; /* block devices (b…), network (n…), others (+…): not ours */
        r = udev_info_from_db_file(w->root, name, &i);
        if (r < 0) {
                if (r != -EINVAL)
                        log_debug_errno(r, "udev database %s: no device: %m", name);
                return;
        }
        device_added(w, &i, name);
        udev_info_done(&i);
}

static void db_file_removed(UdevWatch *w, const char *name) {
        void *it = NULL, *v;
        while (hashmap_iterate(w->entries, &it, NULL, &v)) {
                UdevEntry *e = v;
                if (streq_ptr(e->db_name, name)) {
                        device_gone(w, e);
                        return;
                }
        }
}

static int coldplug_tree(UdevWatch *w) {
        DIR *d = opendir(w->data_dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        struct dirent *de;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        db_file_added(w, de->d_name);
        closedir(d);
        return 0;
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        UdevWatch *w = userdata;
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
                for (char *p = buf; p < buf + n;) {
                        struct inotify_event *ev = (struct inotify_event *) p;
                        p += sizeof *ev + ev->len;
                        /* udevd writes a temporary file and renames it: dot files are not there yet. */
                        if (ev->len == 0 || ev->name[0] == '.')
                                continue;
                        scanner_source_hotplug(w->manager); /* a fake usb/scsi event for SANE, too */
                        if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))
                                db_file_added(w, ev->name);
                        else if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
                                db_file_removed(w, ev->name);
                }
        return 0;
}

static int watch_tree(UdevWatch *w) {
        w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->inotify_fd < 0)
                return -errno;
        if (inotify_add_watch(w->inotify_fd, w->data_dir,
                              IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR) < 0)
                return -errno;
        return sd_event_add_io(w->manager->event, &w->io, w->inotify_fd, EPOLLIN, on_inotify, w);
}

int udev_discovery_start(Manager *m) {
        if (m->config.no_udev) {
                log_debug("udev discovery disabled (--no-udev)");
                return 0;
        }
        UdevWatch *w = calloc(1, sizeof *w);
        if (!w)
                return log_oom();
        m->udev_watch = w;
        *w = (UdevWatch) { .manager = m, .inotify_fd = -1, .entries = hashmap_new() };
        bool fake = !isempty(m->config.sysfs_root);
        if (!w->entries || (fake && (!(w->root = strdup(m->config.sysfs_root)) ||
                                     asprintf(&w->data_dir, "%s/run/udev/data", w->root) < 0)))
                return log_oom();

        /* Watch first, so that nothing plugged in during the coldplug is missed. */
        if (m->event) {
                int r = fake ? watch_tree(w) : watch_system(w);
                if (r < 0)
                        log_warning_errno(r, "udev hotplug is not followed: %m");
        }
        int r = fake ? coldplug_tree(w) : coldplug_system(w);
        if (r < 0)
                log_warning_errno(r, "udev coldplug failed: %m");
        log_info("Found %zu devices and sensors through udev", hashmap_size(w->entries));
        return 0;
}
