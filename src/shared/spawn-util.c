/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "spawn-util.h"

#include <signal.h>

void spawn_attr_init_default_signals(posix_spawnattr_t *attr) {
        sigset_t none, all;
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_init(attr);
        posix_spawnattr_setsigmask(attr, &none);
        posix_spawnattr_setsigdefault(attr, &all);
        posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}
