/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of watching profile directories: compare two listings of files by identity
 * (path, size, mtime, inode) and say what was added, removed or changed. The inotify side
 * only says "something changed"; the caller rescans and diffs (as dbus-broker does), which
 * keeps this logic free of I/O and testable. */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct FileIdentity {
        char *path;
        uint64_t size;
        int64_t mtime_ns;
        uint64_t inode;
} FileIdentity;

typedef struct FileList {
        FileIdentity *files;
        size_t n, allocated;
} FileList;

int file_list_add(FileList *l, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode);
void file_list_clear(FileList *l);
/* Sorts by path; duplicates (same path) keep the last one added. */
void file_list_sort(FileList *l);

typedef enum FileChange {
        FILE_ADDED,
        FILE_REMOVED,
        FILE_CHANGED,
} FileChange;

/* Calls cb for each difference between two sorted lists, in path order. `file` points into
 * `before` for FILE_REMOVED and into `after` otherwise. */
void file_list_diff(const FileList *before, const FileList *after,
                    void (*cb)(FileChange change, const FileIdentity *file, void *userdata), void *userdata);
