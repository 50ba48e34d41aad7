/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The real system's udev devices (see udev-source.h): sd-device's enumerator for what is
 * there, its monitor for what comes and goes. Not here: which devices are ours
 * (udev-match.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-device.h>

#include "strv.h"
#include "udev-source-backend.h"

static int dup_attr(sd_device *d, const char *attr, char **ret) {
        const char *v = NULL;
        (void) sd_device_get_sysattr_value(d, attr, &v);
        return dup_or_null(v, ret);
}

static int read_device(sd_device *d, UdevInfo *i) {
        const char *syspath = NULL, *subsystem = NULL, *devname = NULL, *key, *value;
        int r = sd_device_get_syspath(d, &syspath);
        if (r < 0)
                return r;
        (void) sd_device_get_subsystem(d, &subsystem);
        (void) sd_device_get_devname(d, &devname);
        r = dup_or_null(syspath, &i->syspath);
        if (r < 0)
                return r;
        r = dup_or_null(subsystem, &i->subsystem);
        if (r < 0)
                return r;
        r = dup_or_null(devname, &i->devnode);
        if (r < 0)
                return r;
        for (key = sd_device_get_property_first(d, &value); key; key = sd_device_get_property_next(d, &value)) {
                r = udev_info_add_property(i, key, value);
                if (r < 0)
                        return r;
        }
        r = dup_attr(d, "bDeviceClass", &i->device_class);
        if (r < 0)
                return r;
        r = dup_attr(d, "manufacturer", &i->manufacturer);
        if (r < 0)
                return r;
        r = dup_attr(d, "product", &i->product);
        if (r < 0)
                return r;
        /* The nearest device up the tree that says whether it is removable (the port). */
        for (sd_device *p = d; p && !i->removable;) {
                r = dup_attr(p, "removable", &i->removable);
                if (r < 0)
                        return r;
                if (sd_device_get_parent(p, &p) < 0)
                        p = NULL;
        }
        return 0;
}

/* An add: the device's properties go to the handler; a device that vanished meanwhile is
 * skipped (its remove follows). */
static void announce(UdevSource *s, sd_device *d) {
        UdevInfo i = {};
        if (read_device(d, &i) >= 0)
                s->handler(UDEV_ACTION_ADD, &i, s->userdata);
        udev_info_done(&i);
}

static int on_uevent(sd_device_monitor *monitor, sd_device *device, void *userdata) {
        UdevSource *s = userdata;
        sd_device_action_t action;
        const char *syspath;
        if (sd_device_get_action(device, &action) < 0 || sd_device_get_syspath(device, &syspath) < 0)
                return 0;
        if (action == SD_DEVICE_ADD || action == SD_DEVICE_BIND) {
                announce(s, device);
                return 0;
        }
        /* Matched by path alone: remove events often lack the properties. */
        UdevInfo i = { .syspath = (char *) syspath };
        s->handler(action == SD_DEVICE_REMOVE ? UDEV_ACTION_REMOVE : UDEV_ACTION_CHANGE, &i, s->userdata);
        return 0;
}

static int system_watch(UdevSource *s) {
        sd_device_monitor *monitor = NULL;
        int r = sd_device_monitor_new(&monitor);
        if (r < 0)
                return r;
        s->state = monitor;
        STRV_FOREACH(sub, s->subsystems) {
                r = sd_device_monitor_filter_add_match_subsystem_devtype(monitor, *sub, NULL);
                if (r < 0)
                        return r;
        }
        r = sd_device_monitor_attach_event(monitor, s->event);
        if (r < 0)
                return r;
        return sd_device_monitor_start(monitor, on_uevent, s);
}

static int system_enumerate(UdevSource *s) {
        sd_device_enumerator *en = NULL;
        int r = sd_device_enumerator_new(&en);
        if (r < 0)
                return r;
        STRV_FOREACH(sub, s->subsystems) {
                r = sd_device_enumerator_add_match_subsystem(en, *sub, true);
                if (r < 0)
                        break;
        }
        if (r >= 0)
                for (sd_device *d = sd_device_enumerator_get_device_first(en); d; d = sd_device_enumerator_get_device_next(en))
                        announce(s, d);
        sd_device_enumerator_unref(en);
        return r;
}

static void system_done(UdevSource *s) {
        sd_device_monitor_unref(s->state);
}

const UdevSourceBackend udev_source_system = {
        .watch = system_watch,
        .enumerate = system_enumerate,
        .done = system_done,
};
