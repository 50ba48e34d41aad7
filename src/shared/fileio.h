/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whole-file reading and atomic writing, the one copy the daemon and the CLI share.
 * Reads are bounded (a cap, checked while reading, not only from st_size, since sysfs
 * reports 0 or 4096 and a file can grow under us) and copy the bytes (never mmap: a file
 * truncated later cannot fault the reader). Writes go to a hidden temporary name in the
 * target's directory, are fsynced, then renamed (or linked, to refuse replacing), so a
 * reader or a directory watch never sees half a file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef enum ReadFlags {
        READ_REGULAR_ONLY = 1 << 0, /* FIFOs, devices, sockets, directories: -EBADFD */
} ReadFlags;

/* Reads fd to its end, at most max bytes: a regular file from offset 0 with pread (the
 * caller's file offset stays theirs), anything else with read(). Returns 0 with *ret
 * (caller frees; a NUL follows the data, not counted in *ret_size) or a negative errno:
 * -EFBIG beyond max, -EBADFD (READ_REGULAR_ONLY). */
int read_fd_capped(int fd, size_t max, ReadFlags flags, uint8_t **ret, size_t *ret_size);

/* The same for a path, opened O_NONBLOCK | O_NOCTTY (a FIFO or terminal cannot block or
 * adopt us). ret_st (may be NULL) is the fstat taken after the read, so it describes the
 * bytes returned. */
int read_file_capped(const char *path, size_t max, ReadFlags flags, uint8_t **ret, size_t *ret_size,
                     struct stat *ret_st);

/* The start of a small kernel file (/proc, /sys): one read() of at most size - 1 bytes into
 * buf, followed by a NUL. Returns the number of bytes read (0 for an empty file) or a
 * negative errno. */
ssize_t read_file_head(const char *path, char *buf, size_t size);

typedef enum WriteFlags {
        WRITE_NO_REPLACE = 1 << 0,   /* an existing path is left alone: -EEXIST */
        WRITE_SKIP_IF_SAME = 1 << 1, /* a path already holding exactly these bytes is not touched */
} WriteFlags;

/* Writes size bytes to path atomically with this mode (umask not applied). 0 or a negative
 * errno; on failure the temporary file is gone and path unchanged. */
int write_file_atomic(const char *path, const void *data, size_t size, mode_t mode, WriteFlags flags);

/* The text print() prints into f, in memory: 0 with *ret (caller frees, NUL-terminated) and
 * its size, or print()'s negative return, or -ENOMEM. */
int print_to_memory(int (*print)(FILE *f, const void *userdata), const void *userdata, char **ret,
                    size_t *ret_size);

/* Writes to path, as write_file_atomic() does, the text print() prints into f (gathered in
 * memory first). A negative return of print() is returned and nothing is written. */
int write_file_atomic_printed(const char *path, mode_t mode, WriteFlags flags,
                              int (*print)(FILE *f, const void *userdata), const void *userdata);

/* Copies the regular file src to dst the same way, reading it in pieces (any size);
 * -EBADFD when src is not a regular file. WRITE_SKIP_IF_SAME is not for copies. */
int copy_file_atomic(const char *src, const char *dst, mode_t mode, WriteFlags flags);

/* fsync() of a file or a directory by path (a directory after a rename into it, so that
 * the rename itself survives a crash). */
int fsync_path(const char *path);

/* Whether anything is at path, a dangling symbolic link included (lstat). */
bool path_exists(const char *path);

/* dir "/" name as a new string; NULL when out of memory. */
char *path_join(const char *dir, const char *name);

/* Makes path and its missing parents (mode for each made); 0 when path is a directory
 * afterwards, else a negative errno (-ENOTDIR when it is something else). */
int mkdir_parents(const char *path, mode_t mode);
