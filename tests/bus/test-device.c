/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of the Device interface (colord §3): every property with its exact type, the
 * property normalisation of colord §3.3, SetProperty limits, AddProfile/RemoveProfile/
 * MakeProfileDefault/GetProfileRelation errors, SetEnabled, ProfilingInhibit and
 * Uninhibit. Ordering and qualifier matching are in test-qualifiers.c. */

#include "bus-test.h"

static void test_properties(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "dev-props", "temp", "printer",
                KV("Model", "LaserJet Printer", "Vendor", "Hewlett-Packard Ltd.",
                   "Serial", "usb://HP/LJ?serial=XYZ123", "Colorspace", "rgb",
                   "Format", "ColorModel.OutputMode.OutputResolution", "Mode", "physical",
                   "Seat", "seat9", "Embedded", "", "Enabled", "no", "Custom_key", "v1"));

        check_getall(h, bus, d, CM_DEVICE_IFACE, device_props, NULL);

        static const char *const want[][2] = {
                { "Model", "LaserJet" }, { "Vendor", "Hewlett Packard" }, { "Serial", "XYZ123" },
                { "Colorspace", "rgb" }, { "Kind", "printer" }, { "DeviceId", "dev-props" },
                { "Mode", "physical" }, { "Format", "ColorModel.OutputMode.OutputResolution" },
                { "Scope", "temp" }, { "Seat", "seat9" },
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                _cleanup_free_ char *v = harness_get_string(bus, d, CM_DEVICE_IFACE, want[i][0]);
                if (!streq(v, want[i][1])) {
                        fprintf(stderr, "%s: '%s' != '%s'\n", want[i][0], v, want[i][1]);
                        abort();
                }
        }
        assert_se(harness_get_u32(bus, d, CM_DEVICE_IFACE, "Owner") == 0);
        assert_se(harness_get_bool(bus, d, CM_DEVICE_IFACE, "Enabled"));
        assert_se(harness_get_bool(bus, d, CM_DEVICE_IFACE, "Embedded"));

        uint64_t created = harness_get_u64(bus, d, CM_DEVICE_IFACE, "Created");
        uint64_t modified = harness_get_u64(bus, d, CM_DEVICE_IFACE, "Modified");
        assert_se(created > 1000000000ULL * 1000000ULL); /* microseconds, after 2001 */
        assert_se(modified >= created);

        _cleanup_strv_free_ char **md = harness_get_dict(bus, d, CM_DEVICE_IFACE, "Metadata");
        assert_streq(harness_dict_get(md, "Custom_key"), "v1");
        assert_streq(harness_dict_get(md, "Enabled"), "no"); /* a property, so metadata */
        assert_se(harness_dict_get(md, "OwnerCmdline"));
        assert_se(!harness_dict_get(md, "Model"));
        assert_se(!harness_dict_get(md, "Kind"));

        _cleanup_strv_free_ char **prof = device_profiles(bus, d);
        assert_strv_empty(prof);
        _cleanup_strv_free_ char **inh = harness_get_strv(bus, d, CM_DEVICE_IFACE, "ProfilingInhibitors", "as");
        assert_strv_empty(inh);

        /* defaults */
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "dev-defaults", "normal", "display", NO_KV);
        _cleanup_free_ char *mode = harness_get_string(bus, d2, CM_DEVICE_IFACE, "Mode");
        _cleanup_free_ char *model = harness_get_string(bus, d2, CM_DEVICE_IFACE, "Model");
        _cleanup_free_ char *scope = harness_get_string(bus, d2, CM_DEVICE_IFACE, "Scope");
        assert_streq(mode, "unknown");
        assert_streq(model, "");
        assert_streq(scope, "normal");
        assert_se(!harness_get_bool(bus, d2, CM_DEVICE_IFACE, "Embedded"));
        check_getall(h, bus, d2, CM_DEVICE_IFACE, device_props, NULL);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

static void test_model_suffixes(Harness *h, sd_bus *bus) {
        static const struct {
                const char *kind, *model, *want;
        } cases[] = {
                { "printer", "LaserJet Printer", "LaserJet" },
                { "printer", "LaserJet Printer  ", "LaserJet" },
                { "display", "Thing Monitor", "Thing" },
                { "display", "Thing Screen", "Thing" },
                { "display", "Thing Printer", "Thing Printer" },
                { "scanner", "Thing Monitor", "Thing Monitor" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *d = harness_must_create_device(bus, "dev-model", "temp", cases[i].kind,
                                                                    KV("Model", cases[i].model));
                _cleanup_free_ char *m = harness_get_string(bus, d, CM_DEVICE_IFACE, "Model");
                assert_streq(m, cases[i].want);
                must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        }
        static const char *const vendors[][2] = {
                { "HP", "Hewlett Packard" }, { "LENOVO", "Lenovo" }, { "Foo Co. Ltd.", "Foo Co." },
                { "Samsung Electric Company", "Samsung" }, { "Acme Inc.", "Acme" },
        };
        for (size_t i = 0; i < ELEMENTSOF(vendors); i++) {
                _cleanup_free_ char *d = harness_must_create_device(bus, "dev-vendor", "temp", "display",
                                                                    KV("Vendor", vendors[i][0]));
                _cleanup_free_ char *v = harness_get_string(bus, d, CM_DEVICE_IFACE, "Vendor");
                assert_streq(v, vendors[i][1]);
                must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        }
}

static int set_property(sd_bus *bus, const char *d, const char *k, const char *v, sd_bus_error *error) {
        return harness_call(bus, d, CM_DEVICE_IFACE, "SetProperty", error, NULL, "ss", k, v);
}

static void test_set_property(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "dev-set", "temp", "display", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        char key[258], value[4098];
        int r;

        assert_bus_ok(set_property(bus, d, "Model", "Big Monitor", &error), &error);
        assert_bus_ok(set_property(bus, d, "Serial", "http://x?serial=S1", &error), &error);
        assert_bus_ok(set_property(bus, d, "Vendor", "LENOVO", &error), &error);
        assert_bus_ok(set_property(bus, d, "Embedded", "", &error), &error);
        assert_bus_ok(set_property(bus, d, "Colorspace", "cmyk", &error), &error);
        assert_bus_ok(set_property(bus, d, "XRANDR_name", "eDP-1", &error), &error);
        _cleanup_free_ char *m = harness_get_string(bus, d, CM_DEVICE_IFACE, "Model");
        _cleanup_free_ char *s = harness_get_string(bus, d, CM_DEVICE_IFACE, "Serial");
        _cleanup_free_ char *v = harness_get_string(bus, d, CM_DEVICE_IFACE, "Vendor");
        _cleanup_free_ char *c = harness_get_string(bus, d, CM_DEVICE_IFACE, "Colorspace");
        assert_streq(m, "Big");
        assert_streq(s, "S1");
        assert_streq(v, "Lenovo");
        assert_streq(c, "cmyk");
        assert_se(harness_get_bool(bus, d, CM_DEVICE_IFACE, "Embedded"));
        _cleanup_strv_free_ char **md = harness_get_dict(bus, d, CM_DEVICE_IFACE, "Metadata");
        assert_streq(harness_dict_get(md, "XRANDR_name"), "eDP-1");
        _cleanup_free_ char *p = find_by2(bus, "FindDeviceByProperty", "XRANDR_name", "eDP-1", &error);
        assert_bus_ok(p ? 0 : -1, &error);
        assert_streq(p, d);

        /* Kind can be changed by SetProperty */
        assert_bus_ok(set_property(bus, d, "Kind", "printer", &error), &error);
        _cleanup_free_ char *k = harness_get_string(bus, d, CM_DEVICE_IFACE, "Kind");
        assert_streq(k, "printer");

        /* limits: key 256 and value 4096 bytes pass, one more fails */
        memset(key, 'k', sizeof(key));
        memset(value, 'v', sizeof(value));
        key[256] = 0;
        value[4096] = 0;
        assert_bus_ok(set_property(bus, d, key, "x", &error), &error);
        assert_bus_ok(set_property(bus, d, "long_value", value, &error), &error);
        key[256] = 'k';
        key[257] = 0;
        r = set_property(bus, d, key, "x", &error);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        sd_bus_error_free(&error);
        value[4096] = 'v';
        value[4097] = 0;
        r = set_property(bus, d, "long_value2", value, &error);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        sd_bus_error_free(&error);
        r = set_property(bus, d, "Model", value, &error);
        assert_bus_error(r, &error, CM_ERR "InputInvalid");
        _cleanup_strv_free_ char **md2 = harness_get_dict(bus, d, CM_DEVICE_IFACE, "Metadata");
        assert_se(!harness_dict_get(md2, "long_value2"));
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

static void test_add_remove_profile(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "dev-rel", "temp", "display", NO_KV);
        _cleanup_free_ char *p1 = harness_must_create_profile(bus, "dev-rel-p1", "temp", NO_KV);
        _cleanup_free_ char *p2 = harness_must_create_profile(bus, "dev-rel-p2", "temp", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        /* relation must be exactly soft or hard */
        static const char *const bad[] = { "", "Hard", "unknown", "hard ", "medium", NULL };
        for (const char *const *b = bad; *b; b++) {
                sd_bus_error_free(&error);
                r = add_profile(bus, d, *b, p1, &error);
                assert_bus_error(r, &error, CM_DEVICE_ERR "Internal");
        }
        sd_bus_error_free(&error);
        r = add_profile(bus, d, "hard", PROF_PATH("does_not_exist"), &error);
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");
        sd_bus_error_free(&error);
        r = add_profile(bus, d, "soft", d, &error); /* a device path is no profile */
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");
        _cleanup_strv_free_ char **l0 = device_profiles(bus, d);
        assert_strv_empty(l0);

        uint64_t modified0 = harness_get_u64(bus, d, CM_DEVICE_IFACE, "Modified");
        must_add_profile(bus, d, "soft", p1);
        assert_se(harness_get_u64(bus, d, CM_DEVICE_IFACE, "Modified") >= modified0);
        _cleanup_free_ char *rel = relation_of(bus, d, p1);
        assert_streq(rel, "soft");
        sd_bus_error_free(&error);
        r = add_profile(bus, d, "soft", p1, &error);
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileAlreadyAdded");
        /* soft -> hard upgrade, no new entry */
        must_add_profile(bus, d, "hard", p1);
        free(rel);
        rel = relation_of(bus, d, p1);
        assert_streq(rel, "hard");
        sd_bus_error_free(&error);
        r = add_profile(bus, d, "hard", p1, &error);
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileAlreadyAdded");
        sd_bus_error_free(&error);
        r = add_profile(bus, d, "soft", p1, &error);  /* no hard -> soft downgrade */
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileAlreadyAdded");
        _cleanup_strv_free_ char **l1 = device_profiles(bus, d);
        assert_strv(l1, p1);

        /* GetProfileRelation of something not on the device */
        sd_bus_error_free(&error);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "GetProfileRelation", &error, NULL, "o", p2);
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");
        sd_bus_error_free(&error);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "GetProfileRelation", &error, NULL, "o", PROF_PATH("nope"));
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");

        /* RemoveProfile */
        sd_bus_error_free(&error);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "RemoveProfile", &error, NULL, "o", p2);
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");
        sd_bus_error_free(&error);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "RemoveProfile", &error, NULL, "o", PROF_PATH("nope"));
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");
        must_call(bus, d, CM_DEVICE_IFACE, "RemoveProfile", "o", p1);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, d);
        assert_strv_empty(l2);

        /* DeleteProfile takes it off every device */
        must_add_profile(bus, d, "soft", p1);
        must_add_profile(bus, d, "soft", p2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p1);
        _cleanup_strv_free_ char **l3 = device_profiles(bus, d);
        assert_strv(l3, p2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p2);
        _cleanup_strv_free_ char **l4 = device_profiles(bus, d);
        assert_strv_empty(l4);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

static void test_make_default(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "dev-def", "temp", "display", NO_KV);
        _cleanup_free_ char *p1 = harness_must_create_profile(bus, "dev-def-p1", "temp", NO_KV);
        _cleanup_free_ char *p2 = harness_must_create_profile(bus, "dev-def-p2", "temp", NO_KV);
        _cleanup_free_ char *p3 = harness_must_create_profile(bus, "dev-def-p3", "temp", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = harness_call(bus, d, CM_DEVICE_IFACE, "MakeProfileDefault", &error, NULL, "o", p1);
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");
        sd_bus_error_free(&error);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "MakeProfileDefault", &error, NULL, "o", PROF_PATH("nope"));
        assert_bus_error(r, &error, CM_DEVICE_ERR "ProfileDoesNotExist");

        must_add_profile(bus, d, "soft", p1);
        must_add_profile(bus, d, "soft", p2);
        _cleanup_strv_free_ char **l1 = device_profiles(bus, d);
        assert_strv(l1, p2, p1); /* newest first */

        /* making the second one default moves it first and makes it hard */
        must_call(bus, d, CM_DEVICE_IFACE, "MakeProfileDefault", "o", p1);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, d);
        assert_strv(l2, p1, p2);
        _cleanup_free_ char *r1 = relation_of(bus, d, p1);
        _cleanup_free_ char *r2 = relation_of(bus, d, p2);
        assert_streq(r1, "hard");
        assert_streq(r2, "soft");

        /* a soft profile that is already first is promoted too (colord §16.8) */
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "dev-def2", "temp", "display", NO_KV);
        must_add_profile(bus, d2, "soft", p3);
        must_call(bus, d2, CM_DEVICE_IFACE, "MakeProfileDefault", "o", p3);
        _cleanup_strv_free_ char **l3 = device_profiles(bus, d2);
        assert_strv(l3, p3);
        _cleanup_free_ char *r3 = relation_of(bus, d2, p3);
        if (!harness_is_colord(h))
                assert_streq(r3, "hard");
        else
                assert_streq(r3, "soft"); /* colord's bug, verified */

        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p1);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p3);
}

static void test_enabled(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "dev-enabled", "temp", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "dev-enabled-p", "temp", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        must_add_profile(bus, d, "hard", p);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 0);
        assert_bus_ok(r, &error);
        assert_se(!harness_get_bool(bus, d, CM_DEVICE_IFACE, "Enabled"));
        r = harness_call(bus, d, CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 0);
        assert_bus_ok(r, &error);
        assert_se(!harness_get_bool(bus, d, CM_DEVICE_IFACE, "Enabled"));

        /* advisory only: lookups still answer and Profiles is kept */
        _cleanup_free_ char *q = profile_for_qualifiers(bus, d, KV("*"), &error);
        assert_bus_ok(q ? 0 : -1, &error);
        assert_streq(q, p);
        _cleanup_strv_free_ char **l = device_profiles(bus, d);
        assert_strv(l, p);

        r = harness_call(bus, d, CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 1);
        assert_bus_ok(r, &error);
        assert_se(harness_get_bool(bus, d, CM_DEVICE_IFACE, "Enabled"));
        /* the flag does not land in Metadata */
        _cleanup_strv_free_ char **md = harness_get_dict(bus, d, CM_DEVICE_IFACE, "Metadata");
        assert_se(!harness_dict_get(md, "Enabled"));
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_inhibit(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *other = harness_connect(h);
        _cleanup_free_ char *d = harness_must_create_device(bus, "dev-inhibit", "normal", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "dev-inhibit-p", "normal", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *me, *them;
        int r;

        assert_se(sd_bus_get_unique_name(bus, &me) >= 0);
        assert_se(sd_bus_get_unique_name(other, &them) >= 0);
        must_add_profile(bus, d, "soft", p);

        r = harness_call(bus, d, CM_DEVICE_IFACE, "ProfilingUninhibit", &error, NULL, NULL);
        assert_bus_error(r, &error, CM_DEVICE_ERR "FailedToUninhibit");
        sd_bus_error_free(&error);

        must_call(bus, d, CM_DEVICE_IFACE, "ProfilingInhibit", NULL, NULL);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "ProfilingInhibit", &error, NULL, NULL);
        assert_bus_error(r, &error, CM_DEVICE_ERR "FailedToInhibit");
        sd_bus_error_free(&error);
        must_call(other, d, CM_DEVICE_IFACE, "ProfilingInhibit", NULL, NULL);

        _cleanup_strv_free_ char **inh = harness_get_strv(bus, d, CM_DEVICE_IFACE, "ProfilingInhibitors", "as");
        assert_strv(inh, me, them);
        /* Profiles is not emptied, but lookups refuse */
        _cleanup_strv_free_ char **l = device_profiles(bus, d);
        assert_strv(l, p);
        _cleanup_free_ char *q = profile_for_qualifiers(bus, d, KV("*"), &error);
        assert_bus_error(q ? 0 : -1, &error, CM_DEVICE_ERR "Profiling");
        sd_bus_error_free(&error);

        must_call(bus, d, CM_DEVICE_IFACE, "ProfilingUninhibit", NULL, NULL);
        _cleanup_strv_free_ char **inh2 = harness_get_strv(bus, d, CM_DEVICE_IFACE, "ProfilingInhibitors", "as");
        assert_strv(inh2, them);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "ProfilingUninhibit", &error, NULL, NULL);
        assert_bus_error(r, &error, CM_DEVICE_ERR "FailedToUninhibit");
        sd_bus_error_free(&error);
        must_call(other, d, CM_DEVICE_IFACE, "ProfilingUninhibit", NULL, NULL);
        _cleanup_strv_free_ char **inh3 = harness_get_strv(bus, d, CM_DEVICE_IFACE, "ProfilingInhibitors", "as");
        assert_strv_empty(inh3);
        free(q);
        q = profile_for_qualifiers(bus, d, KV("*"), &error);
        assert_bus_ok(q ? 0 : -1, &error);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_unknown_device_path(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        /* an unknown object path answers with an error (libcolord relies on it) */
        r = harness_call(bus, DEV_PATH("nonexistent"), "org.freedesktop.DBus.Properties", "GetAll", &error, NULL,
                         "s", CM_DEVICE_IFACE);
        assert_se(r < 0);
        sd_bus_error_free(&error);
        r = harness_call(bus, DEV_PATH("nonexistent"), CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 1);
        assert_se(r < 0);
        sd_bus_error_free(&error);
        r = harness_call(bus, DEV_PATH("nonexistent"), "org.freedesktop.DBus.Properties", "Get", &error, NULL,
                         "ss", CM_DEVICE_IFACE, "DeviceId");
        assert_se(r < 0);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_properties, h, bus);
        RUN(test_model_suffixes, h, bus);
        RUN(test_set_property, h, bus);
        RUN(test_add_remove_profile, h, bus);
        RUN(test_make_default, h, bus);
        RUN(test_enabled, h, bus);
        RUN(test_inhibit, h, bus);
        RUN(test_unknown_device_path, h, bus);
        harness_assert_alive(h);
        return 0;
}
