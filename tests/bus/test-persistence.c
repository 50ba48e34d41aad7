/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of persistence across a daemon restart (colord §7, §3.4, §16.6, §16.7): disk
 * devices come back (Mode virtual, Owner 0, Kind kept, properties kept, Enabled not in
 * Metadata), temp and normal ones do not, hard mappings and removal markers and the
 * per-id Enabled flag survive, virtual->physical promotion reuses the object without a
 * DeviceAdded, DeleteDevice of a disk device is persisted. The daemon must exit 0 on
 * SIGTERM (harness_restart_daemon checks it). */

#include "bus-test.h"

#define SRGB_PATH PROF_PATH("icc_6209e0eee05d1da9df7b4e3c2da33f62")

static void before_restart(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *disk = harness_must_create_device(bus, "per-disk", "disk", "printer",
                KV("Model", "LaserJet Printer", "Vendor", "HP", "Colorspace", "rgb", "MyKey", "MyValue"));
        _cleanup_free_ char *norm = harness_must_create_device(bus, "per-normal", "normal", "display", NO_KV);
        _cleanup_free_ char *temp = harness_must_create_device(bus, "per-temp", "temp", "display", NO_KV);
        _cleanup_free_ char *gone = harness_must_create_device(bus, "per-disk-deleted", "disk", "scanner", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = harness_call(bus, disk, CM_DEVICE_IFACE, "SetProperty", &e, NULL, "ss", "Serial", "usb://x?serial=S9");
        assert_bus_ok(r, &e);
        must_add_profile(bus, disk, "hard", SRGB_PATH);
        r = harness_call(bus, norm, CM_DEVICE_IFACE, "SetEnabled", &e, NULL, "b", 0);
        assert_bus_ok(r, &e);
        must_add_profile(bus, norm, "hard", SRGB_PATH);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", gone);

        /* a client profile mapped hard, and a removal marker for a metadata mapping */
        _cleanup_free_ char *p = harness_must_create_profile(bus, "per-prof", "normal", NO_KV);
        must_add_profile(bus, norm, "hard", p);
        _cleanup_free_ char *m = harness_must_create_profile(bus, "per-meta", "normal",
                                                             KV("MAPPING_device_id", "per-normal"));
        _cleanup_strv_free_ char **l = device_profiles(bus, norm);
        assert_strv(l, p, SRGB_PATH, m);
        must_call(bus, norm, CM_DEVICE_IFACE, "RemoveProfile", "o", m);
}

static void after_restart(Harness *h, sd_bus *bus) {
        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        const char *disk = DEV_PATH("per_disk");

        assert_strv(devs, disk);
        assert_find_error(bus, "FindDeviceById", "per-normal", CM_ERR "NotFound");
        assert_find_error(bus, "FindDeviceById", "per-temp", CM_ERR "NotFound");
        assert_find_error(bus, "FindDeviceById", "per-disk-deleted", CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileById", "per-prof", CM_ERR "NotFound");

        _cleanup_free_ char *mode = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Mode");
        _cleanup_free_ char *scope = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Scope");
        _cleanup_free_ char *serial = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Serial");
        _cleanup_free_ char *model = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Model");
        _cleanup_free_ char *vendor = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Vendor");
        _cleanup_free_ char *kind = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Kind");
        assert_streq(mode, "virtual");
        assert_streq(scope, "disk");
        assert_streq(serial, "S9");
        assert_streq(vendor, "Hewlett Packard");
        assert_se(harness_get_u32(bus, disk, CM_DEVICE_IFACE, "Owner") == 0);
        _cleanup_strv_free_ char **md = harness_get_dict(bus, disk, CM_DEVICE_IFACE, "Metadata");
        assert_streq(harness_dict_get(md, "MyKey"), "MyValue");
        _cleanup_strv_free_ char **l = device_profiles(bus, disk);
        assert_strv(l, SRGB_PATH);
        _cleanup_free_ char *rel = relation_of(bus, disk, SRGB_PATH);
        assert_streq(rel, "hard");
        check_getall(h, bus, disk, CM_DEVICE_IFACE, device_props, NULL);
        if (!harness_is_colord(h)) { /* colord §16.7: colord loses Kind and leaks Enabled */
                assert_streq(kind, "printer");
                assert_streq(model, "LaserJet");
                assert_se(!harness_dict_get(md, "Enabled"));
        }

        /* the normal device comes back disabled, with its hard mappings, not the removed one */
        _cleanup_free_ char *p = harness_must_create_profile(bus, "per-prof", "normal", NO_KV);
        _cleanup_free_ char *m = harness_must_create_profile(bus, "per-meta", "normal",
                                                             KV("MAPPING_device_id", "per-normal"));
        _cleanup_free_ char *norm = harness_must_create_device(bus, "per-normal", "normal", "display", NO_KV);
        assert_se(!harness_get_bool(bus, norm, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_strv_free_ char **l2 = device_profiles(bus, norm);
        assert_strv(l2, p, SRGB_PATH);

        /* CreateDevice on the restored virtual device: promoted, same object, no DeviceAdded */
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *rbus = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(rbus);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r = recorder_call(rec, CM_PATH, CM_IFACE, "CreateDevice", &e, &reply, "ssa{ss}", "per-disk", "disk", 2,
                              "Kind", "printer", "Mode", "physical");
        if (harness_is_colord(h)) {
                /* colord: shadow duplicate and a SQL error (colord §16.6) */
                fprintf(stderr, "    colord promotion answered %s\n", r < 0 ? e.name : "ok");
                return;
        }
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_read(reply, "o", &path) >= 0);
        assert_streq(path, disk);
        assert_se(recorder_find(rec, 0, "DeviceAdded", NULL, NULL) == (size_t) -1);
        _cleanup_free_ char *mode2 = harness_get_string(bus, disk, CM_DEVICE_IFACE, "Mode");
        assert_streq(mode2, "physical");
        _cleanup_strv_free_ char **devs2 = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(devs2, disk) == 1);

        /* deleting the disk device is persisted */
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", disk);
}

int main(void) {
        _cleanup_free_ char *srgb = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb, NULL } });
        sd_bus *bus = harness_connect(h);

        RUN(before_restart, h, bus);
        sd_bus_flush_close_unref(bus);
        assert_se(harness_restart_daemon(h) >= 0);
        bus = harness_connect(h);
        RUN(after_restart, h, bus);
        sd_bus_flush_close_unref(bus);

        if (!harness_is_colord(h)) {
                assert_se(harness_restart_daemon(h) >= 0);
                bus = harness_connect(h);
                _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
                assert_strv_empty(devs);
                sd_bus_flush_close_unref(bus);
        }
        harness_assert_alive(h);
        return 0;
}
