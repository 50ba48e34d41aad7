/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of mappings stored per owner (docs/compatibility.md row 57, "Whose choice is
 * stored"). polkit denies everything asked, so uid 65534 ("nobody", looked up by name) acts
 * only on its own temp devices, which need no check (row 50). The two attacks of a user on
 * root's choices, each across a daemon restart while root's device is away:
 *  - nobody makes Bluish the hard default of its own temp `cups-Printer`; root's
 *    `cups-Printer`, made again, must still have [AdobeRGB1998] only;
 *  - nobody's temp `cups-Victim` shows root's mapping and nobody removes it; root's
 *    `cups-Victim`, made again, must still have it.
 * The legitimate flows still work: root's choices persist; nobody's own choices persist for
 * nobody's own devices across the restart; with root's device live, nobody's choice reaches
 * further and is refused (test-shared-id.c covers the authorized propagation).
 * Each attempt is counted; the test prints how many changed the system's choice and fails
 * unless none did. tinct only (colord stores every choice by device id alone). */

#include <pwd.h>
#include <stdint.h>

#include "bus-test.h"

static Harness *H;
static unsigned attempts, hijacked;

typedef struct Ids {
        char *adobe, *bluish;
} Ids;

static char *profile_by_filename(sd_bus *bus, const char *fn) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, "FindProfileByFilename", fn, &e);
        if (!p) {
                fprintf(stderr, "FindProfileByFilename(%s): %s\n", fn, strempty(e.name));
                abort();
        }
        return p;
}

static void ids_load(sd_bus *bus, Ids *ids) {
        ids->adobe = profile_by_filename(bus, "colord-data--AdobeRGB1998.icc");
        ids->bluish = profile_by_filename(bus, "colord-data--Bluish.icc");
}

static void ids_done(Ids *ids) {
        free(ids->adobe);
        free(ids->bluish);
}

/* Whether a device's Profiles are exactly `want` (NULL-terminated); a miss is reported. */
static bool profiles_are(sd_bus *bus, const char *dev, const char *const *want) {
        _cleanup_strv_free_ char **got = device_profiles(bus, dev);
        size_t n = 0;
        while (want[n])
                n++;
        bool same = strv_length(got) == n;
        for (size_t i = 0; same && i < n; i++)
                same = streq(got[i], want[i]);
        if (!same) {
                dump_strv("got", got);
                dump_strv("want", (char **) want);
        }
        return same;
}

/* Root makes its device of `id` again (as cupsd does at start) and checks the system's
 * choice; a difference is one attempt that changed it. */
static void root_check(sd_bus *bus, const char *id, const char *const *want, bool after_attempt) {
        _cleanup_free_ char *dev = harness_must_create_device(bus, id, "normal", "printer", NO_KV);
        bool ok = profiles_are(bus, dev, want);
        if (after_attempt && !ok)
                hijacked++;
        if (!after_attempt)
                assert_se(ok);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &e, NULL, "o", dev), &e);
}

static void restart(Harness *h) {
        int status = harness_restart_daemon(h);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- as nobody ------------------------------------------------------------------------ */

/* Attack 1: its own temp cups-Printer, Bluish made the hard default. */
static int nobody_prefers_bluish(sd_bus *bus, void *userdata) {
        Ids ids = {};
        ids_load(bus, &ids);
        _cleanup_free_ char *dev = harness_must_create_device(bus, "cups-Printer", "temp", "printer", NO_KV);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.adobe, NULL })); /* the system's, seen */
        must_add_profile(bus, dev, "hard", ids.bluish);
        must_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", "o", ids.bluish);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.bluish, ids.adobe, NULL }));
        ids_done(&ids);
        return 0;
}

/* Attack 2: its own temp cups-Victim shows root's mapping; removed. */
static int nobody_removes(sd_bus *bus, void *userdata) {
        Ids ids = {};
        ids_load(bus, &ids);
        _cleanup_free_ char *dev = harness_must_create_device(bus, "cups-Victim", "temp", "printer", NO_KV);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.adobe, NULL }));
        must_call(bus, dev, CM_DEVICE_IFACE, "RemoveProfile", "o", ids.adobe);
        assert_se(profiles_are(bus, dev, (const char *const[]) { NULL }));
        ids_done(&ids);
        return 0;
}

/* After the restart: nobody's own choices are still nobody's. */
static int nobody_sees_own(sd_bus *bus, void *userdata) {
        Ids ids = {};
        ids_load(bus, &ids);
        _cleanup_free_ char *p = harness_must_create_device(bus, "cups-Printer", "temp", "printer", NO_KV);
        assert_se(profiles_are(bus, p, (const char *const[]) { ids.bluish, ids.adobe, NULL }));
        _cleanup_free_ char *v = harness_must_create_device(bus, "cups-Victim", "temp", "printer", NO_KV);
        assert_se(profiles_are(bus, v, (const char *const[]) { NULL }));
        ids_done(&ids);
        return 0;
}

/* With root's device live, the same choice reaches it: polkit is asked and says no. */
static int nobody_refused(sd_bus *bus, void *userdata) {
        const char *root_dev = userdata;
        Ids ids = {};
        ids_load(bus, &ids);
        _cleanup_free_ char *dev = harness_must_create_device(bus, "cups-Printer", "temp", "printer", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", &e, NULL, "o", ids.adobe);
        /* A default always changes every device it reaches: root's too, so polkit decides. */
        assert_bus_error(r, &e, CM_DEVICE_ERR "FailedToAuthenticate");
        sd_bus_error_free(&e);
        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, "MakeProfileDefault", &e, NULL, "o", ids.adobe);
        assert_bus_error(r, &e, CM_DEVICE_ERR "FailedToAuthenticate");
        ids_done(&ids);
        return 0;
}

int main(void) {
        if (getenv("TINCT_TEST_DAEMON") && streq(getenv("TINCT_TEST_DAEMON"), "colord"))
                return 77; /* colord keys every choice by device id alone */
        struct passwd *pw = getpwnam("nobody");
        assert_se(pw && pw->pw_uid == NOBODY_UID);

        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *bluish_f = harness_corpus_file("colord-data--Bluish.icc");
        const char *const profiles[] = { adobe_f, bluish_f, NULL };
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "deny", .profiles = profiles });
        H = h;

        /* root's choices: AdobeRGB1998 for both printers (devices made by "cupsd") */
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                Ids ids = {};
                ids_load(bus, &ids);
                for (const char *const *id = (const char *const[]) { "cups-Printer", "cups-Victim", NULL }; *id; id++) {
                        _cleanup_free_ char *dev = harness_must_create_device(bus, *id, "normal", "printer", NO_KV);
                        must_add_profile(bus, dev, "hard", ids.adobe);
                }
                ids_done(&ids);
        }

        /* a restart: cupsd has not registered its printers yet */
        restart(h);
        assert_se(harness_run_as_nobody(h, nobody_prefers_bluish, NULL) == 0);
        attempts++;
        assert_se(harness_run_as_nobody(h, nobody_removes, NULL) == 0);
        attempts++;
        assert_se(harness_polkit_count(h, NULL, NULL) == 0); /* own temp devices: never asked */

        /* cupsd registers them again */
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                Ids ids = {};
                ids_load(bus, &ids);
                root_check(bus, "cups-Printer", (const char *const[]) { ids.adobe, NULL }, true);
                root_check(bus, "cups-Victim", (const char *const[]) { ids.adobe, NULL }, true);
                ids_done(&ids);
        }

        /* and after another restart, both layers are as they were stored */
        restart(h);
        assert_se(harness_run_as_nobody(h, nobody_sees_own, NULL) == 0);
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                Ids ids = {};
                ids_load(bus, &ids);
                if (hijacked == 0) {
                        root_check(bus, "cups-Printer", (const char *const[]) { ids.adobe, NULL }, false);
                        root_check(bus, "cups-Victim", (const char *const[]) { ids.adobe, NULL }, false);
                }
                /* root's device live: nobody's choice reaching it is refused */
                _cleanup_free_ char *dev = harness_must_create_device(bus, "cups-Printer", "normal", "printer", NO_KV);
                assert_se(harness_run_as_nobody(h, nobody_refused, dev) == 0);
                attempts += 2;
                if (!profiles_are(bus, dev, (const char *const[]) { ids.adobe, NULL }))
                        hijacked++;
                ids_done(&ids);
        }
        harness_assert_alive(h);

        fprintf(stderr, "hijack attempts: %u, changed the system's choice: %u\n", attempts, hijacked);
        assert_se(hijacked == 0);
        return 0;
}
