/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of signals (colord §1.2, §2.3, §3.2, §4.2): every change is announced by
 * PropertiesChanged (with the introspected value types and normalised values) and the
 * object/manager signals BEFORE the reply of the method that caused it; calls that
 * change nothing send nothing; nothing libcolord does not know is ever sent. A recorder
 * subscribes to all signals of the daemon's unique name and logs them in arrival order
 * together with the reply. */

#include "bus-test.h"

static const char *const known_signals[] = {
        "DeviceAdded", "DeviceRemoved", "DeviceChanged", "ProfileAdded", "ProfileRemoved",
        "ProfileChanged", "SensorAdded", "SensorRemoved", "Changed", "ButtonPressed",
        "PropertiesChanged", NULL,
};

/* Checks every recorded signal: known names, no manager Changed, PropertiesChanged
 * types as introspected. */
static void check_recorded(Recorder *rec) {
        for (size_t i = 0; i < recorder_count(rec); i++) {
                const Recorded *r = recorder_get(rec, i);
                if (!streq(r->kind, "signal"))
                        continue;
                if (!strv_contains((char **) known_signals, r->member) ||
                    (streq(r->member, "Changed") && streq(r->path, CM_PATH))) {
                        recorder_dump(rec);
                        fprintf(stderr, "unexpected signal %s.%s on %s\n", r->iface, r->member, r->path);
                        abort();
                }
                if (!streq(r->member, "PropertiesChanged"))
                        continue;
                const PropType *table = streq(r->arg0, CM_DEVICE_IFACE) ? device_props :
                                        streq(r->arg0, CM_PROFILE_IFACE) ? profile_props :
                                        streq(r->arg0, CM_SENSOR_IFACE) ? sensor_props :
                                        streq(r->arg0, CM_IFACE) ? manager_props : NULL;
                assert_se(table);
                for (size_t j = 0; r->changed && r->changed[j]; j++) {
                        const char *want = prop_type(table, r->changed[j]);
                        if (!want || !streq(want, r->changed_sigs[j])) {
                                recorder_dump(rec);
                                fprintf(stderr, "PropertiesChanged %s.%s: type %s, introspected %s\n", r->arg0,
                                        r->changed[j], r->changed_sigs[j], strempty(want));
                                abort();
                        }
                }
        }
}

/* Index of the reply; asserts it is the last entry. */
static size_t reply_index(Recorder *rec) {
        size_t n = recorder_count(rec);
        assert_se(n > 0);
        const Recorded *r = recorder_get(rec, n - 1);
        assert_se(streq(r->kind, "reply") || streq(r->kind, "error"));
        return n - 1;
}

/* Asserts a signal (member on path, optionally a PropertiesChanged carrying prop) was
 * received before the reply. */
static size_t assert_before_reply(Recorder *rec, const char *member, const char *path, const char *prop) {
        size_t reply = reply_index(rec);
        size_t i = recorder_find(rec, 0, member, path, prop);
        if (i == (size_t) -1 || i > reply) {
                recorder_dump(rec);
                fprintf(stderr, "%s %s %s not received before the reply\n", member, strempty(path), strempty(prop));
                abort();
        }
        return i;
}

static void assert_no_signal(Recorder *rec, const char *member, const char *path) {
        if (recorder_find(rec, 0, member, path, NULL) != (size_t) -1) {
                recorder_dump(rec);
                fprintf(stderr, "unexpected %s on %s\n", member, strempty(path));
                abort();
        }
}

/* Reads the value of property prop from the i-th recorded PropertiesChanged. */
static sd_bus_message *changed_value(Recorder *rec, size_t i, const char *prop, const char *type) {
        sd_bus_message *m = recorder_get(rec, i)->msg;
        const char *iface, *name;

        assert_se(sd_bus_message_rewind(m, true) >= 0);
        assert_se(sd_bus_message_read(m, "s", &iface) >= 0);
        assert_se(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                assert_se(sd_bus_message_read(m, "s", &name) >= 0);
                if (streq(name, prop)) {
                        assert_se(sd_bus_message_enter_container(m, 'v', type) > 0);
                        return m;
                }
                assert_se(sd_bus_message_skip(m, "v") >= 0);
                assert_se(sd_bus_message_exit_container(m) >= 0);
        }
        fprintf(stderr, "%s not in PropertiesChanged\n", prop);
        abort();
}

static void assert_changed_string(Recorder *rec, size_t i, const char *prop, const char *want) {
        const char *s;
        sd_bus_message *m = changed_value(rec, i, prop, "s");
        assert_se(sd_bus_message_read(m, "s", &s) >= 0);
        assert_streq(s, want);
}

static void test_manager_signals(Harness *h, Recorder *rec) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *dev, *prof;
        int r;

        recorder_reset(rec);
        r = recorder_call(rec, CM_PATH, CM_IFACE, "CreateDevice", &error, &reply, "ssa{ss}", "sig-dev", "temp", 1,
                          "Kind", "display");
        assert_bus_ok(r, &error);
        assert_se(sd_bus_message_read(reply, "o", &dev) >= 0);
        _cleanup_free_ char *devp = strdup(dev);
        size_t i = assert_before_reply(rec, "DeviceAdded", CM_PATH, NULL);
        assert_streq(recorder_get(rec, i)->arg0, devp);
        check_recorded(rec);

        recorder_reset(rec);
        reply = sd_bus_message_unref(reply);
        r = recorder_call(rec, CM_PATH, CM_IFACE, "CreateProfile", &error, &reply, "ssa{ss}", "sig-prof", "temp", 0);
        assert_bus_ok(r, &error);
        assert_se(sd_bus_message_read(reply, "o", &prof) >= 0);
        _cleanup_free_ char *profp = strdup(prof);
        i = assert_before_reply(rec, "ProfileAdded", CM_PATH, NULL);
        assert_streq(recorder_get(rec, i)->arg0, profp);
        check_recorded(rec);

        /* a failing create announces nothing */
        recorder_reset(rec);
        r = recorder_call(rec, CM_PATH, CM_IFACE, "CreateDevice", &error, NULL, "ssa{ss}", "sig-dev2", "bogus", 1,
                          "Kind", "display");
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        sd_bus_error_free(&error);
        assert_no_signal(rec, "DeviceAdded", NULL);

        /* AddProfile: Profiles (+Modified), Device.Changed, DeviceChanged before the reply */
        recorder_reset(rec);
        r = recorder_call(rec, devp, CM_DEVICE_IFACE, "AddProfile", &error, NULL, "so", "soft", profp);
        assert_bus_ok(r, &error);
        i = assert_before_reply(rec, "PropertiesChanged", devp, "Profiles");
        assert_before_reply(rec, "Changed", devp, NULL);
        size_t j = assert_before_reply(rec, "DeviceChanged", CM_PATH, NULL);
        assert_streq(recorder_get(rec, j)->arg0, devp);
        sd_bus_message *m = changed_value(rec, i, "Profiles", "ao");
        _cleanup_strv_free_ char **l = NULL;
        assert_se(sd_bus_message_read_strv(m, &l) >= 0);
        assert_strv(l, profp);
        check_recorded(rec);

        /* DeleteProfile: the device's PropertiesChanged(Profiles) and ProfileRemoved */
        recorder_reset(rec);
        r = recorder_call(rec, CM_PATH, CM_IFACE, "DeleteProfile", &error, NULL, "o", profp);
        assert_bus_ok(r, &error);
        i = assert_before_reply(rec, "PropertiesChanged", devp, "Profiles");
        j = assert_before_reply(rec, "ProfileRemoved", CM_PATH, NULL);
        assert_streq(recorder_get(rec, j)->arg0, profp);
        assert_se(i < j);
        check_recorded(rec);

        recorder_reset(rec);
        r = recorder_call(rec, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", devp);
        assert_bus_ok(r, &error);
        i = assert_before_reply(rec, "DeviceRemoved", CM_PATH, NULL);
        assert_streq(recorder_get(rec, i)->arg0, devp);
        check_recorded(rec);
}

static void test_device_set_property(Harness *h, Recorder *rec, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "sig-setprop", "temp", "printer", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        size_t i;
        int r;

        static const char *const cases[][3] = {
                { "Model", "LaserJet Printer", "LaserJet" },
                { "Serial", "usb://HP/LJ?serial=XYZ123", "XYZ123" },
                { "Vendor", "Hewlett-Packard Ltd.", "Hewlett Packard" },
                { "Colorspace", "rgb", "rgb" },
                { "Format", "ColorModel.OutputMode.OutputResolution", "ColorModel.OutputMode.OutputResolution" },
                { "Mode", "physical", "physical" },
        };
        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                recorder_reset(rec);
                r = recorder_call(rec, d, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", cases[c][0], cases[c][1]);
                assert_bus_ok(r, &error);
                i = assert_before_reply(rec, "PropertiesChanged", d, cases[c][0]);
                if (!harness_is_colord(h))  /* colord sends the raw input (colord §16.9) */
                        assert_changed_string(rec, i, cases[c][0], cases[c][2]);
                assert_no_signal(rec, "DeviceChanged", NULL);
                if (!harness_is_colord(h))
                        check_recorded(rec);
        }

        /* Embedded is a boolean */
        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", "Embedded", "");
        assert_bus_ok(r, &error);
        i = assert_before_reply(rec, "PropertiesChanged", d, "Embedded");
        if (!harness_is_colord(h)) {
                int b;
                sd_bus_message *m = changed_value(rec, i, "Embedded", "b");
                assert_se(sd_bus_message_read(m, "b", &b) >= 0);
                assert_se(b);
                check_recorded(rec);
        }

        /* anything else: Metadata with the whole dict */
        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", "XRANDR_name", "HDMI-1");
        assert_bus_ok(r, &error);
        i = assert_before_reply(rec, "PropertiesChanged", d, "Metadata");
        check_recorded(rec);

        /* a refused value sends nothing */
        char big[4098];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", "Model", big);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        sd_bus_error_free(&error);
        assert_no_signal(rec, "PropertiesChanged", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

static void test_device_enabled_inhibit(Harness *h, Recorder *rec, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "sig-enabled", "temp", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "sig-enabled-p", "temp", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        size_t i;
        int r;

        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 0);
        assert_bus_ok(r, &error);
        i = assert_before_reply(rec, "PropertiesChanged", d, "Enabled");
        int b = 1;
        assert_se(sd_bus_message_read(changed_value(rec, i, "Enabled", "b"), "b", &b) >= 0);
        assert_se(!b);
        assert_before_reply(rec, "Changed", d, NULL);
        assert_before_reply(rec, "DeviceChanged", CM_PATH, NULL);
        check_recorded(rec);

        /* no change, no signal (signals would arrive before the reply) */
        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 0);
        assert_bus_ok(r, &error);
        assert_se(recorder_count(rec) == 1);

        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "ProfilingInhibit", &error, NULL, NULL);
        assert_bus_ok(r, &error);
        assert_before_reply(rec, "DeviceChanged", CM_PATH, NULL);
        if (!harness_is_colord(h)) /* colord never signals ProfilingInhibitors (colord §16.9) */
                assert_before_reply(rec, "PropertiesChanged", d, "ProfilingInhibitors");
        check_recorded(rec);

        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "ProfilingUninhibit", &error, NULL, NULL);
        assert_bus_ok(r, &error);
        assert_before_reply(rec, "DeviceChanged", CM_PATH, NULL);
        if (!harness_is_colord(h))
                assert_before_reply(rec, "PropertiesChanged", d, "ProfilingInhibitors");
        check_recorded(rec);

        /* MakeProfileDefault and RemoveProfile */
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "AddProfile", &error, NULL, "so", "soft", p);
        assert_bus_ok(r, &error);
        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "MakeProfileDefault", &error, NULL, "o", p);
        assert_bus_ok(r, &error);
        assert_before_reply(rec, "PropertiesChanged", d, "Profiles");
        assert_before_reply(rec, "DeviceChanged", CM_PATH, NULL);
        check_recorded(rec);
        recorder_reset(rec);
        r = recorder_call(rec, d, CM_DEVICE_IFACE, "RemoveProfile", &error, NULL, "o", p);
        assert_bus_ok(r, &error);
        assert_before_reply(rec, "PropertiesChanged", d, "Profiles");
        assert_before_reply(rec, "Changed", d, NULL);
        assert_before_reply(rec, "DeviceChanged", CM_PATH, NULL);
        check_recorded(rec);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_profile_set_property(Harness *h, Recorder *rec, sd_bus *bus) {
        _cleanup_free_ char *p = harness_must_create_profile(bus, "sig-pset", "temp", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        size_t i;
        int r;

        static const char *const props[][2] = {
                { "Qualifier", "RGB.Plain.300dpi" }, { "Format", "ColorSpace.Paper.Resolution" },
                { "Colorspace", "rgb" }, { "Title", "A profile title" },
        };
        for (size_t c = 0; c < ELEMENTSOF(props); c++) {
                recorder_reset(rec);
                r = recorder_call(rec, p, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", props[c][0], props[c][1]);
                assert_bus_ok(r, &error);
                i = assert_before_reply(rec, "PropertiesChanged", p, props[c][0]);
                assert_changed_string(rec, i, props[c][0], props[c][1]);
                assert_before_reply(rec, "Changed", p, NULL);
                size_t j = assert_before_reply(rec, "ProfileChanged", CM_PATH, NULL);
                assert_streq(recorder_get(rec, j)->arg0, p);
                check_recorded(rec);
        }
        recorder_reset(rec);
        r = recorder_call(rec, p, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", "License", "CC0");
        assert_bus_ok(r, &error);
        assert_before_reply(rec, "PropertiesChanged", p, "Metadata");
        assert_no_signal(rec, "ProfileChanged", NULL);
        check_recorded(rec);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *rbus = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(rbus);

        RUN(test_manager_signals, h, rec);
        RUN(test_device_set_property, h, rec, bus);
        RUN(test_device_enabled_inhibit, h, rec, bus);
        RUN(test_profile_set_property, h, rec, bus);
        harness_assert_alive(h);
        return 0;
}
