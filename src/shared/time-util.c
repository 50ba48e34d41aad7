/* SPDX-License-Identifier: GPL-2.0-or-later */
/* now(clock): the one reading of a clock in µs (time-util.h). */
#include <assert.h>

#include "time-util.h"

uint64_t now(clockid_t clock) {
        struct timespec ts;
        int r = clock_gettime(clock, &ts);
        assert(r == 0);
        (void) r;
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000u;
}
