/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of device-profile relations (colord §5): the Profiles ordering (hard, then
 * soft non-EDID, then soft EDID, newest first), GetProfileForQualifiers with the
 * cups-filters fallback list of colord §5.4, hard-before-soft, wildcards on either side,
 * relation timestamps kept across delete+recreate, automatic assignment from
 * MAPPING_device_id and the 0-timestamp removal marker. */

#include "bus-test.h"

#define FALLBACK KV("RGB.Glossy.600dpi", "RGB.Glossy.*", "RGB.*.600dpi", "RGB.*.*", "*")

static char *qprofile(sd_bus *bus, const char *id, const char *qualifier) {
        return harness_must_create_profile(bus, id, "temp", KV("Qualifier", qualifier));
}

static void expect_match(sd_bus *bus, const char *dev, const char *const *q, const char *want) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *p = profile_for_qualifiers(bus, dev, q, &error);

        if (!p) {
                fprintf(stderr, "GetProfileForQualifiers(%s...) failed: %s: %s\n", q[0], strempty(error.name),
                        strempty(error.message));
                abort();
        }
        if (!streq(p, want)) {
                fprintf(stderr, "GetProfileForQualifiers(%s...) = %s, want %s\n", q[0], p, want);
                abort();
        }
}

static void expect_nothing(sd_bus *bus, const char *dev, const char *const *q) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *p = profile_for_qualifiers(bus, dev, q, &error);

        assert_bus_error(p ? 0 : -1, &error, CM_DEVICE_ERR "NothingMatched");
}

/* One device with the given soft profiles (added in order); runs the fallback query. */
static void fallback_case(sd_bus *bus, const char *const *qualifiers, size_t want_index) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-fallback", "temp", "printer", NO_KV);
        char *paths[8] = {};
        size_t n = 0;

        for (; qualifiers[n]; n++) {
                char id[32];
                snprintf(id, sizeof(id), "q-fb-%zu", n);
                paths[n] = qprofile(bus, id, qualifiers[n]);
                must_add_profile(bus, d, "soft", paths[n]);
        }
        expect_match(bus, d, FALLBACK, paths[want_index]);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        for (size_t i = 0; i < n; i++) {
                must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", paths[i]);
                free(paths[i]);
        }
}

static void test_fallback(Harness *h, sd_bus *bus) {
        /* each step of RGB.Glossy.600dpi -> RGB.Glossy.* -> RGB.*.600dpi -> RGB.*.* -> * */
        fallback_case(bus, KV("RGB.Glossy.300dpi", "RGB.Glossy.600dpi", "RGB.Matte.600dpi"), 1);
        fallback_case(bus, KV("RGB.Glossy.300dpi", "RGB.Matte.600dpi", "CMYK.Glossy.600dpi"), 0);
        fallback_case(bus, KV("RGB.Matte.600dpi", "Gray.Glossy.600dpi", "RGB.Plain.150dpi"), 0);
        fallback_case(bus, KV("CMYK.Glossy.600dpi", "RGB.Plain.150dpi"), 1);
        fallback_case(bus, KV("CMYK.Plain.150dpi"), 0);
        /* a profile-side wildcard matches too */
        fallback_case(bus, KV("CMYK.Plain.150dpi", "RGB.*.*"), 1);
}

static void test_matching(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-match", "temp", "printer", NO_KV);
        _cleanup_free_ char *cmyk = qprofile(bus, "q-cmyk", "CMYK.Plain.300dpi");
        _cleanup_free_ char *noq = harness_must_create_profile(bus, "q-noqual", "temp", NO_KV);

        must_add_profile(bus, d, "soft", cmyk);
        expect_nothing(bus, d, KV("RGB.*.*"));
        expect_nothing(bus, d, KV("RGB.Glossy.600dpi", "RGB.Glossy.*", "RGB.*.600dpi", "RGB.*.*"));
        expect_nothing(bus, d, KV("CMYK.Plain"));       /* a part missing on one side */
        expect_nothing(bus, d, KV("CMYK*.Plain.300dpi")); /* no partial globbing */
        expect_nothing(bus, d, KV("CMYK.?lain.300dpi")); /* no '?' */
        expect_nothing(bus, d, (const char *const[]) { NULL });
        expect_match(bus, d, KV("CMYK.Plain.300dpi"), cmyk);
        expect_match(bus, d, KV("CMYK.*.300dpi"), cmyk);
        expect_match(bus, d, KV("*.*.*"), cmyk);
        expect_match(bus, d, KV("*"), cmyk);

        /* a profile without a qualifier only matches "*" */
        must_add_profile(bus, d, "soft", noq);
        expect_match(bus, d, KV("*"), noq); /* newest soft first */
        expect_match(bus, d, KV("*.*.*"), cmyk);

        /* the third part keeps further dots */
        _cleanup_free_ char *dots = qprofile(bus, "q-dots", "RGB.Plain.300.5dpi");
        must_add_profile(bus, d, "soft", dots);
        expect_match(bus, d, KV("RGB.Plain.300.5dpi"), dots);
        expect_match(bus, d, KV("RGB.*.300.5dpi"), dots);
        expect_nothing(bus, d, KV("RGB.Plain.300"));

        if (!harness_is_colord(h)) {
                /* parts missing on both sides are equal (colord reads out of bounds, colord §16.11) */
                _cleanup_free_ char *shortq = qprofile(bus, "q-short", "RGB");
                must_add_profile(bus, d, "soft", shortq);
                expect_match(bus, d, KV("RGB"), shortq);
                expect_nothing(bus, d, KV("RGB.Plain"));
                _cleanup_free_ char *two = qprofile(bus, "q-two", "Gray.Plain");
                must_add_profile(bus, d, "soft", two);
                expect_match(bus, d, KV("Gray.Plain"), two);
                expect_match(bus, d, KV("Gray.*"), two);
                expect_nothing(bus, d, KV("Gray.Plain.300dpi"));
                must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", shortq);
                must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", two);
        }
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", cmyk);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", noq);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", dots);
}

static void test_hard_before_soft(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-hard", "temp", "printer", NO_KV);
        _cleanup_free_ char *hard = qprofile(bus, "q-hard-p", "RGB.Plain.150dpi");
        _cleanup_free_ char *soft = qprofile(bus, "q-soft-p", "RGB.Glossy.600dpi");

        must_add_profile(bus, d, "hard", hard);
        must_add_profile(bus, d, "soft", soft);  /* newer, and an exact match */
        /* the hard pass runs over the whole list first: RGB.*.* finds the hard one */
        expect_match(bus, d, FALLBACK, hard);
        expect_match(bus, d, KV("RGB.Glossy.600dpi"), soft);
        _cleanup_strv_free_ char **l = device_profiles(bus, d);
        assert_strv(l, hard, soft);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", hard);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", soft);
}

static void test_ordering(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-order", "temp", "display", NO_KV);
        _cleanup_free_ char *s1 = harness_must_create_profile(bus, "q-o-s1", "temp", NO_KV);
        _cleanup_free_ char *h1 = harness_must_create_profile(bus, "q-o-h1", "temp", NO_KV);
        _cleanup_free_ char *s2 = harness_must_create_profile(bus, "q-o-s2", "temp", NO_KV);
        _cleanup_free_ char *h2 = harness_must_create_profile(bus, "q-o-h2", "temp", NO_KV);
        _cleanup_free_ char *calib = harness_must_create_profile(bus, "q-o-calib", "temp", KV("DATA_source", "calib"));
        _cleanup_free_ char *edid = harness_must_create_profile(bus, "q-o-edid", "temp", KV("DATA_source", "edid"));

        must_add_profile(bus, d, "soft", s1);
        must_add_profile(bus, d, "hard", h1);
        _cleanup_strv_free_ char **l1 = device_profiles(bus, d);
        assert_strv(l1, h1, s1);
        must_add_profile(bus, d, "soft", s2);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, d);
        assert_strv(l2, h1, s2, s1);
        must_add_profile(bus, d, "hard", h2);  /* the later hard add comes first */
        _cleanup_strv_free_ char **l3 = device_profiles(bus, d);
        assert_strv(l3, h2, h1, s2, s1);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);

        /* a soft calib profile stays ahead of a newer soft EDID profile in Profiles, but
         * the soft pass of GetProfileForQualifiers is plain newest-first (colord §5.4 step 3) */
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "q-order2", "temp", "display", NO_KV);
        must_add_profile(bus, d2, "soft", calib);
        must_add_profile(bus, d2, "soft", edid);
        _cleanup_strv_free_ char **l4 = device_profiles(bus, d2);
        assert_strv(l4, calib, edid);
        expect_match(bus, d2, KV("*"), edid);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);

        const char *all[] = { s1, h1, s2, h2, calib, edid };
        for (size_t i = 0; i < ELEMENTSOF(all); i++)
                must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", all[i]);
}

static void test_timestamps_survive_recreate(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-ts-dev", "normal", "display", NO_KV);
        _cleanup_free_ char *a = harness_must_create_profile(bus, "q-ts-a", "normal", NO_KV);
        _cleanup_free_ char *b = harness_must_create_profile(bus, "q-ts-b", "normal", NO_KV);

        must_add_profile(bus, d, "hard", a);
        must_add_profile(bus, d, "hard", b);
        _cleanup_strv_free_ char **l1 = device_profiles(bus, d);
        assert_strv(l1, b, a);

        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", a);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", b);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, d);
        assert_strv_empty(l2);

        /* re-created in the other order: re-attached as hard with their stored times */
        _cleanup_free_ char *b2 = harness_must_create_profile(bus, "q-ts-b", "normal", NO_KV);
        _cleanup_free_ char *a2 = harness_must_create_profile(bus, "q-ts-a", "normal", NO_KV);
        _cleanup_strv_free_ char **l3 = device_profiles(bus, d);
        assert_strv(l3, b2, a2);
        _cleanup_free_ char *ra = relation_of(bus, d, a2);
        assert_streq(ra, "hard");

        /* the same from the device side: delete and re-create the device */
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "q-ts-dev", "normal", "display", NO_KV);
        _cleanup_strv_free_ char **l4 = device_profiles(bus, d2);
        assert_strv(l4, b2, a2);

        /* MakeProfileDefault refreshes the stored time */
        must_call(bus, d2, CM_DEVICE_IFACE, "MakeProfileDefault", "o", a2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        _cleanup_free_ char *d3 = harness_must_create_device(bus, "q-ts-dev", "normal", "display", NO_KV);
        _cleanup_strv_free_ char **l5 = device_profiles(bus, d3);
        assert_strv(l5, a2, b2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d3);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", a2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", b2);
}

static void test_auto_assign(Harness *h, sd_bus *bus) {
        /* profile first, then device */
        _cleanup_free_ char *p = harness_must_create_profile(bus, "q-auto-p", "normal",
                                                             KV("MAPPING_device_id", "q-auto-dev"));
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-auto-dev", "normal", "display", NO_KV);
        _cleanup_strv_free_ char **l1 = device_profiles(bus, d);
        assert_strv(l1, p);
        _cleanup_free_ char *rel = relation_of(bus, d, p);
        assert_streq(rel, "soft");

        /* device first, then profile */
        _cleanup_free_ char *p2 = harness_must_create_profile(bus, "q-auto-p2", "normal",
                                                              KV("MAPPING_device_id", "q-auto-dev"));
        _cleanup_strv_free_ char **l2 = device_profiles(bus, d);
        assert_strv(l2, p2, p);

        /* the user removes it: never auto-added to that device again */
        must_call(bus, d, CM_DEVICE_IFACE, "RemoveProfile", "o", p2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p2);
        _cleanup_free_ char *p3 = harness_must_create_profile(bus, "q-auto-p2", "normal",
                                                              KV("MAPPING_device_id", "q-auto-dev"));
        _cleanup_strv_free_ char **l3 = device_profiles(bus, d);
        assert_strv(l3, p);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "q-auto-dev", "normal", "display", NO_KV);
        _cleanup_strv_free_ char **l4 = device_profiles(bus, d2);
        assert_strv(l4, p);

        /* an EDID profile with warnings is not trusted for auto-assignment; without
         * warnings (file-less here) it is */
        _cleanup_free_ char *e = harness_must_create_profile(bus, "q-auto-edid", "normal",
                KV("MAPPING_device_id", "q-auto-dev", "DATA_source", "edid"));
        _cleanup_strv_free_ char **l5 = device_profiles(bus, d2);
        assert_strv(l5, p, e);

        /* MAPPING_device_id set after creation counts for devices added later, and the old
         * value stops counting */
        _cleanup_free_ char *late = harness_must_create_profile(bus, "q-auto-late", "normal",
                                                                KV("MAPPING_device_id", "q-auto-before"));
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, late, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", "MAPPING_device_id",
                             "q-auto-after");
        assert_bus_ok(r, &error);
        _cleanup_free_ char *before = harness_must_create_device(bus, "q-auto-before", "normal", "display", NO_KV);
        _cleanup_free_ char *after = harness_must_create_device(bus, "q-auto-after", "normal", "display", NO_KV);
        _cleanup_strv_free_ char **l6 = device_profiles(bus, before), **l7 = device_profiles(bus, after);
        assert_se(strv_isempty(l6));
        assert_strv(l7, late);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", before);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", after);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", late);

        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p3);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", e);
}

static void test_many_qualifiers(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "q-many", "temp", "printer", NO_KV);
        _cleanup_free_ char *p = qprofile(bus, "q-many-p", "RGB.A.B");
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        char **q = calloc(2001, sizeof(char *));

        assert_se(q);
        must_add_profile(bus, d, "soft", p);
        for (size_t i = 0; i < 2000; i++)
                assert_se(asprintf(&q[i], "X%zu.Y.Z", i) > 0);
        /* a long list must not crash the daemon; a bound may refuse it */
        _cleanup_free_ char *r = profile_for_qualifiers(bus, d, (const char *const *) q, &error);
        assert_se(!r);
        assert_se(sd_bus_error_is_set(&error));
        strv_free(q);
        harness_assert_alive(h);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_fallback, h, bus);
        RUN(test_matching, h, bus);
        RUN(test_hard_before_soft, h, bus);
        RUN(test_ordering, h, bus);
        RUN(test_timestamps_survive_recreate, h, bus);
        RUN(test_auto_assign, h, bus);
        RUN(test_many_qualifiers, h, bus);
        harness_assert_alive(h);
        return 0;
}
