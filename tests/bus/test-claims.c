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

static Harness *H _unused_; /* for the callbacks running as nobody */

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

int main(void) {
        RUN(test_parser_missing);
        return 0;
}
