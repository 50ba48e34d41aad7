/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "confine.h"

#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "spawn-util.h"

/* Address space for one parse: a 32 MiB request (ICC_MAX_FILE_SIZE), lcms2's copy and its tables fit well. */
#define PARSER_MEMORY_LIMIT (1024ull * 1024 * 1024)

/* The daemon runs as its own user in production; as root (developers, tests) the parser
 * still must not be root. */
static int drop_user(void) {
        return spawn_drop_to_nobody(NULL, 0);
}

static int set_limits(rlim_t max_files) {
        const struct {
                int resource;
                rlim_t value;
        } limits[] = {
                { RLIMIT_NOFILE, max_files },
                { RLIMIT_FSIZE, 0 },
                { RLIMIT_CORE, 0 },
                { RLIMIT_NPROC, 0 },
#ifndef UNDER_ASAN /* ASan reserves terabytes of shadow address space */
                { RLIMIT_AS, PARSER_MEMORY_LIMIT },
#endif
        };
        for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
                struct rlimit rl = { limits[i].value, limits[i].value };
                if (setrlimit(limits[i].resource, &rl) < 0)
                        return -errno;
        }
        return 0;
}

static int install_filter(bool network) {
        static const int allowed[] = {
                SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
                SCMP_SYS(recvfrom), SCMP_SYS(sendto),
                SCMP_SYS(close), SCMP_SYS(exit), SCMP_SYS(exit_group),
                SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
                SCMP_SYS(futex), SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
                SCMP_SYS(rt_sigaction), SCMP_SYS(sigaltstack),
                SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(getrandom),
                /* abort() on an assertion: raise() is getpid + gettid + tgkill on itself */
                SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(tgkill),
        };
        /* Probes a library may make (time zone, locale files): refused, not fatal. */
        static const int refused[] = {
                SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(stat),
                SCMP_SYS(lstat), SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(access),
                SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(readlink),
                SCMP_SYS(readlinkat), SCMP_SYS(fstat),
        };
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
        /* NULL is rarely memory: libseccomp probes the seccomp() call for the kill-process
         * action and refuses the context when it finds none, as under a unit whose
         * SystemCallFilter= lacks `seccomp` (its filter answers the probe with EPERM). That
         * is the unit's fault to name, not a lack of memory (docs/sandbox.md). */
        if (!ctx)
                return -ENOSYS;
        int r = 0;
        for (size_t i = 0; i < ELEMENTSOF(allowed) && r >= 0; i++)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
        for (size_t i = 0; i < ELEMENTSOF(refused) && r >= 0; i++)
                r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), refused[i], 0);
        /* Memory, but never executable: nothing in a parse generates code. */
        if (r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
                                     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
        if (r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
                                     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
        /* tinct-fetch: TCP to the printer, blocking with a deadline. */
        static const int client_calls[] = {
                SCMP_SYS(connect), SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(getsockopt), SCMP_SYS(setsockopt),
                SCMP_SYS(alarm), SCMP_SYS(shutdown), SCMP_SYS(fcntl),
        };
        for (size_t i = 0; network && i < ELEMENTSOF(client_calls) && r >= 0; i++)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, client_calls[i], 0);
        if (network && r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET));
        if (network && r >= 0)
                r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET6));
        if (r >= 0)
                r = seccomp_load(ctx);
        seccomp_release(ctx);
        return r;
}

/* The steps both helpers take, in this order; parent: getppid() when the helper started. */
static int confine_common(bool network, rlim_t max_files, pid_t parent, const char **ret_step) {
        int r;
        const char *step;

        /* Before the filter: later mktime() calls must not need /etc/localtime. */
        tzset();
        step = "dropping the user";
        r = drop_user();
        if (r < 0)
                goto fail;
        step = "dropping capabilities";
        r = spawn_drop_capabilities();
        if (r < 0)
                goto fail;
        step = "PR_SET_PDEATHSIG";
        r = spawn_follow_parent(parent);
        if (r < 0)
                goto fail;
        step = "PR_SET_NO_NEW_PRIVS";
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                goto fail_errno;
        step = "rlimits";
        r = set_limits(max_files);
        if (r < 0)
                goto fail;
        step = "the seccomp filter";
        r = install_filter(network);
        if (r < 0)
                goto fail;
        return 0;
fail_errno:
        r = errno > 0 ? -errno : -EINVAL;
fail:
        *ret_step = step;
        return r;
}

int confine_parser_process(int socket_fd, const char **ret_step) {
        pid_t parent = getppid(); /* the daemon */
        if (socket_fd != 3 || close_range(4, ~0U, 0) < 0) {
                *ret_step = "close_range";
                return socket_fd != 3 ? -EBADF : -errno;
        }
        /* fds 0-3: no new files even without seccomp */
        return confine_common(false, 4, parent, ret_step);
}

int confine_fetch_process(const char **ret_step) {
        /* Spawned by the daemon (tests, development): it follows it. Started by systemd for
         * one connection (tinct-fetch@.service): the parent is PID 1, which does not go. */
        pid_t parent = getppid();
        if (close_range(3, ~0U, 0) < 0) {
                *ret_step = "close_range";
                return -errno;
        }
        return confine_common(true, 8, parent, ret_step);
}
