/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of what the daemon is told and must not simply believe (issue 19): a parser
 * that cannot be started is a start-up error (one message naming its path, exit status
 * not 0, the bus name never taken); file names that are not UTF-8 never reach the bus and
 * never break a listing; CreateProfileWithFd's Filename is checked against the passed fd
 * where the daemon can stat it, and otherwise answers only its caller's lookups
 * (docs/compatibility.md). tinct-only behaviour: skipped against colord. */

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-test.h"
#include "fileio.h"

extern char **environ;

static Harness *H; /* for the callbacks running as nobody */

/* --- a parser that cannot start --------------------------------------------------- */

/* Processes the bus until the child exits or CM_NAME gets an owner; true in that case. The
 * match is added before the child starts, so no NameOwnerChanged can be missed. */
static bool wait_exit_watching_name(sd_bus *bus, pid_t pid, int *ret_status) {
        bool taken = false;
        int pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        assert_se(pidfd >= 0);
        for (;;) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
                int r = sd_bus_process(bus, &m);
                assert_se(r >= 0);
                if (m && sd_bus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged")) {
                        const char *name, *old, *new;
                        assert_se(sd_bus_message_read(m, "sss", &name, &old, &new) >= 0);
                        if (streq(name, CM_NAME) && !isempty(new))
                                taken = true;
                }
                if (taken) {
                        /* the old behaviour: "Ready" without a parser; stop it to fail at once */
                        (void) kill(pid, SIGTERM);
                        break;
                }
                if (r > 0)
                        continue;
                struct pollfd p[2] = {
                        { .fd = pidfd, .events = POLLIN },
                        { .fd = sd_bus_get_fd(bus), .events = (short) sd_bus_get_events(bus) },
                };
                assert_se(poll(p, 2, -1) > 0 || errno == EINTR);
                if (p[0].revents)
                        break;
        }
        close(pidfd);
        assert_se(waitpid(pid, ret_status, 0) == pid);
        /* Whatever the bus sent before the exit has arrived once a call to it returns. */
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        assert_se(sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                     "GetId", NULL, &reply, "") >= 0);
        for (;;) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
                int r = sd_bus_process(bus, &m);
                assert_se(r >= 0);
                if (m && sd_bus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged")) {
                        const char *name, *old, *new;
                        assert_se(sd_bus_message_read(m, "sss", &name, &old, &new) >= 0);
                        if (streq(name, CM_NAME) && !isempty(new))
                                taken = true;
                }
                if (r == 0)
                        break;
        }
        return taken;
}

static void test_parser_missing(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        SKIP_ON_COLORD(h, "tinctd's --parse-helper");
        /* Files to parse: before the fix the daemon said "Ready" and failed each of them. */
        _cleanup_free_ char *srgb = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *t61 = harness_corpus_file("colord-tests--ibm-t61.icc");
        harness_install_profile(h, srgb, "a.icc");
        harness_install_profile(h, t61, "b.icc");
        assert_se(harness_stop_daemon(h) == 0);

        _cleanup_free_ char *missing = xasprintf("%s/no-such-dir/tinct-parse", harness_tmp_dir(h));
        _cleanup_free_ char *state = xasprintf("%s/state-missing-parser", harness_tmp_dir(h));
        _cleanup_free_ char *log = xasprintf("%s/missing-parser.log", harness_tmp_dir(h));
        assert_se(mkdir(state, 0700) == 0);

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        assert_se(sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "NameOwnerChanged", NULL, NULL) >= 0);

        posix_spawn_file_actions_t fa;
        assert_se(posix_spawn_file_actions_init(&fa) == 0);
        assert_se(posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0600) == 0);
        char *argv[] = { getenv("TINCTD"), (char *) "--state-dir", state, (char *) "--profile-dir",
                         (char *) harness_profile_dir(h), (char *) "--no-udev", (char *) "--parse-helper", missing, NULL };
        pid_t pid;
        assert_se(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0);
        posix_spawn_file_actions_destroy(&fa);

        int status;
        bool taken = wait_exit_watching_name(bus, pid, &status);
        assert_se(!taken);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) != 0);

        _cleanup_free_ char *text = NULL;
        size_t size;
        assert_se(read_file_capped(log, 1 << 20, 0, (uint8_t **) &text, &size, NULL) >= 0);
        fprintf(stderr, "    tinctd said: %.*s", (int) size, text);
        /* one line, naming the path; nothing about the profile files */
        assert_se(size > 0 && memchr(text, '\n', size) == text + size - 1);
        assert_se(strstr(text, missing));
        assert_se(!strstr(text, "a.icc") && !strstr(text, "b.icc"));
}

/* --- CreateProfileWithFd's Filename -------------------------------------------------- */

/* Files of one run: a directory every user may enter with nobody's readable copy of a
 * profile and a root-only file; and a path the daemon cannot stat (`unseen`). */
typedef struct Claims {
        char *dir;
        char *copy;    /* nobody's own readable copy */
        char *secret;  /* root's, mode 0600 */
        char *unseen;  /* a profile path the daemon cannot check */
        char *held;    /* an unseen path that root's profile will hold */
        const char *suffix; /* makes ids unique per run */
        bool restarted;     /* only the disk profile is left */
} Claims;

static int create_fd_as_caller(sd_bus *bus, const Claims *c, const char *id, const char *filename,
                               const char *scope, sd_bus_error *e, char **ret_path) {
        _cleanup_close_ int fd = open(c->copy, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        int r;
        _cleanup_free_ char *full = xasprintf("%s-%s", id, c->suffix);
        *ret_path = harness_create_profile_fd(bus, full, scope, fd, KV("Filename", filename), e, &r);
        return r;
}

static char *lookup(sd_bus *bus, const char *filename) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, "FindProfileByFilename", filename, &e);
        if (!p)
                assert_bus_error(-1, &e, CM_ERR "NotFound");
        return p;
}

static int nobody_claims(sd_bus *bus, void *userdata) {
        const Claims *c = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *lie = NULL, *honest = NULL, *claim = NULL, *held = NULL;

        /* a lie the daemon can see through: refused, nothing made */
        int r = create_fd_as_caller(bus, c, "claim-lie", c->secret, "normal", &e, &lie);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        assert_se(strstr(e.message, c->secret));
        sd_bus_error_free(&e);
        _cleanup_free_ char *none = lookup(bus, c->secret);
        assert_se(!none);

        /* an honest claim: the caller's own readable copy */
        r = create_fd_as_caller(bus, c, "claim-honest", c->copy, "normal", &e, &honest);
        assert_bus_ok(r, &e);

        /* one the daemon cannot check: accepted as nobody's claim, answering nobody */
        r = create_fd_as_caller(bus, c, "claim-unseen", c->unseen, "disk", &e, &claim);
        assert_bus_ok(r, &e);
        _cleanup_free_ char *mine = lookup(bus, c->unseen);
        assert_streq(mine, claim);
        _cleanup_free_ char *fn = harness_get_string(bus, claim, CM_PROFILE_IFACE, "Filename");
        assert_streq(fn, c->unseen);

        /* a claim of the path root's profile holds: made, but never shadows root's */
        r = create_fd_as_caller(bus, c, "claim-held", c->held, "normal", &e, &held);
        assert_bus_ok(r, &e);
        return 0;
}

static int nobody_looks_up(sd_bus *bus, void *userdata) {
        const Claims *c = userdata;
        _cleanup_free_ char *mine = lookup(bus, c->unseen), *held = lookup(bus, c->held);
        _cleanup_free_ char *want = xasprintf(PROF_PATH("claim_unseen_%s_nobody_65534"), c->suffix);
        assert_streq(mine, want);
        if (c->restarted)
                return 0;
        /* the checked (root's) profile wins over nobody's own claim of the same path */
        _cleanup_free_ char *root_held = xasprintf(PROF_PATH("claim_root_held_%s"), c->suffix);
        assert_streq(held, root_held);
        return 0;
}

static void run_claims(Harness *h, Claims *c) {
        H = h;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *icc = harness_corpus_file("colord-tests--ibm-t61.icc");
        _cleanup_free_ char *cmd = xasprintf("install -m 0644 '%s' '%s' && printf secret > '%s' && chmod 0600 '%s'",
                                             icc, c->copy, c->secret, c->secret);
        assert_se(system(cmd) == 0);

        /* root holds c->held first: root's word stands where nothing can be checked */
        _cleanup_close_ int fd = open(c->copy, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *root_id = xasprintf("claim-root-held-%s", c->suffix);
        _cleanup_free_ char *root_held = harness_create_profile_fd(bus, root_id, "normal", fd, KV("Filename", c->held),
                                                                   &e, &r);
        assert_bus_ok(r, &e);

        assert_se(harness_run_as_nobody(h, nobody_claims, c) == 0);

        /* root: nobody's lie and nobody's unchecked claim answer nothing; the honest one does */
        _cleanup_free_ char *lie = lookup(bus, c->secret), *unseen = lookup(bus, c->unseen);
        assert_se(!lie && !unseen);
        _cleanup_free_ char *honest = lookup(bus, c->copy);
        _cleanup_free_ char *want_honest = xasprintf(PROF_PATH("claim_honest_%s_nobody_65534"), c->suffix);
        assert_streq(honest, want_honest);
        _cleanup_free_ char *held = lookup(bus, c->held);
        assert_streq(held, root_held);
        /* the base name alone follows the same rule */
        const char *base = strrchr(c->unseen, '/') + 1;
        _cleanup_free_ char *by_base = lookup(bus, base);
        assert_se(!by_base);
        assert_se(harness_run_as_nobody(h, nobody_looks_up, c) == 0);

        /* a disk claim stays a claim after a restart (the daemon has no fd to check then) */
        assert_se(harness_restart_daemon(h) == 0);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus2 = harness_connect(h);
        _cleanup_free_ char *after = lookup(bus2, c->unseen);
        assert_se(!after);
        c->restarted = true;
        assert_se(harness_run_as_nobody(h, nobody_looks_up, c) == 0);
}

static Claims *claims_new(const char *suffix) {
        Claims *c = calloc(1, sizeof *c);
        assert_se(c);
        c->dir = strdup("/tmp/tinct-claims-XXXXXX");
        assert_se(c->dir && mkdtemp(c->dir) && chmod(c->dir, 0755) == 0);
        c->copy = xasprintf("%s/mine.icc", c->dir);
        c->secret = xasprintf("%s/secret", c->dir);
        c->suffix = suffix;
        return c;
}

static void claims_free(Claims *c) {
        _cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", c->dir);
        assert_se(system(cmd) == 0);
        free(c->dir);
        free(c->copy);
        free(c->secret);
        free(c->unseen);
        free(c->held);
        free(c);
}

/* tinctd as root sees every file; a path below a directory that does not exist is one it
 * cannot check (ENOENT), as a confined daemon cannot check a home directory. */
static void test_claims_root_daemon(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        SKIP_ON_COLORD(h, "colord believes any Filename");
        Claims *c = claims_new("r");
        c->unseen = xasprintf("%s/gone/home/alice/icc/alice.icc", c->dir);
        c->held = xasprintf("%s/gone/home/root/held.icc", c->dir);
        run_claims(h, c);
        claims_free(c);
}

/* A system account that is neither root nor nobody (as test-confined.c picks it). */
static uid_t system_account(void) {
        static const char *const names[] = { "daemon", "backup", "www-data", "list", NULL };
        for (const char *const *n = names; *n; n++) {
                struct passwd *pw = getpwnam(*n);
                if (pw && pw->pw_uid != 0 && pw->pw_uid != 65534)
                        return pw->pw_uid;
        }
        return 0;
}

/* As production runs it: tinctd as its own user, and a directory it may not read (mode
 * 0700, root's), like another user's home. */
static void test_claims_confined_daemon(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord") || getenv("TINCT_DAEMON_WRAPPER") || geteuid() != 0 ||
            system("unshare -m true") != 0 || system_account() == 0) {
                fprintf(stderr, "    (skipped: needs root, a mount namespace, a system account, no wrapper)\n");
                return;
        }
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .confined_uid = system_account() });
        Claims *c = claims_new("c");
        _cleanup_free_ char *closed = xasprintf("%s/closed", c->dir);
        assert_se(mkdir(closed, 0700) == 0);
        c->unseen = xasprintf("%s/alice.icc", closed);
        c->held = xasprintf("%s/held.icc", closed);
        run_claims(h, c);
        claims_free(c);
}

/* --- file names that are not UTF-8 ------------------------------------------------- */

#define BAD_NAME "bad\xff\xfeutf8.icc"
#define NEWLINE_NAME "new\nline.icc"

/* Debian's colormgr lists every profile with every property (tests/compat/). */
static int colormgr_lists(sd_bus *bus, void *userdata) {
        return system("colormgr get-profiles >/dev/null") == 0 ? 0 : -1;
}

static void getall_works(sd_bus *bus, const char *path) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = harness_call(bus, path, "org.freedesktop.DBus.Properties", "GetAll", &e, &reply, "s", CM_PROFILE_IFACE);
        assert_bus_ok(r, &e);
}

static void test_names_not_utf8(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        SKIP_ON_COLORD(h, "colord lists such a file and breaks GetAll");
        _cleanup_free_ char *t61 = harness_corpus_file("colord-tests--ibm-t61.icc");
        _cleanup_free_ char *srgb = harness_corpus_file("colord-data--sRGB.icc");
        harness_install_profile(h, t61, BAD_NAME);
        harness_install_profile(h, srgb, NEWLINE_NAME);
        /* read at start-up, and again by the directory watch after a restart's scan */
        assert_se(harness_restart_daemon(h) == 0);

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_strv_free_ char **profiles = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        bool newline_seen = false;
        STRV_FOREACH(p, profiles) {
                getall_works(bus, *p);
                _cleanup_free_ char *fn = harness_get_string(bus, *p, CM_PROFILE_IFACE, "Filename");
                assert_se(!strstr(fn, "\xff"));
                if (strstr(fn, NEWLINE_NAME))
                        newline_seen = true;
        }
        /* a newline is valid UTF-8: that file is served, its name as it is */
        assert_se(newline_seen);
        /* the other is skipped (logged): sd-bus cannot send its name */
        assert_se(strv_length(profiles) == 1);

        if (access("/usr/bin/colormgr", X_OK) == 0) {
                assert_se(system("colormgr get-profiles >/dev/null") == 0);
                assert_se(harness_run_as_nobody(h, colormgr_lists, NULL) == 0);
        } else
                fprintf(stderr, "    (colormgr not installed: its part skipped)\n");
}

/* DMI strings are bytes from sysfs (a fake tree here, --sysfs-root): SystemVendor and
 * SystemModel are escaped when they are not UTF-8, and the manager's GetAll works. */
static void test_dmi_not_utf8(void) {
        char root[] = "/tmp/tinct-claims-dmi-XXXXXX";
        assert_se(mkdtemp(root));
        _cleanup_free_ char *cmd = xasprintf("mkdir -p '%s/sys/class/dmi/id' && printf 'Vend\\377or\\n' > '%s/sys/class/dmi/id/sys_vendor'"
                                             " && printf 'Mod\\376el\\n' > '%s/sys/class/dmi/id/product_name'", root, root, root);
        assert_se(system(cmd) == 0);
        const char *const args[] = { "--sysfs-root", root, NULL };
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .extra_args = args });
        if (!harness_is_colord(h)) {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                int r = harness_call(bus, CM_PATH, "org.freedesktop.DBus.Properties", "GetAll", &e, &reply, "s", CM_IFACE);
                assert_bus_ok(r, &e);
                _cleanup_free_ char *vendor = harness_get_string(bus, CM_PATH, CM_IFACE, "SystemVendor");
                _cleanup_free_ char *model = harness_get_string(bus, CM_PATH, CM_IFACE, "SystemModel");
                assert_streq(vendor, "Vend\\xffor");
                assert_streq(model, "Mod\\xfeel");
        }
        _cleanup_free_ char *rm = xasprintf("rm -rf '%s'", root);
        assert_se(system(rm) == 0);
}

int main(void) {
        RUN(test_parser_missing);
        RUN(test_names_not_utf8);
        RUN(test_dmi_not_utf8);
        RUN(test_claims_root_daemon);
        RUN(test_claims_confined_daemon);
        return 0;
}
