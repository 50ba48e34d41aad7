/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of what survives a daemon restart (colord §7.3, §5.5, issue 3), each with its own
 * harness (state and profile dirs in a temp dir) and real restarts (SIGTERM, clean exit,
 * start again on the same state):
 *  - disk devices with every kind of property, Kind and Enabled=false; normal/temp devices
 *    and soft relations gone; Enabled kept per device id for other scopes;
 *  - hard mappings with their order (MakeProfileDefault), the removal marker (a profile
 *    with MAPPING_device_id for the device is not re-added after RemoveProfile), per-user
 *    titles;
 *  - hard mappings re-attached whichever appears first, device or profile (client
 *    profiles, and profile files that come back while the daemon runs);
 *  - the user's hard choice beating a soft MAPPING_device_id profile after a restart;
 *  - warm start from the metadata cache: a file whose identity (size, mtime, inode) is
 *    unchanged is not read again (its bytes are replaced with garbage behind the daemon's
 *    back and the profile still comes up; touching the mtime makes the daemon look again);
 *  - recovery from a damaged or emptied database through the newest backup, logged, the
 *    damaged file kept aside;
 *  - the one-time import of Debian colord's databases (tests/data/colord-db). */

#include <dirent.h>
#include <pwd.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "bus-test.h"
#include "profile-files.h"

static DaemonLog dlog = { .fd = -1 };

static void stop(Harness *h);

/* Stops the daemon if it runs (its last words still reach the test log), starts it again
 * on the same state and returns the log of the new start. */
static char *restart_logged(Harness *h) {
        if (harness_daemon_running(h))
                stop(h);
        int saved = daemon_log_begin(&dlog);
        int status = harness_restart_daemon(h);
        char *log = daemon_log_end(&dlog, saved);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        return log;
}

static void restart(Harness *h) {
        free(restart_logged(h));
}

/* The daemon is stopped; start it again (harness_restart_daemon's stop is a no-op then). */
static char *start_logged(Harness *h) {
        assert_se(!harness_daemon_running(h));
        return restart_logged(h);
}

static void stop(Harness *h) {
        int status = harness_stop_daemon(h);
        daemon_log_flush(&dlog);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static Harness *start_with(const char *const *profiles, const char *const *extra) {
        int saved = daemon_log_begin(&dlog);
        Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .profiles = profiles, .extra_args = extra });
        free(daemon_log_end(&dlog, saved));
        return h;
}

static Harness *finish(Harness *h) {
        if (harness_daemon_running(h))
                stop(h);
        daemon_log_close(&dlog);
        return harness_stop(h);
}

static char *profile_by_id(sd_bus *bus, const char *id) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, "FindProfileById", id, &e);
        if (!p) {
                fprintf(stderr, "FindProfileById(%s): %s: %s\n", id, strempty(e.name), strempty(e.message));
                abort();
        }
        return p;
}

static char *device_by_id(sd_bus *bus, const char *id) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, "FindDeviceById", id, &e);
        if (!p) {
                fprintf(stderr, "FindDeviceById(%s): %s: %s\n", id, strempty(e.name), strempty(e.message));
                abort();
        }
        return p;
}

static char *profile_by_file(Harness *h, sd_bus *bus, const char *base) {
        _cleanup_free_ char *fn = harness_daemon_filename(h, base);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, "FindProfileByFilename", fn, &e);
        if (!p) {
                fprintf(stderr, "FindProfileByFilename(%s): %s\n", fn, strempty(e.name));
                abort();
        }
        return p;
}

static void assert_dev_string(sd_bus *bus, const char *dev, const char *prop, const char *want) {
        _cleanup_free_ char *v = harness_get_string(bus, dev, CM_DEVICE_IFACE, prop);
        if (!streq(v, want)) {
                fprintf(stderr, "%s %s: got \"%s\", want \"%s\"\n", dev, prop, v, want);
                abort();
        }
}

static void assert_relation(sd_bus *bus, const char *dev, const char *prof, const char *want) {
        _cleanup_free_ char *rel = relation_of(bus, dev, prof);
        if (!streq(rel, want)) {
                fprintf(stderr, "relation of %s on %s: got %s, want %s\n", prof, dev, rel, want);
                abort();
        }
}

static void set_profile_property(sd_bus *bus, const char *prof, const char *key, const char *value) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, prof, CM_PROFILE_IFACE, "SetProperty", &e, NULL, "ss", key, value), &e);
}

static void set_device_property(sd_bus *bus, const char *dev, const char *key, const char *value) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, dev, CM_DEVICE_IFACE, "SetProperty", &e, NULL, "ss", key, value), &e);
}

static void set_enabled(sd_bus *bus, const char *dev, bool enabled) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, dev, CM_DEVICE_IFACE, "SetEnabled", &e, NULL, "b", enabled), &e);
}

static void remove_profile(sd_bus *bus, const char *dev, const char *prof) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, dev, CM_DEVICE_IFACE, "RemoveProfile", &e, NULL, "o", prof), &e);
}

static void make_default(sd_bus *bus, const char *dev, const char *prof) {
        must_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", "o", prof);
}

/* ---- titles as another uid ------------------------------------------------------------ */

typedef struct TitleArgs {
        const char *profile_id;
        const char *set;   /* NULL: only check */
        const char *want;
} TitleArgs;

static int title_as_user(sd_bus *bus, void *userdata) {
        TitleArgs *a = userdata;
        _cleanup_free_ char *p = profile_by_id(bus, a->profile_id);
        if (a->set)
                set_profile_property(bus, p, "Title", a->set);
        _cleanup_free_ char *t = harness_get_string(bus, p, CM_PROFILE_IFACE, "Title");
        if (!streq(t, a->want)) {
                fprintf(stderr, "uid %u: Title of %s is \"%s\", want \"%s\"\n", (unsigned) getuid(), a->profile_id, t,
                        a->want);
                return -1;
        }
        return 0;
}

static void assert_title_as(Harness *h, uid_t uid, const char *id, const char *set, const char *want) {
        TitleArgs a = { id, set, want };
        assert_se(harness_run_as_uid(h, uid, uid, title_as_user, &a) == 0);
}

/* ---- 1. disk devices, properties, hard mappings, titles ------------------------------- */

static void test_disk_devices(void) {
        _cleanup_free_ char *srgb_f = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *bluish_f = harness_corpus_file("colord-data--Bluish.icc");
        _cleanup_free_ char *srgb_id = pf_embedded_id("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_id = pf_embedded_id("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *bluish_id = pf_embedded_id("colord-data--Bluish.icc");
        Harness *h = start_with((const char *const[]) { srgb_f, adobe_f, bluish_f, NULL }, NULL);
        sd_bus *bus = harness_connect(h);

        _cleanup_free_ char *srgb = profile_by_id(bus, srgb_id);
        _cleanup_free_ char *adobe = profile_by_id(bus, adobe_id);
        _cleanup_free_ char *bluish = profile_by_id(bus, bluish_id);

        _cleanup_free_ char *dev = harness_must_create_device(
                bus, "restart-printer", "disk", "printer",
                KV("Vendor", "Hewlett-Packard Ltd.", "Model", "LaserJet 9 Printer",
                   "Serial", "usb://HP/LJ9?serial=RS-42", "Colorspace", "rgb", "Format", "ColorModel.MediaType.Resolution",
                   "Seat", "seat0", "Embedded", "", "XRANDR_name", "DP-9"));
        set_device_property(bus, dev, "Model", "LaserJet 10");
        set_device_property(bus, dev, "OutputPriority", "secondary");
        set_enabled(bus, dev, false);

        _cleanup_free_ char *normal = harness_must_create_device(bus, "restart-normal", "normal", "scanner", NO_KV);
        set_enabled(bus, normal, false);
        _cleanup_free_ char *temp = harness_must_create_device(bus, "restart-temp", "temp", "camera", NO_KV);
        _cleanup_free_ char *disk2 = harness_must_create_device(bus, "restart-display", "disk", "display",
                                                                KV("Model", "Panel"));
        must_add_profile(bus, normal, "hard", bluish); /* a hard mapping of a non-disk device */

        must_add_profile(bus, dev, "hard", srgb);
        must_add_profile(bus, dev, "hard", adobe);
        make_default(bus, dev, srgb);
        must_add_profile(bus, dev, "soft", bluish);
        _cleanup_strv_free_ char **before = device_profiles(bus, dev);
        assert_strv(before, srgb, adobe, bluish);
        must_add_profile(bus, disk2, "hard", adobe);
        must_add_profile(bus, disk2, "hard", bluish);
        _cleanup_strv_free_ char **before2 = device_profiles(bus, disk2);
        assert_strv(before2, bluish, adobe);

        set_profile_property(bus, srgb, "Title", "sRGB, as root likes it");
        assert_title_as(h, NOBODY_UID, srgb_id, "sRGB für nobody", "sRGB für nobody");
        _cleanup_free_ char *adobe_title = harness_get_string(bus, adobe, CM_PROFILE_IFACE, "Title");

        for (int round = 0; round < 2; round++) {
                fprintf(stderr, "  restart %d\n", round + 1);
                sd_bus_flush_close_unref(bus);
                restart(h);
                bus = harness_connect(h);

                _cleanup_free_ char *d = device_by_id(bus, "restart-printer");
                assert_streq(d, dev);
                assert_dev_string(bus, d, "Kind", "printer");
                assert_dev_string(bus, d, "Vendor", "Hewlett Packard");
                assert_dev_string(bus, d, "Model", "LaserJet 10");
                assert_dev_string(bus, d, "Serial", "RS-42");
                assert_dev_string(bus, d, "Colorspace", "rgb");
                assert_dev_string(bus, d, "Format", "ColorModel.MediaType.Resolution");
                assert_dev_string(bus, d, "Seat", "seat0");
                assert_dev_string(bus, d, "Scope", "disk");
                assert_dev_string(bus, d, "Mode", "virtual");
                assert_dev_string(bus, d, "DeviceId", "restart-printer");
                assert_se(harness_get_bool(bus, d, CM_DEVICE_IFACE, "Embedded"));
                assert_se(!harness_get_bool(bus, d, CM_DEVICE_IFACE, "Enabled"));
                assert_se(harness_get_u32(bus, d, CM_DEVICE_IFACE, "Owner") == 0);
                _cleanup_strv_free_ char **md = harness_get_dict(bus, d, CM_DEVICE_IFACE, "Metadata");
                assert_streq(strempty(harness_dict_get(md, "XRANDR_name")), "DP-9");
                assert_streq(strempty(harness_dict_get(md, "OutputPriority")), "secondary");
                assert_se(!harness_dict_get(md, "Enabled")); /* compat #13: not a metadata entry */

                /* hard mappings in their order; the soft one is not stored */
                _cleanup_strv_free_ char **after = device_profiles(bus, d);
                assert_strv(after, srgb, adobe);
                assert_relation(bus, d, srgb, "hard");
                assert_relation(bus, d, adobe, "hard");
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                _cleanup_free_ char *q = profile_for_qualifiers(bus, d, KV("*"), &e);
                assert_bus_ok(q ? 0 : -1, &e);
                assert_streq(q, srgb);

                _cleanup_free_ char *d2 = device_by_id(bus, "restart-display");
                assert_dev_string(bus, d2, "Kind", "display");
                assert_dev_string(bus, d2, "Model", "Panel");
                assert_se(harness_get_bool(bus, d2, CM_DEVICE_IFACE, "Enabled"));
                _cleanup_strv_free_ char **after2 = device_profiles(bus, d2);
                assert_strv(after2, bluish, adobe);

                /* only the disk devices came back */
                _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
                assert_se(strv_length(devs) == 2 && strv_count(devs, d) == 1 && strv_count(devs, d2) == 1);
                assert_find_error(bus, "FindDeviceById", "restart-normal", CM_ERR "NotFound");
                assert_find_error(bus, "FindDeviceById", "restart-temp", CM_ERR "NotFound");

                /* titles per uid */
                _cleanup_free_ char *t = harness_get_string(bus, srgb, CM_PROFILE_IFACE, "Title");
                assert_streq(t, "sRGB, as root likes it");
                assert_title_as(h, NOBODY_UID, srgb_id, NULL, "sRGB für nobody");
                _cleanup_free_ char *t2 = harness_get_string(bus, adobe, CM_PROFILE_IFACE, "Title");
                assert_streq(t2, adobe_title);
        }

        /* Enabled=false of a normal device is kept per id, and its hard mapping returns when
         * the device is made again (the profile existed first) */
        _cleanup_free_ char *n2 = harness_must_create_device(bus, "restart-normal", "normal", "scanner", NO_KV);
        assert_se(!harness_get_bool(bus, n2, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_strv_free_ char **np = device_profiles(bus, n2);
        assert_strv(np, bluish);
        assert_relation(bus, n2, bluish, "hard");
        /* a temp device of the same id starts enabled (it never had a flag) */
        _cleanup_free_ char *t3 = harness_must_create_device(bus, "restart-temp", "temp", "camera", NO_KV);
        assert_se(harness_get_bool(bus, t3, CM_DEVICE_IFACE, "Enabled"));

        /* deleting a disk device forgets it for good */
        _cleanup_free_ char *d2 = device_by_id(bus, "restart-display");
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        sd_bus_flush_close_unref(bus);
        restart(h);
        bus = harness_connect(h);
        assert_find_error(bus, "FindDeviceById", "restart-display", CM_ERR "NotFound");
        _cleanup_free_ char *d = device_by_id(bus, "restart-printer");
        assert_streq(d, dev);
        harness_assert_alive(h);
        sd_bus_flush_close_unref(bus);
        finish(h);
}

/* ---- 2. removal marker, hard beats soft ----------------------------------------------- */

static void install_mapped(Harness *h, const char *name, const char *device_id) {
        size_t n;
        _cleanup_free_ uint8_t *icc = pf_icc_with_meta("argyll-ref--ClayRGB1998.icm",
                                                       KV("MAPPING_device_id", device_id, "DATA_source", "calib"), &n);
        pf_write_atomic(harness_profile_dir(h), name, icc, n);
}

static void test_marker_and_soft(void) {
        _cleanup_free_ char *srgb_f = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *srgb_id = pf_embedded_id("colord-data--sRGB.icc");
        Harness *h = start_with((const char *const[]) { srgb_f, NULL }, NULL);

        /* files with MAPPING_device_id, present from the start */
        stop(h);
        install_mapped(h, "mapped-a.icc", "restart-mapped-a");
        install_mapped(h, "mapped-b.icc", "restart-mapped-b");
        install_mapped(h, "mapped-c.icc", "restart-mapped-c");
        restart(h);
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *ma = profile_by_file(h, bus, "mapped-a.icc");
        _cleanup_free_ char *mb = profile_by_file(h, bus, "mapped-b.icc");
        _cleanup_free_ char *mc = profile_by_file(h, bus, "mapped-c.icc");
        _cleanup_free_ char *srgb = profile_by_id(bus, srgb_id);
        _cleanup_strv_free_ char **mda = harness_get_dict(bus, ma, CM_PROFILE_IFACE, "Metadata");
        assert_streq(strempty(harness_dict_get(mda, "MAPPING_device_id")), "restart-mapped-a");

        _cleanup_free_ char *da = harness_must_create_device(bus, "restart-mapped-a", "disk", "display", NO_KV);
        _cleanup_free_ char *db = harness_must_create_device(bus, "restart-mapped-b", "disk", "display", NO_KV);
        _cleanup_free_ char *dc = harness_must_create_device(bus, "restart-mapped-c", "disk", "display", NO_KV);
        _cleanup_strv_free_ char **la = device_profiles(bus, da);
        assert_strv(la, ma);
        assert_relation(bus, da, ma, "soft");
        _cleanup_strv_free_ char **lb = device_profiles(bus, db);
        assert_strv(lb, mb);

        /* the user removes the automatic one from a; chooses sRGB for c */
        remove_profile(bus, da, ma);
        _cleanup_strv_free_ char **la2 = device_profiles(bus, da);
        assert_strv_empty(la2);
        must_add_profile(bus, dc, "hard", srgb);
        make_default(bus, dc, srgb);
        _cleanup_strv_free_ char **lc = device_profiles(bus, dc);
        assert_strv(lc, srgb, mc);

        /* a client profile with MAPPING_device_id, removed by the user too */
        _cleanup_free_ char *cp = harness_must_create_profile(bus, "restart-client-mapped", "normal",
                                                              KV("MAPPING_device_id", "restart-mapped-b"));
        _cleanup_strv_free_ char **lb2 = device_profiles(bus, db);
        assert_strv(lb2, cp, mb);
        remove_profile(bus, db, cp);

        sd_bus_flush_close_unref(bus);
        restart(h);
        bus = harness_connect(h);

        /* a: the marker holds, the file's profile is not re-added */
        _cleanup_strv_free_ char **ra = device_profiles(bus, da);
        assert_strv_empty(ra);
        /* b: its own file's profile came back (soft); the client re-registers its profile
         * and the marker keeps that one off too */
        _cleanup_strv_free_ char **rb = device_profiles(bus, db);
        assert_strv(rb, mb);
        assert_relation(bus, db, mb, "soft");
        assert_find_error(bus, "FindProfileById", "restart-client-mapped", CM_ERR "NotFound");
        _cleanup_free_ char *cp2 = harness_must_create_profile(bus, "restart-client-mapped", "normal",
                                                               KV("MAPPING_device_id", "restart-mapped-b"));
        _cleanup_strv_free_ char **rb2 = device_profiles(bus, db);
        assert_strv(rb2, mb);
        /* c: the hard choice (older timestamp) stays ahead of the soft one re-added now */
        _cleanup_strv_free_ char **rc = device_profiles(bus, dc);
        assert_strv(rc, srgb, mc);
        assert_relation(bus, dc, srgb, "hard");
        assert_relation(bus, dc, mc, "soft");
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *q = profile_for_qualifiers(bus, dc, KV("*"), &e);
        assert_bus_ok(q ? 0 : -1, &e);
        assert_streq(q, srgb);

        /* the user may still add the removed one by hand */
        must_add_profile(bus, da, "hard", ma);
        sd_bus_flush_close_unref(bus);
        restart(h);
        bus = harness_connect(h);
        _cleanup_strv_free_ char **ra2 = device_profiles(bus, da);
        assert_strv(ra2, ma);
        assert_relation(bus, da, ma, "hard");
        sd_bus_flush_close_unref(bus);
        finish(h);
}

/* ---- 3. hard mappings re-attached in both orders ------------------------------------- */

static void test_both_orders(void) {
        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *cm_f = harness_corpus_file("colord-data--ColorMatchRGB.icc");
        _cleanup_free_ char *adobe_id = pf_embedded_id("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *cm_id = pf_embedded_id("colord-data--ColorMatchRGB.icc");
        Harness *h = start_with((const char *const[]) { adobe_f, cm_f, NULL }, NULL);
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *adobe = profile_by_id(bus, adobe_id);
        _cleanup_free_ char *cm = profile_by_id(bus, cm_id);

        _cleanup_free_ char *dd = harness_must_create_device(bus, "restart-order-disk", "disk", "display", NO_KV);
        _cleanup_free_ char *cp = harness_must_create_profile(bus, "restart-order-client", "normal", NO_KV);
        must_add_profile(bus, dd, "hard", cp);
        must_add_profile(bus, dd, "hard", adobe);
        must_add_profile(bus, dd, "soft", cm);
        make_default(bus, dd, cm);
        _cleanup_strv_free_ char **l0 = device_profiles(bus, dd);
        assert_strv(l0, cm, adobe, cp);

        /* the Adobe file goes away while the daemon is down */
        stop(h);
        _cleanup_free_ char *adobe_file = pf_asprintf("%s/colord-data--AdobeRGB1998.icc", harness_profile_dir(h));
        size_t an;
        _cleanup_free_ uint8_t *adobe_bytes = pf_read(adobe_file, &an);
        pf_unlink(adobe_file);
        restart(h);
        sd_bus_flush_close_unref(bus);
        bus = harness_connect(h);

        /* device first: only the profile that exists is attached */
        _cleanup_strv_free_ char **l1 = device_profiles(bus, dd);
        assert_strv(l1, cm);

        /* the client profile appears after the device: attached hard, in its stored place */
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *cp2 = harness_must_create_profile(bus, "restart-order-client", "normal", NO_KV);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, dd);
        assert_strv(l2, cm, cp2);
        assert_relation(bus, dd, cp2, "hard");

        /* the file comes back while the daemon runs: attached hard again, order restored */
        recorder_reset(rec);
        pf_write_atomic(harness_profile_dir(h), "colord-data--AdobeRGB1998.icc", adobe_bytes, an);
        size_t i = recorder_wait(rec, "ProfileAdded", CM_PATH);
        assert_streq(recorder_get(rec, i)->arg0, adobe);
        _cleanup_strv_free_ char **l3 = device_profiles(bus, dd);
        if (strv_count(l3, adobe) != 1) {
                fprintf(stderr, "a profile file that came back was not re-attached by its hard mapping\n");
                dump_strv("Profiles", l3);
                abort();
        }
        assert_strv(l3, cm, adobe, cp2);
        assert_relation(bus, dd, adobe, "hard");
        assert_se(recorder_find(rec, 0, "DeviceChanged", CM_PATH, NULL) != (size_t) -1);

        /* profile first: a normal device made again after a restart gets its mapping */
        _cleanup_free_ char *nd = harness_must_create_device(bus, "restart-order-normal", "normal", "printer", NO_KV);
        must_add_profile(bus, nd, "hard", cm);
        sd_bus_flush_close_unref(bus);
        recorder_free(TAKE_PTR(rec));
        restart(h);
        bus = harness_connect(h);
        assert_find_error(bus, "FindDeviceById", "restart-order-normal", CM_ERR "NotFound");
        _cleanup_free_ char *cp3 = harness_must_create_profile(bus, "restart-order-client", "normal", NO_KV);
        _cleanup_free_ char *nd2 = harness_must_create_device(bus, "restart-order-normal", "normal", "printer", NO_KV);
        _cleanup_strv_free_ char **l4 = device_profiles(bus, nd2);
        assert_strv(l4, cm);
        assert_relation(bus, nd2, cm, "hard");
        /* and the disk device restored after the scan has all three again */
        _cleanup_strv_free_ char **l5 = device_profiles(bus, dd);
        assert_strv(l5, cm, adobe, cp3);
        sd_bus_flush_close_unref(bus);
        finish(h);
}

/* ---- 4. warm start from the metadata cache ------------------------------------------- */

/* Two a{ss} read with harness_get_dict(): the same entries, in any order. */
static void assert_same_dict(char **got, char **want) {
        assert_se(strv_length(got) == strv_length(want));
        for (char **k = want; k && k[0] && k[1]; k += 2)
                assert_streq(strempty(harness_dict_get(got, k[0])), k[1]);
}

/* Overwrites a file with junk behind the daemon's back, keeping size, mtime and inode, so
 * only a cache can still know what it held. Returns its stat. */
static struct stat replace_keeping_identity(const char *file) {
        struct stat st, st2;
        assert_se(stat(file, &st) == 0);
        _cleanup_free_ uint8_t *junk = calloc(1, (size_t) st.st_size);
        assert_se(junk);
        memset(junk, 0x5a, (size_t) st.st_size);
        int fd = open(file, O_WRONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        pf_write_fd(fd, junk, (size_t) st.st_size, file);
        struct timespec times[2] = { st.st_atim, st.st_mtim };
        assert_se(futimens(fd, times) == 0);
        assert_se(close(fd) == 0);
        assert_se(stat(file, &st2) == 0);
        assert_se(st2.st_ino == st.st_ino && st2.st_size == st.st_size &&
                  st2.st_mtim.tv_sec == st.st_mtim.tv_sec && st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec);
        return st;
}

static void test_warm_start_cache(void) {
        _cleanup_free_ char *srgb_f = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *srgb_id = pf_embedded_id("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_id = pf_embedded_id("colord-data--AdobeRGB1998.icc");
        Harness *h = start_with((const char *const[]) { srgb_f, adobe_f, NULL }, NULL);
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *srgb = profile_by_id(bus, srgb_id);
        _cleanup_free_ char *title = harness_get_string(bus, srgb, CM_PROFILE_IFACE, "Title");
        _cleanup_strv_free_ char **md = harness_get_dict(bus, srgb, CM_PROFILE_IFACE, "Metadata");
        sd_bus_flush_close_unref(bus);
        stop(h);

        /* replace the bytes behind the daemon's back, keeping size, mtime and inode */
        _cleanup_free_ char *file = pf_asprintf("%s/colord-data--sRGB.icc", harness_profile_dir(h));
        struct stat st = replace_keeping_identity(file);

        _cleanup_free_ char *log = start_logged(h);
        assert_log_contains(log, "Found 2 profiles in 2 files");
        bus = harness_connect(h);
        _cleanup_free_ char *srgb2 = profile_by_id(bus, srgb_id); /* from the cache: not re-read */
        assert_streq(srgb2, srgb);
        _cleanup_free_ char *title2 = harness_get_string(bus, srgb2, CM_PROFILE_IFACE, "Title");
        assert_streq(title2, title);
        _cleanup_strv_free_ char **md2 = harness_get_dict(bus, srgb2, CM_PROFILE_IFACE, "Metadata");
        assert_same_dict(md2, md);
        sd_bus_flush_close_unref(bus);
        stop(h);

        /* a different mtime: the daemon reads the file again, finds garbage, skips it */
        struct timespec newer[2] = { st.st_atim, { st.st_mtim.tv_sec + 7, st.st_mtim.tv_nsec } };
        assert_se(utimensat(AT_FDCWD, file, newer, 0) == 0);
        _cleanup_free_ char *log2 = start_logged(h);
        assert_log_contains(log2, "Found 1 profiles in 2 files");
        bus = harness_connect(h);
        assert_find_error(bus, "FindProfileById", srgb_id, CM_ERR "NotFound");
        _cleanup_free_ char *adobe = profile_by_id(bus, adobe_id);
        harness_assert_alive(h);
        sd_bus_flush_close_unref(bus);
        finish(h);
}

/* Warnings are left out of the startup scan (they cost most of a cold start) and computed
 * when asked for or in the background; either way they are right, and cached. */
static void assert_warnings(sd_bus *bus, const char *basename, const char *const *want) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *p = find_by(bus, "FindProfileByFilename", basename, &e);
        assert_se(p);
        _cleanup_strv_free_ char **got = harness_get_strv(bus, p, CM_PROFILE_IFACE, "Warnings", "as");
        size_t n = 0;
        while (want[n])
                n++;
        if (strv_length(got) != n)
                fprintf(stderr, "%s: %zu warnings, want %zu\n", basename, strv_length(got), n);
        assert_se(strv_length(got) == n);
        for (size_t i = 0; i < n; i++)
                assert_streq(got[i], want[i]);
}

static void test_lazy_warnings(void) {
        static const char *const krita = "krita-data--ITUR_2100_PQ_FULL.ICC", *const esrgb = "libgs-common--esrgb.icc",
                                 *const bluish = "colord-data--Bluish.icc";
        static const char *const krita_w[] = { "scum-dot", "whitepoint-invalid", NULL },
                                 *const esrgb_w[] = { "scum-dot", NULL }, *const none[] = { NULL };
        _cleanup_free_ char *kf = harness_corpus_file(krita), *ef = harness_corpus_file(esrgb),
                            *bf = harness_corpus_file(bluish);
        Harness *h = start_with((const char *const[]) { kf, ef, bf, NULL }, NULL);
        sd_bus *bus = harness_connect(h);
        assert_warnings(bus, krita, krita_w);
        assert_warnings(bus, esrgb, esrgb_w);
        assert_warnings(bus, bluish, none);
        /* a client's profile: computed from the bytes it passed */
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r, fd = open(kf, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        _cleanup_free_ char *fdp = harness_create_profile_fd(bus, "fd-krita", "temp", fd, NO_KV, &e, &r);
        close(fd);
        assert_bus_ok(r, &e);
        _cleanup_strv_free_ char **fdw = harness_get_strv(bus, fdp, CM_PROFILE_IFACE, "Warnings", "as");
        assert_se(strv_length(fdw) == 2);
        assert_streq(fdw[0], krita_w[0]);
        assert_streq(fdw[1], krita_w[1]);
        sd_bus_flush_close_unref(bus);
        stop(h);

        /* the file's bytes are junk now: only the cache still knows its warnings */
        _cleanup_free_ char *file = pf_asprintf("%s/%s", harness_profile_dir(h), krita);
        (void) replace_keeping_identity(file);
        _cleanup_free_ char *log = start_logged(h);
        assert_log_contains(log, "Found 3 profiles in 3 files");
        bus = harness_connect(h);
        assert_warnings(bus, krita, krita_w);
        assert_warnings(bus, esrgb, esrgb_w);
        harness_assert_alive(h);
        sd_bus_flush_close_unref(bus);
        finish(h);
}

/* Profiles of scope "disk" (colord: NotSupported) come back after a restart from the bytes
 * the client passed, at the same path, with their properties, title and mappings. */
static void test_disk_profiles(void) {
        Harness *h = start_with((const char *const[]) { NULL }, NULL);
        sd_bus *bus = harness_connect(h);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        int fd = open(adobe_f, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        _cleanup_free_ char *prof = harness_create_profile_fd(
                bus, "disk-adobe", "disk", fd, KV("Qualifier", "RGB.Glossy.*", "Title", "My Adobe", "Custom_key", "ü"),
                &error, &r);
        close(fd);
        assert_bus_ok(r, &error);
        _cleanup_free_ char *virt = harness_must_create_profile(bus, "disk-virtual", "disk", KV("Colorspace", "cmyk"));
        _cleanup_free_ char *dev = harness_must_create_device(bus, "disk-printer", "disk", "printer", NO_KV);
        must_add_profile(bus, dev, "hard", prof);
        _cleanup_free_ char *kind = harness_get_string(bus, prof, CM_PROFILE_IFACE, "Kind");
        _cleanup_free_ char *cs = harness_get_string(bus, prof, CM_PROFILE_IFACE, "Colorspace");
        _cleanup_strv_free_ char **md = harness_get_dict(bus, prof, CM_PROFILE_IFACE, "Metadata");
        assert_streq(strempty(harness_dict_get(md, "Custom_key")), "ü");
        sd_bus_flush_close_unref(bus);

        _cleanup_free_ char *log = restart_logged(h);
        bus = harness_connect(h);
        _cleanup_free_ char *prof2 = profile_by_id(bus, "disk-adobe");
        assert_streq(prof2, prof);
        _cleanup_free_ char *scope = harness_get_string(bus, prof2, CM_PROFILE_IFACE, "Scope");
        _cleanup_free_ char *title = harness_get_string(bus, prof2, CM_PROFILE_IFACE, "Title");
        _cleanup_free_ char *qual = harness_get_string(bus, prof2, CM_PROFILE_IFACE, "Qualifier");
        _cleanup_free_ char *kind2 = harness_get_string(bus, prof2, CM_PROFILE_IFACE, "Kind");
        _cleanup_free_ char *cs2 = harness_get_string(bus, prof2, CM_PROFILE_IFACE, "Colorspace");
        assert_streq(scope, "disk");
        assert_streq(title, "My Adobe");
        assert_streq(qual, "RGB.Glossy.*");
        assert_streq(kind2, kind);
        assert_streq(cs2, cs);
        _cleanup_strv_free_ char **md2 = harness_get_dict(bus, prof2, CM_PROFILE_IFACE, "Metadata");
        assert_same_dict(md2, md);
        _cleanup_free_ char *virt2 = profile_by_id(bus, "disk-virtual");
        assert_streq(virt2, virt);
        _cleanup_free_ char *vcs = harness_get_string(bus, virt2, CM_PROFILE_IFACE, "Colorspace");
        assert_streq(vcs, "cmyk");
        _cleanup_free_ char *dev2 = device_by_id(bus, "disk-printer");
        _cleanup_strv_free_ char **l = device_profiles(bus, dev2);
        assert_strv(l, prof);
        assert_relation(bus, dev2, prof, "hard");

        /* DeleteProfile forgets it for good; the other stays */
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", prof2);
        sd_bus_flush_close_unref(bus);
        free(restart_logged(h));
        bus = harness_connect(h);
        assert_find_error(bus, "FindProfileById", "disk-adobe", CM_ERR "NotFound");
        _cleanup_free_ char *virt3 = profile_by_id(bus, "disk-virtual");
        assert_streq(virt3, virt);
        harness_assert_alive(h);
        sd_bus_flush_close_unref(bus);
        finish(h);
}

/* ---- 5. recovery from a damaged database ---------------------------------------------- */

/* The files the store moved aside, sorted by name (the oldest first: names carry the time,
 * and a "-N" suffix within one second sorts after the plain name). */
static char **corrupt_files(Harness *h) {
        DIR *d = opendir(harness_state_dir(h));
        struct dirent *de;
        char **l = NULL;
        assert_se(d);
        while ((de = readdir(d)))
                if (strncmp(de->d_name, "tinct.db.corrupt-", strlen("tinct.db.corrupt-")) == 0 &&
                    !strstr(de->d_name, "-wal") && !strstr(de->d_name, "-shm")) {
                        char *p = pf_asprintf("%s/%s", harness_state_dir(h), de->d_name);
                        struct stat st;
                        assert_se(stat(p, &st) == 0);
                        fprintf(stderr, "    kept aside: %s (%lld bytes)\n", de->d_name, (long long) st.st_size);
                        assert_se(strv_consume(&l, p) >= 0);
                }
        closedir(d);
        size_t n = strv_length(l);
        for (size_t i = 1; i < n; i++)       /* "X" < "X-1" < "X-2": plain strcmp order */
                for (size_t j = i; j > 0 && strcmp(l[j - 1], l[j]) > 0; j--) {
                        char *t = l[j];
                        l[j] = l[j - 1];
                        l[j - 1] = t;
                }
        return l;
}

/* Failures that do not stop the remaining checks; main() fails at the end. */
static unsigned deferred_failures;

static void expect_file_bytes(const char *path, const uint8_t *want, size_t n) {
        size_t got_n;
        _cleanup_free_ uint8_t *got = pf_read(path, &got_n);
        if (got_n != n || (n > 0 && memcmp(got, want, n) != 0)) {
                fprintf(stderr, "FAIL (deferred): %s: %zu bytes, not the %zu bytes of the damaged file it should "
                        "keep%s\n", path, got_n, n, got_n == n ? " (same size, other content)" : "");
                deferred_failures++;
        }
}

static void check_recovered(Harness *h, const char *srgb_id, const char *adobe_id, const char *dev_path) {
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *d = device_by_id(bus, "restart-precious");
        assert_streq(d, dev_path);
        assert_dev_string(bus, d, "Model", "Precious");
        assert_dev_string(bus, d, "Kind", "display");
        assert_se(!harness_get_bool(bus, d, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_free_ char *srgb = profile_by_id(bus, srgb_id), *adobe = profile_by_id(bus, adobe_id);
        _cleanup_strv_free_ char **l = device_profiles(bus, d);
        assert_strv(l, adobe, srgb);
        assert_relation(bus, d, adobe, "hard");
        _cleanup_free_ char *t = harness_get_string(bus, srgb, CM_PROFILE_IFACE, "Title");
        assert_streq(t, "Precious title");
        sd_bus_flush_close_unref(bus);
}

static void test_corruption(void) {
        _cleanup_free_ char *srgb_f = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *srgb_id = pf_embedded_id("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_id = pf_embedded_id("colord-data--AdobeRGB1998.icc");
        Harness *h = start_with((const char *const[]) { srgb_f, adobe_f, NULL }, NULL);
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *srgb = profile_by_id(bus, srgb_id), *adobe = profile_by_id(bus, adobe_id);
        _cleanup_free_ char *dev = harness_must_create_device(bus, "restart-precious", "disk", "display",
                                                              KV("Model", "Precious"));
        must_add_profile(bus, dev, "hard", srgb);
        must_add_profile(bus, dev, "hard", adobe);
        set_enabled(bus, dev, false);
        set_profile_property(bus, srgb, "Title", "Precious title");
        sd_bus_flush_close_unref(bus);
        /* one clean restart, so backups exist as they would on any running system */
        restart(h);
        check_recovered(h, srgb_id, adobe_id, dev);
        stop(h);

        _cleanup_free_ char *db = pf_asprintf("%s/tinct.db", harness_state_dir(h));
        _cleanup_free_ char *wal = pf_asprintf("%s/tinct.db-wal", harness_state_dir(h));
        assert_se(access(wal, F_OK) < 0); /* a clean exit leaves no WAL to confuse the test */

        /* a) every page after the first overwritten with garbage */
        fprintf(stderr, "  pages overwritten\n");
        struct stat st;
        assert_se(stat(db, &st) == 0);
        fprintf(stderr, "    tinct.db is %lld bytes\n", (long long) st.st_size);
        off_t from = st.st_size > 4096 ? 4096 : 100;
        size_t len = (size_t) (st.st_size - from);
        _cleanup_free_ uint8_t *junk = malloc(len);
        uint32_t x = 0xC0FFEE;
        for (size_t i = 0; i < len; i++) {
                x = x * 1664525u + 1013904223u;
                junk[i] = (uint8_t) (x >> 24);
        }
        int fd = open(db, O_WRONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        assert_se(pwrite(fd, junk, len, from) == (ssize_t) len);
        assert_se(close(fd) == 0);
        size_t damaged_n;
        _cleanup_free_ uint8_t *damaged = pf_read(db, &damaged_n);
        _cleanup_free_ char *log = start_logged(h);
        assert_log_contains(log, "is damaged");
        assert_log_contains(log, "Moved the damaged database to");
        assert_log_contains(log, "Restored");
        assert_log_contains(log, "from backup");
        _cleanup_strv_free_ char **kept = corrupt_files(h);
        assert_se(strv_length(kept) == 1);
        assert_log_contains(log, kept[0]);
        expect_file_bytes(kept[0], damaged, damaged_n);
        check_recovered(h, srgb_id, adobe_id, dev);
        stop(h);

        /* b) truncated to 0 bytes */
        fprintf(stderr, "  truncated to 0 bytes\n");
        assert_se(truncate(db, 0) == 0);
        _cleanup_free_ char *log2 = start_logged(h);
        assert_log_contains(log2, "is damaged");
        assert_log_contains(log2, "Restored");
        check_recovered(h, srgb_id, adobe_id, dev);
        _cleanup_strv_free_ char **kept2 = corrupt_files(h);
        assert_se(strv_length(kept2) == 2);
        assert_log_contains(log2, kept2[1]);
        expect_file_bytes(kept2[1], NULL, 0);
        stop(h);

        /* c) the header page overwritten too (not a database at all any more) */
        fprintf(stderr, "  whole file garbage\n");
        assert_se(stat(db, &st) == 0);
        _cleanup_free_ uint8_t *junk2 = malloc((size_t) st.st_size);
        memset(junk2, 0xA5, (size_t) st.st_size);
        pf_write_in_place(db, junk2, (size_t) st.st_size);
        _cleanup_free_ char *log3 = start_logged(h);
        assert_log_contains(log3, "is damaged");
        assert_log_contains(log3, "Restored");
        _cleanup_strv_free_ char **kept3 = corrupt_files(h);
        assert_se(strv_length(kept3) == 3);
        assert_log_contains(log3, kept3[2]);
        expect_file_bytes(kept3[2], junk2, (size_t) st.st_size);
        check_recovered(h, srgb_id, adobe_id, dev);
        harness_assert_alive(h);
        finish(h);
}

/* ---- 6. colord import ---------------------------------------------------------------- */

/* The fixtures hold per-user titles for the uid the colord user had on the machine that
 * made them; that uid need not exist here (the bus refuses a connection from a uid without
 * a passwd entry). So the test imports a copy in which that uid is rewritten to the uid of
 * "nobody", looked up by name, and asks as that user. */
static uid_t fixture_user_uid(void) {
        const struct passwd *pw = getpwnam("nobody");
        assert_se(pw);
        return pw->pw_uid;
}

static const char *const colord_files[] = { "mapping.db", "storage.db" };

static char *colord_fixture_for(const char *fixture_dir, uid_t uid) {
        const char *tmp = getenv("TMPDIR");
        char *dir = pf_asprintf("%s/tinct-colord-db-XXXXXX", isempty(tmp) ? "/tmp" : tmp);
        assert_se(mkdtemp(dir));
        for (size_t i = 0; i < ELEMENTSOF(colord_files); i++) {
                _cleanup_free_ char *from = pf_asprintf("%s/%s", fixture_dir, colord_files[i]);
                _cleanup_free_ char *to = pf_asprintf("%s/%s", dir, colord_files[i]);
                pf_copy_in_place(from, to);
        }
        _cleanup_free_ char *storage = pf_asprintf("%s/storage.db", dir);
        sqlite3 *db = NULL;
        assert_se(sqlite3_open_v2(storage, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK);
        _cleanup_free_ char *sql = pf_asprintf("UPDATE properties_pu SET uid = %u WHERE uid != 0", (unsigned) uid);
        assert_se(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
        assert_se(sqlite3_changes(db) == 2);
        assert_se(sqlite3_close(db) == SQLITE_OK);
        return dir;
}

static void colord_fixture_remove(char *dir) {
        for (size_t i = 0; i < ELEMENTSOF(colord_files); i++) {
                _cleanup_free_ char *f = pf_asprintf("%s/%s", dir, colord_files[i]);
                (void) unlink(f);
        }
        assert_se(rmdir(dir) == 0);
        free(dir);
}

static void test_colord_import(void) {
        const char *data = getenv("TINCT_TEST_DATA_DIR");
        assert_se(data);
        _cleanup_free_ char *fixture_dir = pf_asprintf("%s/colord-db", data);
        const uid_t user_uid = fixture_user_uid();
        char *colord_dir = colord_fixture_for(fixture_dir, user_uid);
        _cleanup_free_ char *srgb_f = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *bluish_f = harness_corpus_file("colord-data--Bluish.icc");
        /* the ids the fixtures name (tests/data/colord-db/fixtures.sql) */
        const char *srgb_id = "icc-6209e0eee05d1da9df7b4e3c2da33f62";
        const char *adobe_id = "icc-a07f28226c40f0319868fa0890ccc8e4";
        const char *bluish_id = "icc-a7c3b105758efd9fa9c99123d23237db";
        _cleanup_free_ char *sid = pf_embedded_id("colord-data--sRGB.icc");
        assert_streq(sid, srgb_id);

        int saved = daemon_log_begin(&dlog);
        Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow",
                .profiles = (const char *const[]) { srgb_f, adobe_f, bluish_f, NULL },
                .extra_args = (const char *const[]) { "--import-colord", colord_dir, NULL },
        });
        _cleanup_free_ char *log = daemon_log_end(&dlog, saved);
        assert_log_contains(log, "Imported colord's databases");
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *srgb = profile_by_id(bus, srgb_id), *adobe = profile_by_id(bus, adobe_id),
                            *bluish = profile_by_id(bus, bluish_id);

        _cleanup_free_ char *disp = device_by_id(bus, "xrandr-Fixture-Display");
        assert_dev_string(bus, disp, "Scope", "disk");
        assert_dev_string(bus, disp, "Vendor", "Fixture Vendor");
        assert_dev_string(bus, disp, "Model", "Fixture Model 27");
        assert_dev_string(bus, disp, "Serial", "SN-0001");
        assert_se(!harness_get_bool(bus, disp, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_strv_free_ char **dl = device_profiles(bus, disp);
        assert_strv(dl, srgb, adobe); /* sRGB made default last; Bluish was removed (marker) */
        assert_relation(bus, disp, srgb, "hard");
        assert_relation(bus, disp, adobe, "hard");

        _cleanup_free_ char *prn = device_by_id(bus, "cups-Fixture-Printer");
        assert_dev_string(bus, prn, "Kind", "printer");
        assert_dev_string(bus, prn, "Model", "Fixture");  /* "Printer" suffix cut for printers */
        assert_se(harness_get_bool(bus, prn, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_strv_free_ char **pl = device_profiles(bus, prn);
        assert_strv(pl, adobe);

        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_length(devs) == 2);
        assert_find_error(bus, "FindDeviceById", "xrandr-Fixture-Gone", CM_ERR "NotFound");
        /* the scanner was not a disk device; its Enabled=False applies when it shows up */
        _cleanup_free_ char *scn = harness_must_create_device(bus, "sane-Fixture-Scanner", "normal", "scanner", NO_KV);
        assert_se(!harness_get_bool(bus, scn, CM_DEVICE_IFACE, "Enabled"));

        /* per-user titles */
        _cleanup_free_ char *t = harness_get_string(bus, srgb, CM_PROFILE_IFACE, "Title");
        assert_streq(t, "sRGB for root");
        assert_title_as(h, user_uid, srgb_id, NULL, "sRGB für colord");
        assert_title_as(h, user_uid, adobe_id, NULL, "Adobe (colord)");
        _cleanup_free_ char *bt = harness_get_string(bus, bluish, CM_PROFILE_IFACE, "Title");
        assert_se(!isempty(bt));

        /* change what was imported, restart with the same --import-colord: not imported
         * again, so the deleted device stays deleted and the changed mapping stays */
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", prn);
        remove_profile(bus, disp, adobe);
        sd_bus_flush_close_unref(bus);
        _cleanup_free_ char *log2 = restart_logged(h);
        if (strstr(log2, "Imported colord's databases")) {
                fprintf(stderr, "the second start imported colord's databases again\n");
                abort();
        }
        bus = harness_connect(h);
        assert_find_error(bus, "FindDeviceById", "cups-Fixture-Printer", CM_ERR "NotFound");
        _cleanup_strv_free_ char **dl2 = device_profiles(bus, disp);
        assert_strv(dl2, srgb);
        _cleanup_free_ char *t2 = harness_get_string(bus, srgb, CM_PROFILE_IFACE, "Title");
        assert_streq(t2, "sRGB for root");
        sd_bus_flush_close_unref(bus);
        finish(h);
        colord_fixture_remove(colord_dir);
}

int main(void) {
        if (getenv("TINCT_TEST_DAEMON") && streq(getenv("TINCT_TEST_DAEMON"), "colord")) {
                /* colord stores no Kind, has no cache, backups or import (colord §7, §16.7) */
                fprintf(stderr, "skipped on colord: tinct's persistence\n");
                return 77;
        }
        RUN(test_disk_devices);
        RUN(test_marker_and_soft);
        RUN(test_both_orders);
        RUN(test_warm_start_cache);
        RUN(test_lazy_warnings);
        RUN(test_disk_profiles);
        RUN(test_colord_import);
        RUN(test_corruption);
        if (deferred_failures > 0) {
                fprintf(stderr, "%u deferred failure(s), see FAIL above\n", deferred_failures);
                return 1;
        }
        return 0;
}
