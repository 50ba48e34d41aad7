/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "spawn-util.h"

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

void spawn_attr_init_default_signals(posix_spawnattr_t *attr) {
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_init(attr);
        posix_spawnattr_setsigmask(attr, &none);
        posix_spawnattr_setsigdefault(attr, &all);
        posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

int spawn_drop_to_nobody(const gid_t *groups, size_t n_groups) {
        if (geteuid() != 0)
                return 0;
        uid_t uid = 65534;
        gid_t gid = 65534;
        const struct passwd *pw = getpwnam("nobody");
        if (pw) {
                uid = pw->pw_uid;
                gid = pw->pw_gid;
        }
        /* Nothing to regain later: the bounding set needs CAP_SETPCAP, which goes with root. */
        for (unsigned long cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
                        return -errno;
        if (setgroups(n_groups, groups) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                return -errno;
        return 0;
}

int spawn_drop_capabilities(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[2] = {};
        if (syscall(SYS_capget, &h, d) < 0)
                return -errno;
        bool none = true;
        for (size_t i = 0; i < 2; i++)
                none = none && !d[i].effective && !d[i].permitted && !d[i].inheritable;
        if (none)
                return 0;
        memset(d, 0, sizeof d);
        return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

int spawn_follow_parent(pid_t parent) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                return -errno;
        return getppid() == parent ? 0 : -ESRCH;
}
