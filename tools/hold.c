/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hold: what the verbs that take something and keep it until Ctrl-C share (device-inhibit,
 * sensor-lock; hold.h). Signals are blocked and waited for with sigtimedwait(), so nothing
 * runs in a signal handler. Not here: the bus calls that take and release. */
#include "hold.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

int parse_seconds(const char *s, unsigned long *ret) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno != 0 || end == s || *end || s[0] == '-' || v > INT32_MAX)
                return -EINVAL;
        *ret = v;
        return 0;
}

int block_interrupts(sigset_t *mask) {
        sigemptyset(mask);
        sigaddset(mask, SIGINT);
        sigaddset(mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, mask, NULL) < 0)
                return log_error_errno(errno, "Failed to block signals: %m");
        return 0;
}

int hold_until_signal(const sigset_t *mask, unsigned long seconds) {
        struct timespec deadline;
        clock_gettime(CLOCK_MONOTONIC, &deadline);
        deadline.tv_sec += (time_t) seconds;
        for (;;) {
                int r;
                if (seconds == 0)
                        r = sigwaitinfo(mask, NULL);
                else {
                        struct timespec now, left;
                        clock_gettime(CLOCK_MONOTONIC, &now);
                        left.tv_sec = deadline.tv_sec - now.tv_sec;
                        left.tv_nsec = deadline.tv_nsec - now.tv_nsec;
                        if (left.tv_nsec < 0) {
                                left.tv_nsec += 1000000000L;
                                left.tv_sec--;
                        }
                        if (left.tv_sec < 0)
                                return 0;
                        r = sigtimedwait(mask, NULL, &left);
                }
                if (r >= 0 || errno == EAGAIN)
                        return 0; /* a signal, or the time is up */
                if (errno != EINTR)
                        return log_error_errno(errno, "Failed to wait: %m");
        }
}
