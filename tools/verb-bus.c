/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct's manager-level bus verbs, as colormgr has them (colord §14.1): listing and finding
 * devices, profiles and sensors, the standard spaces, creating and deleting devices and
 * profiles, setting a profile property; plus our own `status`. Device verbs are in
 * verb-bus-device.c, the sensor reading in verb-bus-sensor.c.
 *
 * Output: an object prints as "Object Path: PATH" followed by its properties under their
 * D-Bus names; --json prints the object as {"object_path": PATH, "<Property>": value...},
 * a list as {"devices"|"profiles"|"sensors": [objects]}. Keys in lower case are tinct's,
 * capitalised ones are D-Bus property names. Errors: the daemon's error name and message
 * on stderr and exit 1 (or the statuses of cli.h); usage errors are the parser's (tinct.c). */
#include <stdio.h>
#include <stdlib.h>

#include "bus-call.h"
#include "bus-print.h"
#include "strv.h"
#include "verbs.h"

static int list_objects(Invocation *inv, BusObjectKind kind, const char *member, const char *list_key) {
        _cleanup_strv_free_ char **paths = NULL;
        int r;

        if (inv->n_args == 0)
                r = bus_call_paths(inv->bus, CM_PATH, CM_IFACE, member, &paths, NULL);
        else
                r = bus_call_paths(inv->bus, CM_PATH, CM_IFACE, member, &paths, "s", inv->args[0]);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_print_objects(inv->bus, kind, paths, list_key, inv->opts.json));
}

/* A manager method answering one object path, called with the verb's 1 or 2 arguments. */
static int find_object(Invocation *inv, BusObjectKind kind, const char *member) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = bus_call_path(inv->bus, CM_PATH, CM_IFACE, member, &path, inv->n_args == 1 ? "s" : "ss", inv->args[0],
                          inv->n_args > 1 ? inv->args[1] : NULL);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_print_object(inv->bus, kind, path, inv->opts.json));
}

int verb_get_devices(Invocation *inv) {
        return list_objects(inv, BUS_OBJECT_DEVICE, "GetDevices", "devices");
}

int verb_get_devices_by_kind(Invocation *inv) {
        return list_objects(inv, BUS_OBJECT_DEVICE, "GetDevicesByKind", "devices");
}

int verb_get_profiles(Invocation *inv) {
        return list_objects(inv, BUS_OBJECT_PROFILE, "GetProfiles", "profiles");
}

int verb_get_sensors(Invocation *inv) {
        return list_objects(inv, BUS_OBJECT_SENSOR, "GetSensors", "sensors");
}

int verb_find_device(Invocation *inv) {
        return find_object(inv, BUS_OBJECT_DEVICE, "FindDeviceById");
}

int verb_find_device_by_property(Invocation *inv) {
        return find_object(inv, BUS_OBJECT_DEVICE, "FindDeviceByProperty");
}

int verb_find_profile(Invocation *inv) {
        return find_object(inv, BUS_OBJECT_PROFILE, "FindProfileById");
}

int verb_find_profile_by_filename(Invocation *inv) {
        return find_object(inv, BUS_OBJECT_PROFILE, "FindProfileByFilename");
}

int verb_get_standard_space(Invocation *inv) {
        return find_object(inv, BUS_OBJECT_PROFILE, "GetStandardSpace");
}

/* CreateDevice or CreateProfile with ID and SCOPE, and Kind as the only property when given;
 * then shows the new object. */
static int create_object(Invocation *inv, BusObjectKind kind, const char *member, const char *kind_property) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = bus_call_path(inv->bus, CM_PATH, CM_IFACE, member, &path, "ssa{ss}", inv->args[0], inv->args[1],
                          kind_property ? 1 : 0, "Kind", kind_property);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_print_object(inv->bus, kind, path, inv->opts.json));
}

int verb_create_device(Invocation *inv) {
        return create_object(inv, BUS_OBJECT_DEVICE, "CreateDevice", inv->args[2]);
}

int verb_create_profile(Invocation *inv) {
        return create_object(inv, BUS_OBJECT_PROFILE, "CreateProfile", NULL);
}

static int delete_object(Invocation *inv, BusObjectKind kind, const char *member) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = bus_resolve(inv->bus, kind, inv->args[0], &path);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_call(inv->bus, CM_PATH, CM_IFACE, member, NULL, "o", path));
}

int verb_delete_device(Invocation *inv) {
        return delete_object(inv, BUS_OBJECT_DEVICE, "DeleteDevice");
}

int verb_delete_profile(Invocation *inv) {
        return delete_object(inv, BUS_OBJECT_PROFILE, "DeleteProfile");
}

int verb_profile_set_property(Invocation *inv) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = bus_resolve(inv->bus, BUS_OBJECT_PROFILE, inv->args[0], &path);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_call(inv->bus, path, CM_PROFILE_IFACE, "SetProperty", NULL, "ss", inv->args[1],
                                        inv->args[2]));
}

int verb_profile_install_system_wide(Invocation *inv) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = bus_resolve(inv->bus, BUS_OBJECT_PROFILE, inv->args[0], &path);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_call(inv->bus, path, CM_PROFILE_IFACE, "InstallSystemWide", NULL, NULL));
}

/* tinct status: the manager's properties and how many objects of each kind it holds. */
int verb_status(Invocation *inv) {
        static const struct {
                const char *member;
                const char *key;
                const char *label;
        } counts[] = {
                { "GetDevices", "devices", "Devices" },
                { "GetProfiles", "profiles", "Profiles" },
                { "GetSensors", "sensors", "Sensors" },
        };
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(bus_value_freep) BusValue *props = NULL;
        sd_bus *bus = inv->bus;
        size_t n[ELEMENTSOF(counts)];
        int r;

        r = bus_call(bus, CM_PATH, "org.freedesktop.DBus.Properties", "GetAll", &reply, "s", CM_IFACE);
        if (r < 0)
                return bus_exit_status(r);
        r = bus_value_read(reply, &props);
        if (r < 0 || props->type != BUS_VALUE_DICT) {
                bus_log_parse_error(r < 0 ? r : -EBADMSG);
                return EXIT_FAILURE;
        }
        for (size_t i = 0; i < ELEMENTSOF(counts); i++) {
                _cleanup_strv_free_ char **paths = NULL;
                r = bus_call_paths(bus, CM_PATH, CM_IFACE, counts[i].member, &paths, NULL);
                if (r < 0)
                        return bus_exit_status(r);
                n[i] = strv_length(paths);
        }

        if (inv->opts.json) {
                JsonWriter w;
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, "daemon");
                bus_value_write_json(props, &w);
                for (size_t i = 0; i < ELEMENTSOF(counts); i++) {
                        json_write_key(&w, counts[i].key);
                        json_write_int64(&w, (int64_t) n[i]);
                }
                json_write_end_object(&w);
                return bus_exit_status(bus_json_finish(&w));
        }
        for (size_t i = 0; i < props->n; i++) {
                printf("%s: ", props->keys[i]);
                if (props->items[i]->type == BUS_VALUE_STRING)
                        fputs(props->items[i]->string, stdout);
                putchar('\n');
        }
        for (size_t i = 0; i < ELEMENTSOF(counts); i++)
                printf("%s: %zu\n", counts[i].label, n[i]);
        return EXIT_SUCCESS;
}
