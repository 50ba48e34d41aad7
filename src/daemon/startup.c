/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Start-up work done before the bus name is taken, so the first answer is complete:
 * DMI facts, profile discovery, disk devices from the store, the device sources in their
 * order, the dummy sensor. Each step failing on one item skips that item only (colord stops
 * everything: colord §16.1). */
#include "startup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "display.h"
#include "fileio.h"
#include "log.h"
#include "names.h"
#include "profile-claim.h"
#include "profile-load.h"
#include "profile-dirs.h"
#include "profile.h"
#include "udev.h"
#include "utf8.h"

static char *read_dmi(Manager *m, const char *name) {
        char path[4096], buf[256];
        snprintf(path, sizeof path, "%s/sys/class/dmi/id/%s", strempty(m->config.sysfs_root), name);
        ssize_t n = read_file_head(path, buf, sizeof buf);
        if (n <= 0)
                return NULL;
        buf[strcspn(buf, "\r\n")] = 0;
        for (char *p = buf; *p; p++)
                if (*p == '\t' || *p == '_')
                        *p = ' ';
        size_t len = strlen(buf);
        while (len > 0 && buf[len - 1] == ' ')
                buf[--len] = 0;
        if (len == 0)
                return NULL;
        /* SystemVendor/SystemModel go on the bus, which carries UTF-8 only. */
        if (!utf8_is_valid(buf, len)) {
                char shown[sizeof buf * 4];
                utf8_escape(buf, shown, sizeof shown);
                return strdup(shown);
        }
        return strdup(buf);
}

static char *first_dmi(Manager *m, const char *const *names) {
        for (; *names; names++) {
                char *v = read_dmi(m, *names);
                if (v)
                        return v;
        }
        return NULL;
}

static void read_system_identity(Manager *m) {
        _cleanup_free_ char *vendor = first_dmi(m, (const char *const[]) { "sys_vendor", "chassis_vendor", "board_vendor", NULL });
        m->system_vendor = vendor ? names_vendor_quirk(vendor) : strdup("Unknown");

        _cleanup_free_ char *version = read_dmi(m, "product_version");
        if (version && strstr(version, "ThinkPad"))
                m->system_model = TAKE_PTR(version);
        else {
                m->system_model = first_dmi(m, (const char *const[]) { "product_name", "board_name", NULL });
                if (!m->system_model)
                        m->system_model = strdup("Unknown");
        }
}

/* Disk profiles come back as they were created: same owner (so the same path), the
 * properties of the call, and the ICC bytes it passed, parsed again. Before the scan, so
 * the user's profile keeps its id even if a file with the same checksum appears. */
static void restore_disk_profiles(Manager *m) {
        StoreDiskProfile *l = NULL;
        size_t n = 0;
        int r = store_disk_profile_list(m->store, &l, &n);
        if (r < 0) {
                log_warning_errno(r, "Failed to list stored profiles: %m");
                return;
        }
        if (r > 0)
                log_warning("%d stored profiles are damaged and were left out", r);
        for (size_t i = 0; i < n; i++) {
                _cleanup_(profile_freep) Profile *p = NULL;
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                if (profile_new(m, l[i].id, l[i].owner, SCOPE_DISK, &p) < 0)
                        continue;
                profile_apply_well_known_id(p);
                for (size_t k = 0; l[i].properties && l[i].properties[k] && l[i].properties[k + 1]; k += 2)
                        (void) profile_set_property(p, l[i].properties[k], l[i].properties[k + 1], NULL);
                if (l[i].data) {
                        r = profile_load_data(p, TAKE_PTR(l[i].data), l[i].size, &error);
                        if (r < 0) {
                                log_warning("Stored profile %s not restored: %s", l[i].id,
                                            error.message ?: strerror(-r));
                                continue;
                        }
                }
                profile_claim_check_restored(p, p->owner == 0 || p->owner == m->daemon_uid);
                if (manager_find_profile_by_path(m, p->path) || manager_add_profile(m, p, false) < 0) {
                        log_warning("Failed to restore profile %s", l[i].id);
                        continue;
                }
                TAKE_PTR(p);
        }
        store_disk_profiles_free(l, n);
}

/* Disk devices come back as virtual, with Kind and properties as stored, and with the
 * owner that created them. colord makes every one root's (colord §3.4); then a user's device
 * would change its path and, since only owners may delete (compatibility.md row 18), could
 * no longer be deleted by that user. Devices stored before schema 4 are root's. */
static void restore_disk_devices(Manager *m) {
        _cleanup_strv_free_ char **ids = NULL;
        int r = store_device_list(m->store, &ids);
        if (r < 0) {
                log_warning_errno(r, "Failed to list stored devices: %m");
                return;
        }
        STRV_FOREACH(id, ids) {
                _cleanup_strv_free_ char **props = NULL;
                _cleanup_(device_freep) Device *d = NULL;
                uid_t owner = 0;
                (void) store_device_get_owner(m->store, *id, &owner);
                if (device_new(m, *id, owner, SCOPE_DISK, &d) < 0 ||
                    store_device_get_properties(m->store, *id, &props) < 0)
                        continue;
                /* Kind first: the model clean-up depends on it. */
                for (size_t i = 0; props && props[i] && props[i + 1]; i += 2)
                        if (streq(props[i], "Kind"))
                                (void) device_set_property(d, "Kind", props[i + 1], NULL);
                for (size_t i = 0; props && props[i] && props[i + 1]; i += 2)
                        if (!streq(props[i], "Kind") && !streq(props[i], "Mode"))
                                (void) device_set_property(d, props[i], props[i + 1], NULL);
                (void) free_and_strdup(&d->mode, "virtual");
                bool enabled;
                if (store_device_get_enabled(m->store, *id, device_mapping_layer(d), &enabled) >= 0)
                        d->enabled = enabled;
                if (manager_add_device(m, d) < 0) {
                        log_warning("Failed to restore device %s", *id);
                        continue;
                }
                TAKE_PTR(d);
        }
}

void sources_config_done(SourcesConfig *c) {
        cups_config_done(&c->cups);
        scanner_config_done(&c->scanners);
        dummy_sensor_config_done(&c->dummy_sensor);
}

int manager_startup(Manager *m, const SourcesConfig *sources) {
        /* The device sources (device-source.h), in the order they start: after disk devices,
         * so that a stored id wins its path; scanners after udev, so that a USB scanner udev
         * found keeps its device; CUPS last, asynchronous (its devices come with cupsd's
         * first answer). */
        const DeviceSourceSetup device_sources[] = {
                { &display_source, NULL },
                { &udev_devices_source, NULL },
                { &scanner_source, &sources->scanners },
                { &cups_source, &sources->cups },
        };

        read_system_identity(m);
        restore_disk_profiles(m);
        profile_dirs_start(m);
        restore_disk_devices(m);
        int r = manager_start_sources(m, device_sources, ELEMENTSOF(device_sources));
        if (r < 0)
                return r;
        /* After the coldplug, as colord: a plugged-in sensor gets its id first. */
        if (sources->dummy_sensor.create)
                return sensor_dummy_create(m, &sources->dummy_sensor);
        return 0;
}
