/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "socket-util.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"

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
