/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of the dummy sensor (--create-dummy-sensor, colord §6): properties and types,
 * Lock/Unlock and their errors, GetSample (two State changes and ButtonPressed before
 * the reply, the sRGB->XYZ value), ambient, SetOptions, GetSpectrum, the lock being
 * released when its holder leaves, and Sensor.FailedToAuthenticate for an unprivileged
 * caller. GetSample takes the dummy's two seconds each; that is the driver, not a wait. */

#include <math.h>

#include "bus-test.h"

#define SENSOR CM_PATH "/sensors/dummy"

static void test_properties(Harness *h, sd_bus *bus) {
        _cleanup_strv_free_ char **s = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetSensors", NULL);
        assert_strv(s, SENSOR);
        assert_find_ok(bus, "FindSensorById", "dummy", SENSOR);
        assert_find_error(bus, "FindSensorById", "dummy-00", CM_ERR "NotFound");

        check_getall(h, bus, SENSOR, CM_SENSOR_IFACE, sensor_props, "Metadata"); /* colord: a{sv}, colord §16.9 */
        static const char *const want[][2] = {
                { "SensorId", "dummy" }, { "Kind", "dummy" }, { "State", "idle" }, { "Mode", "unknown" },
                { "Serial", "0123456789a" }, { "Model", "Dummy Sensor #1" }, { "Vendor", "Acme Corp" },
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                _cleanup_free_ char *v = harness_get_string(bus, SENSOR, CM_SENSOR_IFACE, want[i][0]);
                if (!streq(v, want[i][1])) {
                        fprintf(stderr, "%s: '%s' != '%s'\n", want[i][0], v, want[i][1]);
                        abort();
                }
        }
        assert_se(harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Native"));
        assert_se(!harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Embedded"));
        assert_se(!harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Locked"));
        _cleanup_strv_free_ char **caps = harness_get_strv(bus, SENSOR, CM_SENSOR_IFACE, "Capabilities", "as");
        assert_strv(caps, "lcd", "crt", "printer", "spot", "projector", "ambient");
}

static int get_sample(sd_bus *bus, const char *cap, double xyz[3], sd_bus_error *e) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "GetSample", e, &reply, "s", cap);
        if (r < 0)
                return r;
        assert_se(sd_bus_message_read(reply, "ddd", &xyz[0], &xyz[1], &xyz[2]) >= 0);
        return 0;
}

static void test_unlocked_errors(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        double xyz[3];
        int r;

        r = get_sample(bus, "lcd", xyz, &e);
        assert_bus_error(r, &e, CM_SENSOR_ERR "NotLocked");
        sd_bus_error_free(&e);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "Unlock", &e, NULL, NULL);
        assert_bus_error(r, &e, CM_SENSOR_ERR "NotLocked");
        sd_bus_error_free(&e);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "sample[red]", "d", 0.5);
        assert_bus_error(r, &e, CM_SENSOR_ERR "NotLocked");
        sd_bus_error_free(&e);
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "GetSpectrum", &e, NULL, "s", "spectral");
        assert_se(r < 0);
}

static void test_lock_and_sample(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *rbus = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(rbus);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        double xyz[3];
        int r;

        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "Lock", &e, NULL, NULL);
        assert_bus_ok(r, &e);
        size_t i = recorder_find(rec, 0, "PropertiesChanged", SENSOR, "Locked");
        assert_se(i != (size_t) -1 && i < recorder_count(rec) - 1);
        assert_se(harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Locked"));
        r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", &e, NULL, NULL);
        assert_bus_error(r, &e, CM_SENSOR_ERR "AlreadyLocked");
        sd_bus_error_free(&e);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "Lock", &e, NULL, NULL); /* holder itself */
        assert_bus_error(r, &e, CM_SENSOR_ERR "AlreadyLocked");
        sd_bus_error_free(&e);

        /* GetSample: measuring, ButtonPressed, idle, then the reply */
        recorder_reset(rec);
        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "GetSample", &e, &reply, "s", "lcd");
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_read(reply, "ddd", &xyz[0], &xyz[1], &xyz[2]) >= 0);
        fprintf(stderr, "    sample %f %f %f\n", xyz[0], xyz[1], xyz[2]);
        assert_se(fabs(xyz[0] - 0.027599) < 0.01 && fabs(xyz[1] - 0.030403) < 0.01 && fabs(xyz[2] - 0.055636) < 0.01);
        size_t s1 = recorder_find(rec, 0, "PropertiesChanged", SENSOR, "State");
        assert_se(s1 != (size_t) -1);
        size_t s2 = recorder_find(rec, s1 + 1, "PropertiesChanged", SENSOR, "State");
        assert_se(s2 != (size_t) -1);
        assert_se(recorder_find(rec, s2 + 1, "PropertiesChanged", SENSOR, "State") == (size_t) -1);
        size_t b = recorder_find(rec, 0, "ButtonPressed", SENSOR, NULL);
        assert_se(b != (size_t) -1 && b < recorder_count(rec) - 1);
        assert_se(s2 < recorder_count(rec) - 1);
        _cleanup_free_ char *state = harness_get_string(bus, SENSOR, CM_SENSOR_IFACE, "State");
        assert_streq(state, "idle");

        /* a client that does not hold the lock: colord serves it (colord §16.26), tinct refuses */
        r = get_sample(bus, "ambient", xyz, &e);
        if (harness_is_colord(h))
                assert_bus_ok(r, &e);
        else
                assert_se(r < 0 && sd_bus_error_is_set(&e));
        sd_bus_error_free(&e);

        /* the holder (the recorder's connection) from here on */
        r = get_sample(rbus, "ambient", xyz, &e);
        assert_bus_ok(r, &e);
        assert_se(fabs(xyz[0] - 7.7) < 0.001 && xyz[1] == -1 && xyz[2] == -1);

        r = get_sample(rbus, "bogus", xyz, &e);
        assert_bus_error(r, &e, CM_SENSOR_ERR "Internal");
        sd_bus_error_free(&e);
        r = get_sample(rbus, "spectral", xyz, &e);
        assert_bus_error(r, &e, CM_SENSOR_ERR "Internal");
        sd_bus_error_free(&e);
        r = harness_call(rbus, SENSOR, CM_SENSOR_IFACE, "GetSpectrum", &e, NULL, "s", "spectral");
        assert_bus_error(r, &e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(&e);

        /* SetOptions: only sample[red|green|blue] as doubles */
        r = harness_call(rbus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 3, "sample[red]", "d", 1.0,
                         "sample[green]", "d", 1.0, "sample[blue]", "d", 1.0);
        assert_bus_ok(r, &e);
        r = get_sample(rbus, "lcd", xyz, &e);
        assert_bus_ok(r, &e);
        fprintf(stderr, "    white sample %f %f %f\n", xyz[0], xyz[1], xyz[2]);
        assert_se(fabs(xyz[0] - 0.9642) < 0.01 && fabs(xyz[1] - 1.0) < 0.01 && fabs(xyz[2] - 0.8249) < 0.01);
        r = harness_call(rbus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "exposure", "d", 1.0);
        assert_bus_error(r, &e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(&e);
        r = harness_call(rbus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "sample[red]", "s", "1");
        assert_bus_error(r, &e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(&e);
        /* the virtual display's keys need tinctd --dummy-sensor-display (test-sensor-sim.c) */
        r = harness_call(rbus, SENSOR, CM_SENSOR_IFACE, "SetOptions", &e, NULL, "a{sv}", 1, "simulate-patch", "s", "1,1,1");
        assert_bus_error(r, &e, CM_SENSOR_ERR "NoSupport");
        sd_bus_error_free(&e);

        r = recorder_call(rec, SENSOR, CM_SENSOR_IFACE, "Unlock", &e, NULL, NULL);
        assert_bus_ok(r, &e);
        assert_se(!harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Locked"));
}

static void test_lock_released_on_exit(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        sd_bus *holder = harness_connect(h);

        must_call(holder, SENSOR, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        assert_se(harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Locked"));
        recorder_reset(rec);
        sd_bus_flush_close_unref(holder);
        for (size_t i = 0;; i++) {
                i = recorder_wait_after(rec, i, "PropertiesChanged", SENSOR);
                if (strv_contains(recorder_get(rec, i)->changed, "Locked"))
                        break;
        }
        assert_se(!harness_get_bool(bus, SENSOR, CM_SENSOR_IFACE, "Locked"));
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
}

static int nobody_lock(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", &e, NULL, NULL);
        assert_bus_error(r, &e, CM_SENSOR_ERR "FailedToAuthenticate");
        return 0;
}

static int nobody_lock_locked(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", &e, NULL, NULL);
        /* the lock state is checked before authorization */
        assert_bus_error(r, &e, CM_SENSOR_ERR "AlreadyLocked");
        return 0;
}

static void test_unprivileged(Harness *h, sd_bus *bus) {
        assert_se(harness_run_as_nobody(h, nobody_lock, NULL) == 0);
        assert_se(harness_polkit_count(h, ACTION_PREFIX "sensor-lock", NULL) == 1);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Lock", NULL, NULL);
        assert_se(harness_run_as_nobody(h, nobody_lock_locked, NULL) == 0);
        must_call(bus, SENSOR, CM_SENSOR_IFACE, "Unlock", NULL, NULL);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "deny", .dummy_sensor = true });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_properties, h, bus);
        RUN(test_unlocked_errors, h, bus);
        RUN(test_lock_and_sample, h, bus);
        RUN(test_lock_released_on_exit, h, bus);
        RUN(test_unprivileged, h, bus);
        harness_assert_alive(h);
        return 0;
}
