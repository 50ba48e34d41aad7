/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-bench-startup: starts a colour daemon (tinctd, or Debian's colord in a private
 * mount namespace) on the bus in $DBUS_SYSTEM_BUS_ADDRESS and measures
 *  - the time from fork() to the bus name appearing (NameOwnerChanged), to tinctd's
 *    READY=1 on --ready-fd, and to the first GetProfiles answer whose length equals
 *    --expect (the number of distinct ICC files given to the daemon): "startup"; tinctd
 *    answers completely once READY=1 is out, so a shorter answer then is an error at once,
 *    and colord is given --timeout seconds (default 120);
 *  - the daemon's VmRSS and VmHWM (/proc/PID/status) at that moment;
 * then optionally runs a command (the load generator) while the daemon is up, with
 * TINCT_BENCH_DAEMON_PID in its environment, and stops the daemon with SIGTERM.
 *
 * colord cannot be pointed at directories: it scans /usr/share/color/icc (and
 * /usr/local/share/color/icc, /var/lib/color/icc) and keeps its databases in
 * /var/lib/colord. So the child enters a new mount namespace with private propagation
 * and bind-mounts --profile-dir over /usr/share/color/icc and --state-dir over
 * /var/lib/colord (tmpfs over the other two), then execs colord: the machine's real
 * directories are never touched, and the namespace set-up (well under a millisecond) is
 * inside colord's figure.
 *
 * Deliberately not measured: a cold page cache (the profile files were just written, so
 * both daemons read them from memory; dropping the caches would disturb everything else
 * on the machine), and colord's udev/sane plugin work is included because it is part of
 * colord's start (tinctd runs with --no-udev; there is no real hardware here). */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-util.h"
#include "cm-names.h"
#include "macro.h"
#include "strv.h"

/* The default of --timeout: colord takes about 10 s for 5000 profiles; tinctd is ready long
 * before. A benchmark that cannot get its answer says so instead of waiting on. */
#define DEFAULT_TIMEOUT_SEC 120
#define READY_FD 3

typedef struct Options {
        bool colord;
        const char *binary;
        const char *state_dir;
        const char *profile_dir;
        const char *log;
        const char *key;
        size_t expect;
        uint64_t timeout_nsec;
        char **command;
} Options;

typedef struct NameWatch {
        bool owned;
        bool released;
} NameWatch;

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        NameWatch *w = userdata;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, CM_NAME))
                return 0;
        if (!isempty(new_owner))
                w->owned = true;
        else
                w->released = true;
        return 0;
}

static int name_has_owner(sd_bus *bus, bool *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int has, r;

        r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &error, &reply, "s", CM_NAME);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "b", &has);
        if (r < 0)
                return r;
        *ret = has;
        return 0;
}

/* In the child, before exec: colord's private view of the file system. */
static int colord_namespace(const Options *o) {
        static const char *const extra[] = { "/usr/local/share/color/icc", "/var/lib/color/icc" };
        _cleanup_free_ char *icc = NULL;

        if (asprintf(&icc, "%s/icc", o->state_dir) < 0)
                return -ENOMEM;
        if (mkdir(icc, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (unshare(CLONE_NEWNS) < 0)
                return -errno;
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return -errno;
        if (mount(o->state_dir, "/var/lib/colord", NULL, MS_BIND, NULL) < 0)
                return -errno;
        if (mount(o->profile_dir, "/usr/share/color/icc", NULL, MS_BIND, NULL) < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(extra); i++)
                if (access(extra[i], F_OK) == 0 && mount("tmpfs", extra[i], "tmpfs", 0, "mode=0755") < 0)
                        return -errno;
        return 0;
}

static _Noreturn void child_exec(const Options *o, int ready_fd) {
        _cleanup_strv_free_ char **argv = NULL;
        int r = 0;

        (void) setpgid(0, 0);
        (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (o->log) {
                int fd = open(o->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (fd >= 0) {
                        (void) dup2(fd, STDOUT_FILENO);
                        (void) dup2(fd, STDERR_FILENO);
                }
        }
        if (o->colord) {
                r = colord_namespace(o);
                if (r < 0) {
                        fprintf(stderr, "setting up colord's mount namespace: %s\n", strerror(-r));
                        _exit(127);
                }
                r |= strv_extend(&argv, o->binary);
        } else {
                if (dup2(ready_fd, READY_FD) < 0)
                        _exit(127);
                r |= strv_extend(&argv, o->binary);
                r |= strv_extend(&argv, "--state-dir");
                r |= strv_extend(&argv, o->state_dir);
                r |= strv_extend(&argv, "--profile-dir");
                r |= strv_extend(&argv, o->profile_dir);
                r |= strv_extend(&argv, "--no-udev");
                r |= strv_extend(&argv, "--ready-fd");
                r |= strv_extend(&argv, "3");
        }
        if (r < 0)
                _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "exec %s: %m\n", argv[0]);
        _exit(127);
}

static int count_profiles(sd_bus *bus, size_t *ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        int r;

        r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "GetProfiles", &error, &reply, NULL);
        if (r < 0) {
                /* The name can be owned a moment before the object answers. */
                if (sd_bus_error_has_name(&error, "org.freedesktop.DBus.Error.UnknownObject") ||
                    sd_bus_error_has_name(&error, "org.freedesktop.DBus.Error.UnknownMethod"))
                        return -EAGAIN;
                fprintf(stderr, "GetProfiles: %s\n", error.message ?: strerror(-r));
                return r;
        }
        r = sd_bus_message_read_strv(reply, &paths);
        if (r < 0)
                return r;
        *ret = strv_length(paths);
        return 0;
}

static int stop_daemon(pid_t pid) {
        int status = 0;

        (void) kill(-pid, SIGTERM);
        for (unsigned i = 0; i < 1000; i++) {
                pid_t w = waitpid(pid, &status, WNOHANG);
                if (w == pid) {
                        /* Helpers (colord-sane) go with the process group. */
                        (void) kill(-pid, SIGKILL);
                        return status;
                }
                usleep(10000);
        }
        fprintf(stderr, "daemon %d did not exit on SIGTERM within 10 s, killing it\n", (int) pid);
        (void) kill(-pid, SIGKILL);
        (void) waitpid(pid, &status, 0);
        return status;
}

static int run_command(char **command, pid_t daemon_pid) {
        char pidstr[32];
        int status;
        pid_t pid;

        snprintf(pidstr, sizeof pidstr, "%d", (int) daemon_pid);
        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                (void) setenv("TINCT_BENCH_DAEMON_PID", pidstr, 1);
                execvp(command[0], command);
                fprintf(stderr, "exec %s: %m\n", command[0]);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0)
                return -errno;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int parse_argv(int argc, char **argv, Options *o) {
        enum { ARG_DAEMON = 0x100, ARG_BINARY, ARG_STATE, ARG_PROFILES, ARG_EXPECT, ARG_KEY, ARG_LOG, ARG_TIMEOUT };
        static const struct option options[] = {
                { "daemon", required_argument, NULL, ARG_DAEMON },
                { "binary", required_argument, NULL, ARG_BINARY },
                { "state-dir", required_argument, NULL, ARG_STATE },
                { "profile-dir", required_argument, NULL, ARG_PROFILES },
                { "expect", required_argument, NULL, ARG_EXPECT },
                { "key", required_argument, NULL, ARG_KEY },
                { "log", required_argument, NULL, ARG_LOG },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0)
                switch (c) {
                case ARG_DAEMON:
                        if (streq(optarg, "colord"))
                                o->colord = true;
                        else if (!streq(optarg, "tinctd")) {
                                fprintf(stderr, "--daemon must be tinctd or colord\n");
                                return -EINVAL;
                        }
                        break;
                case ARG_BINARY:
                        o->binary = optarg;
                        break;
                case ARG_STATE:
                        o->state_dir = optarg;
                        break;
                case ARG_PROFILES:
                        o->profile_dir = optarg;
                        break;
                case ARG_EXPECT:
                        if (parse_size(optarg, &o->expect) < 0) {
                                fprintf(stderr, "invalid --expect: %s\n", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_KEY:
                        o->key = optarg;
                        break;
                case ARG_LOG:
                        o->log = optarg;
                        break;
                case ARG_TIMEOUT: {
                        size_t sec;
                        if (parse_size(optarg, &sec) < 0 || sec == 0 || sec > 3600) {
                                fprintf(stderr, "invalid --timeout (1..3600 s): %s\n", optarg);
                                return -EINVAL;
                        }
                        o->timeout_nsec = sec * NSEC_PER_SEC;
                        break;
                }
                case 'h':
                        printf("tinct-bench-startup --daemon tinctd|colord --binary PATH --state-dir DIR\n"
                               "        --profile-dir DIR --expect N [--key KEY] [--log FILE] [--timeout SEC]\n"
                               "        [-- COMMAND...]\n");
                        exit(0);
                default:
                        return -EINVAL;
                }
        if (!o->binary || !o->state_dir || !o->profile_dir) {
                fprintf(stderr, "--binary, --state-dir and --profile-dir are required\n");
                return -EINVAL;
        }
        if (o->colord && geteuid() != 0) {
                fprintf(stderr, "running colord in a private mount namespace needs root\n");
                return -EPERM;
        }
        o->command = optind < argc ? argv + optind : NULL;
        return 0;
}

int main(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        Options o = { .key = "run", .timeout_nsec = DEFAULT_TIMEOUT_SEC * NSEC_PER_SEC };
        NameWatch watch = {};
        uint64_t t0, deadline, t_name = 0, t_ready = 0, t_ok = 0, rss = 0, hwm = 0;
        int ready_pipe[2] = { -1, -1 }, r, ret = 1, status;
        size_t polls = 0, count = 0;
        bool has, exited = false;
        pid_t pid;

        if (parse_argv(argc, argv, &o) < 0)
                return 2;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "connecting to %s: %s\n", strempty(getenv("DBUS_SYSTEM_BUS_ADDRESS")), strerror(-r));
                return 1;
        }
        r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                "NameOwnerChanged", on_name_owner_changed, &watch);
        if (r < 0) {
                fprintf(stderr, "AddMatch: %s\n", strerror(-r));
                return 1;
        }
        /* The previous daemon's name must be gone, or the new one could not take it. */
        deadline = now_nsec() + 10 * NSEC_PER_SEC;
        for (;;) {
                r = name_has_owner(bus, &has);
                if (r < 0) {
                        fprintf(stderr, "NameHasOwner: %s\n", strerror(-r));
                        return 1;
                }
                if (!has)
                        break;
                if (now_nsec() > deadline) {
                        fprintf(stderr, "%s is still owned by someone else\n", CM_NAME);
                        return 1;
                }
                (void) sd_bus_process(bus, NULL);
                (void) sd_bus_wait(bus, 10000);
        }
        watch = (NameWatch) {};

        if (!o.colord && pipe2(ready_pipe, O_CLOEXEC) < 0)
                return 1;

        t0 = now_nsec();
        pid = fork();
        if (pid < 0)
                return 1;
        if (pid == 0)
                child_exec(&o, ready_pipe[1]);
        (void) setpgid(pid, pid);
        if (ready_pipe[1] >= 0)
                close(ready_pipe[1]);

        deadline = t0 + o.timeout_nsec;
        /* Wait for the name (and tinctd's READY=1), watching for an early exit. */
        while (t_name == 0 || (!o.colord && t_ready == 0)) {
                struct pollfd p[2] = {
                        { .fd = sd_bus_get_fd(bus), .events = (short) sd_bus_get_events(bus) },
                        { .fd = ready_pipe[0], .events = POLLIN },
                };
                char buf[16];

                while ((r = sd_bus_process(bus, NULL)) > 0)
                        ;
                if (r < 0) {
                        fprintf(stderr, "sd_bus_process: %s\n", strerror(-r));
                        goto stop;
                }
                if (watch.owned && t_name == 0)
                        t_name = now_nsec();
                if (t_name != 0 && (o.colord || t_ready != 0))
                        break;
                if (waitpid(pid, &status, WNOHANG) == pid) {
                        fprintf(stderr, "the daemon exited during start-up (status 0x%x)\n", (unsigned) status);
                        exited = true;
                        goto stop;
                }
                if (now_nsec() > deadline) {
                        fprintf(stderr, "timed out after %llu s waiting for the daemon to start\n",
                                (unsigned long long) (o.timeout_nsec / NSEC_PER_SEC));
                        goto stop;
                }
                r = poll(p, ready_pipe[0] >= 0 ? 2 : 1, 10);
                if (r > 0 && ready_pipe[0] >= 0 && p[1].revents) {
                        ssize_t k = read(ready_pipe[0], buf, sizeof buf);
                        if (k > 0 && memmem(buf, (size_t) k, "READY=1", 7))
                                t_ready = now_nsec();
                        else if (k == 0) {
                                close(ready_pipe[0]);
                                ready_pipe[0] = -1;
                                if (t_ready == 0) {
                                        fprintf(stderr, "tinctd closed its ready fd without READY=1\n");
                                        goto stop;
                                }
                        }
                }
        }

        /* Then ask until the answer is complete. */
        for (;;) {
                polls++;
                r = count_profiles(bus, &count);
                if (r >= 0 && count == o.expect) {
                        t_ok = now_nsec();
                        break;
                }
                if (r < 0 && r != -EAGAIN)
                        goto stop;
                /* tinctd loads every profile before READY=1: a short answer after it is final
                 * (profiles were skipped: see its log), and waiting would never end. colord
                 * loads after taking its name, so it is asked until the deadline. */
                if (r >= 0 && !o.colord && count < o.expect) {
                        fprintf(stderr, "tinctd is ready with %zu profiles, not the %zu expected: it skipped some "
                                "(is tinct-parse beside it? see %s)\n", count, o.expect, o.log ?: "its stderr");
                        goto stop;
                }
                if (now_nsec() > deadline) {
                        fprintf(stderr, "GetProfiles still returns %zu profiles, expected %zu\n", count, o.expect);
                        goto stop;
                }
                if (count > o.expect) {
                        fprintf(stderr, "GetProfiles returns %zu profiles, more than the %zu expected\n",
                                count, o.expect);
                        goto stop;
                }
                usleep(2000);
        }
        r = proc_memory_kib(pid, &rss, &hwm);
        if (r < 0) {
                fprintf(stderr, "reading the daemon's memory: %s\n", strerror(-r));
                goto stop;
        }

        result_printf((double) (t_ok - t0) / NSEC_PER_MSEC, "ms", "startup.%s.ms", o.key);
        result_printf((double) (t_name - t0) / NSEC_PER_MSEC, "ms", "startup.%s.name-ms", o.key);
        if (t_ready)
                result_printf((double) (t_ready - t0) / NSEC_PER_MSEC, "ms", "startup.%s.ready-ms", o.key);
        result_printf((double) polls, "calls", "startup.%s.getprofiles-calls", o.key);
        result_printf((double) rss, "KiB", "startup.%s.rss", o.key);
        result_printf((double) hwm, "KiB", "startup.%s.hwm", o.key);

        ret = 0;
        if (o.command) {
                r = run_command(o.command, pid);
                if (r != 0) {
                        fprintf(stderr, "%s exited with %d\n", o.command[0], r);
                        ret = r < 0 ? 1 : r;
                }
        }
stop:
        if (ready_pipe[0] >= 0)
                close(ready_pipe[0]);
        if (!exited) {
                status = stop_daemon(pid);
                if (!o.colord && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                        fprintf(stderr, "note: tinctd exited with status 0x%x on SIGTERM\n", (unsigned) status);
        }
        return ret;
}
