/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Child processes on the event loop (see child-process.h). */
#include "child-process.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"
#include "spawn-util.h"
#include "time-util.h"

extern char **environ;

/* Our end and the child's of the channel: [0] ours, [1] its; a second pipe for its stdin. */
static int make_channel(ChildChannel channel, int ours[2], int in[2]) {
        if (channel == CHILD_STDIO_SOCKET || channel == CHILD_FD_SOCKET)
                return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ours) < 0 ? -errno : 0;
        if (pipe2(ours, O_CLOEXEC) < 0)
                return -errno;
        /* A pipe is read at [0]: ours is the reading end, the child's the writing one. */
        if (channel == CHILD_STDIO_PIPES && pipe2(in, O_CLOEXEC) < 0) {
                int r = -errno;
                closep(&ours[0]);
                closep(&ours[1]);
                return r;
        }
        if (channel == CHILD_STDIO_PIPES) {
                /* in[1] is ours to write, in[0] its stdin: swap so [0] is ours, as above */
                int t = in[0];
                in[0] = in[1];
                in[1] = t;
        }
        return 0;
}

int child_start(Child *c, const ChildSpec *spec) {
        int ch[2] = { -1, -1 }, in[2] = { -1, -1 };
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        int r;

        assert(c->pid == 0 && c->fd < 0 && c->in_fd < 0);
        r = make_channel(spec->channel, ch, in);
        if (r < 0)
                return r;
        /* dup2 onto itself would keep O_CLOEXEC and lose the fd at exec */
        if (spec->channel == CHILD_FD_SOCKET && ch[1] == spec->fd_target) {
                int moved = fcntl(ch[1], F_DUPFD_CLOEXEC, spec->fd_target + 1);
                r = moved < 0 ? -errno : 0;
                closep(&ch[1]);
                ch[1] = moved;
                if (r < 0) {
                        closep(&ch[0]);
                        return r;
                }
        }

        /* The child must die of SIGKILL (and SIGSYS) alike, whatever the daemon blocks. */
        spawn_attr_init_default_signals(&attr);
        posix_spawn_file_actions_init(&fa);
        switch (spec->channel) {
        case CHILD_STDOUT_PIPE:
                posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
                posix_spawn_file_actions_adddup2(&fa, ch[1], STDOUT_FILENO);
                break;
        case CHILD_STDIO_PIPES:
                posix_spawn_file_actions_adddup2(&fa, in[1], STDIN_FILENO);
                posix_spawn_file_actions_adddup2(&fa, ch[1], STDOUT_FILENO);
                posix_spawn_file_actions_adddup2(&fa, ch[1], STDERR_FILENO);
                break;
        case CHILD_STDIO_SOCKET:
                posix_spawn_file_actions_adddup2(&fa, ch[1], STDIN_FILENO);
                posix_spawn_file_actions_adddup2(&fa, ch[1], STDOUT_FILENO);
                break;
        case CHILD_FD_SOCKET:
                posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
                posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
                posix_spawn_file_actions_adddup2(&fa, ch[1], spec->fd_target);
                break;
        }
        if (spec->close_other_fds)
                /* Nothing of the daemon's (the store, the bus, --ready-fd) reaches the child. */
                posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);

        char *const *envp = spec->envp ?: environ;
        pid_t pid = 0;
        r = spec->search_path ? posix_spawnp(&pid, spec->path, &fa, &attr, spec->argv, envp)
                              : posix_spawn(&pid, spec->path, &fa, &attr, spec->argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        closep(&ch[1]);
        closep(&in[1]);
        if (r != 0) {
                closep(&ch[0]);
                closep(&in[0]);
                return -r;
        }
        *c = (Child) { .pid = pid, .fd = ch[0], .in_fd = in[0] };
        if (fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0 || (c->in_fd >= 0 && fcntl(c->in_fd, F_SETFL, O_NONBLOCK) < 0)) {
                r = -errno;
                child_end(c, CHILD_KILL, NULL);
                return r;
        }
        return 0;
}

int child_watch(Child *c, sd_event *event, uint64_t timeout_usec, sd_event_io_handler_t on_io,
                sd_event_time_handler_t on_timeout, void *userdata) {
        int r = sd_event_add_io(event, &c->io, c->fd, EPOLLIN, on_io, userdata);
        if (r < 0)
                return r;
        if (timeout_usec == UINT64_MAX) {
                r = sd_event_add_time(event, &c->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timeout, userdata);
                if (r >= 0)
                        r = sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
                return r;
        }
        return sd_event_add_time_relative(event, &c->timer, CLOCK_MONOTONIC, timeout_usec, 0, on_timeout, userdata);
}

int child_set_deadline(Child *c, uint64_t timeout_usec) {
        int r = sd_event_source_set_time_relative(c->timer, timeout_usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

void child_wait_exit(const Child *c, uint64_t deadline) {
        if (c->pid <= 0)
                return;
        int fd = (int) syscall(SYS_pidfd_open, c->pid, 0);
        if (fd < 0)
                return;
        uint64_t t = now(CLOCK_MONOTONIC);
        if (t < deadline) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                uint64_t ms = (deadline - t + 999) / 1000;
                (void) poll(&pfd, 1, ms > 60000 ? 60000 : (int) ms);
        }
        close(fd);
}

int child_end(Child *c, ChildEnd how, int *ret_status) {
        int status = -1;
        bool killed = false;
        c->io = sd_event_source_disable_unref(c->io);
        c->timer = sd_event_source_disable_unref(c->timer);
        closep(&c->fd);
        closep(&c->in_fd);
        if (c->pid > 0) {
                pid_t r = 0;
                if (how == CHILD_KILL_IF_RUNNING)
                        r = waitpid(c->pid, &status, WNOHANG);
                if (how == CHILD_KILL || (how == CHILD_KILL_IF_RUNNING && r == 0)) {
                        (void) kill(c->pid, SIGKILL);
                        killed = true;
                }
                if (r != c->pid)
                        while ((r = waitpid(c->pid, &status, 0)) < 0 && errno == EINTR)
                                ;
                if (r != c->pid)
                        status = -1;
        }
        *c = CHILD_NULL;
        if (ret_status)
                *ret_status = status;
        return killed;
}

void child_describe_status(int status, char *buf, size_t size) {
        if (size > 0)
                buf[0] = 0;
        if (status == -1)
                return;
        if (WIFSIGNALED(status))
                snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else if (WIFEXITED(status))
                snprintf(buf, size, "exited with status %d", WEXITSTATUS(status));
}
