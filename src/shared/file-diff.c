/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "file-diff.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int file_list_add(FileList *l, const char *path, uint64_t size, int64_t mtime_ns, uint64_t inode) {
        char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        if (l->n == l->allocated) {
                size_t want = l->allocated ? l->allocated * 2 : 64;
                FileIdentity *n = realloc(l->files, sizeof *n * want);
                if (!n) {
                        free(p);
                        return -ENOMEM;
                }
                l->files = n;
                l->allocated = want;
        }
        l->files[l->n++] = (FileIdentity) { .path = p, .size = size, .mtime_ns = mtime_ns, .inode = inode };
        return 0;
}

void file_list_clear(FileList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->files[i].path);
        free(l->files);
        *l = (FileList) { 0 };
}

static int compare(const void *a, const void *b) {
        const FileIdentity *x = a, *y = b;
        int c = strcmp(x->path, y->path);
        /* keep insertion order among equal paths so the last one can win */
        return c ? c : (x < y ? -1 : x > y);
}

void file_list_sort(FileList *l) {
        if (l->n < 2)
                return;
        /* A directory walk in name order is usually sorted already. */
        bool sorted = true;
        for (size_t i = 1; sorted && i < l->n; i++)
                sorted = strcmp(l->files[i - 1].path, l->files[i].path) < 0;
        if (!sorted)
                qsort(l->files, l->n, sizeof *l->files, compare);
        size_t w = 0;
        for (size_t i = 0; i < l->n; i++) {
                if (w > 0 && strcmp(l->files[w - 1].path, l->files[i].path) == 0) {
                        free(l->files[w - 1].path);
                        l->files[w - 1] = l->files[i];
                } else
                        l->files[w++] = l->files[i];
        }
        l->n = w;
}

static int same_identity(const FileIdentity *a, const FileIdentity *b) {
        return a->size == b->size && a->mtime_ns == b->mtime_ns && a->inode == b->inode;
}

void file_list_diff(const FileList *before, const FileList *after,
                    void (*cb)(FileChange change, const FileIdentity *file, void *userdata), void *userdata) {
        size_t i = 0, j = 0;
        while (i < before->n || j < after->n) {
                int c = i >= before->n ? 1 : j >= after->n ? -1 : strcmp(before->files[i].path, after->files[j].path);
                if (c < 0)
                        cb(FILE_REMOVED, &before->files[i++], userdata);
                else if (c > 0)
                        cb(FILE_ADDED, &after->files[j++], userdata);
                else {
                        if (!same_identity(&before->files[i], &after->files[j]))
                                cb(FILE_CHANGED, &after->files[j], userdata);
                        i++;
                        j++;
                }
        }
}
