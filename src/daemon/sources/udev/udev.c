/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev discovery (see udev.h): the bus objects for what udev-match.c accepts of what
 * udev-source.h announces. Every object is remembered by its sysfs path, which is all a
 * remove event is sure to carry. */
#include "udev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "log.h"
#include "sensor-argyll.h"
#include "udev-match.h"
#include "udev-source.h"

typedef struct UdevEntry {
        char *syspath;   /* the key */
        Device *device;  /* one of the two */
        Sensor *sensor;
} UdevEntry;

struct UdevWatch {
        Manager *manager;
        UdevSource *source;
        Hashmap *entries;    /* syspath → UdevEntry */
        unsigned next_sensor_index; /* never goes back: ids are not reused */
};

static void entry_free(UdevEntry *e) {
        if (!e)
                return;
        free(e->syspath);
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
        udev_source_free(w->source);
        free(w);
        return NULL;
}

static void forget(UdevWatch *w, UdevEntry *e) {
        hashmap_remove_value(w->entries, e->syspath, e);
        entry_free(e);
}

static void udev_device_removed(void *userdata, Device *d) {
        UdevWatch *w = userdata;
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
        r = device_new(m, um->device_id, 0, SCOPE_NORMAL, &d);
        if (r < 0)
                return r;
        const DeviceProperty props[] = {
                { "Kind", um->kind },
                { "Mode", "physical" },
                { "Colorspace", "rgb" },
                { "Vendor", um->vendor },
                { "Model", um->model },
                { "Serial", um->serial },
                { "Seat", um->seat },
                { "Embedded", um->embedded ? "" : NULL },
        };
        r = device_set_properties(d, props, ELEMENTSOF(props));
        if (r < 0)
                return r;
        bool enabled;
        if (m->store && store_device_get_enabled(m->store, um->device_id, device_mapping_layer(d), &enabled) >= 0)
                d->enabled = enabled;
        r = manager_add_device(m, d);
        if (r < 0)
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
        int r = sensor_new_udev(w->manager, &sensor_argyll_driver, id, um->kind, um->vendor, um->model, um->serial, um->caps, um->embedded,
                                i->syspath, i->devnode, &s);
        if (r < 0)
                return r;
        r = manager_add_sensor(w->manager, s);
        if (r < 0) {
                sensor_free(s);
                return r;
        }
        w->next_sensor_index++;
        e->sensor = s;
        log_info("%s: sensor %s (%s %s)", i->syspath, id, um->vendor, um->model);
        return 1;
}

/* Takes a device udev announced. */
static void device_added(UdevWatch *w, const UdevInfo *i) {
        UdevMatch um;
        int r;
        if (!i->syspath || hashmap_get(w->entries, i->syspath))
                return; /* known already: an add after coldplug, or a "change" */
        r = udev_match(i, &um);
        if (r < 0) {
                log_oom();
                return;
        }
        if (um.type == UDEV_MATCH_NONE) {
                if (!streq(um.why_not, "no colord property") && !streq(um.why_not, "not a usb or video4linux device"))
                        log_debug("%s: not ours: %s", i->syspath, um.why_not);
                return;
        }
        UdevEntry *e = calloc(1, sizeof *e);
        if (!e || !(e->syspath = strdup(i->syspath))) {
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

static void on_udev_event(UdevAction action, const UdevInfo *i, void *userdata) {
        UdevWatch *w = userdata;
        /* Other sources may see what hangs off these (SANE's scanners: usb and scsi). */
        if (action == UDEV_ACTION_ADD || action == UDEV_ACTION_REMOVE)
                manager_sources_hotplug(w->manager, i->subsystem);
        if (streq_ptr(i->subsystem, "scsi"))
                return; /* only SANE's */
        if (action == UDEV_ACTION_ADD)
                device_added(w, i);
        else if (action == UDEV_ACTION_REMOVE) {
                UdevEntry *e = hashmap_get(w->entries, i->syspath);
                if (e)
                        device_gone(w, e);
        }
}

static int udev_start(Manager *m, const void *config, void **ret_state) {
        static char *const subsystems[] = { (char *) "usb", (char *) "video4linux", (char *) "scsi", NULL };
        if (m->config.no_udev) {
                log_debug("udev discovery disabled (--no-udev)");
                return 0;
        }
        UdevWatch *w = calloc(1, sizeof *w);
        if (!w)
                return log_oom();
        *ret_state = w;
        *w = (UdevWatch) { .manager = m, .entries = hashmap_new() };
        if (!w->entries || udev_source_new(m->event, m->config.sysfs_root, subsystems, on_udev_event, w, &w->source) < 0)
                return log_oom();

        /* Watch first, so that nothing plugged in during the coldplug is missed. */
        if (m->event) {
                int r = udev_source_watch(w->source);
                if (r < 0)
                        log_warning_errno(r, "udev hotplug is not followed: %m");
        }
        int r = udev_source_enumerate(w->source);
        if (r < 0)
                log_warning_errno(r, "udev coldplug failed: %m");
        log_info("Found %zu devices and sensors through udev", hashmap_size(w->entries));
        return 0;
}

static void udev_stop(void *userdata) {
        udev_watch_free(userdata);
}

const DeviceSourceVTable udev_devices_source = {
        .name = "udev devices",
        .start = udev_start,
        .stop = udev_stop,
        .device_removed = udev_device_removed,
};
