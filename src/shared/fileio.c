/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fileio.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"

int read_fd_capped(int fd, size_t max, ReadFlags flags, uint8_t **ret, size_t *ret_size) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        bool regular = S_ISREG(st.st_mode);
        if (!regular && (flags & READ_REGULAR_ONLY))
                return -EBADFD;
        if (regular && (uint64_t) st.st_size > max)
                return -EFBIG;

        /* The size is a hint (sysfs, growing files): read to the end, whatever it says. */
        size_t cap = regular && st.st_size > 0 ? (size_t) st.st_size + 1 : 4096, n = 0;
        _cleanup_free_ uint8_t *buf = malloc(cap);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                if (n + 1 >= cap) {
                        if (n > max)
                                return -EFBIG;
                        size_t bigger = cap * 2 > max + 2 ? max + 2 : cap * 2;
                        uint8_t *t = realloc(buf, bigger);
                        if (!t)
                                return -ENOMEM;
                        buf = t;
                        cap = bigger;
                }
                ssize_t k = regular ? pread(fd, buf + n, cap - 1 - n, (off_t) n) : read(fd, buf + n, cap - 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EFBIG;
        }
        buf[n] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

int read_file_capped(const char *path, size_t max, ReadFlags flags, uint8_t **ret, size_t *ret_size,
                     struct stat *ret_st) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        int r = read_fd_capped(fd, max, flags, &data, &size);
        if (r < 0)
                return r;
        if (ret_st && fstat(fd, ret_st) < 0)
                return -errno;
        *ret = TAKE_PTR(data);
        *ret_size = size;
        return 0;
}

static bool holds_exactly(const char *path, const void *data, size_t size) {
        _cleanup_free_ uint8_t *old = NULL;
        size_t old_size;
        return read_file_capped(path, size, READ_REGULAR_ONLY, &old, &old_size, NULL) >= 0 &&
               old_size == size && memcmp(old, data, size) == 0;
}

/* A hidden name (directory watches skip dot files) in the target's directory (rename does
 * not cross file systems), created and opened for writing. */
static int tmp_open(const char *path, char **ret_tmp) {
        _cleanup_free_ char *tmp = NULL;
        const char *slash = strrchr(path, '/');
        int k = slash ? asprintf(&tmp, "%.*s/.%s.XXXXXX", (int) (slash - path), path, slash + 1)
                      : asprintf(&tmp, ".%s.XXXXXX", path);
        if (k < 0)
                return -ENOMEM;
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret_tmp = TAKE_PTR(tmp);
        return fd;
}

static int write_all(int fd, const void *data, size_t size) {
        for (size_t done = 0; done < size;) {
                ssize_t w = write(fd, (const uint8_t *) data + done, size - done);
                if (w < 0 && errno != EINTR)
                        return -errno;
                if (w > 0)
                        done += (size_t) w;
        }
        return 0;
}

/* Gives the written temporary file its mode, makes it durable and puts it in place. */
static int tmp_install(int *fd, const char *tmp, const char *path, mode_t mode, WriteFlags flags) {
        if (fchmod(*fd, mode) < 0 || fsync(*fd) < 0)
                return -errno;
        if (close(TAKE_FD(*fd)) < 0)
                return -errno;
        /* link() refuses an existing target, rename() replaces it. */
        if (flags & WRITE_NO_REPLACE) {
                int r = link(tmp, path) < 0 ? -errno : 0;
                (void) unlink(tmp);
                return r;
        }
        if (rename(tmp, path) < 0)
                return -errno;
        return 0;
}

/* After the content was written (filled: 0 or the error doing so): installs the file, or
 * removes the temporary one on any failure. */
static int tmp_finish(int filled, int *fd, const char *tmp, const char *path, mode_t mode, WriteFlags flags) {
        int r = filled < 0 ? filled : tmp_install(fd, tmp, path, mode, flags);
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

int write_file_atomic(const char *path, const void *data, size_t size, mode_t mode, WriteFlags flags) {
        if ((flags & WRITE_SKIP_IF_SAME) && holds_exactly(path, data, size))
                return 0;

        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = tmp_open(path, &tmp);
        if (fd < 0)
                return fd;
        return tmp_finish(write_all(fd, data, size), &fd, tmp, path, mode, flags);
}

static int copy_fd(int in, int out) {
        uint8_t buf[65536];
        for (;;) {
                ssize_t n = read(in, buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return 0;
                int r = write_all(out, buf, (size_t) n);
                if (r < 0)
                        return r;
        }
}

int copy_file_atomic(const char *src, const char *dst, mode_t mode, WriteFlags flags) {
        assert(!(flags & WRITE_SKIP_IF_SAME));

        _cleanup_close_ int in = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (in < 0)
                return -errno;
        struct stat st;
        if (fstat(in, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = tmp_open(dst, &tmp);
        if (fd < 0)
                return fd;
        return tmp_finish(copy_fd(in, fd), &fd, tmp, dst, mode, flags);
}

int fsync_path(const char *path) {
        /* O_RDONLY opens a directory as well as a file; fsync works on either. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}

bool path_exists(const char *path) {
        struct stat st;
        return lstat(path, &st) == 0;
}

char *path_join(const char *dir, const char *name) {
        char *p;
        if (asprintf(&p, "%s/%s", dir, name) < 0)
                return NULL;
        return p;
}

int print_to_memory(int (*print)(FILE *f, const void *userdata), const void *userdata, char **ret,
                    size_t *ret_size) {
        _cleanup_free_ char *data = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&data, &size);
        if (!f)
                return -errno;
        int r = print(f, userdata);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0)
                return r;
        *ret = TAKE_PTR(data);
        *ret_size = size;
        return 0;
}

int write_file_atomic_printed(const char *path, mode_t mode, WriteFlags flags,
                              int (*print)(FILE *f, const void *userdata), const void *userdata) {
        _cleanup_free_ char *data = NULL;
        size_t size;
        int r = print_to_memory(print, userdata, &data, &size);
        if (r < 0)
                return r;
        return write_file_atomic(path, data, size, mode, flags);
}

ssize_t read_file_head(const char *path, char *buf, size_t size) {
        assert(size > 0);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        ssize_t n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = 0;
        return n;
}

int mkdir_parents(const char *path, mode_t mode) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (char *slash = p + 1; ; slash++) {
                bool end = *slash == '\0';
                if (!end && *slash != '/')
                        continue;
                *slash = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                if (end)
                        break;
                *slash = '/';
        }
        struct stat st;
        if (stat(path, &st) < 0)
                return -errno;
        return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}
