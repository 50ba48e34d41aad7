/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of authorization (colord §12, §1.1): root never asks polkit; an unprivileged
 * caller (uid 65534) is checked with the right action id per method, with subject
 * system-bus-name = its unique name, flags 1, cancellation id ""; answers allow / deny /
 * error / silent / absent authority; FailedToAuthenticate in each interface's domain;
 * no ghost after a refusal; other clients are served while a check is pending; the
 * per-user path suffix <id>_<username>_<uid>; a uid without a passwd entry. Each mode
 * runs its own harness. */

#include <fcntl.h>
#include <sys/stat.h>
#include <pwd.h>
#include <stdint.h>

#include "bus-test.h"

#define A(x) ACTION_PREFIX x

static Harness *H; /* for the callbacks running as nobody */

/* Objects made by root for the unprivileged callbacks to act on. */
static const char *root_dev = DEV_PATH("auth_root_dev");
static const char *root_prof = PROF_PATH("auth_root_prof");

static void root_setup(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "auth-root-dev", "normal", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "auth-root-prof", "normal", NO_KV);
        assert_streq(d, root_dev);
        assert_streq(p, root_prof);
        must_add_profile(bus, d, "soft", p);
        /* root is never checked */
        assert_se(harness_polkit_count(h, NULL, NULL) == 0);
}

/* --- allow ------------------------------------------------------------------------- */

static int nobody_allowed(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *me;
        int r, n;

        assert_se(sd_bus_get_unique_name(bus, &me) >= 0);

        /* reads need nothing */
        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(devs, root_dev) == 1);
        assert_se(harness_polkit_count(H, NULL, me) == 0);

        /* CreateDevice: per-user path suffix, Owner = uid */
        _cleanup_free_ char *d = harness_must_create_device(bus, "auth-dev", "normal", "display", NO_KV);
        assert_streq(d, DEV_PATH("auth_dev_nobody_65534"));
        assert_se(harness_get_u32(bus, d, CM_DEVICE_IFACE, "Owner") == NOBODY_UID);
        _cleanup_free_ char *did = harness_get_string(bus, d, CM_DEVICE_IFACE, "DeviceId");
        assert_streq(did, "auth-dev");
        assert_se(harness_polkit_count(H, A("create-device"), me) == 1);

        /* the same id as root's device is fine for another user; own one preferred */
        _cleanup_free_ char *d2 = harness_must_create_device(bus, "auth-root-dev", "normal", "display", NO_KV);
        assert_streq(d2, DEV_PATH("auth_root_dev_nobody_65534"));
        assert_find_ok(bus, "FindDeviceById", "auth-root-dev", d2);

        /* profiles */
        _cleanup_free_ char *p = harness_must_create_profile(bus, "auth-prof", "normal", NO_KV);
        assert_streq(p, PROF_PATH("auth_prof_nobody_65534"));
        assert_se(harness_get_u32(bus, p, CM_PROFILE_IFACE, "Owner") == NOBODY_UID);
        assert_se(harness_polkit_count(H, A("create-profile"), me) == 1);
        /* profile ids are global */
        _cleanup_free_ char *px = harness_create_profile(bus, "auth-root-prof", "normal", NO_KV, &error, &r);
        assert_bus_error(r, &error, CM_ERR "AlreadyExists");
        sd_bus_error_free(&error);

        /* CreateProfileWithFd */
        _cleanup_free_ char *icc = harness_corpus_file("colord-tests--ibm-t61.icc");
        _cleanup_close_ int fd = open(icc, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        _cleanup_free_ char *pf = harness_create_profile_fd(bus, "auth-prof-fd", "normal", fd, NO_KV, &error, &r);
        assert_bus_ok(r, &error);
        assert_se(harness_polkit_count(H, A("create-profile"), me) == 3); /* with the AlreadyExists one */

        /* device methods: modify-device */
        n = harness_polkit_count(H, A("modify-device"), me);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "SetEnabled", &error, NULL, "b", 0);
        assert_bus_ok(r, &error);
        r = harness_call(bus, d, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", "Model", "M");
        assert_bus_ok(r, &error);
        must_add_profile(bus, d, "soft", p);
        must_call(bus, d, CM_DEVICE_IFACE, "MakeProfileDefault", "o", p);
        must_call(bus, d, CM_DEVICE_IFACE, "RemoveProfile", "o", p);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == n + 5);

        /* not authorized at all */
        n = harness_polkit_count(H, NULL, me);
        must_call(bus, root_dev, CM_DEVICE_IFACE, "GetProfileRelation", "o", root_prof);
        _cleanup_free_ char *q = profile_for_qualifiers(bus, root_dev, KV("*"), &error);
        assert_bus_ok(q ? 0 : -1, &error);
        assert_se(harness_polkit_count(H, NULL, me) == n);

        /* inhibit: device-inhibit; uninhibit unchecked */
        must_call(bus, root_dev, CM_DEVICE_IFACE, "ProfilingInhibit", NULL, NULL);
        assert_se(harness_polkit_count(H, A("device-inhibit"), me) == 1);
        n = harness_polkit_count(H, NULL, me);
        must_call(bus, root_dev, CM_DEVICE_IFACE, "ProfilingUninhibit", NULL, NULL);
        assert_se(harness_polkit_count(H, NULL, me) == n);

        /* profile: modify-profile */
        r = harness_call(bus, p, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", "Qualifier", "RGB..");
        assert_bus_ok(r, &error);
        assert_se(harness_polkit_count(H, A("modify-profile"), me) == 1);
        /* install-system-wide is denied by this harness (--deny), so nothing is written */
        r = harness_call(bus, pf, CM_PROFILE_IFACE, "InstallSystemWide", &error, NULL, NULL);
        assert_bus_error(r, &error, CM_PROFILE_ERR "FailedToAuthenticate");
        sd_bus_error_free(&error);
        assert_se(harness_polkit_count(H, A("install-system-wide"), me) == 1);

        /* deletes: DeleteProfile uses create-profile (colord's choice), DeleteDevice delete-device */
        n = harness_polkit_count(H, A("create-profile"), me);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", pf);
        assert_se(harness_polkit_count(H, A("create-profile"), me) == n + 1);
        assert_se(harness_polkit_count(H, A("delete-profile"), me) == 0);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d2);
        assert_se(harness_polkit_count(H, A("delete-device"), me) == 1);

        /* every request was well-formed (checked by the log fields) */
        assert_se(harness_polkit_count(H, NULL, me) >= 12);
        return 0;
}

static void check_request_fields(Harness *h) {
        FILE *f = fopen(harness_polkit_log(h), "re");
        char line[1024];

        assert_se(f);
        while (fgets(line, sizeof(line), f)) {
                /* "<action>\t<kind>\t<name>\t<flags>\t<cancellation id>\t<sender>" */
                char *p = line, *field[6];
                for (size_t i = 0; i < 6; i++)
                        field[i] = strsep(&p, "\t\n");
                assert_se(field[5]);
                assert_se(strncmp(field[0], ACTION_PREFIX, strlen(ACTION_PREFIX)) == 0);
                assert_streq(field[1], "system-bus-name");
                assert_se(field[2][0] == ':');
                assert_streq(field[3], "1");
                assert_streq(field[4], ""); /* empty cancellation id */
        }
        fclose(f);
}

static void test_allow(void) {
        static const char *const deny[] = { A("install-system-wide"), NULL };
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .polkit_deny = deny });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        H = h;
        root_setup(h, bus);
        assert_se(harness_run_as_nobody(h, nobody_allowed, NULL) == 0);
        check_request_fields(h);
        /* root sees the user's normal device; owner filter shows it to its owner */
        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(devs, DEV_PATH("auth_dev_nobody_65534")) == 1);
        harness_assert_alive(h);
}

/* --- refusals --------------------------------------------------------------------- */

static int nobody_refused(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        _cleanup_free_ char *d = harness_create_device(bus, "refused-dev", "normal", "display", NO_KV, &error, &r);
        assert_bus_error(r, &error, CM_ERR "FailedToAuthenticate");
        sd_bus_error_free(&error);
        assert_find_error(bus, "FindDeviceById", "refused-dev", CM_ERR "NotFound");
        _cleanup_free_ char *p = harness_create_profile(bus, "refused-prof", "normal", NO_KV, &error, &r);
        assert_bus_error(r, &error, CM_ERR "FailedToAuthenticate");
        sd_bus_error_free(&error);
        assert_find_error(bus, "FindProfileById", "refused-prof", CM_ERR "NotFound");
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", root_dev);
        assert_bus_error(r, &error, CM_ERR "FailedToAuthenticate");
        sd_bus_error_free(&error);
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", &error, NULL, "o", root_prof);
        assert_bus_error(r, &error, CM_ERR "FailedToAuthenticate");
        sd_bus_error_free(&error);

        static const struct {
                const char *member, *types;
        } dev_calls[] = {
                { "SetProperty", "ss" }, { "AddProfile", "so" }, { "RemoveProfile", "o" },
                { "MakeProfileDefault", "o" }, { "SetEnabled", "b" }, { "ProfilingInhibit", "" },
        };
        for (size_t i = 0; i < ELEMENTSOF(dev_calls); i++) {
                const char *t = dev_calls[i].types;
                if (streq(t, "ss"))
                        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, dev_calls[i].member, &error, NULL, t, "Model", "x");
                else if (streq(t, "so"))
                        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, dev_calls[i].member, &error, NULL, t, "hard", root_prof);
                else if (streq(t, "o"))
                        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, dev_calls[i].member, &error, NULL, t, root_prof);
                else if (streq(t, "b"))
                        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, dev_calls[i].member, &error, NULL, t, 0);
                else
                        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, dev_calls[i].member, &error, NULL, NULL);
                if (r >= 0 || !streq_ptr(error.name, CM_DEVICE_ERR "FailedToAuthenticate")) {
                        fprintf(stderr, "Device.%s: expected FailedToAuthenticate, got %s\n", dev_calls[i].member,
                                r >= 0 ? "success" : error.name);
                        abort();
                }
                sd_bus_error_free(&error);
        }
        r = harness_call(bus, root_prof, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", "Qualifier", "x");
        assert_bus_error(r, &error, CM_PROFILE_ERR "FailedToAuthenticate");
        sd_bus_error_free(&error);
        r = harness_call(bus, root_prof, CM_PROFILE_IFACE, "InstallSystemWide", &error, NULL, NULL);
        assert_se(r < 0); /* no Filename: Internal or FailedToAuthenticate, depending on order */
        sd_bus_error_free(&error);

        /* reads and unchecked methods keep working */
        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(devs, root_dev) == 1);
        _cleanup_free_ char *q = profile_for_qualifiers(bus, root_dev, KV("*"), &error);
        assert_bus_ok(q ? 0 : -1, &error);
        assert_streq(q, root_prof);
        r = harness_call(bus, root_dev, CM_DEVICE_IFACE, "ProfilingUninhibit", &error, NULL, NULL);
        assert_bus_error(r, &error, CM_DEVICE_ERR "FailedToUninhibit");
        sd_bus_error_free(&error);

        /* A session's own temp objects need no authorization at all, so a remote session
         * (whose every check polkit refuses or prompts for) still manages its displays.
         * colord asks for these too (docs/compatibility.md row 50). */
        if (harness_is_colord(H))
                return 0;
        const char *me;
        assert_se(sd_bus_get_unique_name(bus, &me) >= 0);
        int before = harness_polkit_count(H, NULL, me);
        _cleanup_free_ char *td = harness_must_create_device(bus, "session-display", "temp", "display", NO_KV);
        _cleanup_free_ char *tp = harness_must_create_profile(bus, "session-profile", "temp", NO_KV);
        must_add_profile(bus, td, "hard", tp);
        must_add_profile(bus, td, "soft", root_prof); /* a system profile on one's own device */
        must_call(bus, td, CM_DEVICE_IFACE, "MakeProfileDefault", "o", tp);
        r = harness_call(bus, td, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", "Model", "Session Model");
        assert_bus_ok(r, &error);
        r = harness_call(bus, tp, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", "Qualifier", "RGB..");
        assert_bus_ok(r, &error);
        must_call(bus, td, CM_DEVICE_IFACE, "ProfilingInhibit", NULL, NULL);
        must_call(bus, td, CM_DEVICE_IFACE, "ProfilingUninhibit", NULL, NULL);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", tp);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", td);
        assert_se(harness_polkit_count(H, NULL, me) == before);
        /* ...but another scope, or the system's objects, still need it. */
        r = harness_call(bus, root_prof, CM_PROFILE_IFACE, "SetProperty", &error, NULL, "ss", "Qualifier", "y");
        assert_bus_error(r, &error, CM_PROFILE_ERR "FailedToAuthenticate");
        return 0;
}

static void test_refused(const char *mode) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = mode });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        fprintf(stderr, "    polkit mode: %s\n", mode ? mode : "(absent)");
        H = h;
        root_setup(h, bus);
        assert_se(harness_run_as_nobody(h, nobody_refused, NULL) == 0);
        if (mode)
                assert_se(harness_polkit_count(h, A("create-device"), NULL) == 1);
        /* nothing changed on root's objects */
        _cleanup_free_ char *model = harness_get_string(bus, root_dev, CM_DEVICE_IFACE, "Model");
        assert_streq(model, "");
        assert_se(harness_get_bool(bus, root_dev, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_strv_free_ char **l = device_profiles(bus, root_dev);
        assert_strv(l, root_prof);
        /* root still works */
        _cleanup_free_ char *d = harness_must_create_device(bus, "auth-after", "temp", "display", NO_KV);
        harness_assert_alive(h);
}

/* --- --deny one action ------------------------------------------------------------ */

static int nobody_partial(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *d = harness_create_device(bus, "partial-dev", "normal", "display", NO_KV, &error, &r);

        assert_bus_error(r, &error, CM_ERR "FailedToAuthenticate");
        _cleanup_free_ char *p = harness_must_create_profile(bus, "partial-prof", "normal", NO_KV);
        return 0;
}

static void test_deny_one(void) {
        static const char *const deny[] = { A("create-device"), NULL };
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .polkit_deny = deny });

        H = h;
        assert_se(harness_run_as_nobody(h, nobody_partial, NULL) == 0);
        assert_se(harness_polkit_count(h, A("create-device"), NULL) == 1);
        assert_se(harness_polkit_count(h, A("create-profile"), NULL) == 1);
        harness_assert_alive(h);
}

/* --- silent: the check never answers ------------------------------------------------ */

typedef struct Pending {
        bool done;
        int r;
        char *error_name;
} Pending;

static int on_create_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Pending *p = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        p->done = true;
        p->r = e ? -1 : 0;
        p->error_name = e ? strdup(e->name) : NULL;
        return 0;
}

static int nobody_silent(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *other = harness_connect(H);
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        Pending pending = {};
        const char *me;
        int r;

        assert_se(sd_bus_get_unique_name(bus, &me) >= 0);
        r = sd_bus_call_method_async(bus, &slot, CM_NAME, CM_PATH, CM_IFACE, "CreateDevice", on_create_reply,
                                     &pending, "ssa{ss}", "silent-dev", "normal", 1, "Kind", "display");
        assert_se(r >= 0);
        assert_se(sd_bus_flush(bus) >= 0);
        /* the daemon is now waiting for the authority ... */
        harness_polkit_wait(H, A("create-device"), me, 1);
        /* ... and still serves everyone else */
        _cleanup_strv_free_ char **devs = harness_call_strv(other, CM_PATH, CM_IFACE, "GetDevices", NULL);
        assert_se(strv_count(devs, root_dev) == 1);
        assert_find_ok(other, "FindDeviceById", "auth-root-dev", root_dev);
        _cleanup_free_ char *model = harness_get_string(other, root_dev, CM_DEVICE_IFACE, "Model");
        assert_streq(model, "");

        /* eventually refused (the daemon's own timeout) */
        while (!pending.done) {
                r = sd_bus_process(bus, NULL);
                assert_se(r >= 0);
                if (r == 0)
                        (void) sd_bus_wait(bus, UINT64_MAX); /* the harness alarm guards */
        }
        assert_se(pending.r < 0);
        if (!streq_ptr(pending.error_name, CM_ERR "FailedToAuthenticate")) {
                fprintf(stderr, "silent polkit: got %s\n", strempty(pending.error_name));
                abort();
        }
        free(pending.error_name);
        assert_find_error(other, "FindDeviceById", "silent-dev", CM_ERR "NotFound");
        return 0;
}

static void test_silent(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord")) {
                /* colord's synchronous check freezes the daemon (colord §16.19); nothing to test */
                fprintf(stderr, "    (skipped on colord: synchronous polkit)\n");
                return;
        }
        /* A short daemon-side timeout: the test waits for the refusal, not for a clock. */
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "silent", .extra_args = (const char *const[]) { "--polkit-timeout", "2", NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        H = h;
        root_setup(h, bus);
        assert_se(harness_run_as_nobody(h, nobody_silent, NULL) == 0);
        harness_assert_alive(h);
}

/* --- a uid with no passwd entry ------------------------------------------------------ */

static int nopasswd_create(sd_bus *bus, void *userdata) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "nopw-dev", "temp", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "nopw-prof", "temp", NO_KV);

        fprintf(stderr, "    uid without passwd entry got %s and %s\n", d, p);
        assert_se(strncmp(d, DEV_PATH("nopw_dev_"), strlen(DEV_PATH("nopw_dev_"))) == 0);
        assert_se(!strstr(d, "daemon")); /* the daemon cannot know the name */
        assert_se(harness_get_u32(bus, d, CM_DEVICE_IFACE, "Owner") == 1);
        return 0;
}

static void test_no_passwd_entry(void) {
        /* dbus-daemon refuses uids it cannot resolve, so the daemon alone gets a passwd
         * file with only root (bind-mounted in its own mount namespace); uid 1 ("daemon")
         * is then unknown to it. (Not 65534: nss-systemd synthesizes "nobody".) */
        char passwd[] = "/tmp/tinct-passwd-XXXXXX";
        int fd = mkstemp(passwd);
        assert_se(fd >= 0);
        static const char text[] = "root:x:0:0:root:/root:/bin/sh\n";
        assert_se(write(fd, text, strlen(text)) == (ssize_t) strlen(text));
        assert_se(fchmod(fd, 0644) >= 0);
        close(fd);

        if (getenv("TINCT_TEST_DAEMON") && streq(getenv("TINCT_TEST_DAEMON"), "colord")) {
                fprintf(stderr, "    (skipped on colord: it crashes here, colord §16.13)\n");
                unlink(passwd);
                return;
        }
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .daemon_passwd = passwd });
        assert_se(harness_run_as_uid(h, 1, 1, nopasswd_create, NULL) == 0);
        harness_assert_alive(h);
        unlink(passwd);
}

int main(void) {
        RUN(test_allow);
        RUN(test_refused, "deny");
        RUN(test_refused, "error");
        RUN(test_refused, NULL);
        RUN(test_deny_one);
        RUN(test_silent);
        RUN(test_no_passwd_entry);
        return 0;
}
