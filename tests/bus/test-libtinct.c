/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libtinct (src/lib) against the daemon on the private bus: finding devices by id and by
 * property, the profile file of a display (default) and of a printer (the qualifier
 * fallback), the answers for a device without a profile and for a profile without a file,
 * the change callback, and the example program (examples/display-profiles.c) run as a user
 * would run it, its output checked. */

#include <stdio.h>
#include <tinct/tinct.h>

#include "bus-test.h"

typedef struct Fixture {
        char *monitor, *bare, *printer;      /* device paths */
        char *monitor_icc, *glossy_icc;      /* files */
} Fixture;

static void setup(Harness *h, sd_bus *bus, Fixture *f) {
        f->monitor_icc = harness_corpus_file("colord-tests--ibm-t61.icc");
        f->glossy_icc = harness_corpus_file("colord-data--Bluish.icc");
        f->monitor = harness_must_create_device(bus, "xrandr-Test-Monitor-1", "normal", "display", KV("XRANDR_name", "DP-1"));
        f->bare = harness_must_create_device(bus, "xrandr-Bare", "normal", "display", NO_KV);
        f->printer = harness_must_create_device(bus, "cups-Photo", "normal", "printer", NO_KV);
        _cleanup_free_ char *mp = harness_must_create_profile(bus, "lt-monitor", "normal", KV("Filename", f->monitor_icc));
        _cleanup_free_ char *gp = harness_must_create_profile(bus, "lt-glossy", "normal",
                                                              KV("Filename", f->glossy_icc, "Qualifier", "RGB.Glossy.*"));
        _cleanup_free_ char *mem = harness_must_create_profile(bus, "lt-memory", "normal", KV("Qualifier", "RGB.Matte.*"));
        must_add_profile(bus, f->monitor, "hard", mp);
        must_add_profile(bus, f->printer, "soft", gp);
        must_add_profile(bus, f->printer, "soft", mem);
}

static void test_lookups(Harness *h, sd_bus *bus, Fixture *f) {
        TinctClient *c;
        char *s = NULL;
        assert_se(tinct_client_new(&c) == 0);

        assert_se(tinct_find_device_by_id(c, "xrandr-Test-Monitor-1", &s) == 0);
        assert_streq(s, f->monitor);
        free(s);
        assert_se(tinct_find_device_by_id(c, "xrandr-Nothing", &s) == -ENOENT);
        assert_se(strstr(tinct_client_last_error(c), "xrandr-Nothing"));
        assert_se(tinct_find_device_by_property(c, "XRANDR_name", "DP-1", &s) == 0);
        assert_streq(s, f->monitor);
        free(s);
        assert_se(tinct_find_device_by_property(c, "XRANDR_name", "HDMI-9", &s) == -ENOENT);

        char **displays = NULL;
        assert_se(tinct_get_devices_by_kind(c, "display", &displays) == 0);
        assert_se(strv_length(displays) == 2);
        tinct_strv_free(displays);
        assert_se(tinct_get_devices_by_kind(c, "camera", &displays) == 0);
        assert_se(displays && !displays[0]);
        tinct_strv_free(displays);

        assert_se(tinct_device_get_property(c, f->monitor, "Kind", &s) == 0);
        assert_streq(s, "display");
        free(s);

        assert_se(tinct_device_get_profile_filename(c, f->monitor, NULL, &s) == 0);
        assert_streq(s, f->monitor_icc);
        free(s);
        assert_se(tinct_device_get_profile_filename(c, f->bare, NULL, &s) == -ENOENT);
        /* RGB.Glossy.600dpi falls back to RGB.Glossy.*; RGB.Matte.* has no file. */
        assert_se(tinct_device_get_profile_filename(c, f->printer, (const char *const[]) { "RGB.Glossy.600dpi", NULL }, &s) == 0);
        assert_streq(s, f->glossy_icc);
        free(s);
        assert_se(tinct_device_get_profile_filename(c, f->printer, (const char *const[]) { "RGB.Matte.300dpi", NULL }, &s) ==
                  -ENODATA);
        assert_se(tinct_device_get_profile_filename(c, f->printer, (const char *const[]) { "CMYK.Plain.300dpi", NULL }, &s) ==
                  -ENOENT);
        tinct_client_free(c);
        assert_se(tinct_client_free(NULL) == NULL);
}

typedef struct Seen {
        int calls;
        char *device;
} Seen;

static void on_changed(TinctClient *c, const char *device, void *userdata) {
        Seen *seen = userdata;
        seen->calls++;
        if (device && !seen->device)
                seen->device = strdup(device);
}

static void test_watch(Harness *h, sd_bus *bus, Fixture *f) {
        TinctClient *c;
        Seen seen = {};
        assert_se(tinct_client_new(&c) == 0);
        assert_se(tinct_watch(c, on_changed, &seen) == 0);
        assert_se(tinct_client_get_fd(c) >= 0);
        /* The match is in place once a call has gone through the same connection. */
        char *s = NULL;
        assert_se(tinct_find_device_by_id(c, "xrandr-Bare", &s) == 0);
        free(s);
        /* A profile for the bare display changes its answer: DeviceChanged. */
        _cleanup_free_ char *prof = harness_must_create_profile(bus, "lt-bare", "normal", KV("Filename", f->glossy_icc));
        must_add_profile(bus, f->bare, "soft", prof);
        while (!seen.device)
                assert_se(tinct_client_process(c, HARNESS_CALL_TIMEOUT_USEC) >= 0);
        assert_streq(seen.device, f->bare);
        free(seen.device);
        assert_se(tinct_watch(c, NULL, NULL) == 0);
        tinct_client_free(c);
}

static void test_example(Harness *h, sd_bus *bus, Fixture *f) {
        const char *example = getenv("TINCT_EXAMPLE_DISPLAY_PROFILES");
        assert_se(example);
        FILE *p = popen(example, "re");
        assert_se(p);
        char out[4096] = "";
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        assert_se(pclose(p) == 0);
        _cleanup_free_ char *want = xasprintf("xrandr-Test-Monitor-1: %s\nxrandr-Bare: (no profile: assume sRGB)\n", f->monitor_icc);
        assert_streq(out, want);
}

int main(void) {
        const HarnessOptions opts = { .polkit = "allow" };
        _cleanup_harness_ Harness *h = harness_start(&opts);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        Fixture f = {};
        setup(h, bus, &f);

        RUN(test_lookups, h, bus, &f);
        RUN(test_example, h, bus, &f);
        RUN(test_watch, h, bus, &f);

        harness_assert_alive(h);
        free(f.monitor);
        free(f.bare);
        free(f.printer);
        free(f.monitor_icc);
        free(f.glossy_icc);
        return 0;
}
