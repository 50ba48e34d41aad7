/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of scopes and lifetimes (colord §3.4, §3.2, §6.1): temp devices and profiles
 * vanish when their creator's connection closes (DeviceRemoved/ProfileRemoved are
 * awaited, never slept for), normal ones stay, a ProfilingInhibit is released when the
 * inhibitor leaves the bus. Restart persistence is in test-persistence.c. */

#include "bus-test.h"

static void test_temp_objects_follow_creator(Harness *h, sd_bus *watcher) {
        _cleanup_recorder_ Recorder *rec = recorder_new(watcher);
        sd_bus *creator = harness_connect(h);
        _cleanup_free_ char *temp_dev = harness_must_create_device(creator, "life-temp", "temp", "display", NO_KV);
        _cleanup_free_ char *norm_dev = harness_must_create_device(creator, "life-normal", "normal", "display", NO_KV);
        _cleanup_free_ char *temp_prof = harness_must_create_profile(creator, "life-temp-p", "temp", NO_KV);
        _cleanup_free_ char *norm_prof = harness_must_create_profile(creator, "life-normal-p", "normal", NO_KV);

        must_add_profile(watcher, norm_dev, "soft", temp_prof);
        must_add_profile(watcher, norm_dev, "soft", norm_prof);
        recorder_reset(rec);
        sd_bus_flush_close_unref(creator);

        size_t i = recorder_wait(rec, "DeviceRemoved", CM_PATH);
        assert_streq(recorder_get(rec, i)->arg0, temp_dev);
        for (;;) {
                i = recorder_wait(rec, "ProfileRemoved", CM_PATH);
                if (streq(recorder_get(rec, i)->arg0, temp_prof))
                        break;
                fprintf(stderr, "unexpected ProfileRemoved %s\n", recorder_get(rec, i)->arg0);
                abort();
        }
        assert_find_error(watcher, "FindDeviceById", "life-temp", CM_ERR "NotFound");
        assert_find_error(watcher, "FindProfileById", "life-temp-p", CM_ERR "NotFound");
        assert_se(object_gone(watcher, temp_dev, CM_DEVICE_IFACE));
        assert_se(object_gone(watcher, temp_prof, CM_PROFILE_IFACE));

        /* normal ones stay, and the vanished profile left the device */
        assert_find_ok(watcher, "FindDeviceById", "life-normal", norm_dev);
        assert_find_ok(watcher, "FindProfileById", "life-normal-p", norm_prof);
        _cleanup_strv_free_ char **l = device_profiles(watcher, norm_dev);
        assert_strv(l, norm_prof);
        must_call(watcher, CM_PATH, CM_IFACE, "DeleteDevice", "o", norm_dev);
        must_call(watcher, CM_PATH, CM_IFACE, "DeleteProfile", "o", norm_prof);
}

static void test_many_temp_creators(Harness *h, sd_bus *watcher) {
        /* several clients at once, each leaving: every temp object goes, others stay */
        _cleanup_recorder_ Recorder *rec = recorder_new(watcher);
        sd_bus *c[4];
        char *paths[4];

        for (size_t k = 0; k < ELEMENTSOF(c); k++) {
                char id[32];
                c[k] = harness_connect(h);
                snprintf(id, sizeof(id), "life-multi-%zu", k);
                paths[k] = harness_must_create_device(c[k], id, "temp", "printer", NO_KV);
        }
        recorder_reset(rec);
        for (size_t k = 0; k < ELEMENTSOF(c); k += 2)
                sd_bus_flush_close_unref(c[k]);
        size_t i0 = recorder_wait(rec, "DeviceRemoved", CM_PATH);
        size_t i1 = recorder_wait_after(rec, i0 + 1, "DeviceRemoved", CM_PATH);
        const char *r0 = recorder_get(rec, i0)->arg0, *r1 = recorder_get(rec, i1)->arg0;
        assert_se((streq(r0, paths[0]) && streq(r1, paths[2])) || (streq(r0, paths[2]) && streq(r1, paths[0])));
        assert_find_ok(watcher, "FindDeviceById", "life-multi-1", paths[1]);
        assert_find_ok(watcher, "FindDeviceById", "life-multi-3", paths[3]);
        assert_find_error(watcher, "FindDeviceById", "life-multi-0", CM_ERR "NotFound");
        assert_find_error(watcher, "FindDeviceById", "life-multi-2", CM_ERR "NotFound");
        sd_bus_flush_close_unref(c[1]);
        sd_bus_flush_close_unref(c[3]);
        for (size_t k = 0; k < ELEMENTSOF(c); k++)
                free(paths[k]);
}

static void test_inhibit_released(Harness *h, sd_bus *watcher) {
        _cleanup_recorder_ Recorder *rec = recorder_new(watcher);
        _cleanup_free_ char *d = harness_must_create_device(watcher, "life-inhibit", "normal", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(watcher, "life-inhibit-p", "normal", NO_KV);
        sd_bus *inhibitor = harness_connect(h);
        const char *name;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

        must_add_profile(watcher, d, "soft", p);
        assert_se(sd_bus_get_unique_name(inhibitor, &name) >= 0);
        must_call(inhibitor, d, CM_DEVICE_IFACE, "ProfilingInhibit", NULL, NULL);
        _cleanup_strv_free_ char **inh = harness_get_strv(watcher, d, CM_DEVICE_IFACE, "ProfilingInhibitors", "as");
        assert_strv(inh, name);
        _cleanup_free_ char *q = profile_for_qualifiers(watcher, d, KV("*"), &error);
        assert_bus_error(q ? 0 : -1, &error, CM_DEVICE_ERR "Profiling");
        sd_bus_error_free(&error);

        recorder_reset(rec);
        sd_bus_flush_close_unref(inhibitor);
        size_t i = recorder_wait(rec, "DeviceChanged", CM_PATH);
        assert_streq(recorder_get(rec, i)->arg0, d);
        _cleanup_strv_free_ char **inh2 = harness_get_strv(watcher, d, CM_DEVICE_IFACE, "ProfilingInhibitors", "as");
        assert_strv_empty(inh2);
        if (!harness_is_colord(h))
                assert_se(recorder_find(rec, 0, "PropertiesChanged", d, "ProfilingInhibitors") != (size_t) -1);
        q = profile_for_qualifiers(watcher, d, KV("*"), &error);
        assert_bus_ok(q ? 0 : -1, &error);
        assert_streq(q, p);
        must_call(watcher, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(watcher, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_deleted_temp_then_creator_leaves(Harness *h, sd_bus *watcher) {
        /* a temp device deleted explicitly is not removed twice when its creator leaves */
        _cleanup_recorder_ Recorder *rec = recorder_new(watcher);
        sd_bus *creator = harness_connect(h);
        _cleanup_free_ char *d = harness_must_create_device(creator, "life-twice", "temp", "display", NO_KV);
        _cleanup_free_ char *d2 = harness_must_create_device(creator, "life-twice-b", "temp", "display", NO_KV);

        must_call(watcher, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        recorder_reset(rec);
        sd_bus_flush_close_unref(creator);
        size_t i = recorder_wait(rec, "DeviceRemoved", CM_PATH);
        assert_streq(recorder_get(rec, i)->arg0, d2);
        /* same id can be re-created by someone else at once */
        _cleanup_free_ char *d3 = harness_must_create_device(watcher, "life-twice", "temp", "display", NO_KV);
        assert_streq(d3, d);
        assert_se(recorder_find(rec, i + 1, "DeviceRemoved", d, NULL) == (size_t) -1);
        must_call(watcher, CM_PATH, CM_IFACE, "DeleteDevice", "o", d3);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *watcher = harness_connect(h);

        RUN(test_temp_objects_follow_creator, h, watcher);
        RUN(test_many_temp_creators, h, watcher);
        RUN(test_inhibit_released, h, watcher);
        RUN(test_deleted_temp_then_creator_leaves, h, watcher);
        harness_assert_alive(h);
        return 0;
}
