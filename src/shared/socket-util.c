/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "socket-util.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"
#include "time-util.h"

int unix_connect(const char *path) {
        struct sockaddr_un addr = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof addr.sun_path)
                return -ENAMETOOLONG;
        strcpy(addr.sun_path, path);
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *) &addr, sizeof addr) < 0)
                return -errno;
        return TAKE_FD(fd);
}

int fd_wait_until(int fd, short events, uint64_t deadline) {
        for (;;) {
                uint64_t t = now(CLOCK_MONOTONIC);
                if (t >= deadline)
                        return -ETIMEDOUT;
                /* Rounded up: a wait that ends a little early would only poll again. */
                uint64_t ms = (deadline - t + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
                struct pollfd pfd = { .fd = fd, .events = events };
                int r = poll(&pfd, 1, ms > INT32_MAX ? INT32_MAX : (int) ms);
                if (r > 0)
                        return 0;
                if (r < 0 && errno != EINTR)
                        return -errno;
        }
}
