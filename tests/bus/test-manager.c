/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of the manager interface (colord §2): properties, the Get and Find lookups,
 * CreateDevice/DeleteDevice/CreateProfile/DeleteProfile and their error paths, object
 * path escaping, no ghost objects after a failed create, GetStandardSpace only from
 * system-wide profiles. Runs as root; authorization is in test-auth.c. */

#include "bus-test.h"

#define SRGB_ID "icc-6209e0eee05d1da9df7b4e3c2da33f62"

static void test_properties(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *v = harness_get_string(bus, CM_PATH, CM_IFACE, "DaemonVersion");
        _cleanup_free_ char *vendor = harness_get_string(bus, CM_PATH, CM_IFACE, "SystemVendor");
        _cleanup_free_ char *model = harness_get_string(bus, CM_PATH, CM_IFACE, "SystemModel");

        assert_se(!isempty(v));
        assert_se(!isempty(vendor));
        assert_se(!isempty(model));
        check_getall(h, bus, CM_PATH, CM_IFACE, manager_props, NULL);
}

static void test_introspect(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *dev = harness_must_create_device(bus, "introspect-dev", "temp", "display", NO_KV);
        const char *xml;
        int r;

        r = harness_call(bus, CM_PATH, "org.freedesktop.DBus.Introspectable", "Introspect", &error, &reply, NULL);
        assert_bus_ok(r, &error);
        assert_se(sd_bus_message_read(reply, "s", &xml) >= 0);
        assert_se(strstr(xml, "\"org.freedesktop.ColorManager\""));
        assert_se(strstr(xml, "CreateProfileWithFd"));
        assert_se(strstr(xml, "<node name=\"devices\""));
        assert_se(strstr(xml, "<node name=\"profiles\""));

        sd_bus_message_unref(reply);
        reply = NULL;
        r = harness_call(bus, dev, "org.freedesktop.DBus.Introspectable", "Introspect", &error, &reply, NULL);
        assert_bus_ok(r, &error);
        assert_se(sd_bus_message_read(reply, "s", &xml) >= 0);
        assert_se(strstr(xml, "\"org.freedesktop.ColorManager.Device\""));
        assert_se(strstr(xml, "GetProfileForQualifiers"));
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", dev);
}

static void test_get_devices(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d1 = harness_must_create_device(bus, "gd-display", "temp", "display", NO_KV);
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "gd-printer", "temp", "printer", NO_KV);
        _cleanup_free_ char *d3 = harness_must_create_device(bus, "gd-camera", "temp", "camera", NO_KV);
        _cleanup_strv_free_ char **all = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        _cleanup_strv_free_ char **displays = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "display");
        _cleanup_strv_free_ char **printers = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "printer");
        _cleanup_strv_free_ char **webcams = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "webcam");

        assert_strv(all, d1, d2, d3); /* creation order */
        assert_strv(displays, d1);
        assert_strv(printers, d2);
        assert_strv_empty(webcams);

        /* only real kinds; "unknown" and garbage are refused */
        static const char *const bad[] = { "unknown", "bogus", "", "Display", NULL };
        for (const char *const *k = bad; *k; k++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                int r = harness_call(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", &error, NULL, "s", *k);
                assert_bus_error(r, &error, CM_ERR "InputInvalid");
        }
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d1);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d3);
}

static void test_find_device(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "cups-Find-Me", "temp", "printer",
                KV("Model", "LaserJet Printer", "Vendor", "Hewlett-Packard Ltd.",
                   "Serial", "usb://HP/LJ?serial=XYZ123", "XRANDR_name", "DP-1", "OutputEdidMd5", "abc"));
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *p = NULL;

        assert_streq(d, DEV_PATH("cups_Find_Me"));
        assert_find_ok(bus, "FindDeviceById", "cups-Find-Me", d);
        assert_find_error(bus, "FindDeviceById", "cups-Find-Not", CM_ERR "NotFound");
        assert_find_error(bus, "FindDeviceById", "", CM_ERR "NotFound");
        assert_find_error(bus, "FindDeviceById", "cups_Find_Me", CM_ERR "NotFound"); /* ids are not paths */

        /* Model/Vendor/Serial compare against the normalised values, others against metadata */
        static const char *const hits[][2] = {
                { "Model", "LaserJet" }, { "Vendor", "Hewlett Packard" }, { "Serial", "XYZ123" },
                { "XRANDR_name", "DP-1" }, { "OutputEdidMd5", "abc" },
        };
        for (size_t i = 0; i < ELEMENTSOF(hits); i++) {
                p = find_by2(bus, "FindDeviceByProperty", hits[i][0], hits[i][1], &error);
                assert_bus_ok(p ? 0 : -1, &error);
                assert_streq(p, d);
                p = mfree(p);
        }
        static const char *const misses[][2] = {
                { "Model", "LaserJet Printer" }, { "Serial", "usb://HP/LJ?serial=XYZ123" },
                { "XRANDR_name", "DP-2" }, { "NoSuchKey", "x" }, { "", "" },
        };
        for (size_t i = 0; i < ELEMENTSOF(misses); i++) {
                sd_bus_error_free(&error);
                p = find_by2(bus, "FindDeviceByProperty", misses[i][0], misses[i][1], &error);
                assert_bus_error(p ? 0 : -1, &error, CM_ERR "NotFound");
        }
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

static void test_create_device_errors(Harness *h, sd_bus *bus) {
        struct {
                const char *id, *scope, *kind;
                const char *const *kv;
        } bad[] = {
                { "", "temp", "display", NO_KV },          /* blank id */
                { "ce-nokind", "temp", NULL, NO_KV },      /* Kind missing */
                { "ce-nokind2", "temp", NULL, KV("Model", "x") },
                { "ce-unknown", "temp", "unknown", NO_KV },/* not a real kind */
                { "ce-bogus", "temp", "bogus", NO_KV },
                { "ce-empty", "temp", "", NO_KV },
                { "ce-scope", "bogus", "display", NO_KV }, /* bad scopes */
                { "ce-scope2", "", "display", NO_KV },
                { "ce-scope3", "unknown", "display", NO_KV },
                { "ce-scope4", "Temp", "display", NO_KV },
        };
        _cleanup_strv_free_ char **before = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                int r;
                _cleanup_free_ char *p = harness_create_device(bus, bad[i].id, bad[i].scope, bad[i].kind,
                                                               bad[i].kv, &error, &r);
                assert_bus_error(r, &error, CM_ERR "InputInvalid");
                if (!isempty(bad[i].id))
                        assert_find_error(bus, "FindDeviceById", bad[i].id, CM_ERR "NotFound");
        }
        _cleanup_strv_free_ char **after = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_length(before) == strv_length(after));

        /* same id, same owner: AlreadyExists, whatever the scope */
        _cleanup_free_ char *d = harness_must_create_device(bus, "ce-dup", "normal", "display", NO_KV);
        static const char *const scopes[] = { "normal", "temp", "disk", NULL };
        for (const char *const *s = scopes; *s; s++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                int r;
                _cleanup_free_ char *p = harness_create_device(bus, "ce-dup", *s, "printer", NO_KV, &error, &r);
                assert_bus_error(r, &error, CM_ERR "AlreadyExists");
        }
        _cleanup_strv_free_ char **all = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(all, d) == 1);
        _cleanup_free_ char *kind = harness_get_string(bus, d, CM_DEVICE_IFACE, "Kind");
        assert_streq(kind, "display"); /* untouched by the failed attempts */
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

static void test_path_escaping(Harness *h, sd_bus *bus) {
        /* every byte outside [A-Za-z0-9_] becomes one '_' (é is two bytes) */
        const char *id = "xrandr-Hewlett Packard-HP LP2480zx/3.é$";
        _cleanup_free_ char *d = harness_must_create_device(bus, id, "temp", "display", NO_KV);
        _cleanup_free_ char *did = harness_get_string(bus, d, CM_DEVICE_IFACE, "DeviceId");

        assert_streq(d, DEV_PATH("xrandr_Hewlett_Packard_HP_LP2480zx_3____"));
        assert_streq(did, id);
        assert_find_ok(bus, "FindDeviceById", id, d);

        _cleanup_free_ char *p = harness_must_create_profile(bus, "HP-825C-RGB..", "temp", NO_KV);
        assert_streq(p, PROF_PATH("HP_825C_RGB__"));
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_path_collision(Harness *h, sd_bus *bus) {
        SKIP_ON_COLORD(h, "colord leaves a ghost device on a path collision (colord §1.1)");
        _cleanup_free_ char *d = harness_must_create_device(bus, "coll-a-b", "temp", "display", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *d2 = harness_create_device(bus, "coll-a_b", "temp", "display", NO_KV, &error, &r);

        /* the second id escapes to the same path: refused, and nothing left behind */
        assert_se(r < 0);
        assert_se(sd_bus_error_is_set(&error));
        assert_se(strncmp(error.name, CM_IFACE ".", strlen(CM_IFACE ".")) == 0);
        _cleanup_strv_free_ char **all = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(all, d) == 1);
        assert_find_error(bus, "FindDeviceById", "coll-a_b", CM_ERR "NotFound");
        _cleanup_free_ char *did = harness_get_string(bus, d, CM_DEVICE_IFACE, "DeviceId");
        assert_streq(did, "coll-a-b");

        /* the same for profiles */
        _cleanup_free_ char *p = harness_must_create_profile(bus, "coll-p-1", "temp", NO_KV);
        sd_bus_error_free(&error);
        _cleanup_free_ char *p2 = harness_create_profile(bus, "coll-p.1", "temp", NO_KV, &error, &r);
        assert_se(r < 0);
        assert_find_error(bus, "FindProfileById", "coll-p.1", CM_ERR "NotFound");
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_delete_device(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d1 = harness_must_create_device(bus, "del-by-path", "normal", "display", NO_KV);
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "del-by-id", "normal", "display", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d1);
        assert_se(object_gone(bus, d1, CM_DEVICE_IFACE));
        assert_find_error(bus, "FindDeviceById", "del-by-path", CM_ERR "NotFound");

        /* by the escaped object path of another device */
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", DEV_PATH("del_by_id"));
        assert_bus_ok(r, &error);
        assert_se(object_gone(bus, d2, CM_DEVICE_IFACE));

        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", d1);
        assert_bus_error(r, &error, CM_ERR "NotFound");
        sd_bus_error_free(&error);
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", "/");
        assert_bus_error(r, &error, CM_ERR "NotFound");
        sd_bus_error_free(&error);
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", PROF_PATH("nothing"));
        assert_bus_error(r, &error, CM_ERR "NotFound");

        /* the id can be created again */
        _cleanup_free_ char *d3 = harness_must_create_device(bus, "del-by-path", "temp", "printer", NO_KV);
        assert_streq(d3, d1);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d3);
}

static void test_profiles(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *p = harness_must_create_profile(bus, "prof-Main", "temp",
                KV("Qualifier", "RGB.Plain.300dpi", "Format", "ColorSpace.Paper.Resolution",
                   "Colorspace", "rgb", "MY_key", "my value"));
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *q = NULL;
        int r;

        assert_streq(p, PROF_PATH("prof_Main"));
        assert_find_ok(bus, "FindProfileById", "prof-Main", p);
        assert_find_error(bus, "FindProfileById", "prof-Missing", CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileById", "", CM_ERR "NotFound");

        /* metadata only, not real properties */
        q = find_by2(bus, "FindProfileByProperty", "MY_key", "my value", &error);
        assert_bus_ok(q ? 0 : -1, &error);
        assert_streq(q, p);
        q = mfree(q);
        q = find_by2(bus, "FindProfileByProperty", "Qualifier", "RGB.Plain.300dpi", &error);
        assert_bus_error(q ? 0 : -1, &error, CM_ERR "NotFound");
        sd_bus_error_free(&error);
        q = find_by2(bus, "FindProfileByProperty", "MY_key", "other", &error);
        assert_bus_error(q ? 0 : -1, &error, CM_ERR "NotFound");

        /* GetProfiles has it; GetProfilesByKind is lenient and never fails */
        _cleanup_strv_free_ char **all = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_se(strv_count(all, p) == 1);
        _cleanup_strv_free_ char **unk = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfilesByKind", "bogus");
        assert_se(strv_count(unk, p) == 1); /* file-less: kind unknown */
        _cleanup_strv_free_ char **unk2 = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfilesByKind", "unknown");
        assert_se(strv_count(unk2, p) == 1);
        _cleanup_strv_free_ char **disp = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfilesByKind", "display-device");
        assert_se(strv_count(disp, p) == 0);

        /* profile ids are global: AlreadyExists for any scope */
        static const char *const scopes[] = { "temp", "normal", "disk", NULL };
        for (const char *const *s = scopes; *s; s++) {
                sd_bus_error_free(&error);
                _cleanup_free_ char *x = harness_create_profile(bus, "prof-Main", *s, NO_KV, &error, &r);
                assert_bus_error(r, &error, CM_ERR "AlreadyExists");
        }

        /* bad input, and nothing left behind */
        sd_bus_error_free(&error);
        _cleanup_free_ char *x1 = harness_create_profile(bus, "", "temp", NO_KV, &error, &r);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        sd_bus_error_free(&error);
        _cleanup_free_ char *x2 = harness_create_profile(bus, "prof-badscope", "bogus", NO_KV, &error, &r);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        assert_find_error(bus, "FindProfileById", "prof-badscope", CM_ERR "NotFound");

        /* DeleteProfile: by path and by id; NotFound afterwards */
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
        assert_se(object_gone(bus, p, CM_PROFILE_IFACE));
        assert_find_error(bus, "FindProfileById", "prof-Main", CM_ERR "NotFound");
        sd_bus_error_free(&error);
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", &error, NULL, "o", p);
        assert_bus_error(r, &error, CM_ERR "NotFound");
        _cleanup_free_ char *p2 = harness_must_create_profile(bus, "prof-by-id", "normal", NO_KV);
        sd_bus_error_free(&error);
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", &error, NULL, "o", PROF_PATH("prof_by_id"));
        assert_bus_ok(r, &error);
        assert_se(object_gone(bus, p2, CM_PROFILE_IFACE));
}

/* colord refuses scope "disk" for profiles; tinct stores them (persistence: test-restart). */
static void test_profile_disk_scope(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        if (harness_is_colord(h)) {
                _cleanup_free_ char *p = harness_create_profile(bus, "prof-disk", "disk", NO_KV, &error, &r);
                assert_bus_error(r, &error, CM_ERR "NotSupported");
                SKIP_ON_COLORD(h, "colord keeps a ghost after NotSupported (colord §2.2 step 5)");
        }
        _cleanup_free_ char *p = harness_must_create_profile(bus, "prof-disk", "disk", KV("Qualifier", "RGB.Disk.*"));
        _cleanup_free_ char *scope = harness_get_string(bus, p, CM_PROFILE_IFACE, "Scope");
        assert_streq(scope, "disk");
        _cleanup_free_ char *again = harness_create_profile(bus, "prof-disk", "disk", NO_KV, &error, &r);
        assert_bus_error(r, &error, CM_ERR "AlreadyExists");
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
        assert_find_error(bus, "FindProfileById", "prof-disk", CM_ERR "NotFound");
        /* a refused disk profile (bad Title) leaves nothing behind either */
        sd_bus_error_free(&error);
        _cleanup_free_ char *bad = harness_create_profile(bus, "prof-disk", "disk", KV("Title", "ab"), &error, &r);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        _cleanup_free_ char *p2 = harness_must_create_profile(bus, "prof-disk", "temp", NO_KV);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p2);
}

static void test_discovered_lookups(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *fn = harness_daemon_filename(h, "colord-data--sRGB.icc");
        _cleanup_free_ char *path = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

        assert_find_ok(bus, "FindProfileById", SRGB_ID, PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62"));
        assert_find_ok(bus, "FindProfileByFilename", fn, PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62"));
        assert_find_ok(bus, "FindProfileByFilename", "colord-data--sRGB.icc", PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62"));
        assert_find_error(bus, "FindProfileByFilename", "/colord-data--sRGB.icc", CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileByFilename", "colord-data--srgb.icc", CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileByFilename", "", CM_ERR "NotFound");
        path = find_by2(bus, "FindProfileByProperty", "Filename", fn, &error);
        assert_bus_ok(path ? 0 : -1, &error);
        assert_streq(path, PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62"));

        _cleanup_strv_free_ char **disp = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfilesByKind", "display-device");
        assert_se(strv_count(disp, path) == 1);
        _cleanup_strv_free_ char **all = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_se(strv_count(all, path) == 1);
}

static void test_standard_space(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *p = NULL;

        assert_find_error(bus, "GetStandardSpace", "prophoto-rgb", CM_ERR "NotFound");
        assert_find_error(bus, "GetStandardSpace", "", CM_ERR "NotFound");
        SKIP_ON_COLORD(h, "colord reads the ICC dict only for its own data files, and trusts client profiles (colord §16.2, §16.21)");
        /* the discovered sRGB.icc carries STANDARD_space=srgb in its dict */
        assert_find_ok(bus, "GetStandardSpace", "srgb", PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62"));

        /* client-created profiles never define a standard space, neither by metadata nor
         * by a well-known id */
        _cleanup_free_ char *c1 = harness_must_create_profile(bus, "spoof-adobe", "temp",
                                                              KV("STANDARD_space", "adobe-rgb"));
        _cleanup_free_ char *c2 = harness_must_create_profile(bus, "icc-dea88382d899d5f6e573b432473ae138", "temp", NO_KV);
        _cleanup_free_ char *c3 = harness_must_create_profile(bus, "icc-34562abf994ccd066d2c5721d0d68c5d", "temp",
                                                              KV("STANDARD_space", "srgb"));
        p = find_by(bus, "GetStandardSpace", "adobe-rgb", &error);
        assert_bus_error(p ? 0 : -1, &error, CM_ERR "NotFound");
        assert_find_ok(bus, "GetStandardSpace", "srgb", PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62"));
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", c1);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", c2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", c3);
}

static void test_no_sensors(Harness *h, sd_bus *bus) {
        _cleanup_strv_free_ char **s = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetSensors", NULL);

        assert_strv_empty(s);
        assert_find_error(bus, "FindSensorById", "dummy", CM_ERR "NotFound");
        assert_find_error(bus, "FindSensorById", "", CM_ERR "NotFound");
}

int main(void) {
        _cleanup_free_ char *srgb = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb, NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_properties, h, bus);
        RUN(test_introspect, h, bus);
        RUN(test_get_devices, h, bus);
        RUN(test_find_device, h, bus);
        RUN(test_create_device_errors, h, bus);
        RUN(test_path_escaping, h, bus);
        RUN(test_path_collision, h, bus);
        RUN(test_delete_device, h, bus);
        RUN(test_profiles, h, bus);
        RUN(test_profile_disk_scope, h, bus);
        RUN(test_discovered_lookups, h, bus);
        RUN(test_standard_space, h, bus);
        RUN(test_no_sensors, h, bus);
        harness_assert_alive(h);
        return 0;
}
