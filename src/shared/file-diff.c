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

/* The first entry not before path. */
static size_t lower_bound(const FileList *l, const char *path) {
        size_t lo = 0, hi = l->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(l->files[mid].path, path) < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

ssize_t file_list_find(const FileList *l, const char *path) {
        size_t i = lower_bound(l, path);
        return i < l->n && strcmp(l->files[i].path, path) == 0 ? (ssize_t) i : -1;
}

int file_list_collect(const FileList *l, const char *path, FileList *into) {
        ssize_t at = file_list_find(l, path);
        if (at >= 0) {
                const FileIdentity *f = &l->files[at];
                int r = file_list_add(into, f->path, f->size, f->mtime_ns, f->inode);
                if (r < 0)
                        return r;
        }
        /* Everything below "path/" sorts together (though not right after path: "a.icc"
         * comes between "a" and "a/x"). */
        size_t len = strlen(path);
        char *prefix = malloc(len + 2);
        if (!prefix)
                return -ENOMEM;
        memcpy(prefix, path, len);
        memcpy(prefix + len, "/", 2);
        int r = 0;
        for (size_t i = lower_bound(l, prefix); r >= 0 && i < l->n && strncmp(l->files[i].path, prefix, len + 1) == 0; i++) {
                const FileIdentity *f = &l->files[i];
                r = file_list_add(into, f->path, f->size, f->mtime_ns, f->inode);
        }
        free(prefix);
        return r;
}

int file_list_update(FileList *known, const FileList *before, FileList *after) {
        size_t cap = known->n + after->n, n = 0, i = 0, j = 0, k = 0;
        FileIdentity *merged = malloc(sizeof *merged * (cap ? cap : 1));
        if (!merged)
                return -ENOMEM;
        while (i < known->n || k < after->n) {
                if (i < known->n) {
                        while (j < before->n && strcmp(before->files[j].path, known->files[i].path) < 0)
                                j++;
                        if (j < before->n && strcmp(before->files[j].path, known->files[i].path) == 0) {
                                free(known->files[i++].path); /* listed again: after has it, if it still is */
                                continue;
                        }
                }
                int c = i >= known->n ? 1 : k >= after->n ? -1 : strcmp(known->files[i].path, after->files[k].path);
                if (c == 0)
                        free(known->files[i++].path); /* not in before, yet listed: the new one wins */
                else if (c < 0)
                        merged[n++] = known->files[i++];
                else
                        merged[n++] = after->files[k++];
        }
        free(known->files);
        *known = (FileList) { .files = merged, .n = n, .allocated = cap ? cap : 1 };
        free(after->files);
        *after = (FileList) { 0 };
        return 0;
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
