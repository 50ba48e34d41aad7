/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of the dummy sensor's virtual display (tinctd --dummy-sensor-display FILE,
 * docs/compatibility.md): readings through two corpus profiles — one with 'chad', one v2
 * without it and with 'lumi' — compared with values computed here from the profiles' own
 * tags (rXYZ, gXYZ, bXYZ, chad, wtpt, lumi, read with lcms2 in this process), the patch set
 * as "R,G,B", as ad and as colord's sample[...] keys, luminance, seeded noise that repeats,
 * bad values refused with Sensor.NoSupport and changing nothing, the Options property, and
 * a daemon that refuses to start on a non-RGB or missing file. tinct only. */

#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-test.h"

#define SENSOR CM_PATH "/sensors/dummy"

extern char **environ;

typedef struct Truth {
        double prim[3][3];  /* R, G, B: the display's own XYZ, white Y = 1 */
        double white[3];
        double luminance;   /* lumi Y, 0 if none */
} Truth;

static void read_xyz_tag(cmsHPROFILE p, cmsTagSignature sig, double ret[3]) {
        const cmsCIEXYZ *v = cmsReadTag(p, sig);
        assert_se(v);
        ret[0] = v->X;
        ret[1] = v->Y;
        ret[2] = v->Z;
}

/* The truth from the tags: the colorants, taken back from D50 by solving chad·v = colorant
 * (Cramer's rule, so no code is shared with the daemon's inverse), or with lcms2's own
 * Bradford adaptation to 'wtpt' when there is no 'chad'. */
static void solve3(const double m[9], const double b[3], double x[3]) {
        double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                     m[2] * (m[3] * m[7] - m[4] * m[6]);
        assert_se(fabs(det) > 1e-9);
        for (int c = 0; c < 3; c++) {
                double t[9];
                memcpy(t, m, sizeof t);
                for (int r = 0; r < 3; r++)
                        t[3 * r + c] = b[r];
                x[c] = (t[0] * (t[4] * t[8] - t[5] * t[7]) - t[1] * (t[3] * t[8] - t[5] * t[6]) +
                        t[2] * (t[3] * t[7] - t[4] * t[6])) / det;
        }
}

static Truth truth_of(const char *file) {
        Truth t = { 0 };
        cmsHPROFILE p = cmsOpenProfileFromFile(file, "r");
        assert_se(p);
        static const cmsTagSignature sigs[3] = { cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag };
        const double *chad = cmsReadTag(p, cmsSigChromaticAdaptationTag);
        for (int i = 0; i < 3; i++) {
                double pcs[3];
                read_xyz_tag(p, sigs[i], pcs);
                if (chad)
                        solve3(chad, pcs, t.prim[i]);
                else {
                        cmsCIEXYZ wp, in = { pcs[0], pcs[1], pcs[2] }, out;
                        double w[3];
                        read_xyz_tag(p, cmsSigMediaWhitePointTag, w);
                        wp = (cmsCIEXYZ) { w[0] / w[1], 1, w[2] / w[1] };
                        assert_se(cmsAdaptToIlluminant(&out, cmsD50_XYZ(), &wp, &in));
                        t.prim[i][0] = out.X, t.prim[i][1] = out.Y, t.prim[i][2] = out.Z;
                }
        }
        for (int c = 0; c < 3; c++)
                t.white[c] = t.prim[0][c] + t.prim[1][c] + t.prim[2][c];
        double wy = t.white[1];
        for (int c = 0; c < 3; c++) {
                t.white[c] /= wy;
                for (int i = 0; i < 3; i++)
                        t.prim[i][c] /= wy;
        }
        const cmsCIEXYZ *lumi = cmsReadTag(p, cmsSigLuminanceTag);
        t.luminance = lumi ? lumi->Y : 0;
        cmsCloseProfile(p);
        return t;
}

static int get_sample(sd_bus *bus, double xyz[3], sd_bus_error *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "GetSample", e, &reply, "s", "lcd");
        if (r < 0)
                return r;
        assert_se(sd_bus_message_read(reply, "ddd", &xyz[0], &xyz[1], &xyz[2]) >= 0);
        return 0;
}

static void must_sample(sd_bus *bus, double xyz[3]) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(get_sample(bus, xyz, &e), &e);
}

static void set_patch(sd_bus *bus, const char *rgb) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-patch", "s", rgb);
        assert_bus_ok(r, &e);
}

static void assert_xyz(const double got[3], const double want[3], double scale, double tol) {
        for (int c = 0; c < 3; c++)
                if (!(fabs(got[c] - want[c] * scale) <= tol)) {
                        fprintf(stderr, "got %.6f %.6f %.6f, want %.6f %.6f %.6f\n", got[0], got[1], got[2],
                                want[0] * scale, want[1] * scale, want[2] * scale);
                        abort();
                }
}

/* Options shows the virtual display; returns its luminance. */
static double options_luminance(sd_bus *bus, const char *file, double *ret_noise) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        double lum = -1, noise = -1;
        bool saw_display = false;
        int r = harness_call(bus, SENSOR, "org.freedesktop.DBus.Properties", "Get", &e, &reply, "ss",
                             CM_SENSOR_IFACE, "Options");
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_enter_container(reply, 'v', "a{sv}") > 0);
        assert_se(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                const char *key, *s;
                assert_se(sd_bus_message_read(reply, "s", &key) >= 0);
                if (streq(key, "simulate-display")) {
                        assert_se(sd_bus_message_read(reply, "v", "s", &s) >= 0);
                        assert_streq(s, file);
                        saw_display = true;
                } else if (streq(key, "simulate-luminance"))
                        assert_se(sd_bus_message_read(reply, "v", "d", &lum) >= 0);
                else if (streq(key, "simulate-noise"))
                        assert_se(sd_bus_message_read(reply, "v", "d", &noise) >= 0);
                else
                        assert_se(sd_bus_message_skip(reply, "v") >= 0);
                assert_se(sd_bus_message_exit_container(reply) >= 0);
        }
        assert_se(saw_display && lum > 0 && noise >= 0);
        if (ret_noise)
                *ret_noise = noise;
        return lum;
}

static void test_readings(Harness *h, const char *file, const Truth *t, double want_luminance) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        double xyz[3], lum;

        lum = options_luminance(bus, file, NULL);
        fprintf(stderr, "    luminance %.3f cd/m² (lumi %.3f)\n", lum, t->luminance);
        assert_se(fabs(lum - want_luminance) < 1e-9);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", NULL, NULL);

        /* white: the profile's own white, Y = the luminance; two State changes as always */
        set_patch(bus, "1,1,1");
        recorder_reset(rec);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "GetSample", &e, &reply, "s", "lcd");
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_read(reply, "ddd", &xyz[0], &xyz[1], &xyz[2]) >= 0);
        fprintf(stderr, "    white %.4f %.4f %.4f\n", xyz[0], xyz[1], xyz[2]);
        assert_xyz(xyz, t->white, lum, 2e-3 * lum);
        size_t s1 = recorder_find(rec, 0, "PropertiesChanged", SENSOR, "State");
        assert_se(s1 != (size_t) -1);
        assert_se(recorder_find(rec, s1 + 1, "PropertiesChanged", SENSOR, "State") != (size_t) -1);

        /* the primaries, as "R,G,B", as ad and as colord's sample[...] keys */
        static const char *const text[3] = { "1,0,0", "0,1,0", "0,0,1" };
        for (int i = 0; i < 3; i++) {
                set_patch(bus, text[i]);
                must_sample(bus, xyz);
                fprintf(stderr, "    %s %.4f %.4f %.4f\n", text[i], xyz[0], xyz[1], xyz[2]);
                assert_xyz(xyz, t->prim[i], lum, 1e-3 * lum);
        }
        double rgb[3] = { 0, 1, 0 };
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-patch", "ad", 3,
                         rgb[0], rgb[1], rgb[2]);
        assert_bus_ok(r, &e);
        must_sample(bus, xyz);
        assert_xyz(xyz, t->prim[1], lum, 1e-3 * lum);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 3, "sample[red]", "d", 0.0,
                         "sample[green]", "d", 0.0, "sample[blue]", "d", 1.0);
        assert_bus_ok(r, &e);
        must_sample(bus, xyz);
        assert_xyz(xyz, t->prim[2], lum, 1e-3 * lum);

        /* black is dark; a mid grey lies between; the luminance option scales */
        set_patch(bus, "0,0,0");
        must_sample(bus, xyz);
        assert_se(xyz[1] < 0.01 * lum);
        set_patch(bus, "0.5,0.5,0.5");
        double grey[3];
        must_sample(bus, grey);
        assert_se(grey[1] > 0.1 * lum && grey[1] < 0.5 * lum);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-luminance", "d", 2 * lum);
        assert_bus_ok(r, &e);
        must_sample(bus, xyz);
        assert_xyz(xyz, grey, 2, 1e-9 * lum);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-luminance", "d", lum);
        assert_bus_ok(r, &e);

        /* ambient is the dummy's as ever */
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *amb = NULL;
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "GetSample", &e, &amb, "s", "ambient");
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_read(amb, "ddd", &xyz[0], &xyz[1], &xyz[2]) >= 0);
        assert_se(fabs(xyz[0] - 7.7) < 1e-9 && xyz[1] == -1 && xyz[2] == -1);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
}

static void expect_refused(sd_bus *bus, const char *what, int r, sd_bus_error *e) {
        fprintf(stderr, "    %s: %s\n", what, e->message ?: "(no error)");
        assert_bus_error(r, e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(e);
}

static void test_bad_values(Harness *h, const char *file) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        double before[3], after[3];
        int r;

        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        set_patch(bus, "0.25,0.5,0.75");
        must_sample(bus, before);
        double lum = options_luminance(bus, file, NULL);
        recorder_reset(rec);

        static const char *const bad_patch[] = { "1,1", "1,1,1,1", "0.5,x,0.5", "1,1,1.5", "-0.1,0,0", "nan,0,0", "", NULL };
        for (size_t i = 0; bad_patch[i]; i++) {
                r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-patch", "s",
                                  bad_patch[i]);
                expect_refused(bus, bad_patch[i], r, &e);
        }
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-patch", "ad", 2, 1.0, 1.0);
        expect_refused(bus, "ad of 2", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-patch", "u", 1);
        expect_refused(bus, "patch as u", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "sample[red]", "d", 1.5);
        expect_refused(bus, "sample[red] 1.5", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-luminance", "d", 0.0);
        expect_refused(bus, "luminance 0", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-luminance", "d", 1e6);
        expect_refused(bus, "luminance 1e6", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-luminance", "s", "100");
        expect_refused(bus, "luminance as s", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-noise", "d", 0.5);
        expect_refused(bus, "noise 0.5", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-seed", "d", 1.5);
        expect_refused(bus, "seed 1.5", r, &e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-bogus", "d", 1.0);
        expect_refused(bus, "simulate-bogus", r, &e);
        /* good entries before a bad one are not applied either */
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 4, "simulate-patch", "s", "1,1,1",
                          "simulate-luminance", "d", 500.0, "simulate-noise", "d", 0.05, "simulate-noise", "d", -1.0);
        expect_refused(bus, "good then bad", r, &e);

        assert_se(recorder_find(rec, 0, "PropertiesChanged", SENSOR, "Options") == (size_t) -1);
        double noise;
        assert_se(options_luminance(bus, file, &noise) == lum && noise == 0);
        must_sample(bus, after);
        assert_xyz(after, before, 1, 0);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
}

static void noisy_run(sd_bus *bus, double seed, double out[3][3]) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 2, "simulate-noise", "d", 0.01,
                             "simulate-seed", "d", seed);
        assert_bus_ok(r, &e);
        for (int i = 0; i < 3; i++)
                must_sample(bus, out[i]);
}

static void test_noise(Harness *h, const char *file) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        double clean[3], a[3][3], b[3][3], c[3][3];

        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        set_patch(bus, "0.8,0.6,0.4");
        must_sample(bus, clean);
        recorder_reset(rec);
        int r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-noise", "d", 0.01);
        assert_bus_ok(r, &e);
        assert_se(recorder_find(rec, 0, "PropertiesChanged", SENSOR, "Options") != (size_t) -1);
        noisy_run(bus, 42, a);
        noisy_run(bus, 42, b);
        noisy_run(bus, 7, c);
        for (int i = 0; i < 3; i++) {
                fprintf(stderr, "    seed 42: %.5f %.5f %.5f  seed 7: %.5f %.5f %.5f\n", a[i][0], a[i][1], a[i][2],
                        c[i][0], c[i][1], c[i][2]);
                assert_xyz(a[i], b[i], 1, 0);              /* the same seed repeats exactly */
                assert_xyz(a[i], clean, 1, 0.1 * clean[1]); /* ten standard deviations */
                assert_se(memcmp(a[i], clean, sizeof clean) != 0);
                assert_se(memcmp(a[i], c[i], sizeof clean) != 0);
        }
        assert_se(memcmp(a[0], a[1], sizeof clean) != 0);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-noise", "d", 0.0);
        assert_bus_ok(r, &e);
        double again[3];
        must_sample(bus, again);
        assert_xyz(again, clean, 1, 0);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
        (void) file;
}

/* A file root names that is no RGB profile, or none at all: tinctd does not start. */
static void test_refused_at_start(Harness *h, const char *file) {
        _cleanup_free_ char *state = xasprintf("%s/refused-state", harness_tmp_dir(h));
        const char *daemon = getenv("TINCTD");
        assert_se(daemon && (mkdir(state, 0700) == 0 || errno == EEXIST));
        char *argv[] = { (char *) daemon, (char *) "--state-dir", state, (char *) "--profile-dir", state,
                         (char *) "--no-udev", (char *) "--dummy-sensor-display", (char *) file, NULL };
        pid_t pid;
        int status;
        assert_se(posix_spawn(&pid, daemon, NULL, NULL, argv, environ) == 0);
        assert_se(waitpid(pid, &status, 0) == pid);
        fprintf(stderr, "    %s: exit status %d\n", file, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) != 0);
}

static void run_profile(const char *name, bool with_refusals) {
        _cleanup_free_ char *file = harness_corpus_file(name);
        Truth t = truth_of(file);
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .extra_args = (const char *const[]) { "--dummy-sensor-display", file, NULL } });
        fprintf(stderr, "== %s\n", name);
        RUN(test_readings, h, file, &t, t.luminance > 0 ? t.luminance : 120.0);
        if (with_refusals) {
                RUN(test_bad_values, h, file);
                RUN(test_noise, h, file);
                _cleanup_free_ char *lab = harness_corpus_file("argyll-ref--lab2lab.icm");
                RUN(test_refused_at_start, h, lab);
                _cleanup_free_ char *missing = xasprintf("%s/no-such.icc", harness_tmp_dir(h));
                RUN(test_refused_at_start, h, missing);
        }
        harness_assert_alive(h);
}

int main(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord"))
                return 77; /* tinct's own option */
        run_profile("krita-data--sRGB-elle-V2-srgbtrc.icc", true); /* v2 with chad, no lumi */
        run_profile("argyll-ref--sRGB.icm", false);                /* v2, white in wtpt, lumi */
        return 0;
}
