/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinctd as the systemd unit runs it: its own unprivileged user, and as much of the unit's
 * sandbox as can be applied here without systemd (tests/harness: a private mount namespace
 * with / read-only except the state directory, no capabilities, no supplementary groups,
 * no_new_privs) and the unit's SystemCallFilter= allow-list (expanded with systemd-analyze,
 * EPERM for the rest, as SystemCallErrorNumber= says). systemd is not PID 1 in the test
 * containers, so ProtectProc and the device policy are not applied; `systemd-analyze
 * security` on the generated unit is checked by tests/unit-files instead. Under that
 * filter the parser process must still confine itself (docs/sandbox.md): the profiles
 * created here are parsed by it.
 *
 * Covered: the name is owned by that uid; clients as root and as nobody create devices and
 * profiles, a hard mapping is stored, a profile is installed system-wide into the state
 * directory, all of it comes back after a restart, and every file the daemon wrote belongs
 * to its user. Nothing needs root. */

#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "bus-test.h"

#define DEV_ID "confined-printer"

static uid_t daemon_uid;

/* A system account that owns nothing of ours and is not the tests' client user (nobody):
 * base-passwd's, looked up by name. The bus refuses uids without an account, so a made-up
 * uid would not do. */
static uid_t system_account(void) {
        static const char *const names[] = { "daemon", "backup", "www-data", "list", NULL };
        for (const char *const *n = names; *n; n++) {
                struct passwd *pw = getpwnam(*n);
                if (pw && pw->pw_uid != 0 && pw->pw_uid != 65534)
                        return pw->pw_uid;
        }
        return 0;
}

static uid_t name_owner_uid(sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t uid;
        int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                   "GetConnectionUnixUser", &e, &reply, "s", CM_NAME);
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_read(reply, "u", &uid) >= 0);
        return uid;
}

static int create_as_nobody(sd_bus *bus, void *userdata) {
        _cleanup_free_ char *dev = harness_must_create_device(bus, "confined-session-display", "temp", "display", NULL);
        return dev ? 0 : -1;
}

/* Every file below dir belongs to the daemon's user. */
static void check_owner(const char *dir) {
        _cleanup_free_ char *cmd = NULL;
        assert_se(asprintf(&cmd, "find '%s' ! -user %u -print -quit", dir, (unsigned) daemon_uid) >= 0);
        FILE *f = popen(cmd, "re");
        assert_se(f);
        char line[4096] = "";
        bool any = fgets(line, sizeof line, f) != NULL;
        assert_se(pclose(f) == 0);
        if (any) {
                fprintf(stderr, "not the daemon's: %s", line);
                abort();
        }
}

static void test_unprivileged(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_se(name_owner_uid(bus) == daemon_uid);

        /* A file the daemon's user can read, named by a root client (as CUPS names its PPD's). */
        _cleanup_free_ char *icc = harness_corpus_file("colord-tests--ibm-t61.icc"), *copy = NULL, *cmd = NULL;
        assert_se(asprintf(&copy, "%s/printer.icc", harness_tmp_dir(h)) >= 0);
        assert_se(asprintf(&cmd, "install -m 0644 '%s' '%s'", icc, copy) >= 0 && system(cmd) == 0);
        int r;
        _cleanup_free_ char *prof = harness_create_profile(bus, "confined-profile", "disk", KV("Filename", copy), &e, &r);
        assert_bus_ok(r, &e);
        _cleanup_free_ char *dev = harness_must_create_device(bus, DEV_ID, "disk", "printer", NULL);
        must_add_profile(bus, dev, "hard", prof);
        must_call(bus, prof, CM_PROFILE_IFACE, "InstallSystemWide", NULL, NULL);
        assert_se(harness_run_as_nobody(h, create_as_nobody, NULL) == 0);

        /* The installed copy is in the state directory, readable by every application. */
        _cleanup_free_ char *installed = NULL;
        assert_se(asprintf(&installed, "%s/icc/printer.icc", harness_state_dir(h)) >= 0);
        struct stat st;
        assert_se(stat(installed, &st) == 0 && st.st_uid == daemon_uid && (st.st_mode & 0444) == 0444);
        check_owner(harness_state_dir(h));
}

static void test_restart(Harness *h, sd_bus *b) {
        assert_se(harness_restart_daemon(h) == 0);
        assert_se(name_owner_uid(b) == daemon_uid);
        _cleanup_free_ char *dev = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        dev = find_by(b, "FindDeviceById", DEV_ID, &e);
        assert_bus_ok(dev ? 0 : -1, &e);
        _cleanup_strv_free_ char **profiles = device_profiles(b, dev);
        assert_se(strv_length(profiles) == 1);
        _cleanup_free_ char *rel = relation_of(b, dev, profiles[0]);
        assert_streq(rel, "hard");
        check_owner(harness_state_dir(h));
}

int main(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord")) {
                fprintf(stderr, "colord's own confinement is not tinct's to test; skipping\n");
                return 77;
        }
        if (getenv("TINCT_DAEMON_WRAPPER")) {
                fprintf(stderr, "the daemon is wrapped (valgrind pass): this test is about the sandbox; skipping\n");
                return 77;
        }
        if (geteuid() != 0) {
                fprintf(stderr, "needs root to switch the daemon's user; skipping\n");
                return 77;
        }
        if (system("unshare -m true") != 0) {
                fprintf(stderr, "this machine allows no mount namespace; skipping\n");
                return 77;
        }
        daemon_uid = system_account();
        if (daemon_uid == 0) {
                fprintf(stderr, "no system account to run the daemon as (daemon, backup, www-data, list); skipping\n");
                return 77;
        }
        const HarnessOptions opts = { .polkit = "allow", .confined_uid = daemon_uid, .unit_syscall_filter = true };
        _cleanup_harness_ Harness *h = harness_start(&opts);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_unprivileged, h, bus);
        RUN(test_restart, h, bus);

        harness_assert_alive(h);
        return 0;
}
