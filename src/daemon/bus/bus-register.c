/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Puts the registry on the bus: the manager object, one fallback vtable per object kind
 * with a hash-map lookup, node enumerators for introspection, and the NameOwnerChanged
 * match that ends the temp objects, inhibits and locks of clients that leave. */
#include <string.h>

#include "daemon-dbus.h"
#include "device.h"
#include "log.h"
#include "profile.h"
#include "sensor.h"

static int find_device(sd_bus *bus, const char *path, const char *interface, void *userdata,
                       void **ret_found, sd_bus_error *ret_error) {
        Device *d = manager_find_device_by_path(userdata, path);
        if (!d)
                return 0;
        *ret_found = d;
        return 1;
}

static int find_profile(sd_bus *bus, const char *path, const char *interface, void *userdata,
                        void **ret_found, sd_bus_error *ret_error) {
        Profile *p = manager_find_profile_by_path(userdata, path);
        if (!p)
                return 0;
        *ret_found = p;
        return 1;
}

static int find_sensor(sd_bus *bus, const char *path, const char *interface, void *userdata,
                       void **ret_found, sd_bus_error *ret_error) {
        Manager *m = userdata;
        Sensor *s = hashmap_get(m->sensors_by_path, path);
        if (!s)
                return 0;
        *ret_found = s;
        return 1;
}

static int paths_of(Hashmap *map, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        void *it = NULL;
        const char *key;
        while (hashmap_iterate(map, &it, &key, NULL))
                if (strv_extend(&l, key) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

static int enumerate_devices(sd_bus *bus, const char *prefix, void *userdata, char ***ret, sd_bus_error *error) {
        return paths_of(((Manager *) userdata)->devices_by_path, ret);
}

static int enumerate_profiles(sd_bus *bus, const char *prefix, void *userdata, char ***ret, sd_bus_error *error) {
        return paths_of(((Manager *) userdata)->profiles_by_path, ret);
}

static int enumerate_sensors(sd_bus *bus, const char *prefix, void *userdata, char ***ret, sd_bus_error *error) {
        return paths_of(((Manager *) userdata)->sensors_by_path, ret);
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name, *old_owner, *new_owner;
        if (sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (name[0] == ':' && isempty(new_owner))
                manager_client_vanished(m, name);
        return 0;
}

int manager_bus_register(Manager *m) {
        int r;
        static const struct {
                const char *prefix, *iface;
                const sd_bus_vtable *vtable;
                sd_bus_object_find_t find;
                sd_bus_node_enumerator_t enumerate;
        } types[] = {
                { DEVICE_PATH_PREFIX, CM_DEVICE_IFACE, device_vtable, find_device, enumerate_devices },
                { PROFILE_PATH_PREFIX, CM_PROFILE_IFACE, profile_vtable, find_profile, enumerate_profiles },
                { SENSOR_PATH_PREFIX, CM_SENSOR_IFACE, sensor_vtable, find_sensor, enumerate_sensors },
        };

        r = sd_bus_add_object_vtable(m->bus, NULL, CM_PATH, CM_IFACE, manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "Failed to register the manager object: %m");
        for (size_t i = 0; i < ELEMENTSOF(types); i++) {
                r = sd_bus_add_fallback_vtable(m->bus, NULL, types[i].prefix, types[i].iface, types[i].vtable,
                                               types[i].find, m);
                if (r < 0)
                        return log_error_errno(r, "Failed to register the objects under %s: %m", types[i].prefix);
                r = sd_bus_add_node_enumerator(m->bus, NULL, types[i].prefix, types[i].enumerate, m);
                if (r < 0)
                        return log_error_errno(r, "Failed to register the enumerator of %s: %m", types[i].prefix);
        }
        r = sd_bus_match_signal(m->bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "NameOwnerChanged", on_name_owner_changed, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch bus clients: %m");
        return 0;
}
