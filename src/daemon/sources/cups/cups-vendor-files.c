/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The directory of printers' vendor profile files (see cups-vendor-files.h). */
#include "cups-vendor-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"
#include "md5.h"
#include "strv.h"
#include "tinct-limits.h"

#define SUBDIR "printers"

/* Calls f for every entry of the directory that is not a directory (files, and whatever
 * else landed there: a crash's temporary file, a link). -ENOENT when there is none. */
static int for_each_file(const char *state_dir, int (*f)(int dfd, const char *name, const struct stat *st, void *userdata),
                         void *userdata) {
        _cleanup_free_ char *dir = NULL;
        if (asprintf(&dir, "%s/" SUBDIR, state_dir) < 0)
                return -ENOMEM;
        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0)
                return -errno;
        /* The stream gets a copy of its own (closedir() closes it); dfd names the entries. */
        _cleanup_close_ int copy = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
        if (copy < 0)
                return -errno;
        DIR *d = fdopendir(copy);
        if (!d)
                return -errno;
        TAKE_FD(copy);
        int r = 0;
        struct dirent *de;
        while (r >= 0 && (errno = 0, de = readdir(d))) {
                struct stat st;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT)
                                r = -errno;
                        continue;
                }
                if (S_ISDIR(st.st_mode))
                        continue;
                r = f(dfd, de->d_name, &st, userdata);
        }
        if (r >= 0 && errno != 0)
                r = -errno;
        closedir(d);
        return r;
}

typedef struct Tally {
        const char *dir;        /* <state>/printers */
        char *const *keep;      /* sweep: the paths that stay */
        bool keep_hidden;       /* sweep: temporary files stay (writes under way) */
        const char *skip;       /* usage: the name about to be replaced */
        char *const *writing;   /* usage: the paths being written, counted apart */
        size_t files;
        uint64_t bytes;
} Tally;

static int remove_one(int dfd, const char *name, const struct stat *st, void *userdata) {
        Tally *t = userdata;
        if (t->keep_hidden && name[0] == '.')
                return 0;
        if (t->keep) {
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%s", t->dir, name) < 0)
                        return -ENOMEM;
                if (strv_contains(t->keep, path))
                        return 0;
        }
        if (unlinkat(dfd, name, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        t->files++;
        t->bytes += (uint64_t) st->st_size;
        return 0;
}

static int count_one(int dfd, const char *name, const struct stat *st, void *userdata) {
        Tally *t = userdata;
        /* A hidden file is a write's temporary one, and a file being written may be there
         * already (renamed into place, not yet answered): the writes count apart, once. */
        if (streq(name, t->skip) || name[0] == '.')
                return 0;
        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", t->dir, name) < 0)
                return -ENOMEM;
        if (!strv_contains(t->writing, path)) {
                t->files++;
                t->bytes += (uint64_t) st->st_size;
        }
        return 0;
}

int cups_vendor_files_clear(const char *state_dir, size_t *ret_files, uint64_t *ret_bytes) {
        Tally t = { 0 };
        int r = for_each_file(state_dir, remove_one, &t);
        if (ret_files)
                *ret_files = t.files;
        if (ret_bytes)
                *ret_bytes = t.bytes;
        return r == -ENOENT ? 0 : r;
}

int cups_vendor_files_sweep(const char *state_dir, char *const *keep, bool keep_temporary, size_t *ret_files) {
        _cleanup_free_ char *dir = NULL;
        if (asprintf(&dir, "%s/" SUBDIR, state_dir) < 0)
                return -ENOMEM;
        /* An empty list keeps nothing; NULL would mean "no list" to remove_one(). */
        char *const none[] = { NULL };
        Tally t = { .dir = dir, .keep = keep ?: none, .keep_hidden = keep_temporary };
        int r = for_each_file(state_dir, remove_one, &t);
        if (ret_files)
                *ret_files = t.files;
        return r == -ENOENT ? 0 : r;
}

int cups_vendor_files_reserve(const char *state_dir, const char *id, size_t len, char *const *writing,
                              uint64_t writing_bytes, char **ret_path) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        char hex[33], name[40];
        md5_hex(id, strlen(id), hex);
        snprintf(name, sizeof name, "%s.icc", hex);
        if (asprintf(&dir, "%s/" SUBDIR, state_dir) < 0 || asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        /* What the directory holds now, not a count kept beside it: whatever happened to it
         * (a sweep, a crash, an administrator), the cap is on what is there. */
        Tally t = { .dir = dir, .skip = name, .writing = writing };
        int r = for_each_file(state_dir, count_one, &t);
        if (r < 0)
                return r;
        if (t.files + strv_length(writing) + 1 > LIMIT_PRINTER_FILES ||
            t.bytes + writing_bytes + len > LIMIT_PRINTER_FILES_BYTES)
                return -EDQUOT;
        *ret_path = TAKE_PTR(path);
        return 0;
}

void cups_vendor_files_remove(const char *state_dir, const char *path) {
        size_t n = strlen(state_dir);
        if (strncmp(path, state_dir, n) != 0 || strncmp(path + n, "/" SUBDIR "/", strlen("/" SUBDIR "/")) != 0)
                return;
        const char *name = path + n + strlen("/" SUBDIR "/");
        if (!*name || strchr(name, '/') || streq(name, "..") || streq(name, "."))
                return;
        (void) unlink(path);
}
