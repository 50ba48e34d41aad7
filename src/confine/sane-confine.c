/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sane-confine.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "macro.h"
#include "spawn-util.h"

/* Backends and libusb, and sane-airscan's threads: generous, still a bound. */
#define SANE_MEMORY_LIMIT (2048ull * 1024 * 1024)

static int become_nobody(void) {
        if (geteuid() != 0)
                return 0; /* the daemon's own user already (the shipped unit) */
        /* SANE's udev rules give scanner nodes to this group; without it no USB scanner. */
        const struct group *gr = getgrnam("scanner");
        gid_t groups[1];
        size_t n_groups = 0;
        if (gr)
                groups[n_groups++] = gr->gr_gid;
        return spawn_drop_to_nobody(groups, n_groups);
}

int sane_confine(bool daemon_child, const char **ret_step) {
        const struct {
                int resource;
                rlim_t value;
        } limits[] = {
                { RLIMIT_FSIZE, 0 },
                { RLIMIT_CORE, 0 },
#ifndef UNDER_ASAN /* ASan reserves terabytes of shadow address space */
                { RLIMIT_AS, SANE_MEMORY_LIMIT },
#endif
        };
        const char *step = "dropping to nobody";
        pid_t parent = getppid();
        int r = daemon_child && parent == 1 ? -ESRCH : 0; /* the daemon died already */
        if (r >= 0)
                r = become_nobody();
        if (r >= 0) {
                step = "dropping capabilities";
                r = spawn_drop_capabilities();
        }
        /* A helper whose daemon died must not linger in a hung backend (after the user drop). */
        if (r >= 0 && daemon_child) {
                step = "PR_SET_PDEATHSIG";
                r = spawn_follow_parent(parent);
        }
        if (r >= 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                step = "PR_SET_NO_NEW_PRIVS";
                r = -errno;
        }
        if (r >= 0 && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
                step = "PR_SET_DUMPABLE";
                r = -errno;
        }
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(limits); i++)
                if (setrlimit(limits[i].resource, &(struct rlimit) { limits[i].value, limits[i].value }) < 0) {
                        step = "setrlimit";
                        r = -errno;
                }
        *ret_step = step;
        return r;
}
