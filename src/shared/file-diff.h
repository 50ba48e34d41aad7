/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of watching profile directories: compare two listings of files by identity
 * (path, size, mtime, inode) and say what was added, removed or changed, and keep a sorted
 * listing up to date with the parts of it listed again. The watcher (dirwatch.h) names what
 * changed; the caller lists those paths again and diffs them, which keeps this logic free
 * of I/O and testable. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* For a sorted list: the index of path, or -1. */
ssize_t file_list_find(const FileList *l, const char *path);
/* Adds to `into` the entries of sorted `l` that are path itself or below path/ (binary
 * search: the cost does not grow with the entries elsewhere). */
int file_list_collect(const FileList *l, const char *path, FileList *into);
/* known := known without the paths in `before`, with the entries of `after` (all three
 * sorted), in one merge. The paths of `after` move into known; after is left empty. On
 * -ENOMEM nothing changed. */
int file_list_update(FileList *known, const FileList *before, FileList *after);

/* Calls cb for each difference between two sorted lists, in path order. `file` points into
 * `before` for FILE_REMOVED and into `after` otherwise. */
void file_list_diff(const FileList *before, const FileList *after,
                    void (*cb)(FileChange change, const FileIdentity *file, void *userdata), void *userdata);
