/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of what happens to acknowledged changes when the disk refuses them (issue 19,
 * "Data that is acknowledged and then lost"), with tinctd's state directory on a real
 * filesystem that is full or read-only:
 *  - a full disk while the daemon runs: SetProperty on a disk device, AddProfile("hard"),
 *    RemoveProfile (and the other calls that store) answer an error and leave the daemon's
 *    objects as they were; once space is freed the same calls succeed, and after a restart
 *    every acknowledged change is there. The test prints the figure "acknowledged changes
 *    lost on a full disk";
 *  - a start on a read-only state directory, and on a full one: the daemon starts, serves
 *    the stored devices, profiles and mappings, says once why nothing will be stored, and
 *    refuses changes that need the store (temp objects still work); nothing is lost;
 *  - a rescan while the disk is full (its cache writes fail at commit) leaves no transaction
 *    behind: a change acknowledged afterwards is in the database files at once, as a crash
 *    right then would find them, and the calls that store in one commit work again (before,
 *    the store still counted the rolled-back transaction as open, and every later
 *    CreateDevice/CreateProfile `disk` failed with "Device or resource busy");
 *  - promoting a virtual device (CreateDevice of its id) with properties that cannot all be
 *    taken: refused, and the virtual device is as it was, in memory and after a restart;
 *  - a profile directory whose listing fails during a rescan (made unreadable to the daemon,
 *    which runs as a system account without capabilities for this): its profiles stay,
 *    while files elsewhere are still picked up; once it can be read, changes in it count.
 *
 * The filesystems are real: a 2 MiB tmpfs filled with zeros, a read-only bind mount. Both
 * live in a private mount namespace of this test (unshare at start), which its children
 * (the bus, the daemon) share and which goes away with them, so nothing leaks onto the
 * machine if the test dies. Needs root for mount(2); skipped otherwise. */

#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "bus-test.h"
#include "profile-files.h"

static DaemonLog dlog = { .fd = -1 };

static void stop(Harness *h) {
        int status = harness_stop_daemon(h);
        daemon_log_flush(&dlog);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Starts the daemon (stopped) on the same state; returns the log of its start-up. */
static char *start_logged(Harness *h) {
        assert_se(!harness_daemon_running(h));
        int saved = daemon_log_begin(&dlog);
        int status = harness_restart_daemon(h);
        char *log = daemon_log_end(&dlog, saved);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        return log;
}

static Harness *start_harness(void) {
        int saved = daemon_log_begin(&dlog);
        Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        free(daemon_log_end(&dlog, saved));
        return h;
}

static Harness *finish(Harness *h) {
        if (harness_daemon_running(h))
                stop(h);
        daemon_log_close(&dlog);
        return harness_stop(h);
}

/* A 2 MiB tmpfs over the (stopped) daemon's state directory. */
static void mount_small_tmpfs(Harness *h) {
        assert_se(!harness_daemon_running(h));
        if (mount("tmpfs", harness_state_dir(h), "tmpfs", MS_NOSUID | MS_NODEV, "size=2m,mode=0755") < 0) {
                fprintf(stderr, "mount tmpfs on %s: %m\n", harness_state_dir(h));
                abort();
        }
}

static void unmount_state(Harness *h) {
        assert_se(!harness_daemon_running(h));
        assert_se(umount2(harness_state_dir(h), 0) == 0);
}

/* Writes zeros to STATE/fill until the filesystem says ENOSPC, down to the last byte. */
static void fill_disk(Harness *h) {
        _cleanup_free_ char *path = xasprintf("%s/fill", harness_state_dir(h));
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_se(fd >= 0);
        static const char zeros[65536];
        size_t chunk = sizeof zeros;
        for (;;) {
                ssize_t k = write(fd, zeros, chunk);
                if (k >= 0)
                        continue;
                assert_se(errno == ENOSPC);
                if (chunk == 1)
                        break;
                chunk /= 2;
        }
        assert_se(close(fd) == 0);
}

static void free_disk(Harness *h) {
        _cleanup_free_ char *path = xasprintf("%s/fill", harness_state_dir(h));
        assert_se(unlink(path) == 0);
}

static char *must_find(sd_bus *bus, const char *member, const char *id) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, member, id, &e);
        if (!p) {
                fprintf(stderr, "%s(%s): %s: %s\n", member, id, strempty(e.name), strempty(e.message));
                abort();
        }
        return p;
}

static bool has_relation(sd_bus *bus, const char *dev, const char *prof, const char *want) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *rel;
        if (harness_call(bus, dev, CM_DEVICE_IFACE, "GetProfileRelation", &error, &reply, "o", prof) < 0)
                return false;
        assert_se(sd_bus_message_read(reply, "s", &rel) >= 0);
        return streq(rel, want);
}

#define N_PROFILES 6

/* The state every scenario starts from: a disk device with a Model and a Metadata key, six
 * disk profiles, the last three assigned hard. */
static void make_objects(sd_bus *bus) {
        _cleanup_free_ char *dev = harness_must_create_device(bus, "durable-dev", "disk", "printer",
                                                              KV("Model", "Before", "Shelf", "before"));
        for (int i = 0; i < N_PROFILES; i++) {
                _cleanup_free_ char *id = xasprintf("durable-p%d", i);
                _cleanup_free_ char *q = xasprintf("RGB.Plain.%d", i);
                _cleanup_free_ char *p = harness_must_create_profile(bus, id, "disk", KV("Qualifier", q));
                if (i >= 3)
                        must_add_profile(bus, dev, "hard", p);
        }
}

/* The ten changes of the measurement: four SetProperty on the disk device, three
 * AddProfile("hard"), three RemoveProfile. */
#define N_CHANGES 10
typedef enum ChangeKind { SET_PROPERTY, ADD_HARD, REMOVE } ChangeKind;
typedef struct Change {
        ChangeKind kind;
        const char *key, *value; /* SET_PROPERTY */
        int profile;             /* ADD_HARD, REMOVE */
} Change;

static const Change changes[N_CHANGES] = {
        { SET_PROPERTY, "Model", "After", 0 },
        { SET_PROPERTY, "Vendor", "Acme", 0 },
        { SET_PROPERTY, "Serial", "S-42", 0 },
        { SET_PROPERTY, "Shelf", "after", 0 },
        { ADD_HARD, NULL, NULL, 0 },
        { ADD_HARD, NULL, NULL, 1 },
        { ADD_HARD, NULL, NULL, 2 },
        { REMOVE, NULL, NULL, 3 },
        { REMOVE, NULL, NULL, 4 },
        { REMOVE, NULL, NULL, 5 },
};

static char *profile_path(sd_bus *bus, int i) {
        _cleanup_free_ char *id = xasprintf("durable-p%d", i);
        return must_find(bus, "FindProfileById", id);
}

static int apply_change(sd_bus *bus, const Change *c, sd_bus_error *error) {
        _cleanup_free_ char *dev = must_find(bus, "FindDeviceById", "durable-dev");
        _cleanup_free_ char *prof = c->kind == SET_PROPERTY ? NULL : profile_path(bus, c->profile);
        switch (c->kind) {
        case SET_PROPERTY:
                return harness_call(bus, dev, CM_DEVICE_IFACE, "SetProperty", error, NULL, "ss", c->key, c->value);
        case ADD_HARD:
                return add_profile(bus, dev, "hard", prof, error);
        case REMOVE:
                return harness_call(bus, dev, CM_DEVICE_IFACE, "RemoveProfile", error, NULL, "o", prof);
        }
        abort();
}

/* Whether the daemon shows the change (after == true) or the state before it. */
static bool change_visible(sd_bus *bus, const Change *c, bool after) {
        _cleanup_free_ char *dev = must_find(bus, "FindDeviceById", "durable-dev");
        if (c->kind == SET_PROPERTY) {
                static const char *const before_values[] = { "Model", "Before", "Vendor", "", "Serial", "",
                                                             "Shelf", "before", NULL };
                const char *want = after ? c->value : NULL;
                for (size_t i = 0; !want && before_values[i]; i += 2)
                        if (streq(before_values[i], c->key))
                                want = before_values[i + 1];
                _cleanup_free_ char *got = NULL;
                if (streq(c->key, "Shelf")) {
                        _cleanup_strv_free_ char **md = harness_get_dict(bus, dev, CM_DEVICE_IFACE, "Metadata");
                        got = strdup(strempty(harness_dict_get(md, "Shelf")));
                } else
                        got = harness_get_string(bus, dev, CM_DEVICE_IFACE, c->key);
                return streq(got, want);
        }
        _cleanup_free_ char *prof = profile_path(bus, c->profile);
        bool hard = has_relation(bus, dev, prof, "hard");
        return (c->kind == ADD_HARD) == (after ? hard : !hard);
}

/* Makes the ten changes; returns how many were acknowledged (answered success), and
 * checks that each refused one answered a clear error and left the object as it was. */
static int make_changes(sd_bus *bus, bool ack[N_CHANGES], const char *want_message) {
        int acknowledged = 0;
        for (size_t i = 0; i < N_CHANGES; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                int r = apply_change(bus, &changes[i], &error);
                ack[i] = r >= 0;
                if (ack[i]) {
                        acknowledged++;
                        assert_se(change_visible(bus, &changes[i], true));
                        continue;
                }
                fprintf(stderr, "    change %zu refused: %s: %s\n", i, strempty(error.name), strempty(error.message));
                assert_bus_error(r, &error, CM_ERR "Internal");
                assert_se(strstr(error.message, want_message));
                assert_se(change_visible(bus, &changes[i], false));
        }
        return acknowledged;
}

static int count_lost(sd_bus *bus, const bool ack[N_CHANGES]) {
        int lost = 0;
        for (size_t i = 0; i < N_CHANGES; i++)
                if (ack[i] && !change_visible(bus, &changes[i], true)) {
                        fprintf(stderr, "    change %zu was acknowledged and is gone after the restart\n", i);
                        lost++;
                }
        return lost;
}

static void test_full_disk_while_running(void) {
        _cleanup_harness_ Harness *h = start_harness();
        stop(h);
        mount_small_tmpfs(h);
        free(start_logged(h));
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        make_objects(bus);

        fill_disk(h);
        bool ack[N_CHANGES];
        int acknowledged = make_changes(bus, ack, "No space left on device");

        /* The other calls that store answer the same way and leave no object behind. */
        _cleanup_(sd_bus_error_free) sd_bus_error e1 = SD_BUS_ERROR_NULL, e2 = SD_BUS_ERROR_NULL,
                                                  e3 = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *d2 = harness_create_device(bus, "durable-full-dev", "disk", "printer", NO_KV, &e1, &r);
        assert_bus_error(r, &e1, CM_ERR "Internal");
        assert_find_error(bus, "FindDeviceById", "durable-full-dev", CM_ERR "NotFound");
        _cleanup_free_ char *p2 = harness_create_profile(bus, "durable-full-prof", "disk", NO_KV, &e2, &r);
        assert_bus_error(r, &e2, CM_ERR "Internal");
        assert_find_error(bus, "FindProfileById", "durable-full-prof", CM_ERR "NotFound");
        _cleanup_free_ char *dev = must_find(bus, "FindDeviceById", "durable-dev");
        _cleanup_free_ char *p0 = profile_path(bus, 0), *p3 = profile_path(bus, 3);
        const char *on_device = has_relation(bus, dev, p3, "hard") ? p3 : p0;
        r = harness_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", &e3, NULL, "o", on_device);
        assert_bus_error(r, &e3, CM_ERR "Internal");
        _cleanup_(sd_bus_error_free) sd_bus_error e4 = SD_BUS_ERROR_NULL;
        r = harness_call(bus, p0, CM_PROFILE_IFACE, "SetProperty", &e4, NULL, "ss", "Qualifier", "RGB.Glossy.0");
        assert_bus_error(r, &e4, CM_PROFILE_ERR "Internal");
        _cleanup_free_ char *q0 = harness_get_string(bus, p0, CM_PROFILE_IFACE, "Qualifier");
        assert_streq(q0, "RGB.Plain.0");

        free_disk(h);
        stop(h);
        free(start_logged(h));
        sd_bus_flush_close_unref(bus);
        bus = harness_connect(h);
        int lost = count_lost(bus, ack);
        fprintf(stderr, "FIGURE acknowledged changes lost on a full disk: %d changes, %d acknowledged, "
                        "%d lost after the restart\n", N_CHANGES, acknowledged, lost);
        assert_se(lost == 0);
        for (size_t i = 0; i < N_CHANGES; i++)
                assert_se(change_visible(bus, &changes[i], ack[i]));

        /* With space again, the refused changes go through and survive a restart. */
        for (size_t i = 0; i < N_CHANGES; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                if (!ack[i])
                        assert_bus_ok(apply_change(bus, &changes[i], &error), &error);
        }
        /* A property set on a disk profile is stored with it, and comes back. */
        _cleanup_(sd_bus_error_free) sd_bus_error e5 = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, p0, CM_PROFILE_IFACE, "SetProperty", &e5, NULL, "ss", "Qualifier",
                                   "RGB.Glossy.0"), &e5);
        stop(h);
        free(start_logged(h));
        sd_bus_flush_close_unref(bus);
        bus = harness_connect(h);
        for (size_t i = 0; i < N_CHANGES; i++)
                assert_se(change_visible(bus, &changes[i], true));
        _cleanup_free_ char *p0_again = profile_path(bus, 0);
        _cleanup_free_ char *q0_after = harness_get_string(bus, p0_again, CM_PROFILE_IFACE, "Qualifier");
        assert_streq(q0_after, "RGB.Glossy.0");

        stop(h);
        unmount_state(h);
        h = finish(h);
}

static size_t count_occurrences(const char *text, const char *needle) {
        size_t n = 0;
        for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

/* The stored state make_objects() left, unchanged. */
static void assert_objects_as_made(sd_bus *bus) {
        for (size_t i = 0; i < N_CHANGES; i++)
                assert_se(change_visible(bus, &changes[i], false));
}

/* The daemon started on a state directory it cannot write: it serves what is stored and
 * refuses what needs the store with `why`; temp objects still work. */
static void check_read_only_daemon(Harness *h, const char *log, const char *why) {
        assert_log_contains(log, "READ-ONLY");
        assert_log_contains(log, why);
        assert_se(count_occurrences(log, "READ-ONLY") == 1);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        assert_objects_as_made(bus);
        for (int i = 0; i < N_PROFILES; i++)
                free(profile_path(bus, i));

        bool ack[N_CHANGES];
        assert_se(make_changes(bus, ack, why) == 0);
        _cleanup_(sd_bus_error_free) sd_bus_error e1 = SD_BUS_ERROR_NULL, e2 = SD_BUS_ERROR_NULL,
                                                  e3 = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *d2 = harness_create_device(bus, "durable-ro-dev", "disk", "printer", NO_KV, &e1, &r);
        assert_bus_error(r, &e1, CM_ERR "Internal");
        assert_se(strstr(e1.message, why));
        _cleanup_free_ char *p2 = harness_create_profile(bus, "durable-ro-prof", "disk", NO_KV, &e2, &r);
        assert_bus_error(r, &e2, CM_ERR "Internal");
        _cleanup_free_ char *dev = must_find(bus, "FindDeviceById", "durable-dev");
        r = harness_call(bus, dev, CM_DEVICE_IFACE, "SetEnabled", &e3, NULL, "b", 0);
        assert_bus_error(r, &e3, CM_ERR "Device.Internal");
        assert_se(harness_get_bool(bus, dev, CM_DEVICE_IFACE, "Enabled"));

        /* A verification result (docs/verify.md) is refused at its first key, so the device
         * never shows half of one; other metadata still changes. */
        _cleanup_(sd_bus_error_free) sd_bus_error e4 = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *disp = harness_must_create_device(bus, "durable-ro-display", "normal", "display", NO_KV);
        r = harness_call(bus, disp, CM_DEVICE_IFACE, "SetProperty", &e4, NULL, "ss", "TINCT_verify_dE2000_mean", "1.000");
        assert_bus_error(r, &e4, CM_ERR "Internal");
        assert_se(strstr(e4.message, "verification") && strstr(e4.message, why));
        assert_se(harness_call(bus, disp, CM_DEVICE_IFACE, "SetProperty", NULL, NULL, "ss", "Note", "kept") >= 0);

        /* What needs no store still works: a temp device with a soft relation. */
        _cleanup_free_ char *temp = harness_must_create_device(bus, "durable-ro-temp", "temp", "display", NO_KV);
        _cleanup_free_ char *p0 = profile_path(bus, 0);
        must_add_profile(bus, temp, "soft", p0);
        assert_se(has_relation(bus, temp, p0, "soft"));
        harness_assert_alive(h);
}

static void test_read_only_start(void) {
        _cleanup_harness_ Harness *h = start_harness();
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        make_objects(bus);
        bus = sd_bus_flush_close_unref(bus);
        stop(h);

        const char *state = harness_state_dir(h);
        assert_se(mount(state, state, NULL, MS_BIND, NULL) == 0);
        assert_se(mount(NULL, state, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0);
        _cleanup_free_ char *log = start_logged(h);
        check_read_only_daemon(h, log, "Read-only file system");
        stop(h);
        unmount_state(h);

        /* Writable again: everything is there, and changes are stored. */
        free(start_logged(h));
        bus = harness_connect(h);
        assert_objects_as_made(bus);
        bool ack[N_CHANGES];
        assert_se(make_changes(bus, ack, "") == N_CHANGES);
        h = finish(h);
}

static void test_full_disk_at_start(void) {
        _cleanup_harness_ Harness *h = start_harness();
        stop(h);
        mount_small_tmpfs(h);
        free(start_logged(h));
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        make_objects(bus);
        bus = sd_bus_flush_close_unref(bus);
        stop(h);

        fill_disk(h);
        _cleanup_free_ char *log = start_logged(h);
        check_read_only_daemon(h, log, "No space left on device");
        stop(h);
        free_disk(h);

        free(start_logged(h));
        bus = harness_connect(h);
        assert_objects_as_made(bus);
        bool ack[N_CHANGES];
        assert_se(make_changes(bus, ack, "") == N_CHANGES);
        stop(h);
        unmount_state(h);
        h = finish(h);
}

/* A system account that is neither root nor the clients' nobody (base-passwd's). */
static uid_t system_account(void) {
        static const char *const names[] = { "daemon", "backup", "www-data", "list", NULL };
        for (const char *const *n = names; *n; n++) {
                struct passwd *pw = getpwnam(*n);
                if (pw && pw->pw_uid != 0 && pw->pw_uid != 65534)
                        return pw->pw_uid;
        }
        return 0;
}

static void copy_corpus_file(const char *name, const char *dir, const char *as) {
        _cleanup_free_ char *src = harness_corpus_file(name);
        size_t n;
        _cleanup_free_ uint8_t *data = pf_read(src, &n);
        pf_write_atomic(dir, as, data, n);
}

static void test_failed_listing_changes_nothing(void) {
        /* As in test-confined.c: the confined start (read-only root, no capabilities) is
         * not one valgrind can run in. */
        if (getenv("TINCT_DAEMON_WRAPPER")) {
                fprintf(stderr, "    (skipped: the daemon is wrapped, and runs confined here)\n");
                return;
        }
        uid_t uid = system_account();
        if (uid == 0) {
                fprintf(stderr, "    (skipped: no system account to run the daemon as)\n");
                return;
        }
        int saved = daemon_log_begin(&dlog);
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .confined_uid = uid });
        free(daemon_log_end(&dlog, saved));
        stop(h);

        /* STATE/icc is always one of the daemon's profile directories. */
        _cleanup_free_ char *icc = xasprintf("%s/icc", harness_state_dir(h));
        _cleanup_free_ char *sub = xasprintf("%s/sub", icc);
        pf_mkdir(icc);
        pf_mkdir(sub);
        copy_corpus_file("colord-data--sRGB.icc", sub, "a-srgb.icc");
        free(start_logged(h));

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *in_sub = xasprintf("%s/a-srgb.icc", sub);
        _cleanup_free_ char *srgb = must_find(bus, "FindProfileByFilename", in_sub);

        /* The daemon (no capabilities) can no longer list sub; a new file elsewhere shows
         * when the rescan that saw this has run. */
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        assert_se(chmod(sub, 0) == 0);
        copy_corpus_file("colord-data--AdobeRGB1998.icc", icc, "b-adobe.icc");
        recorder_wait(rec, "ProfileAdded", NULL);
        _cleanup_free_ char *in_top = xasprintf("%s/b-adobe.icc", icc);
        free(must_find(bus, "FindProfileByFilename", in_top));
        _cleanup_free_ char *still = must_find(bus, "FindProfileByFilename", in_sub);
        assert_streq(still, srgb);
        assert_se(recorder_find(rec, 0, "ProfileRemoved", NULL, NULL) == (size_t) -1);
        daemon_log_flush(&dlog);

        /* Readable again: a file really deleted there is seen as deleted. */
        assert_se(chmod(sub, 0755) == 0);
        assert_se(unlink(in_sub) == 0);
        size_t i = recorder_wait(rec, "ProfileRemoved", CM_PATH);
        assert_streq(recorder_get(rec, i)->arg0, srgb);
        assert_find_error(bus, "FindProfileByFilename", in_sub, CM_ERR "NotFound");
        h = finish(h);
}

static void copy_corpus_file(const char *name, const char *dir, const char *as);

/* The Model of durable-dev as the database files hold it now: copied as a crash would
 * leave them (tinct.db and its -wal, not the -shm) and read by SQLite, as the next start would. */
static char *stored_model_after_crash(Harness *h) {
        char tmpl[] = "/tmp/tinct-crash-copy-XXXXXX";
        assert_se(mkdtemp(tmpl));
        static const char *const names[] = { "tinct.db", "tinct.db-wal" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *from = xasprintf("%s/%s", harness_state_dir(h), names[i]);
                size_t n;
                _cleanup_free_ uint8_t *data = pf_read(from, &n);
                pf_write_atomic(tmpl, names[i], data, n);
        }
        _cleanup_free_ char *db_path = xasprintf("%s/tinct.db", tmpl);
        sqlite3 *db = NULL;
        assert_se(sqlite3_open(db_path, &db) == SQLITE_OK);
        sqlite3_stmt *st = NULL;
        assert_se(sqlite3_prepare_v2(db, "SELECT value FROM device_properties WHERE device_id = 'durable-dev' "
                                         "AND key = 'Model'", -1, &st, NULL) == SQLITE_OK);
        char *model = NULL;
        if (sqlite3_step(st) == SQLITE_ROW)
                model = strdup((const char *) sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        sqlite3_close(db);
        _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", tmpl);
        assert_se(system(cmd) == 0);
        return model;
}

static void test_rescan_on_full_disk_leaves_no_transaction(void) {
        _cleanup_harness_ Harness *h = start_harness();
        stop(h);
        mount_small_tmpfs(h);
        free(start_logged(h));
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        make_objects(bus);

        /* A new file in the profile directory (not on the full disk) makes a rescan that
         * caches the file's facts, and the commit of that fails. */
        fill_disk(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        copy_corpus_file("colord-data--sRGB.icc", harness_profile_dir(h), "rescan-srgb.icc");
        recorder_wait(rec, "ProfileAdded", CM_PATH);
        /* Answered only once the rescan, whose commit comes after the signal, has ended. */
        _cleanup_free_ char *in_dir = xasprintf("%s/rescan-srgb.icc", harness_profile_dir(h));
        _cleanup_free_ char *found = must_find(bus, "FindProfileByFilename", in_dir);
        free_disk(h);

        _cleanup_free_ char *dev = must_find(bus, "FindDeviceById", "durable-dev");
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, dev, CM_DEVICE_IFACE, "SetProperty", &e, NULL, "ss", "Model", "After"), &e);
        _cleanup_free_ char *model = stored_model_after_crash(h);
        assert_streq(strempty(model), "After");
        /* And the calls that store several rows in one commit work again. */
        free(harness_must_create_device(bus, "durable-after-rescan", "disk", "printer", NO_KV));
        free(harness_must_create_profile(bus, "durable-after-rescan", "disk", KV("Title", "After the rescan")));

        bus = sd_bus_flush_close_unref(bus);
        stop(h);
        unmount_state(h);
        h = finish(h);
}

#define VIRT_KEYS 120

static void test_virtual_promotion_all_or_nothing(void) {
        _cleanup_harness_ Harness *h = start_harness();
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        /* A stored virtual device close to the Metadata bound (128 entries). */
        _cleanup_strv_free_ char **kv = NULL;
        assert_se(strv_extend(&kv, "Mode") >= 0 && strv_extend(&kv, "virtual") >= 0);
        assert_se(strv_extend(&kv, "Model") >= 0 && strv_extend(&kv, "Proof") >= 0);
        for (int i = 0; i < VIRT_KEYS; i++) {
                assert_se(strv_consume(&kv, xasprintf("Old%d", i)) >= 0);
                assert_se(strv_extend(&kv, "x") >= 0);
        }
        _cleanup_free_ char *dev = harness_must_create_device(bus, "durable-virtual", "disk", "printer",
                                                              (const char *const *) kv);
        _cleanup_strv_free_ char **md_before = harness_get_dict(bus, dev, CM_DEVICE_IFACE, "Metadata");
        assert_se(strv_length(md_before) / 2 > VIRT_KEYS);

        /* The real device's properties would add more entries than the bound allows. */
        _cleanup_strv_free_ char **real = NULL;
        assert_se(strv_extend(&real, "Model") >= 0 && strv_extend(&real, "Real") >= 0);
        assert_se(strv_extend(&real, "Vendor") >= 0 && strv_extend(&real, "Acme") >= 0);
        for (int i = 0; i < 128 - VIRT_KEYS; i++) {
                assert_se(strv_consume(&real, xasprintf("New%d", i)) >= 0);
                assert_se(strv_extend(&real, "y") >= 0);
        }
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *again = harness_create_device(bus, "durable-virtual", "disk", "printer",
                                                           (const char *const *) real, &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");

        /* No trace: not promoted, no property taken, nothing stored. */
        for (int pass = 0; pass < 2; pass++) {
                _cleanup_free_ char *mode = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Mode");
                _cleanup_free_ char *model = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Model");
                _cleanup_free_ char *vendor = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Vendor");
                _cleanup_strv_free_ char **md = harness_get_dict(bus, dev, CM_DEVICE_IFACE, "Metadata");
                assert_streq(mode, "virtual");
                assert_streq(model, "Proof");
                assert_streq(vendor, "");
                assert_se(!harness_dict_get(md, "New0"));
                assert_se(strv_length(md) == strv_length(md_before));
                if (pass == 0) {
                        bus = sd_bus_flush_close_unref(bus);
                        stop(h);
                        free(start_logged(h));
                        bus = harness_connect(h);
                }
        }

        /* Within the bound, the same promotion goes through. */
        _cleanup_free_ char *promoted = harness_must_create_device(bus, "durable-virtual", "disk", "printer",
                                                                   KV("Model", "Real", "Vendor", "Acme", "New0", "y"));
        assert_streq(promoted, dev);
        _cleanup_free_ char *mode = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Mode");
        _cleanup_free_ char *model = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Model");
        assert_streq(mode, "physical");
        assert_streq(model, "Real");
        h = finish(h);
}

int main(void) {
        if (geteuid() != 0) {
                fprintf(stderr, "needs root to mount a small tmpfs and a read-only bind mount; skipping\n");
                return 77;
        }
        /* Everything mounted from here on is this test's (and its children's) alone. */
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                fprintf(stderr, "cannot make a private mount namespace (%m); skipping\n");
                return 77;
        }
        RUN(test_full_disk_while_running);
        RUN(test_read_only_start);
        RUN(test_full_disk_at_start);
        RUN(test_rescan_on_full_disk_leaves_no_transaction);
        RUN(test_virtual_promotion_all_or_nothing);
        RUN(test_failed_listing_changes_nothing);
        return 0;
}
