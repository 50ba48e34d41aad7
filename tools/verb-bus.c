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
 * on stderr and exit 1; usage errors exit 2. */
#include <stdio.h>
#include <stdlib.h>

#include "bus-client.h"
#include "strv.h"
#include "verbs.h"

static int list_objects(int argc, char **argv, const char *synopsis, const char *help,
                        unsigned n_args, BusObjectKind kind, const char *member, const char *list_key) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, synopsis, help, n_args, n_args, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        if (n_args == 0)
                r = bus_call_paths(bus, CM_PATH, CM_IFACE, member, &paths, NULL);
        else
                r = bus_call_paths(bus, CM_PATH, CM_IFACE, member, &paths, "s", a.args[0]);
        if (r < 0)
                return EXIT_FAILURE;
        return bus_print_objects(bus, kind, paths, list_key, a.json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A manager method answering one object path, called with the verb's 1 or 2 arguments. */
static int find_object(int argc, char **argv, const char *synopsis, const char *help,
                       unsigned n_args, BusObjectKind kind, const char *member) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, synopsis, help, n_args, n_args, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        r = bus_call_path(bus, CM_PATH, CM_IFACE, member, &path, n_args == 1 ? "s" : "ss",
                          a.args[0], n_args > 1 ? a.args[1] : NULL);
        if (r < 0)
                return EXIT_FAILURE;
        return bus_print_object(bus, kind, path, a.json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_get_devices(int argc, char **argv) {
        return list_objects(argc, argv, "", "Lists every device with its properties.", 0,
                            BUS_OBJECT_DEVICE, "GetDevices", "devices");
}

int verb_get_devices_by_kind(int argc, char **argv) {
        return list_objects(argc, argv, "KIND",
                            "Lists the devices of one kind (display, scanner, printer, camera, webcam).",
                            1, BUS_OBJECT_DEVICE, "GetDevicesByKind", "devices");
}

int verb_get_profiles(int argc, char **argv) {
        return list_objects(argc, argv, "", "Lists every profile with its properties.", 0,
                            BUS_OBJECT_PROFILE, "GetProfiles", "profiles");
}

int verb_get_sensors(int argc, char **argv) {
        return list_objects(argc, argv, "", "Lists the sensors with their properties.", 0,
                            BUS_OBJECT_SENSOR, "GetSensors", "sensors");
}

int verb_find_device(int argc, char **argv) {
        return find_object(argc, argv, "ID", "Shows the device with this id (FindDeviceById).", 1,
                           BUS_OBJECT_DEVICE, "FindDeviceById");
}

int verb_find_device_by_property(int argc, char **argv) {
        return find_object(argc, argv, "KEY VALUE",
                           "Shows the first device whose Model, Vendor, Serial or metadata KEY is VALUE.",
                           2, BUS_OBJECT_DEVICE, "FindDeviceByProperty");
}

int verb_find_profile(int argc, char **argv) {
        return find_object(argc, argv, "ID", "Shows the profile with this id (FindProfileById).", 1,
                           BUS_OBJECT_PROFILE, "FindProfileById");
}

int verb_find_profile_by_filename(int argc, char **argv) {
        return find_object(argc, argv, "FILE",
                           "Shows the profile with this filename (a full path, or a basename).", 1,
                           BUS_OBJECT_PROFILE, "FindProfileByFilename");
}

int verb_get_standard_space(int argc, char **argv) {
        return find_object(argc, argv, "SPACE",
                           "Shows the best profile of a standard space (srgb, adobe-rgb, prophoto-rgb).",
                           1, BUS_OBJECT_PROFILE, "GetStandardSpace");
}

int verb_create_device(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, "ID SCOPE KIND",
                           "Creates a device with only its Kind set (SCOPE: normal, temp or disk),\n"
                           "then shows it.", 3, 3, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        r = bus_call_path(bus, CM_PATH, CM_IFACE, "CreateDevice", &path, "ssa{ss}",
                          a.args[0], a.args[1], 1, "Kind", a.args[2]);
        if (r < 0)
                return EXIT_FAILURE;
        return bus_print_object(bus, BUS_OBJECT_DEVICE, path, a.json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_create_profile(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, "ID SCOPE",
                           "Creates a profile with no file and no properties (SCOPE: normal or temp),\n"
                           "then shows it. Set its Qualifier and others with profile-set-property.",
                           2, 2, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        r = bus_call_path(bus, CM_PATH, CM_IFACE, "CreateProfile", &path, "ssa{ss}",
                          a.args[0], a.args[1], 0);
        if (r < 0)
                return EXIT_FAILURE;
        return bus_print_object(bus, BUS_OBJECT_PROFILE, path, a.json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int delete_object(int argc, char **argv, BusObjectKind kind, const char *member) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, "ID|PATH",
                           kind == BUS_OBJECT_DEVICE ? "Deletes a device." : "Deletes a profile.",
                           1, 1, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        if (bus_resolve(bus, kind, a.args[0], &path) < 0)
                return EXIT_FAILURE;
        return bus_call(bus, CM_PATH, CM_IFACE, member, NULL, "o", path) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_delete_device(int argc, char **argv) {
        return delete_object(argc, argv, BUS_OBJECT_DEVICE, "DeleteDevice");
}

int verb_delete_profile(int argc, char **argv) {
        return delete_object(argc, argv, BUS_OBJECT_PROFILE, "DeleteProfile");
}

int verb_profile_set_property(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, "ID|PATH KEY VALUE",
                           "Sets a profile property (Qualifier, Format, Colorspace, Title) or, for any\n"
                           "other KEY, a metadata entry.", 3, 3, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        if (bus_resolve(bus, BUS_OBJECT_PROFILE, a.args[0], &path) < 0)
                return EXIT_FAILURE;
        r = bus_call(bus, path, CM_IFACE_PROFILE, "SetProperty", NULL, "ss", a.args[1], a.args[2]);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_profile_install_system_wide(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        BusArgs a;
        int r = bus_args_parse(argc, argv, "ID|PATH",
                               "Copies a profile's file into the daemon's system-wide directory, for every user.", 1, 1,
                               0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0 || bus_resolve(bus, BUS_OBJECT_PROFILE, a.args[0], &path) < 0)
                return EXIT_FAILURE;
        r = bus_call(bus, path, CM_IFACE_PROFILE, "InstallSystemWide", NULL, NULL);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* tinct status: the manager's properties and how many objects of each kind it holds. */
int verb_status(int argc, char **argv) {
        static const struct {
                const char *member;
                const char *key;
                const char *label;
        } counts[] = {
                { "GetDevices", "devices", "Devices" },
                { "GetProfiles", "profiles", "Profiles" },
                { "GetSensors", "sensors", "Sensors" },
        };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(bus_value_freep) BusValue *props = NULL;
        size_t n[ELEMENTSOF(counts)];
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, "",
                           "Shows the daemon's version and system identity, and how many devices,\n"
                           "profiles and sensors it has (devices as GetDevices shows them to you).",
                           0, 0, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (bus_connect(&bus) < 0)
                return EXIT_FAILURE;
        r = bus_call(bus, CM_PATH, "org.freedesktop.DBus.Properties", "GetAll", &reply, "s", CM_IFACE);
        if (r < 0)
                return EXIT_FAILURE;
        r = bus_value_read(reply, &props);
        if (r < 0 || props->type != BUS_VALUE_DICT) {
                bus_log_parse_error(r < 0 ? r : -EBADMSG);
                return EXIT_FAILURE;
        }
        for (size_t i = 0; i < ELEMENTSOF(counts); i++) {
                _cleanup_strv_free_ char **paths = NULL;
                if (bus_call_paths(bus, CM_PATH, CM_IFACE, counts[i].member, &paths, NULL) < 0)
                        return EXIT_FAILURE;
                n[i] = strv_length(paths);
        }

        if (a.json) {
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
                return bus_json_finish(&w) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
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
