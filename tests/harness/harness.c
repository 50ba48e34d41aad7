/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test harness: private system bus + fake polkit + the daemon under test, in one
 * temporary directory, and the sd-bus helpers the bus tests share. See harness.h for
 * the contract. Limits: one harness per test process at a time; aborts (rather than
 * returning errors) on anything that is the harness's own failure, so a broken
 * environment never looks like a passing test. */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "strv.h"
#include "time-util.h"
#include "tests.h"

#ifndef HARNESS_SOURCE_DIR
#define HARNESS_SOURCE_DIR "."
#endif

#define STEP_TIMEOUT_USEC (120ULL * 1000 * 1000)

struct Harness {
        char *tmp;
        char *state_dir;
        char *profile_dir;
        char *polkit_log;
        char *syscall_list;     /* unit_syscall_filter: the allowed calls, one per line */
        char *address;
        bool colord;
        HarnessOptions opts;
        pid_t bus_pid;
        pid_t polkit_pid;
        pid_t daemon_pid;
        int daemon_status;
        bool daemon_reaped;
};

/* For the fatal-signal cleanup: plain globals, read from the handler. */
static volatile pid_t owner_pid;
static volatile pid_t child_pids[3];
static char cleanup_dir[PATH_MAX];

static void fatal(const char *fmt, ...) _printf_(1, 2);
static void fatal(const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "harness: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n");
        abort();
}

static void emergency_cleanup(int sig) {
        static const char msg[] = "harness: overall test timeout, killing everything\n";

        if (getpid() != owner_pid) {
                signal(sig, SIG_DFL);
                raise(sig);
                return;
        }
        if (sig == SIGALRM)
                (void) !write(STDERR_FILENO, msg, sizeof(msg) - 1);
        for (size_t i = 0; i < ELEMENTSOF(child_pids); i++)
                if (child_pids[i] > 0)
                        kill(child_pids[i], SIGKILL);
        if (child_pids[2] > 0)
                kill(-child_pids[2], SIGKILL);
        if (cleanup_dir[0]) {
                pid_t pid = fork();
                if (pid == 0) {
                        execl("/bin/rm", "rm", "-rf", cleanup_dir, (char *) NULL);
                        _exit(127);
                }
                if (pid > 0)
                        (void) waitpid(pid, NULL, 0);
        }
        signal(SIGABRT, SIG_DFL);
        abort();
}

static char *xstrdup(const char *s) {
        char *t = strdup(s);
        if (!t)
                fatal("out of memory");
        return t;
}

static char *xasprintf(const char *fmt, ...) _printf_(1, 2);
static char *xasprintf(const char *fmt, ...) {
        va_list ap;
        char *s;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (r < 0)
                fatal("out of memory");
        return s;
}

static char *read_file(const char *path, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        char *buf = NULL;
        size_t n = 0, cap = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                fatal("cannot open %s: %m", path);
        for (;;) {
                if (n + 4096 + 1 > cap) {
                        cap = (n + 4096 + 1) * 2;
                        buf = realloc(buf, cap);
                        if (!buf)
                                fatal("out of memory");
                }
                ssize_t k = read(fd, buf + n, cap - n - 1);
                if (k < 0)
                        fatal("cannot read %s: %m", path);
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        buf[n] = 0;
        if (ret_size)
                *ret_size = n;
        return buf;
}

static void write_file(const char *path, const char *data, size_t len, mode_t mode) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

        if (fd < 0)
                fatal("cannot create %s: %m", path);
        while (len > 0) {
                ssize_t k = write(fd, data, len);
                if (k < 0)
                        fatal("cannot write %s: %m", path);
                data += k;
                len -= (size_t) k;
        }
}

/* Reads one line from fd (until '\n'), waiting at most until deadline. On EOF first
 * (the writer died) or timeout, aborts with a message naming what was awaited. */
static char *read_line(int fd, uint64_t deadline, const char *what) {
        char buf[4096];
        size_t n = 0;

        for (;;) {
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline)
                        fatal("timed out waiting for %s", what);
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int r = poll(&p, 1, (int) ((deadline - t) / 1000) + 1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        fatal("poll: %m");
                if (r == 0)
                        continue;
                ssize_t k = read(fd, buf + n, sizeof(buf) - 1 - n);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        fatal("reading %s: %m", what);
                if (k == 0)
                        fatal("EOF while waiting for %s (the process died?)", what);
                n += (size_t) k;
                buf[n] = 0;
                char *nl = strchr(buf, '\n');
                if (nl) {
                        *nl = 0;
                        return xstrdup(buf);
                }
                if (n >= sizeof(buf) - 1)
                        fatal("overlong line while waiting for %s", what);
        }
}

/* fork+exec argv with the environment of this process; pass_fd (if >= 0) becomes fd 3
 * in the child; stdout_fd (if >= 0) becomes its stdout. The child dies with us. */
static pid_t spawn_full(char *const argv[], int pass_fd, int stdout_fd, int stderr_fd, bool new_group) {
        pid_t pid = fork();

        if (pid < 0)
                fatal("fork: %m");
        if (pid == 0) {
                if (new_group)
                        (void) setpgid(0, 0);
                (void) prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (getppid() != owner_pid)
                        _exit(127);
                int devnull = open("/dev/null", O_RDONLY);
                if (devnull >= 0 && devnull != STDIN_FILENO) {
                        dup2(devnull, STDIN_FILENO);
                        close(devnull);
                }
                if (stdout_fd >= 0)
                        dup2(stdout_fd, STDOUT_FILENO);
                if (stderr_fd >= 0)
                        dup2(stderr_fd, STDERR_FILENO);
                if (pass_fd == 3)
                        (void) fcntl(3, F_SETFD, 0);
                else if (pass_fd >= 0)
                        dup2(pass_fd, 3);  /* dup2 clears O_CLOEXEC on fd 3 */
                sigset_t mask;
                sigemptyset(&mask);
                sigprocmask(SIG_SETMASK, &mask, NULL);
                execvp(argv[0], argv);
                fprintf(stderr, "harness: cannot execute %s: %m\n", argv[0]);
                _exit(127);
        }
        return pid;
}

static pid_t spawn(char *const argv[], int pass_fd, int stdout_fd) {
        return spawn_full(argv, pass_fd, stdout_fd, -1, false);
}

static void remember_child(size_t slot, pid_t pid) {
        child_pids[slot] = pid;
}

static int wait_child(pid_t pid, const char *what) {
        int status;

        for (;;) {
                pid_t r = waitpid(pid, &status, 0);
                if (r == pid)
                        return status;
                if (r < 0 && errno == EINTR)
                        continue;
                fatal("waitpid(%s): %m", what);
        }
}

static void terminate_child(pid_t *pid, size_t slot, const char *what) {
        if (*pid <= 0)
                return;
        kill(*pid, SIGTERM);
        (void) wait_child(*pid, what);
        *pid = 0;
        remember_child(slot, 0);
}

static const char *harness_dir(void) {
        const char *d = getenv("TINCT_HARNESS_DIR");
        return d ? d : HARNESS_SOURCE_DIR;
}

bool harness_is_colord(Harness *h) {
        return h->colord;
}

static void start_bus(Harness *h) {
        _cleanup_free_ char *template = NULL, *conf = NULL, *sock_dir = NULL, *text = NULL,
                            *tpath = NULL, *listen = NULL, *confarg = NULL, *sock = NULL;
        int pipefd[2];

        tpath = xasprintf("%s/dbus-system.conf.in", harness_dir());
        template = read_file(tpath, NULL);
        sock_dir = xasprintf("%s/bus", h->tmp);
        if (mkdir(sock_dir, 0755) < 0)
                fatal("mkdir %s: %m", sock_dir);
        sock = xasprintf("%s/system_bus_socket", sock_dir);
        listen = xasprintf("unix:path=%s", sock);

        char *at = strstr(template, "@LISTEN@");
        if (!at)
                fatal("%s lacks @LISTEN@", tpath);
        *at = 0;
        text = xasprintf("%s%s%s", template, listen, at + strlen("@LISTEN@"));
        conf = xasprintf("%s/dbus-system.conf", h->tmp);
        write_file(conf, text, strlen(text), 0644);

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                fatal("pipe: %m");
        confarg = xasprintf("--config-file=%s", conf);
        char *argv[] = { (char *) "dbus-daemon", (char *) "--nofork", (char *) "--nopidfile",
                         confarg, (char *) "--print-address=3", NULL };
        h->bus_pid = spawn(argv, pipefd[1], -1);
        remember_child(0, h->bus_pid);
        close(pipefd[1]);
        h->address = read_line(pipefd[0], now(CLOCK_MONOTONIC) + STEP_TIMEOUT_USEC, "dbus-daemon address");
        close(pipefd[0]);
        if (chmod(sock, 0777) < 0)
                fatal("chmod %s: %m", sock);
        if (setenv("DBUS_SYSTEM_BUS_ADDRESS", h->address, 1) < 0)
                fatal("setenv: %m");
        /* The daemon follows the cupsd of this socket, never the machine's (nothing listens). */
        _cleanup_free_ char *cups = xasprintf("%s/cups.sock", h->tmp);
        if (setenv("CUPS_SERVER", cups, 1) < 0)
                fatal("setenv: %m");
}

static void start_polkit(Harness *h) {
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *script = NULL, *line = NULL;
        int pipefd[2];

        script = xasprintf("%s/fake-polkit.py", harness_dir());
        if (strv_extend(&argv, "/usr/bin/python3") < 0 || strv_extend(&argv, script) < 0 ||
            strv_extend(&argv, h->opts.polkit) < 0 || strv_extend(&argv, "--log") < 0 ||
            strv_extend(&argv, h->polkit_log) < 0)
                fatal("out of memory");
        for (const char *const *a = h->opts.polkit_deny; a && *a; a++)
                if (strv_extend(&argv, "--deny") < 0 || strv_extend(&argv, *a) < 0)
                        fatal("out of memory");

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                fatal("pipe: %m");
        h->polkit_pid = spawn(argv, -1, pipefd[1]);
        remember_child(1, h->polkit_pid);
        close(pipefd[1]);
        line = read_line(pipefd[0], now(CLOCK_MONOTONIC) + STEP_TIMEOUT_USEC, "fake-polkit READY");
        close(pipefd[0]);
        if (!streq(line, "READY"))
                fatal("fake-polkit said '%s'", line);
}

static char **daemon_argv(Harness *h) {
        char **argv = NULL;
        int r = 0;

        if (h->colord) {
                const char *colord = getenv("TINCT_COLORD") ?: "/usr/libexec/colord";
                static const char script[] =
                        "set -e; mount --bind \"$1\" /var/lib/colord; "
                        "if [ -n \"$2\" ]; then mount --bind \"$2\" /usr/share/color/icc; "
                        "else mount -t tmpfs tmpfs /usr/share/color/icc; fi; "
                        "for d in /usr/local/share/color/icc /var/lib/color/icc; do "
                        "[ -d \"$d\" ] && mount -t tmpfs tmpfs \"$d\"; done; "
                        "shift 2; exec \"$@\"";
                r |= strv_extend(&argv, "unshare");
                r |= strv_extend(&argv, "-m");
                r |= strv_extend(&argv, "--propagation");
                r |= strv_extend(&argv, "private");
                r |= strv_extend(&argv, "/bin/sh");
                r |= strv_extend(&argv, "-c");
                r |= strv_extend(&argv, script);
                r |= strv_extend(&argv, "sh");
                r |= strv_extend(&argv, h->state_dir);
                r |= strv_extend(&argv, h->opts.no_profile_dir ? "" : h->profile_dir);
                r |= strv_extend(&argv, colord);
        } else {
                if (h->opts.daemon_passwd) {
                        r |= strv_extend(&argv, "unshare");
                        r |= strv_extend(&argv, "-m");
                        r |= strv_extend(&argv, "--propagation");
                        r |= strv_extend(&argv, "private");
                        r |= strv_extend(&argv, "/bin/sh");
                        r |= strv_extend(&argv, "-c");
                        r |= strv_extend(&argv, "set -e; mount --bind \"$1\" /etc/passwd; shift; exec \"$@\"");
                        r |= strv_extend(&argv, "sh");
                        r |= strv_extend(&argv, h->opts.daemon_passwd);
                }
                if (h->opts.confined_uid != 0) {
                        static const char script[] =
                                "set -e; mount --make-rprivate /; mount --bind \"$1\" \"$1\"; "
                                "mount -o remount,bind,ro /; u=$2; shift 2; "
                                "exec setpriv --reuid=\"$u\" --regid=\"$u\" --clear-groups --inh-caps=-all "
                                "--bounding-set=-all --no-new-privs -- \"$@\"";
                        char uid[16];
                        snprintf(uid, sizeof uid, "%u", (unsigned) h->opts.confined_uid);
                        r |= strv_extend(&argv, "unshare");
                        r |= strv_extend(&argv, "-m");
                        r |= strv_extend(&argv, "/bin/sh");
                        r |= strv_extend(&argv, "-c");
                        r |= strv_extend(&argv, script);
                        r |= strv_extend(&argv, "sh");
                        r |= strv_extend(&argv, h->state_dir);
                        r |= strv_extend(&argv, uid);
                        if (h->opts.unit_syscall_filter && isempty(getenv("TINCT_DAEMON_WRAPPER"))) {
                                r |= strv_extend(&argv, getenv("TINCT_SYSCALL_ALLOW"));
                                r |= strv_extend(&argv, h->syscall_list);
                                r |= strv_extend(&argv, "--");
                        }
                }
                /* TINCT_DAEMON_WRAPPER: words put before the daemon (run-tests' valgrind pass). */
                const char *wrapper = getenv("TINCT_DAEMON_WRAPPER");
                for (const char *w = wrapper; w && *w;) {
                        size_t n = strcspn(w, " ");
                        if (n > 0) {
                                char *word = strndup(w, n);
                                r |= word ? strv_consume(&argv, word) : -ENOMEM;
                        }
                        w += n;
                        w += strspn(w, " ");
                }
                r |= strv_extend(&argv, getenv("TINCTD"));
                r |= strv_extend(&argv, "--state-dir");
                r |= strv_extend(&argv, h->state_dir);
                if (!h->opts.no_profile_dir) {
                        r |= strv_extend(&argv, "--profile-dir");
                        r |= strv_extend(&argv, h->profile_dir);
                }
                r |= strv_extend(&argv, "--no-udev");
                r |= strv_extend(&argv, "--ready-fd");
                r |= strv_extend(&argv, "3");
        }
        if (h->opts.daemon_log && !h->colord)
                r |= strv_extend(&argv, "--verbose");
        if (h->opts.dummy_sensor)
                r |= strv_extend(&argv, "--create-dummy-sensor");
        if (getenv("TINCT_TEST_VERBOSE"))
                r |= strv_extend(&argv, "--verbose");
        for (const char *const *a = h->opts.extra_args; a && *a; a++)
                r |= strv_extend(&argv, *a);
        if (r < 0)
                fatal("out of memory");
        return argv;
}

/* colord has no readiness fd: wait for NameOwnerChanged of its name (match added
 * before checking, so the event cannot be missed) or for EOF on the death pipe. */
static void wait_name_owned(int death_fd, uint64_t deadline) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        bool owned = false;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0)
                fatal("cannot connect to the private bus: %s", strerror(-r));
        r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameOwnerChanged", NULL, NULL);
        if (r < 0)
                fatal("AddMatch: %s", strerror(-r));
        for (;;) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                int has;

                r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "NameHasOwner", &error, &reply,
                                       "s", CM_NAME);
                if (r < 0)
                        fatal("NameHasOwner: %s", error.message);
                r = sd_bus_message_read(reply, "b", &has);
                if (r < 0)
                        fatal("NameHasOwner reply: %s", strerror(-r));
                if (has) {
                        owned = true;
                        break;
                }
                /* Wait until something arrives (a NameOwnerChanged), then ask again. */
                for (;;) {
                        r = sd_bus_process(bus, NULL);
                        if (r < 0)
                                fatal("sd_bus_process: %s", strerror(-r));
                        if (r > 0)
                                break;
                        uint64_t t = now(CLOCK_MONOTONIC);
                        if (t >= deadline)
                                fatal("timed out waiting for %s", CM_NAME);
                        struct pollfd p[2] = {
                                { .fd = sd_bus_get_fd(bus), .events = (short) sd_bus_get_events(bus) },
                                { .fd = death_fd, .events = POLLIN },
                        };
                        r = poll(p, 2, (int) ((deadline - t) / 1000) + 1);
                        if (r < 0 && errno != EINTR)
                                fatal("poll: %m");
                        if (r > 0 && p[1].revents)
                                fatal("the daemon exited before owning %s", CM_NAME);
                }
        }
        if (owned) {
                /* colord answers only after its start-up work; one round trip */
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                r = sd_bus_call_method(bus, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping",
                                       &error, NULL, "");
                if (r < 0)
                        fatal("Ping after start: %s", error.message);
        }
}

static void start_daemon(Harness *h) {
        _cleanup_strv_free_ char **argv = daemon_argv(h);
        int pipefd[2];

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                fatal("pipe: %m");
        /* own process group: colord spawns helpers (colord-sane) that must go with it */
        /* opts.daemon_log: every start appends to one file the test reads */
        _cleanup_close_ int log_fd = -1;
        if (h->opts.daemon_log) {
                _cleanup_free_ char *path = xasprintf("%s/daemon.log", h->tmp);
                log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
                if (log_fd < 0)
                        fatal("open %s: %m", path);
        }
        h->daemon_pid = spawn_full(argv, pipefd[1], -1, log_fd, true);
        (void) setpgid(h->daemon_pid, h->daemon_pid);
        h->daemon_reaped = false;
        remember_child(2, h->daemon_pid);
        close(pipefd[1]);

        uint64_t deadline = now(CLOCK_MONOTONIC) + STEP_TIMEOUT_USEC;
        if (h->colord)
                wait_name_owned(pipefd[0], deadline);
        else {
                _cleanup_free_ char *line = read_line(pipefd[0], deadline, "READY=1 on tinctd's --ready-fd");
                if (!streq(line, "READY=1"))
                        fatal("tinctd wrote '%s' on its ready fd", line);
        }
        close(pipefd[0]);
}

/* The unit's SystemCallFilter= as a list of calls (tests/harness/unit-syscalls.py). */
static void write_syscall_list(Harness *h) {
        const char *unit = getenv("TINCT_UNIT_FILE"), *tool = getenv("TINCT_SYSCALL_ALLOW");
        if (isempty(unit) || isempty(tool) || isempty(getenv("TINCT_HARNESS_DIR")))
                fatal("unit_syscall_filter needs TINCT_UNIT_FILE, TINCT_SYSCALL_ALLOW and TINCT_HARNESS_DIR");
        h->syscall_list = xasprintf("%s/syscalls", h->tmp);
        _cleanup_free_ char *script = xasprintf("%s/unit-syscalls.py", getenv("TINCT_HARNESS_DIR"));
        int fd = open(h->syscall_list, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                fatal("open %s: %m", h->syscall_list);
        char *argv[] = { (char *) "python3", script, (char *) unit, NULL };
        pid_t pid = spawn_full(argv, -1, fd, -1, false);
        close(fd);
        int status;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fatal("unit-syscalls.py %s failed", unit);
#if defined(__SANITIZE_ADDRESS__)
        /* LeakSanitizer stops the world with ptrace at exit: a sanitizer build of the daemon
         * (never what the unit runs) needs that one call beyond the unit's list. */
        FILE *f = fopen(h->syscall_list, "ae");
        if (!f || fputs("ptrace\n", f) < 0 || fclose(f) != 0)
                fatal("append to %s: %m", h->syscall_list);
#endif
}

Harness *harness_start(const HarnessOptions *opts) {
        static const HarnessOptions defaults = {};
        Harness *h;
        const char *kind = getenv("TINCT_TEST_DAEMON");
        char template[] = "/tmp/tinct-bus-XXXXXX";

        h = calloc(1, sizeof(*h));
        if (!h)
                fatal("out of memory");
        h->opts = opts ? *opts : defaults;
        h->colord = kind && streq(kind, "colord");
        /* A missing daemon is a broken build or environment, not a reason to skip: a skip would
         * let every bus test "pass" without testing anything. */
        if (!h->colord && isempty(getenv("TINCTD")))
                fatal("TINCTD is not set (meson sets it; or set TINCT_TEST_DAEMON=colord)");
        if (!h->colord && access(getenv("TINCTD"), X_OK) < 0)
                fatal("the daemon %s is not executable: %s", getenv("TINCTD"), strerror(errno));
        if (h->colord && geteuid() != 0) {
                fprintf(stderr, "harness: running colord needs root (mount namespace): skipping\n");
                exit(77);
        }

        owner_pid = getpid();
        signal(SIGALRM, emergency_cleanup);
        signal(SIGABRT, emergency_cleanup);
        signal(SIGPIPE, SIG_IGN);
        const char *t = getenv("TINCT_TEST_TIMEOUT");
        alarm(t ? (unsigned) atoi(t) : 600);

        /* /tmp, not $TMPDIR: the socket must be reachable by uid 65534 */
        if (!mkdtemp(template))
                fatal("mkdtemp: %m");
        h->tmp = xstrdup(template);
        snprintf(cleanup_dir, sizeof(cleanup_dir), "%s", h->tmp);
        if (chmod(h->tmp, 0755) < 0)
                fatal("chmod: %m");
        h->state_dir = xasprintf("%s/state", h->tmp);
        h->profile_dir = xasprintf("%s/icc", h->tmp);
        h->polkit_log = xasprintf("%s/polkit.log", h->tmp);
        if (mkdir(h->state_dir, 0755) < 0 || mkdir(h->profile_dir, 0755) < 0)
                fatal("mkdir: %m");
        if (h->opts.confined_uid != 0 &&
            chown(h->state_dir, h->opts.confined_uid, (gid_t) h->opts.confined_uid) < 0)
                fatal("chown %s: %m", h->state_dir);
        write_file(h->polkit_log, "", 0, 0644);
        if (h->opts.unit_syscall_filter)
                write_syscall_list(h);
        for (const char *const *p = h->opts.profiles; p && *p; p++) {
                const char *base = strrchr(*p, '/');
                harness_install_profile(h, *p, base ? base + 1 : *p);
        }

        start_bus(h);
        if (h->opts.polkit)
                start_polkit(h);
        start_daemon(h);
        return h;
}

int harness_stop_daemon(Harness *h) {
        if (h->daemon_pid <= 0)
                return h->daemon_status;
        if (!h->daemon_reaped) {
                kill(h->daemon_pid, SIGTERM);
                h->daemon_status = wait_child(h->daemon_pid, "daemon");
        }
        (void) kill(-h->daemon_pid, SIGKILL);  /* leftovers of its process group */
        h->daemon_pid = 0;
        remember_child(2, 0);
        return h->daemon_status;
}

bool harness_daemon_running(Harness *h) {
        int status;

        if (h->daemon_pid <= 0 || h->daemon_reaped)
                return false;
        if (waitpid(h->daemon_pid, &status, WNOHANG) == h->daemon_pid) {
                h->daemon_reaped = true;
                h->daemon_status = status;
                return false;
        }
        return true;
}

int harness_restart_daemon(Harness *h) {
        int status = harness_stop_daemon(h);

        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                ;
        else if (h->colord && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM)
                ;
        else
                fatal("daemon did not exit cleanly on SIGTERM (status 0x%x: %s %d)", (unsigned) status,
                      WIFEXITED(status) ? "exit" : "signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        start_daemon(h);
        return status;
}

Harness *harness_stop(Harness *h) {
        if (!h)
                return NULL;
        if (h->daemon_pid > 0) {
                int status = harness_stop_daemon(h);
                if (!h->colord && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
                        fprintf(stderr, "harness: warning: daemon exit status 0x%x at stop\n", (unsigned) status);
        }
        terminate_child(&h->polkit_pid, 1, "fake-polkit");
        terminate_child(&h->bus_pid, 0, "dbus-daemon");
        if (h->tmp) {
                char *argv[] = { (char *) "rm", (char *) "-rf", h->tmp, NULL };
                pid_t pid = spawn(argv, -1, -1);
                (void) wait_child(pid, "rm");
                cleanup_dir[0] = 0;
        }
        alarm(0);
        free(h->tmp);
        free(h->state_dir);
        free(h->profile_dir);
        free(h->polkit_log);
        free(h->syscall_list);
        free(h->address);
        free(h);
        return NULL;
}

const char *harness_address(Harness *h) { return h->address; }
const char *harness_tmp_dir(Harness *h) { return h->tmp; }
const char *harness_state_dir(Harness *h) { return h->state_dir; }
const char *harness_profile_dir(Harness *h) { return h->profile_dir; }
const char *harness_polkit_log(Harness *h) { return h->polkit_log; }
pid_t harness_daemon_pid(Harness *h) { return h->daemon_pid; }

char *harness_daemon_filename(Harness *h, const char *basename) {
        if (h->colord)
                return xasprintf("/usr/share/color/icc/%s", basename);
        return xasprintf("%s/%s", h->profile_dir, basename);
}

void harness_install_profile(Harness *h, const char *src, const char *basename) {
        _cleanup_free_ char *data = NULL, *tmp = NULL, *dst = NULL;
        size_t len;

        data = read_file(src, &len);
        tmp = xasprintf("%s/.%s.tmp", h->tmp, basename);  /* outside the watched dir */
        dst = xasprintf("%s/%s", h->profile_dir, basename);
        write_file(tmp, data, len, 0644);
        if (rename(tmp, dst) < 0)
                fatal("rename %s: %m", dst);
}

char *harness_corpus_file(const char *name) {
        const char *dir = getenv("TINCT_CORPUS_DIR");
        char *p;

        if (!dir)
                fatal("TINCT_CORPUS_DIR not set");
        p = xasprintf("%s/icc/%s", dir, name);
        if (access(p, R_OK) < 0)
                fatal("corpus file %s missing: %m", p);
        return p;
}

sd_bus *harness_connect(Harness *h) {
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, h->address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, true);
        if (r >= 0)
                r = sd_bus_negotiate_fds(bus, true);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                fatal("cannot connect to %s: %s", h->address, strerror(-r));
        return bus;
}

int harness_run_as_nobody(Harness *h, int (*func)(sd_bus *bus, void *userdata), void *userdata) {
        return harness_run_as_uid(h, NOBODY_UID, NOBODY_GID, func, userdata);
}

int harness_run_as_uid(Harness *h, uid_t uid, gid_t gid, int (*func)(sd_bus *bus, void *userdata), void *userdata) {
        pid_t pid;
        int status;

        fflush(NULL);
        pid = fork();
        if (pid < 0)
                fatal("fork: %m");
        if (pid == 0) {
                signal(SIGABRT, SIG_DFL);
                signal(SIGALRM, SIG_DFL);
                if (setgroups(0, NULL) < 0 || setgid(gid) < 0 || setuid(uid) < 0) {
                        fprintf(stderr, "harness: cannot become uid %u: %m\n", (unsigned) uid);
                        _exit(2);
                }
                sd_bus *bus = harness_connect(h);
                int r = func(bus, userdata);
                sd_bus_flush_close_unref(bus);
                fflush(NULL);
                _exit(r >= 0 ? 0 : 1);
        }
        status = wait_child(pid, "nobody child");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        fprintf(stderr, "harness: unprivileged child failed (status 0x%x)\n", (unsigned) status);
        return -EPROTO;
}

int harness_daemon_log_count(Harness *h, const char *needle) {
        if (!h->opts.daemon_log)
                fatal("harness_daemon_log_count() needs opts.daemon_log");
        _cleanup_free_ char *path = xasprintf("%s/daemon.log", h->tmp);
        _cleanup_free_ char *text = read_file(path, NULL);
        int n = 0;
        for (const char *p = text; p && needle[0] && (p = strstr(p, needle)); p += strlen(needle))
                n++;
        return n;
}

int harness_polkit_count(Harness *h, const char *action, const char *subject) {
        _cleanup_free_ char *text = read_file(h->polkit_log, NULL);
        int n = 0;

        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char *fields[6] = {};
                size_t i = 0;
                for (char *p = line; i < ELEMENTSOF(fields); i++) {
                        fields[i] = p;
                        p = strchr(p, '\t');
                        if (!p)
                                break;
                        *p++ = 0;
                }
                if (!fields[2])
                        continue;
                if (action && !streq(fields[0], action))
                        continue;
                if (subject && !streq(fields[2], subject))
                        continue;
                n++;
        }
        return n;
}

void harness_polkit_wait(Harness *h, const char *action, const char *subject, int n) {
        _cleanup_close_ int fd = inotify_init1(IN_CLOEXEC);
        uint64_t deadline = now(CLOCK_MONOTONIC) + STEP_TIMEOUT_USEC;

        if (fd < 0 || inotify_add_watch(fd, h->polkit_log, IN_MODIFY) < 0)
                fatal("inotify: %m");
        /* watch first, then count: a write between the two cannot be missed */
        while (harness_polkit_count(h, action, subject) < n) {
                char buf[4096];
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline)
                        fatal("timed out waiting for polkit request %s from %s", strempty(action), strempty(subject));
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int r = poll(&p, 1, (int) ((deadline - t) / 1000) + 1);
                if (r < 0 && errno != EINTR)
                        fatal("poll: %m");
                if (r > 0)
                        (void) !read(fd, buf, sizeof(buf));
        }
}

/* ---- sd-bus helpers --------------------------------------------------------------- */

void harness_assert_bus_error(int r, const sd_bus_error *error, const char *name, const char *file, int line) {
        if (r >= 0) {
                fprintf(stderr, "%s:%d: expected D-Bus error %s, but the call succeeded\n", file, line, name);
                abort();
        }
        if (!sd_bus_error_is_set(error) || !streq(error->name, name)) {
                fprintf(stderr, "%s:%d: expected D-Bus error %s, got %s (%s) r=%d\n", file, line, name,
                        sd_bus_error_is_set(error) ? error->name : "(none)",
                        sd_bus_error_is_set(error) ? strempty(error->message) : strerror(-r), r);
                abort();
        }
}

void harness_assert_bus_ok(int r, const sd_bus_error *error, const char *file, int line) {
        if (r >= 0)
                return;
        fprintf(stderr, "%s:%d: call failed: %s: %s (r=%d)\n", file, line,
                sd_bus_error_is_set(error) ? error->name : "(no error name)",
                sd_bus_error_is_set(error) ? strempty(error->message) : strerror(-r), r);
        abort();
}

static int call_va(sd_bus *bus, const char *path, const char *iface, const char *member,
                   sd_bus_error *error, sd_bus_message **reply, const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, CM_NAME, path, iface, member);
        if (r < 0)
                fatal("new_method_call: %s", strerror(-r));
        if (!isempty(types)) {
                r = sd_bus_message_appendv(m, types, ap);
                if (r < 0)
                        fatal("append %s: %s", types, strerror(-r));
        }
        return sd_bus_call(bus, m, HARNESS_CALL_TIMEOUT_USEC, error, reply);
}

int harness_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                 sd_bus_error *error, sd_bus_message **reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = call_va(bus, path, iface, member, error, reply, types, ap);
        va_end(ap);
        return r;
}

static void append_kv(sd_bus_message *m, const char *k0, const char *v0, const char *const *kv) {
        int r;

        r = sd_bus_message_open_container(m, 'a', "{ss}");
        if (r >= 0 && k0)
                r = sd_bus_message_append(m, "{ss}", k0, v0);
        for (const char *const *p = kv; r >= 0 && p && p[0]; p += 2) {
                if (!p[1])
                        fatal("odd key/value list");
                r = sd_bus_message_append(m, "{ss}", p[0], p[1]);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                fatal("append a{ss}: %s", strerror(-r));
}

static char *call_for_path(sd_bus *bus, sd_bus_message *m, sd_bus_error *error, int *ret_r) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call(bus, m, HARNESS_CALL_TIMEOUT_USEC, error, &reply);
        if (ret_r)
                *ret_r = r;
        if (r < 0)
                return NULL;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0) {
                /* sd-bus refuses some replies (e.g. an overlong path from colord) */
                sd_bus_error_setf(error, "org.tinct.Harness.BadReply", "reply is not 'o': %s", strerror(-r));
                if (ret_r)
                        *ret_r = r;
                return NULL;
        }
        return xstrdup(path);
}

char *harness_create_device(sd_bus *bus, const char *id, const char *scope, const char *kind,
                            const char *const *kv, sd_bus_error *error, int *ret_r) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, CM_NAME, CM_PATH, CM_IFACE, "CreateDevice");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", id, scope);
        if (r < 0)
                fatal("append: %s", strerror(-r));
        append_kv(m, kind ? "Kind" : NULL, kind, kv);
        return call_for_path(bus, m, error, ret_r);
}

char *harness_create_profile(sd_bus *bus, const char *id, const char *scope,
                             const char *const *kv, sd_bus_error *error, int *ret_r) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, CM_NAME, CM_PATH, CM_IFACE, "CreateProfile");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", id, scope);
        if (r < 0)
                fatal("append: %s", strerror(-r));
        append_kv(m, NULL, NULL, kv);
        return call_for_path(bus, m, error, ret_r);
}

char *harness_create_profile_fd(sd_bus *bus, const char *id, const char *scope, int fd,
                                const char *const *kv, sd_bus_error *error, int *ret_r) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", id, scope);
        if (r >= 0)
                r = sd_bus_message_append(m, "h", fd);  /* sd-bus cannot send a bare -1 */
        if (r < 0)
                fatal("append: %s", strerror(-r));
        append_kv(m, NULL, NULL, kv);
        return call_for_path(bus, m, error, ret_r);
}

char *harness_must_create_device(sd_bus *bus, const char *id, const char *scope, const char *kind,
                                 const char *const *kv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        char *p = harness_create_device(bus, id, scope, kind, kv, &error, &r);

        if (!p)
                fatal("CreateDevice(%s, %s, %s): %s: %s", id, scope, strempty(kind),
                      strempty(error.name), strempty(error.message));
        return p;
}

char *harness_must_create_profile(sd_bus *bus, const char *id, const char *scope, const char *const *kv) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        char *p = harness_create_profile(bus, id, scope, kv, &error, &r);

        if (!p)
                fatal("CreateProfile(%s, %s): %s: %s", id, scope, strempty(error.name), strempty(error.message));
        return p;
}

static sd_bus_message *get_property(sd_bus *bus, const char *path, const char *iface, const char *prop,
                                    const char *type) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, CM_NAME, path, "org.freedesktop.DBus.Properties", "Get", &error,
                               &reply, "ss", iface, prop);
        if (r < 0)
                fatal("Get %s.%s on %s: %s: %s", iface, prop, path, strempty(error.name),
                      strempty(error.message));
        r = sd_bus_message_enter_container(reply, 'v', type);
        if (r < 0) {
                const char *contents = NULL;
                sd_bus_message_rewind(reply, true);
                sd_bus_message_peek_type(reply, NULL, &contents);
                fatal("property %s.%s on %s has type '%s', expected '%s'", iface, prop, path,
                      strempty(contents), type);
        }
        return reply;
}

char *harness_get_string(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, "s");
        const char *s;

        if (sd_bus_message_read(m, "s", &s) < 0)
                fatal("read %s", prop);
        return xstrdup(s);
}

bool harness_get_bool(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, "b");
        int b;

        if (sd_bus_message_read(m, "b", &b) < 0)
                fatal("read %s", prop);
        return b;
}

uint32_t harness_get_u32(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, "u");
        uint32_t u;

        if (sd_bus_message_read(m, "u", &u) < 0)
                fatal("read %s", prop);
        return u;
}

uint64_t harness_get_u64(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, "t");
        uint64_t u;

        if (sd_bus_message_read(m, "t", &u) < 0)
                fatal("read %s", prop);
        return u;
}

int64_t harness_get_i64(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, "x");
        int64_t x;

        if (sd_bus_message_read(m, "x", &x) < 0)
                fatal("read %s", prop);
        return x;
}

static char **read_strv(sd_bus_message *m, char type) {
        char **l = NULL;
        const char *s;
        char t[2] = { type, 0 };
        int r;

        r = sd_bus_message_enter_container(m, 'a', t);
        if (r < 0)
                fatal("enter a%s: %s", t, strerror(-r));
        while ((r = sd_bus_message_read_basic(m, type, &s)) > 0)
                if (strv_extend(&l, s) < 0)
                        fatal("out of memory");
        if (r < 0)
                fatal("read a%s: %s", t, strerror(-r));
        sd_bus_message_exit_container(m);
        if (!l) {
                l = calloc(1, sizeof(char *));
                if (!l)
                        fatal("out of memory");
        }
        return l;
}

char **harness_get_strv(sd_bus *bus, const char *path, const char *iface, const char *prop, const char *type) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, type);

        if (strlen(type) != 2 || type[0] != 'a')
                fatal("harness_get_strv: bad type %s", type);
        return read_strv(m, type[1]);
}

char **harness_get_dict(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = get_property(bus, path, iface, prop, "a{ss}");
        char **l = NULL;
        const char *k, *v;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{ss}");
        if (r < 0)
                fatal("enter a{ss}");
        while ((r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0)
                if (strv_extend(&l, k) < 0 || strv_extend(&l, v) < 0)
                        fatal("out of memory");
        if (r < 0)
                fatal("read a{ss}: %s", strerror(-r));
        if (!l) {
                l = calloc(1, sizeof(char *));
                if (!l)
                        fatal("out of memory");
        }
        return l;
}

char *harness_get_signature(sd_bus *bus, const char *path, const char *iface, const char *prop) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *contents = NULL;
        int r;

        r = sd_bus_call_method(bus, CM_NAME, path, "org.freedesktop.DBus.Properties", "Get", &error,
                               &reply, "ss", iface, prop);
        if (r < 0)
                fatal("Get %s.%s on %s: %s: %s", iface, prop, path, strempty(error.name),
                      strempty(error.message));
        r = sd_bus_message_peek_type(reply, NULL, &contents);
        if (r < 0 || !contents)
                fatal("peek variant");
        return xstrdup(contents);
}

const char *harness_dict_get(char **kv, const char *key) {
        for (char **p = kv; p && p[0] && p[1]; p += 2)
                if (streq(p[0], key))
                        return p[1];
        return NULL;
}

char **harness_call_strv(sd_bus *bus, const char *path, const char *iface, const char *member,
                         const char *arg) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *contents = NULL;
        char t;
        int r;

        if (arg)
                r = harness_call(bus, path, iface, member, &error, &reply, "s", arg);
        else
                r = harness_call(bus, path, iface, member, &error, &reply, NULL);
        if (r < 0)
                fatal("%s(%s): %s: %s", member, strempty(arg), strempty(error.name), strempty(error.message));
        r = sd_bus_message_peek_type(reply, &t, &contents);
        if (r < 0 || t != 'a' || !contents)
                fatal("%s: reply is not an array", member);
        return read_strv(reply, contents[0]);
}

void harness_assert_alive(Harness *h) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = harness_call(bus, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", &error, NULL, NULL);
        if (r < 0)
                fatal("daemon does not answer Peer.Ping: %s: %s", strempty(error.name), strempty(error.message));
        if (!harness_daemon_running(h))
                fatal("daemon process is gone");
}

/* ---- signal recording ---------------------------------------------------------------- */

struct Recorder {
        sd_bus *bus;
        sd_bus_slot *match;
        Recorded *items;
        size_t n, cap;
        bool done;
};

static void recorded_clear(Recorded *r) {
        free(r->kind);
        free(r->iface);
        free(r->member);
        free(r->path);
        free(r->arg0);
        strv_free(r->changed);
        strv_free(r->changed_sigs);
        sd_bus_message_unref(r->msg);
}

static Recorded *recorder_push(Recorder *rec, sd_bus_message *m, const char *kind) {
        if (rec->n == rec->cap) {
                rec->cap = rec->cap ? rec->cap * 2 : 32;
                rec->items = realloc(rec->items, rec->cap * sizeof(Recorded));
                if (!rec->items)
                        fatal("out of memory");
        }
        Recorded *r = &rec->items[rec->n++];
        *r = (Recorded) {
                .kind = xstrdup(kind),
                .iface = xstrdup(strempty(sd_bus_message_get_interface(m))),
                .member = xstrdup(strempty(sd_bus_message_get_member(m))),
                .path = xstrdup(strempty(sd_bus_message_get_path(m))),
                .msg = sd_bus_message_ref(m),
        };
        return r;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Recorder *rec = userdata;
        Recorded *r = recorder_push(rec, m, "signal");
        char t;
        const char *contents, *s;

        if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.Properties", "PropertiesChanged")) {
                const char *iface;
                if (sd_bus_message_read(m, "s", &iface) >= 0) {
                        r->arg0 = xstrdup(iface);
                        if (sd_bus_message_enter_container(m, 'a', "{sv}") > 0) {
                                while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                                        const char *name;
                                        sd_bus_message_read(m, "s", &name);
                                        sd_bus_message_peek_type(m, NULL, &contents);
                                        if (strv_extend(&r->changed, name) < 0 ||
                                            strv_extend(&r->changed_sigs, strempty(contents)) < 0)
                                                fatal("out of memory");
                                        sd_bus_message_skip(m, "v");
                                        sd_bus_message_exit_container(m);
                                }
                        }
                }
        } else if (sd_bus_message_peek_type(m, &t, &contents) > 0 && (t == 's' || t == 'o')) {
                if (sd_bus_message_read_basic(m, t, &s) >= 0)
                        r->arg0 = xstrdup(s);
        }
        sd_bus_message_rewind(m, true);
        return 0;
}

Recorder *recorder_new(sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *rule = NULL;
        const char *owner;
        Recorder *rec;
        int r;

        rec = calloc(1, sizeof(*rec));
        if (!rec)
                fatal("out of memory");
        rec->bus = sd_bus_ref(bus);

        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", &error, &reply, "s", CM_NAME);
        if (r < 0 || sd_bus_message_read(reply, "s", &owner) < 0)
                fatal("GetNameOwner(%s): %s", CM_NAME, strempty(error.message));
        rule = xasprintf("type='signal',sender='%s'", owner);
        r = sd_bus_add_match(bus, &rec->match, rule, on_signal, rec);
        if (r < 0)
                fatal("AddMatch %s: %s", rule, strerror(-r));
        return rec;
}

static void recorder_clear(Recorder *rec);

void recorder_reset(Recorder *rec) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        /* A round trip to the daemon: whatever it emitted before now reaches us before
         * the Ping reply. Then dispatch all of it and forget it. */
        r = sd_bus_call_method(rec->bus, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", &error, NULL, "");
        if (r < 0)
                fatal("Ping for recorder sync: %s", strempty(error.message));
        while ((r = sd_bus_process(rec->bus, NULL)) > 0)
                ;
        if (r < 0)
                fatal("sd_bus_process: %s", strerror(-r));
        recorder_clear(rec);
}

Recorder *recorder_free(Recorder *rec) {
        if (!rec)
                return NULL;
        recorder_clear(rec);
        free(rec->items);
        sd_bus_slot_unref(rec->match);
        sd_bus_unref(rec->bus);
        free(rec);
        return NULL;
}

static void recorder_clear(Recorder *rec) {
        for (size_t i = 0; i < rec->n; i++)
                recorded_clear(&rec->items[i]);
        rec->n = 0;
}

typedef struct PendingCall {
        Recorder *rec;
        sd_bus_message *reply;
        bool done;
} PendingCall;

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        PendingCall *pc = userdata;

        recorder_push(pc->rec, m, sd_bus_message_is_method_error(m, NULL) ? "error" : "reply");
        pc->reply = sd_bus_message_ref(m);
        pc->done = true;
        return 0;
}

static void pump(Recorder *rec, bool *done, uint64_t deadline, const char *what) {
        while (!*done) {
                int r = sd_bus_process(rec->bus, NULL);
                if (r < 0)
                        fatal("sd_bus_process: %s", strerror(-r));
                if (r > 0)
                        continue;
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline)
                        fatal("timed out waiting for %s", what);
                r = sd_bus_wait(rec->bus, deadline - t);
                if (r < 0 && r != -EINTR)
                        fatal("sd_bus_wait: %s", strerror(-r));
        }
}

int recorder_call(Recorder *rec, const char *path, const char *iface, const char *member,
                  sd_bus_error *error, sd_bus_message **reply, const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        PendingCall pc = { .rec = rec };
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(rec->bus, &m, CM_NAME, path, iface, member);
        if (r < 0)
                fatal("new_method_call: %s", strerror(-r));
        if (!isempty(types)) {
                va_start(ap, types);
                r = sd_bus_message_appendv(m, types, ap);
                va_end(ap);
                if (r < 0)
                        fatal("append: %s", strerror(-r));
        }
        r = sd_bus_call_async(rec->bus, &slot, m, on_reply, &pc, HARNESS_CALL_TIMEOUT_USEC);
        if (r < 0)
                fatal("call_async: %s", strerror(-r));
        pump(rec, &pc.done, now(CLOCK_MONOTONIC) + HARNESS_CALL_TIMEOUT_USEC, member);

        const sd_bus_error *e = sd_bus_message_get_error(pc.reply);
        if (e) {
                r = -sd_bus_error_get_errno(e);
                if (r >= 0)
                        r = -EIO;
                sd_bus_error_copy(error, e);
                sd_bus_message_unref(pc.reply);
                return r;
        }
        if (reply)
                *reply = pc.reply;
        else
                sd_bus_message_unref(pc.reply);
        return 0;
}

size_t recorder_find(Recorder *rec, size_t start, const char *member, const char *path, const char *changed_prop) {
        for (size_t i = start; i < rec->n; i++) {
                Recorded *r = &rec->items[i];
                if (member && !streq(r->member, member))
                        continue;
                if (path && !streq(r->path, path))
                        continue;
                if (changed_prop && !strv_contains(r->changed, changed_prop))
                        continue;
                return i;
        }
        return (size_t) -1;
}

size_t recorder_wait(Recorder *rec, const char *member, const char *path) {
        return recorder_wait_after(rec, 0, member, path);
}

size_t recorder_wait_after(Recorder *rec, size_t start, const char *member, const char *path) {
        uint64_t deadline = now(CLOCK_MONOTONIC) + HARNESS_CALL_TIMEOUT_USEC;
        size_t i;

        for (;;) {
                i = recorder_find(rec, start, member, path, NULL);
                if (i != (size_t) -1)
                        return i;
                int r = sd_bus_process(rec->bus, NULL);
                if (r < 0)
                        fatal("sd_bus_process: %s", strerror(-r));
                if (r > 0)
                        continue;
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline)
                        fatal("timed out waiting for signal %s on %s", member, strempty(path));
                r = sd_bus_wait(rec->bus, deadline - t);
                if (r < 0 && r != -EINTR)
                        fatal("sd_bus_wait: %s", strerror(-r));
        }
}

size_t recorder_count(Recorder *rec) {
        return rec->n;
}

const Recorded *recorder_get(Recorder *rec, size_t i) {
        if (i >= rec->n)
                fatal("recorder index %zu out of range (%zu)", i, rec->n);
        return &rec->items[i];
}

void recorder_dump(Recorder *rec) {
        for (size_t i = 0; i < rec->n; i++) {
                Recorded *r = &rec->items[i];
                fprintf(stderr, "  [%zu] %s %s.%s %s arg0=%s", i, r->kind, r->iface, r->member, r->path,
                        strempty(r->arg0));
                STRV_FOREACH(c, r->changed)
                        fprintf(stderr, " %s", *c);
                fprintf(stderr, "\n");
        }
}
