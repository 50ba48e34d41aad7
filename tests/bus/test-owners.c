/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of mappings stored per owner (docs/compatibility.md row 64, "Whose choice is
 * stored"). polkit denies everything asked, so uid 65534 ("nobody", looked up by name) acts
 * only on its own temp devices, which need no check (row 50). The two attacks of a user on
 * root's choices, each across a daemon restart while root's device is away:
 *  - nobody makes Bluish the hard default of its own temp `cups-Printer`; root's
 *    `cups-Printer`, made again, must still have [AdobeRGB1998] only;
 *  - nobody's temp `cups-Victim` shows root's mapping and nobody removes it; root's
 *    `cups-Victim`, made again, must still have it;
 *  - nobody disables its own temp `cups-Printer` (SetEnabled false); root's, made again, must
 *    still be enabled (Enabled flags are in the same layers, schema 7).
 * The legitimate flows still work: root's choices persist; nobody's own choices persist for
 * nobody's own devices across the restart; with root's device live, nobody's choice reaches
 * further and is refused (test-shared-id.c covers the authorized propagation).
 * The same through a DRM display (a fake sysfs tree, --sysfs-root, as test-displays.c): the
 * daemon's display device goes away (DeviceRemoved), nobody's temp device of its id gets
 * Bluish as default and loses AdobeRGB1998, the display comes back (DeviceAdded) with root's
 * choice.
 * And through a udev scanner (udev's database in the same tree, as test-udev.c): unplugged,
 * nobody's temp device of its id chooses, plugged again.
 * Each attempt is counted; the test prints how many changed the system's choice and fails
 * unless none did. tinct only (colord stores every choice by device id alone). */

#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

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
        /* root never disabled them: nobody's flag on its own device of the id must not show */
        bool ok = profiles_are(bus, dev, want) && harness_get_bool(bus, dev, CM_DEVICE_IFACE, "Enabled");
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

/* Attack 3: its own temp cups-Printer disabled (Enabled is stored by device id, colord §16.7). */
static int nobody_disables(sd_bus *bus, void *userdata) {
        _cleanup_free_ char *dev = harness_must_create_device(bus, "cups-Printer", "temp", "printer", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, dev, CM_DEVICE_IFACE, "SetEnabled", &e, NULL, "b", 0), &e);
        assert_se(!harness_get_bool(bus, dev, CM_DEVICE_IFACE, "Enabled"));
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
        assert_se(!harness_get_bool(bus, p, CM_DEVICE_IFACE, "Enabled"));
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

/* ---- a DRM display going away and coming back ------------------------------------------ */

#define DELL "colord-tests--DELL-U2713H.bin"
#define DELL_ID "xrandr-Dell-DELL U2713H-C6F0K34T1CWL"
#define DELL_PATH CM_PATH "/devices/xrandr_Dell_DELL_U2713H_C6F0K34T1CWL"

static char *root_dir, *drm_dir;

static void write_atomic(const char *path, const void *data, size_t size) {
        _cleanup_free_ char *tmp = xasprintf("%s.tmp", path);
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        assert_se(fd >= 0);
        assert_se(size == 0 || write(fd, data, size) == (ssize_t) size);
        assert_se(fchmod(fd, 0666) == 0);
        assert_se(rename(tmp, path) == 0);
}

/* The corpus EDID into DP-1 (NULL: unplugged): edid, then status, as the kernel does. */
static void plug(const char *edid_name) {
        _cleanup_free_ char *status = xasprintf("%s/card0-DP-1/status", drm_dir);
        _cleanup_free_ char *edid = xasprintf("%s/card0-DP-1/edid", drm_dir);
        if (edid_name) {
                _cleanup_free_ char *src = xasprintf("%s/edid/%s", getenv("TINCT_CORPUS_DIR"), edid_name);
                _cleanup_close_ int fd = open(src, O_RDONLY | O_CLOEXEC);
                uint8_t buf[4096];
                assert_se(fd >= 0);
                ssize_t n = read(fd, buf, sizeof buf);
                assert_se(n > 0);
                write_atomic(edid, buf, (size_t) n);
                write_atomic(status, "connected\n", 10);
        } else {
                write_atomic(status, "disconnected\n", 13);
                write_atomic(edid, "", 0);
        }
}

#define SCANNER_SYS "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2"
#define SCANNER_ID "sysfs-Canon_Inc.-CanoScan_LiDE_220"
#define SCANNER_PATH CM_PATH "/devices/sysfs_Canon_Inc__CanoScan_LiDE_220"

/* udevd's way: the database file written under a dot name and renamed (NULL: removed). */
static void scanner_db(bool present) {
        _cleanup_free_ char *tmp = xasprintf("%s/run/udev/data/.#c189:1", root_dir);
        _cleanup_free_ char *db = xasprintf("%s/run/udev/data/c189:1", root_dir);
        if (!present) {
                assert_se(unlink(db) == 0);
                return;
        }
        static const char text[] = "I:1234567\nE:ID_VENDOR=Canon_Inc.\nE:ID_MODEL=CanoScan_LiDE_220\n"
                                   "E:libsane_matched=yes\nQ:5\nV:1\n";
        write_atomic(tmp, text, sizeof text - 1);
        assert_se(rename(tmp, db) == 0);
}

/* A USB scanner's sysfs directory, its subsystem link, uevent and /sys/dev/char link. */
static void make_scanner(void) {
        _cleanup_free_ char *dir = xasprintf("%s%s", root_dir, SCANNER_SYS);
        char *argv[] = { (char *) "mkdir", (char *) "-p", dir, NULL };
        pid_t pid = fork();
        assert_se(pid >= 0);
        if (pid == 0) {
                execvp(argv[0], argv);
                _exit(127);
        }
        int status;
        assert_se(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        _cleanup_free_ char *cls = xasprintf("%s/bDeviceClass", dir), *rem = xasprintf("%s/removable", dir);
        write_atomic(cls, "00\n", 3);
        write_atomic(rem, "removable\n", 10);
        _cleanup_free_ char *sub = xasprintf("%s/subsystem", dir);
        assert_se(symlink("../../../../../../bus/usb", sub) == 0);
        _cleanup_free_ char *uevent = xasprintf("%s/uevent", dir);
        static const char ue[] = "DEVTYPE=usb_device\nDEVNAME=bus/usb/001/002\n";
        write_atomic(uevent, ue, sizeof ue - 1);
        _cleanup_free_ char *link = xasprintf("%s/sys/dev/char/189:1", root_dir);
        assert_se(symlink("../../.." SCANNER_SYS, link) == 0);
        scanner_db(true);
}

static void build_tree(void) {
        char tmpl[] = "/tmp/tinct-owners-XXXXXX";
        assert_se(mkdtemp(tmpl));
        root_dir = strdup(tmpl);
        assert_se(root_dir && chmod(root_dir, 0755) == 0);
        for (const char *const *d = (const char *const[]) { "sys", "sys/class", "sys/class/drm", "sys/class/drm/card0",
                                                            "sys/class/drm/card0-DP-1", "sys/dev", "sys/dev/char", "sys/bus",
                                                            "sys/bus/usb", "run", "run/udev", "run/udev/data", NULL };
             *d; d++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", root_dir, *d);
                assert_se(mkdir(p, 0755) == 0 && chmod(p, 0777) == 0);
        }
        drm_dir = xasprintf("%s/sys/class/drm", root_dir);
        /* hwdata's vendor name, which the display's id is made of (GNOME's ids use it); the
         * daemon inherits $TINCT_PNP_IDS (src/edid-icc) */
        _cleanup_free_ char *pnp = xasprintf("%s/pnp.ids", root_dir);
        write_atomic(pnp, "DEL\tDell Inc.\n", 14);
        assert_se(setenv("TINCT_PNP_IDS", pnp, 1) == 0);
        plug(DELL);
        make_scanner();
}

static void remove_tree(void) {
        pid_t pid = fork();
        assert_se(pid >= 0);
        if (pid == 0) {
                execlp("rm", "rm", "-rf", root_dir, (char *) NULL);
                _exit(127);
        }
        int status;
        assert_se(waitpid(pid, &status, 0) == pid);
        free(root_dir);
        free(drm_dir);
}

static void wait_device_signal(Recorder *rec, const char *member, const char *path) {
        for (size_t i = 0;; i++) {
                i = recorder_wait_after(rec, i, member, CM_PATH);
                if (streq_ptr(recorder_get(rec, i)->arg0, path))
                        return;
        }
}

/* While the display is away: nobody's own device of its id, Bluish first, Adobe removed;
 * then the display comes back while nobody's device is still there. */
static int nobody_on_display(sd_bus *bus, void *userdata) {
        Ids ids = {};
        ids_load(bus, &ids);
        _cleanup_free_ char *dev = harness_must_create_device(bus, DELL_ID, "temp", "display", NO_KV);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.adobe, NULL }));
        must_add_profile(bus, dev, "hard", ids.bluish);
        must_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", "o", ids.bluish);
        must_call(bus, dev, CM_DEVICE_IFACE, "RemoveProfile", "o", ids.adobe);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.bluish, NULL }));
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        plug(DELL);
        wait_device_signal(rec, "DeviceAdded", DELL_PATH);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.bluish, NULL })); /* still nobody's */
        ids_done(&ids);
        return 0;
}

/* While the scanner is away: nobody's own device of its id, the same choices. */
static int nobody_on_scanner(sd_bus *bus, void *userdata) {
        Ids ids = {};
        ids_load(bus, &ids);
        _cleanup_free_ char *dev = harness_must_create_device(bus, SCANNER_ID, "temp", "scanner", NO_KV);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.adobe, NULL }));
        must_add_profile(bus, dev, "hard", ids.bluish);
        must_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", "o", ids.bluish);
        must_call(bus, dev, CM_DEVICE_IFACE, "RemoveProfile", "o", ids.adobe);
        assert_se(profiles_are(bus, dev, (const char *const[]) { ids.bluish, NULL }));
        ids_done(&ids);
        return 0;
}

static void test_drm_display(const char *const *profiles) {
        const char *tinctd = getenv("TINCTD");
        assert_se(tinctd);
        build_tree();
        /* The harness always passes --no-udev; this wrapper drops it so discovery runs. */
        _cleanup_free_ char *wrapper = xasprintf("%s/tinctd-with-discovery", root_dir);
        _cleanup_free_ char *script = xasprintf("#!/bin/sh\nfor a; do shift; [ \"$a\" = --no-udev ] || set -- \"$@\" \"$a\"; done\n"
                                                "exec '%s' \"$@\"\n", tinctd);
        write_atomic(wrapper, script, strlen(script));
        assert_se(chmod(wrapper, 0755) == 0);
        _cleanup_free_ char *saved = strdup(tinctd);
        assert_se(saved && setenv("TINCTD", wrapper, 1) == 0);

        Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "deny", .profiles = profiles,
                .extra_args = (const char *const[]) { "--sysfs-root", root_dir, NULL } });
        H = h;
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                Ids ids = {};
                ids_load(bus, &ids);
                /* root's choice for the display: AdobeRGB1998, before its EDID profile */
                must_add_profile(bus, DELL_PATH, "hard", ids.adobe);
                must_call(bus, DELL_PATH, CM_DEVICE_IFACE, "MakeProfileDefault", "o", ids.adobe);
                _cleanup_strv_free_ char **before = device_profiles(bus, DELL_PATH);
                assert_se(strv_length(before) == 2);
                assert_streq(before[0], ids.adobe);
                _cleanup_free_ char *edid_prof = strdup(before[1]);

                _cleanup_recorder_ Recorder *rec = recorder_new(bus);
                plug(NULL);
                wait_device_signal(rec, "DeviceRemoved", DELL_PATH);
                assert_se(harness_run_as_nobody(h, nobody_on_display, NULL) == 0);
                attempts++;
                assert_se(harness_polkit_count(h, NULL, NULL) == 0);
                if (!profiles_are(bus, DELL_PATH, (const char *const[]) { ids.adobe, edid_prof, NULL }))
                        hijacked++;

                /* the scanner: root's choice, unplugged, nobody's turn, plugged again */
                must_add_profile(bus, SCANNER_PATH, "hard", ids.adobe);
                recorder_reset(rec);
                scanner_db(false);
                wait_device_signal(rec, "DeviceRemoved", SCANNER_PATH);
                assert_se(harness_run_as_nobody(h, nobody_on_scanner, NULL) == 0);
                attempts++;
                recorder_reset(rec);
                scanner_db(true);
                wait_device_signal(rec, "DeviceAdded", SCANNER_PATH);
                if (!profiles_are(bus, SCANNER_PATH, (const char *const[]) { ids.adobe, NULL }))
                        hijacked++;
                assert_se(harness_polkit_count(h, NULL, NULL) == 0);
                ids_done(&ids);
        }
        harness_assert_alive(h);
        harness_stop(h);
        assert_se(setenv("TINCTD", saved, 1) == 0);
        remove_tree();
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
        assert_se(harness_run_as_nobody(h, nobody_disables, NULL) == 0);
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
        h = harness_stop(h);

        test_drm_display(profiles);

        fprintf(stderr, "hijack attempts: %u, changed the system's choice: %u\n", attempts, hijacked);
        assert_se(hijacked == 0);
        return 0;
}
