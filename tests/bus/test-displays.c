/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of display discovery (src/daemon/sources/displays/display.c): a fake sysfs tree (--sysfs-root)
 * built from corpus EDIDs, changed the way the kernel changes it (status and edid
 * attributes), and the daemon's answers awaited as DeviceAdded/DeviceRemoved signals, never
 * slept for. Covered: a laptop panel found at start-up, plug/unplug/replug, two identical
 * monitors (distinct ids, the plain id as an alias), HDR metadata, an EDID whose colorimetry
 * is refused, the generated profile read back (primaries within 0.001 of the EDID), and the
 * GNOME/KDE session sequence of colord §9.5 run as uid 65534: the session's device and the
 * daemon's coexist, and the user's hard choice wins. A plug after start-up makes the loop wait
 * for no parse (the daemon's "The loop waits for the parser" lines, --verbose).
 *
 * The harness always passes --no-udev (discovery off), which is right for every other
 * test; this one runs the daemon through a two-line wrapper that drops that argument.
 * Deliberately not here: the real sd-device monitor (needs real hardware). */

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bus-test.h"
#include "md5.h"

#define DELL "colord-tests--DELL-U2713H.bin"
#define DELL_ID "xrandr-Dell-DELL U2713H-C6F0K34T1CWL"
#define T61 "colord-tests--Lenovo-T61-Internal.bin"
#define T61_ID "xrandr-IBM"
#define HDR "ACR06CF-A5F33CEC3D2A.bin" /* Acer VG270U P: PQ, 400 cd/m² */
#define HDR_ID "xrandr-Acer-VG270U P-51486972"
#define JUNK "DELA0A2-D39FD4570E9A.bin"  /* Dell U2414H with all-zero chromaticity */

static char *root;      /* the fake filesystem root */
static char *drm_dir;

static uint8_t *read_all(const char *path, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        assert_se(fd >= 0 && fstat(fd, &st) == 0);
        uint8_t *buf = malloc((size_t) st.st_size + 1);
        assert_se(buf);
        assert_se(read(fd, buf, (size_t) st.st_size) == st.st_size);
        *ret_size = (size_t) st.st_size;
        return buf;
}

static char *corpus_edid(const char *name) {
        const char *dir = getenv("TINCT_CORPUS_DIR");
        assert_se(dir);
        return xasprintf("%s/edid/%s", dir, name);
}

/* Written under a temporary name and renamed, so the daemon never reads half a file. */
static void write_atomic(const char *path, const void *data, size_t size) {
        _cleanup_free_ char *tmp = xasprintf("%s.tmp", path);
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        assert_se(fd >= 0);
        assert_se(size == 0 || write(fd, data, size) == (ssize_t) size);
        assert_se(fchmod(fd, 0666) == 0);
        assert_se(rename(tmp, path) == 0);
}

static void make_connector(const char *name) {
        _cleanup_free_ char *dir = xasprintf("%s/%s", drm_dir, name);
        _cleanup_free_ char *status = xasprintf("%s/status", dir), *edid = xasprintf("%s/edid", dir);
        assert_se(mkdir(dir, 0777) == 0 && chmod(dir, 0777) == 0);
        write_atomic(edid, "", 0);
        write_atomic(status, "disconnected\n", 13);
}

/* Plugs the corpus EDID into the connector (NULL: unplugs): edid first, then status, in the
 * order the kernel updates them. */
static void plug(const char *connector, const char *edid_name) {
        _cleanup_free_ char *status = xasprintf("%s/%s/status", drm_dir, connector);
        _cleanup_free_ char *edid = xasprintf("%s/%s/edid", drm_dir, connector);
        if (edid_name) {
                _cleanup_free_ char *src = corpus_edid(edid_name);
                size_t n;
                _cleanup_free_ uint8_t *data = read_all(src, &n);
                write_atomic(edid, data, n);
                write_atomic(status, "connected\n", 10);
        } else {
                write_atomic(status, "disconnected\n", 13);
                write_atomic(edid, "", 0);
        }
}

static void build_tree(void) {
        char tmpl[] = "/tmp/tinct-displays-XXXXXX";
        assert_se(mkdtemp(tmpl));
        root = strdup(tmpl);
        assert_se(chmod(root, 0755) == 0);
        const char *const dirs[] = { "sys", "sys/class", "sys/class/drm", "sys/class/drm/card0", NULL };
        for (const char *const *d = dirs; *d; d++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", root, *d);
                assert_se(mkdir(p, 0755) == 0);
        }
        drm_dir = xasprintf("%s/sys/class/drm", root);
        assert_se(chmod(drm_dir, 0777) == 0);
        /* A small pnp.ids in hwdata's format: GNOME's ids use these names. The daemon reads the
         * table $TINCT_PNP_IDS names (src/edid-icc), which it inherits from here. */
        _cleanup_free_ char *pnp = xasprintf("%s/pnp.ids", root);
        static const char ids[] = "ACR\tAcer Technologies\nDEL\tDell Inc.\nIBM\tIBM France\n";
        write_atomic(pnp, ids, sizeof ids - 1);
        assert_se(setenv("TINCT_PNP_IDS", pnp, 1) == 0);
        /* Not connectors, must be ignored. */
        _cleanup_free_ char *version = xasprintf("%s/version", drm_dir);
        write_atomic(version, "drm 1.1.0 20060810\n", 19);
        make_connector("card0-DP-1");
        make_connector("card0-DP-2");
        make_connector("card0-HDMI-A-1");
        make_connector("card0-LVDS-1");
        plug("card0-LVDS-1", T61); /* the laptop panel is there from the start */
}

static void remove_tree(void) {
        char *argv[] = { (char *) "rm", (char *) "-rf", root, NULL };
        pid_t pid = fork();
        assert_se(pid >= 0);
        if (pid == 0) {
                execvp(argv[0], argv);
                _exit(127);
        }
        int status;
        assert_se(waitpid(pid, &status, 0) == pid);
}

/* The object path of a device owned by uid 0 (colord §1.1 escaping). */
static char *device_path(const char *id) {
        char *p = xasprintf(CM_PATH "/devices/%s", id);
        for (char *s = p + strlen(CM_PATH "/devices/"); *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
                        *s = '_';
        return p;
}

static char *file_md5(const char *path) {
        size_t n;
        _cleanup_free_ uint8_t *data = read_all(path, &n);
        char hex[33];
        md5_hex(data, n, hex);
        return strdup(hex);
}

static char *corpus_md5(const char *name) {
        _cleanup_free_ char *p = corpus_edid(name);
        return file_md5(p);
}

/* ---- the generated profile, read back without lcms2 ----------------------------------- */

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static double s15f16(const uint8_t *p) {
        return (double) (int32_t) be32(p) / 65536.0;
}

static const uint8_t *icc_tag(const uint8_t *icc, size_t size, const char sig[4], size_t min) {
        assert_se(size >= 132);
        uint32_t n = be32(icc + 128);
        assert_se(n < 1000 && 132 + 12 * (size_t) n <= size);
        for (uint32_t i = 0; i < n; i++) {
                const uint8_t *e = icc + 132 + 12 * i;
                if (memcmp(e, sig, 4) != 0)
                        continue;
                uint32_t off = be32(e + 4), len = be32(e + 8);
                assert_se(len >= min && off <= size && len <= size - off);
                return icc + off;
        }
        fprintf(stderr, "tag %.4s missing\n", sig);
        abort();
}

static bool mat3_inverse(const double m[3][3], double r[3][3]) {
        double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        if (fabs(det) < 1e-12)
                return false;
        for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                        int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
                        r[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
                }
        return true;
}

/* xy of an XYZType tag after undoing the adaptation to D50 through 'chad' (ICC.1 Annex G),
 * as src/icc/test-icc-create.c does with lcms2. */
static void tag_xy(const uint8_t *icc, size_t size, const char sig[4], const double inv[3][3], double xy[2]) {
        const uint8_t *t = icc_tag(icc, size, sig, 20);
        assert_se(memcmp(t, "XYZ ", 4) == 0);
        double c[3] = { s15f16(t + 8), s15f16(t + 12), s15f16(t + 16) }, v[3];
        for (int i = 0; i < 3; i++)
                v[i] = inv[i][0] * c[0] + inv[i][1] * c[1] + inv[i][2] * c[2];
        double s = v[0] + v[1] + v[2];
        xy[0] = v[0] / s;
        xy[1] = v[1] / s;
}

/* E-EDID 1.4 §3.7: 10-bit chromaticity, low bits in bytes 25-26, high bits in 27-34. */
static void edid_xy(const uint8_t *e, int which, double xy[2]) {
        static const struct { int lo, shift_x, hi; } t[] = {
                { 25, 6, 27 }, { 25, 2, 29 }, { 26, 6, 31 }, { 26, 2, 33 }, /* R G B W */
        };
        unsigned lo = e[t[which].lo];
        xy[0] = (double) ((unsigned) e[t[which].hi] << 2 | ((lo >> t[which].shift_x) & 3)) / 1024.0;
        xy[1] = (double) ((unsigned) e[t[which].hi + 1] << 2 | ((lo >> (t[which].shift_x - 2)) & 3)) / 1024.0;
}

static void check_profile_primaries(const char *icc_path, const char *edid_name) {
        size_t size, esize;
        _cleanup_free_ uint8_t *icc = read_all(icc_path, &size);
        _cleanup_free_ char *ep = corpus_edid(edid_name);
        _cleanup_free_ uint8_t *edid = read_all(ep, &esize);
        assert_se(size >= 132 && be32(icc) == size && memcmp(icc + 36, "acsp", 4) == 0);
        assert_se(icc[8] == 4 && memcmp(icc + 12, "mntr", 4) == 0 && memcmp(icc + 16, "RGB ", 4) == 0);

        const uint8_t *chad = icc_tag(icc, size, "chad", 44);
        assert_se(memcmp(chad, "sf32", 4) == 0);
        double m[3][3], inv[3][3];
        for (int i = 0; i < 9; i++)
                m[i / 3][i % 3] = s15f16(chad + 8 + 4 * i);
        assert_se(mat3_inverse(m, inv));

        static const char *const sigs[] = { "rXYZ", "gXYZ", "bXYZ", "wtpt" };
        for (int k = 0; k < 4; k++) {
                double got[2], want[2];
                tag_xy(icc, size, sigs[k], inv, got);
                edid_xy(edid, k, want);
                if (fabs(got[0] - want[0]) >= 0.001 || fabs(got[1] - want[1]) >= 0.001) {
                        fprintf(stderr, "%s %s: profile %.4f,%.4f EDID %.4f,%.4f\n", icc_path, sigs[k], got[0],
                                got[1], want[0], want[1]);
                        abort();
                }
        }
}

/* ---- helpers over the bus ---------------------------------------------------------------- */

static void wait_path_signal(Recorder *rec, const char *member, const char *path) {
        for (size_t i = 0;; i++) {
                i = recorder_wait_after(rec, i, member, CM_PATH);
                if (streq_ptr(recorder_get(rec, i)->arg0, path))
                        return;
        }
}

static bool saw_path_signal(Recorder *rec, const char *member, const char *path) {
        for (size_t i = 0; (i = recorder_find(rec, i, member, CM_PATH, NULL)) != (size_t) -1; i++)
                if (streq_ptr(recorder_get(rec, i)->arg0, path))
                        return true;
        return false;
}

static char *meta(sd_bus *bus, const char *path, const char *iface, const char *key) {
        _cleanup_strv_free_ char **d = harness_get_dict(bus, path, iface, "Metadata");
        const char *v = harness_dict_get(d, key);
        return v ? strdup(v) : NULL;
}

#define assert_meta(bus, path, iface, key, want)                                         \
        do {                                                                             \
                _cleanup_free_ char *_v = meta((bus), (path), (iface), (key));           \
                assert_streq(_v, (want));                                                \
        } while (0)

#define assert_prop(bus, path, prop, want)                                               \
        do {                                                                             \
                _cleanup_free_ char *_v = harness_get_string((bus), (path), CM_DEVICE_IFACE, (prop)); \
                assert_streq(_v, (want));                                                \
        } while (0)

/* The device's one profile is the generated EDID profile for this EDID; returns its path. */
static char *check_edid_profile(Harness *h, sd_bus *bus, const char *dev, const char *id, const char *edid_name) {
        _cleanup_strv_free_ char **l = device_profiles(bus, dev);
        assert_se(l && l[0] && !l[1]);
        char *prof = strdup(l[0]);
        _cleanup_free_ char *md5 = corpus_md5(edid_name);
        _cleanup_free_ char *want_file = xasprintf("%s/edid/edid-%s.icc", harness_state_dir(h), md5);
        _cleanup_free_ char *file = harness_get_string(bus, prof, CM_PROFILE_IFACE, "Filename");
        assert_streq(file, want_file);
        _cleanup_free_ char *pid = harness_get_string(bus, prof, CM_PROFILE_IFACE, "ProfileId");
        assert_se(strncmp(pid, "icc-", 4) == 0 && strlen(pid) == 36);
        assert_meta(bus, prof, CM_PROFILE_IFACE, "DATA_source", "edid");
        assert_meta(bus, prof, CM_PROFILE_IFACE, "EDID_md5", md5);
        assert_meta(bus, prof, CM_PROFILE_IFACE, "MAPPING_device_id", id);
        _cleanup_free_ char *rel = relation_of(bus, dev, prof);
        assert_streq(rel, "soft");
        _cleanup_free_ char *kind = harness_get_string(bus, prof, CM_PROFILE_IFACE, "Kind");
        assert_streq(kind, "display-device");
        check_profile_primaries(file, edid_name);
        return prof;
}

static void check_display(sd_bus *bus, const char *dev, const char *id, const char *xrandr, const char *edid_name,
                          bool embedded) {
        _cleanup_free_ char *md5 = corpus_md5(edid_name);
        _cleanup_free_ char *sysfs = xasprintf("card0-%s", xrandr);
        assert_prop(bus, dev, "DeviceId", id);
        assert_prop(bus, dev, "Kind", "display");
        assert_prop(bus, dev, "Mode", "physical");
        assert_prop(bus, dev, "Scope", "normal");
        assert_prop(bus, dev, "Colorspace", "rgb");
        assert_se(harness_get_u32(bus, dev, CM_DEVICE_IFACE, "Owner") == 0);
        assert_se(harness_get_bool(bus, dev, CM_DEVICE_IFACE, "Embedded") == embedded);
        assert_meta(bus, dev, CM_DEVICE_IFACE, "XRANDR_name", xrandr);
        assert_meta(bus, dev, CM_DEVICE_IFACE, "OutputEdidMd5", md5);
        assert_meta(bus, dev, CM_DEVICE_IFACE, "TINCT_connector", sysfs);
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_laptop_panel_at_start(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *dev = device_path(T61_ID);
        assert_find_ok(bus, "FindDeviceById", T61_ID, dev);
        check_display(bus, dev, T61_ID, "LVDS-1", T61, true);
        assert_prop(bus, dev, "Vendor", "IBM");
        assert_prop(bus, dev, "Model", "");
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *by_name = find_by2(bus, "FindDeviceByProperty", "XRANDR_name", "LVDS-1", &error);
        assert_streq(by_name, dev);
        _cleanup_free_ char *prof = check_edid_profile(h, bus, dev, T61_ID, T61);
        _cleanup_strv_free_ char **all = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", "display");
        assert_se(strv_contains(all, dev));
        check_getall(h, bus, dev, CM_DEVICE_IFACE, device_props, NULL);
}

/* "The loop waits for the parser" (src/sandbox/parser.c, one line per parse the loop waits
 * for): after start-up a hotplug's EDID and generated profile are parsed ahead, asynchronously
 * (docs/sandbox.md). */
#define LOOP_WAITS "The loop waits for the parser"

static void test_plug_unplug_replug(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *dev = device_path(DELL_ID);
        int waits = harness_daemon_log_count(h, LOOP_WAITS);

        plug("card0-DP-1", DELL);
        wait_path_signal(rec, "DeviceAdded", dev);
        printf("parses the loop waited for while a monitor was plugged: %d\n",
               harness_daemon_log_count(h, LOOP_WAITS) - waits);
        assert_se(harness_daemon_log_count(h, LOOP_WAITS) == waits);
        check_display(bus, dev, DELL_ID, "DP-1", DELL, false);
        assert_prop(bus, dev, "Vendor", "Dell");
        assert_prop(bus, dev, "Model", "DELL U2713H");
        assert_prop(bus, dev, "Serial", "C6F0K34T1CWL");
        _cleanup_free_ char *prof = check_edid_profile(h, bus, dev, DELL_ID, DELL);
        /* The profile was announced before the device that lists it. */
        assert_se(saw_path_signal(rec, "ProfileAdded", prof));
        assert_se(recorder_find(rec, 0, "ProfileAdded", CM_PATH, NULL) < recorder_find(rec, 0, "DeviceAdded", CM_PATH, NULL));

        recorder_reset(rec);
        plug("card0-DP-1", NULL);
        wait_path_signal(rec, "DeviceRemoved", dev);
        wait_path_signal(rec, "ProfileRemoved", prof);
        assert_find_error(bus, "FindDeviceById", DELL_ID, CM_ERR "NotFound");
        assert_se(object_gone(bus, dev, CM_DEVICE_IFACE));
        /* The laptop panel is untouched. */
        assert_se(!saw_path_signal(rec, "DeviceRemoved", CM_PATH "/devices/xrandr_IBM"));

        recorder_reset(rec);
        plug("card0-DP-1", DELL);
        wait_path_signal(rec, "DeviceAdded", dev);
        /* The stored file is reused: same bytes, same profile id and path. */
        _cleanup_free_ char *again = check_edid_profile(h, bus, dev, DELL_ID, DELL);
        assert_streq(again, prof);
}

static void test_identical_monitors(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *plain = device_path(DELL_ID);
        _cleanup_free_ char *dp1 = device_path(DELL_ID "-DP-1"), *dp2 = device_path(DELL_ID "-DP-2");

        /* DP-1 still has the Dell from the previous test; a twin arrives on DP-2. */
        assert_find_ok(bus, "FindDeviceById", DELL_ID, plain);
        plug("card0-DP-2", DELL);
        wait_path_signal(rec, "DeviceRemoved", plain);
        wait_path_signal(rec, "DeviceAdded", dp1);
        wait_path_signal(rec, "DeviceAdded", dp2);
        check_display(bus, dp1, DELL_ID "-DP-1", "DP-1", DELL, false);
        check_display(bus, dp2, DELL_ID "-DP-2", "DP-2", DELL, false);
        /* The plain id is an alias of the first; each full id finds its own. */
        assert_find_ok(bus, "FindDeviceById", DELL_ID, dp1);
        assert_find_ok(bus, "FindDeviceById", DELL_ID "-DP-2", dp2);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *by_name = find_by2(bus, "FindDeviceByProperty", "XRANDR_name", "DP-2", &error);
        assert_streq(by_name, dp2);
        /* One EDID, one profile object, listed by both. */
        _cleanup_free_ char *p1 = check_edid_profile(h, bus, dp1, DELL_ID, DELL);
        _cleanup_free_ char *p2 = check_edid_profile(h, bus, dp2, DELL_ID, DELL);
        assert_streq(p1, p2);

        /* The twin leaves: the survivor gets the plain id back. */
        recorder_reset(rec);
        plug("card0-DP-2", NULL);
        wait_path_signal(rec, "DeviceRemoved", dp2);
        wait_path_signal(rec, "DeviceRemoved", dp1);
        wait_path_signal(rec, "DeviceAdded", plain);
        assert_se(!saw_path_signal(rec, "ProfileRemoved", p1));
        assert_find_ok(bus, "FindDeviceById", DELL_ID, plain);
        assert_find_error(bus, "FindDeviceById", DELL_ID "-DP-2", CM_ERR "NotFound");
}

static void check_number(sd_bus *bus, const char *dev, const char *key, double want, double tolerance) {
        _cleanup_free_ char *v = meta(bus, dev, CM_DEVICE_IFACE, key);
        assert_se(v);
        if (fabs(strtod(v, NULL) - want) > tolerance) {
                fprintf(stderr, "%s = %s, want %g\n", key, v, want);
                abort();
        }
}

static void test_hdr_and_refused(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *dev = device_path(HDR_ID);

        plug("card0-HDMI-A-1", HDR);
        wait_path_signal(rec, "DeviceAdded", dev);
        check_display(bus, dev, HDR_ID, "HDMI-A-1", HDR, false);
        assert_prop(bus, dev, "Vendor", "Acer");
        assert_prop(bus, dev, "Serial", "51486972");
        /* Values of the reference (edid-decode) in shared/corpus/edid/ACR06CF-*.ref.json. */
        assert_meta(bus, dev, CM_DEVICE_IFACE, "TINCT_hdr_eotfs", "sdr,pq");
        check_number(bus, dev, "TINCT_max_luminance", 400.0, 0.01);
        check_number(bus, dev, "TINCT_max_frame_avg_luminance", 400.0, 0.01);
        check_number(bus, dev, "TINCT_min_luminance", 0.293, 0.001);
        assert_meta(bus, dev, CM_DEVICE_IFACE, "TINCT_colorimetry", "bt2020ycc,bt2020rgb");
        _cleanup_free_ char *prof = check_edid_profile(h, bus, dev, HDR_ID, HDR);
        /* A display without HDR metadata has none of these keys. */
        _cleanup_free_ char *t61 = device_path(T61_ID);
        _cleanup_free_ char *none = meta(bus, t61, CM_DEVICE_IFACE, "TINCT_hdr_eotfs");
        assert_se(!none);

        /* Zero chromaticity: a device, but no generated profile. */
        recorder_reset(rec);
        plug("card0-HDMI-A-1", NULL);
        plug("card0-DP-2", JUNK);
        wait_path_signal(rec, "DeviceRemoved", dev);
        size_t i = recorder_wait(rec, "DeviceAdded", CM_PATH);
        const char *added = recorder_get(rec, i)->arg0;
        _cleanup_free_ char *id = harness_get_string(bus, added, CM_DEVICE_IFACE, "DeviceId");
        assert_se(strncmp(id, "xrandr-Dell-DELL U2414H", 23) == 0);
        _cleanup_strv_free_ char **l = device_profiles(bus, added);
        assert_strv_empty(l);
        assert_meta(bus, added, CM_DEVICE_IFACE, "XRANDR_name", "DP-2");
        _cleanup_free_ char *added_copy = strdup(added);
        recorder_reset(rec);
        plug("card0-DP-2", NULL);
        wait_path_signal(rec, "DeviceRemoved", added_copy);
}

/* The EDID goes through the parser process too (docs/sandbox.md): one that crashes it costs
 * that display (the Dell that was on DP-1 goes), not the daemon and not the next display. */
static void test_edid_parser_crash(Harness *h, sd_bus *bus) {
#ifdef TINCT_PARSER_TEST_HOOKS
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *edid = xasprintf("%s/card0-DP-1/edid", drm_dir);
        _cleanup_free_ char *status = xasprintf("%s/card0-DP-1/status", drm_dir);
        _cleanup_free_ char *dev = device_path(HDR_ID);
        char crash[128] = "TINCT-TEST:crash";

        write_atomic(edid, crash, sizeof crash);
        write_atomic(status, "connected\n", 10);
        plug("card0-HDMI-A-1", HDR);
        wait_path_signal(rec, "DeviceAdded", dev);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *none = find_by2(bus, "FindDeviceByProperty", "XRANDR_name", "DP-1", &error);
        assert_bus_error(none ? 0 : -1, &error, CM_ERR "NotFound");
        harness_assert_alive(h);
        /* As the session test expects it: the Dell back on DP-1, nothing on HDMI-A-1. */
        recorder_reset(rec);
        _cleanup_free_ char *dell = device_path(DELL_ID);
        plug("card0-HDMI-A-1", NULL);
        wait_path_signal(rec, "DeviceRemoved", dev);
        plug("card0-DP-1", DELL);
        wait_path_signal(rec, "DeviceAdded", dell);
#else
        (void) h, (void) bus;
        fprintf(stderr, "built without parser_test_hooks: skipped\n");
#endif
}

/* ---- the session, as GNOME and colord-kde do it (colord §9.5), unprivileged ------------------ */

typedef struct Session {
        const char *daemon_dev;   /* the daemon's device for the Dell */
        const char *daemon_prof;  /* its generated EDID profile */
        const char *md5;
        int edid_fd, user_fd;     /* opened by the parent: uid 65534 may not read the corpus */
} Session;

static int session_sequence(sd_bus *bus, void *userdata) {
        Session *s = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        /* 1. CreateDevice of the output's id, temp scope, the session's properties. */
        const char *const props[] = {
                "Mode", "physical", "Colorspace", "rgb", "Vendor", "Dell", "Model", "DELL U2713H",
                "Serial", "C6F0K34T1CWL", "XRANDR_name", "DP-1", "OutputPriority", "primary",
                "OutputEdidMd5", s->md5, NULL,
        };
        _cleanup_free_ char *dev = harness_must_create_device(bus, DELL_ID, "temp", "display", props);
        assert_se(!streq(dev, s->daemon_dev));
        assert_se(strstr(dev, "_65534"));
        /* The session finds its own device by the id; the daemon's stays as it was. */
        assert_find_ok(bus, "FindDeviceById", DELL_ID, dev);
        _cleanup_strv_free_ char **before = device_profiles(bus, s->daemon_dev);
        assert_strv(before, s->daemon_prof);

        /* 2. The session's EDID profile (its own store, passed as an fd), attached soft. */
        const char *const edid_props[] = { "DATA_source", "edid", "EDID_md5", s->md5, NULL };
        _cleanup_free_ char *sess_edid = harness_create_profile_fd(bus, "icc-session-edid-65534", "temp", s->edid_fd,
                                                                   edid_props, &error, &r);
        assert_bus_ok(r, &error);
        must_add_profile(bus, dev, "soft", sess_edid);

        /* 3. The user's calibrated profile: AddProfile hard, MakeProfileDefault. */
        _cleanup_free_ char *user = harness_create_profile_fd(bus, "icc-user-choice-65534", "temp", s->user_fd, NO_KV,
                                                              &error, &r);
        assert_bus_ok(r, &error);
        must_add_profile(bus, dev, "hard", user);
        must_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", "o", user);

        /* The user's choice wins on the session's device. */
        _cleanup_strv_free_ char **l = device_profiles(bus, dev);
        assert_se(l && l[0]);
        assert_streq(l[0], user);
        assert_se(strv_contains(l, sess_edid));
        _cleanup_free_ char *rel = relation_of(bus, dev, user);
        assert_streq(rel, "hard");
        _cleanup_free_ char *q = profile_for_qualifiers(bus, dev, (const char *const[]) { "*", NULL }, &error);
        assert_streq(q, user);
        /* The daemon's live device is a separate object with the same id: the user's hard
         * choice is a mapping by id, so it shows there at once, before its EDID profile. */
        _cleanup_strv_free_ char **also = device_profiles(bus, s->daemon_dev);
        assert_strv(also, user, s->daemon_prof);

        /* Replug while the session runs: the daemon's new device takes the stored hard
         * mapping (same device id) first; its EDID profile stays behind it as the fallback. */
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        plug("card0-DP-1", NULL);
        wait_path_signal(rec, "DeviceRemoved", s->daemon_dev);
        plug("card0-DP-1", DELL);
        wait_path_signal(rec, "DeviceAdded", s->daemon_dev);
        _cleanup_strv_free_ char **after = device_profiles(bus, s->daemon_dev);
        assert_strv(after, user, s->daemon_prof);
        _cleanup_free_ char *rel2 = relation_of(bus, s->daemon_dev, user);
        assert_streq(rel2, "hard");
        /* The session's own device was not touched by the replug. */
        _cleanup_strv_free_ char **mine = device_profiles(bus, dev);
        assert_streq(mine[0], user);
        assert_find_ok(bus, "FindDeviceById", DELL_ID, dev);
        return 0;
}

static void test_session_sequence(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *dev = device_path(DELL_ID);
        _cleanup_free_ char *md5 = corpus_md5(DELL);
        _cleanup_strv_free_ char **l = device_profiles(bus, dev);
        assert_se(l && l[0]);
        _cleanup_free_ char *edid_icc = harness_corpus_file("colord-tests--ibm-t61.icc");
        _cleanup_free_ char *user_icc = harness_corpus_file("colord-data--Bluish.icc");
        Session s = {
                .daemon_dev = dev, .daemon_prof = l[0], .md5 = md5,
                .edid_fd = open(edid_icc, O_RDONLY | O_CLOEXEC), .user_fd = open(user_icc, O_RDONLY | O_CLOEXEC),
        };
        assert_se(s.edid_fd >= 0 && s.user_fd >= 0);
        assert_se(harness_run_as_nobody(h, session_sequence, &s) == 0);
        close(s.edid_fd);
        close(s.user_fd);

        /* The session left: its temp device and profiles go, the daemon's device stays. */
        for (size_t i = 0;; i++) {
                i = recorder_wait_after(rec, i, "DeviceRemoved", CM_PATH);
                const char *gone = recorder_get(rec, i)->arg0;
                if (gone && strstr(gone, "/xrandr_Dell_DELL_U2713H_C6F0K34T1CWL_") && strstr(gone, "65534"))
                        break;
        }
        assert_find_ok(bus, "FindDeviceById", DELL_ID, dev);
        /* With the user's temp profile gone, the display falls back to its EDID profile. */
        _cleanup_free_ char *prof = check_edid_profile(h, bus, dev, DELL_ID, DELL);
        assert_streq(prof, s.daemon_prof);
}

int main(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord")) {
                fprintf(stderr, "colord has no display discovery of its own; skipping\n");
                return 77;
        }
        const char *tinctd = getenv("TINCTD");
        if (!tinctd)
                return 77;
        build_tree();

        /* The harness always passes --no-udev; this wrapper drops it so discovery runs. */
        _cleanup_free_ char *wrapper = xasprintf("%s/tinctd-with-discovery", root);
        _cleanup_free_ char *script = xasprintf("#!/bin/sh\nfor a; do shift; [ \"$a\" = --no-udev ] || set -- \"$@\" \"$a\"; done\n"
                                                "exec '%s' \"$@\"\n", tinctd);
        write_atomic(wrapper, script, strlen(script));
        assert_se(chmod(wrapper, 0755) == 0);
        assert_se(setenv("TINCTD", wrapper, 1) == 0);

        const HarnessOptions opts = {
                .polkit = "allow",
                .extra_args = (const char *const[]) { "--sysfs-root", root, NULL },
                .daemon_log = true,
        };
        _cleanup_harness_ Harness *h = harness_start(&opts);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_laptop_panel_at_start, h, bus);
        RUN(test_plug_unplug_replug, h, bus);
        RUN(test_identical_monitors, h, bus);
        RUN(test_hdr_and_refused, h, bus);
        RUN(test_edid_parser_crash, h, bus);
        RUN(test_session_sequence, h, bus);

        harness_assert_alive(h);
        h = harness_stop(h);
        remove_tree();
        return 0;
}
