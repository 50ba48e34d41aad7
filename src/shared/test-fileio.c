/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio: caps, FIFOs, the caller's offset, and what an atomic write leaves behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "tests.h"

static char dir[] = "/tmp/tinct-fileio-XXXXXX";

static char *in_dir(const char *name) {
        char *p;
        assert_se(asprintf(&p, "%s/%s", dir, name) >= 0);
        return p;
}

static unsigned count_entries(void) {
        DIR *d = opendir(dir);
        assert_se(d);
        unsigned n = 0;
        for (struct dirent *de; (de = readdir(d));)
                n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."));
        closedir(d);
        return n;
}

static void test_read(void) {
        _cleanup_free_ char *path = in_dir("data");
        assert_se(write_file_atomic(path, "hello world", 11, 0644, 0) == 0);

        _cleanup_free_ uint8_t *data = NULL;
        size_t n;
        struct stat st;
        assert_se(read_file_capped(path, 11, READ_REGULAR_ONLY, &data, &n, &st) == 0);
        assert_se(n == 11 && memcmp(data, "hello world", 11) == 0 && data[11] == 0);
        assert_se(st.st_size == 11 && (st.st_mode & 0777) == 0644);
        uint8_t *big = NULL;
        assert_se(read_file_capped(path, 10, 0, &big, &n, NULL) == -EFBIG);

        /* The caller's offset is not moved. */
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0 && lseek(fd, 6, SEEK_SET) == 6);
        _cleanup_free_ uint8_t *again = NULL;
        assert_se(read_fd_capped(fd, 100, READ_REGULAR_ONLY, &again, &n) == 0 && n == 11);
        assert_se(lseek(fd, 0, SEEK_CUR) == 6);

        /* Empty files read as empty; a FIFO is refused, not waited on. */
        _cleanup_free_ char *empty = in_dir("empty"), *fifo = in_dir("fifo");
        assert_se(write_file_atomic(empty, "", 0, 0600, 0) == 0);
        _cleanup_free_ uint8_t *e = NULL;
        assert_se(read_file_capped(empty, 10, READ_REGULAR_ONLY, &e, &n, NULL) == 0 && n == 0 && e[0] == 0);
        assert_se(mkfifo(fifo, 0600) == 0);
        uint8_t *f = NULL;
        assert_se(read_file_capped(fifo, 10, READ_REGULAR_ONLY, &f, &n, NULL) == -EBADFD);
        assert_se(unlink(fifo) == 0 && unlink(empty) == 0 && unlink(path) == 0);

        /* Not regular and allowed: read to the end (a pipe here), still capped. */
        int p[2];
        assert_se(pipe(p) == 0);
        assert_se(write(p[1], "0123456789", 10) == 10);
        close(p[1]);
        _cleanup_free_ uint8_t *piped = NULL;
        assert_se(read_fd_capped(p[0], 10, 0, &piped, &n) == 0 && n == 10);
        close(p[0]);
}

static void test_write(void) {
        _cleanup_free_ char *path = in_dir("target");
        assert_se(write_file_atomic(path, "one", 3, 0644, 0) == 0);
        struct stat a, b;
        assert_se(stat(path, &a) == 0);

        /* Same bytes: untouched (same inode). Other bytes: replaced. */
        assert_se(write_file_atomic(path, "one", 3, 0644, WRITE_SKIP_IF_SAME) == 0);
        assert_se(stat(path, &b) == 0 && a.st_ino == b.st_ino);
        assert_se(write_file_atomic(path, "two!", 4, 0600, WRITE_SKIP_IF_SAME) == 0);
        assert_se(stat(path, &b) == 0 && a.st_ino != b.st_ino && b.st_size == 4 && (b.st_mode & 0777) == 0600);

        /* No replace: the old file stays, and no temporary is left either way. */
        assert_se(write_file_atomic(path, "three", 5, 0644, WRITE_NO_REPLACE) == -EEXIST);
        _cleanup_free_ uint8_t *data = NULL;
        size_t n;
        assert_se(read_file_capped(path, 100, 0, &data, &n, NULL) == 0 && n == 4 && memcmp(data, "two!", 4) == 0);
        _cleanup_free_ char *fresh = in_dir("fresh");
        assert_se(write_file_atomic(fresh, "new", 3, 0644, WRITE_NO_REPLACE) == 0);
        assert_se(count_entries() == 2);

        /* A directory that does not exist: an error, nothing created. */
        assert_se(write_file_atomic("/nonexistent-tinct-dir/x", "x", 1, 0644, 0) == -ENOENT);
        assert_se(unlink(path) == 0 && unlink(fresh) == 0);
}

/* copy_file_atomic: the same bytes under the new name with the given mode, larger than one
 * buffer; a missing source or one that is not a file changes nothing. fsync_path and
 * path_join alongside. */
static void test_copy(void) {
        _cleanup_free_ char *src = in_dir("src"), *dst = in_dir("dst"), *joined = path_join(dir, "dst");
        assert_se(joined && strcmp(joined, dst) == 0);
        size_t size = 200000;
        _cleanup_free_ uint8_t *bytes = malloc(size);
        assert_se(bytes);
        for (size_t i = 0; i < size; i++)
                bytes[i] = (uint8_t) (i * 7 + i / 251);
        assert_se(write_file_atomic(src, bytes, size, 0644, 0) == 0);
        assert_se(copy_file_atomic(src, dst, 0600, 0) == 0);
        _cleanup_free_ uint8_t *data = NULL;
        size_t n;
        struct stat st;
        assert_se(read_file_capped(dst, size, READ_REGULAR_ONLY, &data, &n, &st) == 0);
        assert_se(n == size && memcmp(data, bytes, size) == 0 && (st.st_mode & 0777) == 0600);
        assert_se(fsync_path(dst) == 0 && fsync_path(dir) == 0);
        assert_se(fsync_path("/nonexistent-tinct-dir") == -ENOENT);
        _cleanup_free_ char *dangling = in_dir("dangling");
        assert_se(path_exists(dst) && path_exists(dir) && !path_exists(dangling));
        assert_se(symlink("nowhere", dangling) == 0 && path_exists(dangling) && unlink(dangling) == 0);

        /* No replace: the existing copy stays. Replace: it is overwritten. */
        assert_se(write_file_atomic(src, "short", 5, 0644, 0) == 0);
        assert_se(copy_file_atomic(src, dst, 0600, WRITE_NO_REPLACE) == -EEXIST);
        assert_se(stat(dst, &st) == 0 && (size_t) st.st_size == size);
        assert_se(copy_file_atomic(src, dst, 0600, 0) == 0);
        assert_se(stat(dst, &st) == 0 && st.st_size == 5);

        _cleanup_free_ char *missing = in_dir("missing"), *fifo = in_dir("fifo");
        assert_se(copy_file_atomic(missing, dst, 0600, 0) == -ENOENT);
        assert_se(mkfifo(fifo, 0600) == 0);
        assert_se(copy_file_atomic(fifo, dst, 0600, 0) == -EBADFD);
        assert_se(stat(dst, &st) == 0 && st.st_size == 5);
        assert_se(count_entries() == 3); /* no temporary left behind */
        assert_se(unlink(src) == 0 && unlink(dst) == 0 && unlink(fifo) == 0);
}

/* mkdir_parents: missing parents made, an existing directory is fine, a file is not. */
static void test_mkdir_parents(void) {
        _cleanup_free_ char *deep = in_dir("a/b/c"), *a = in_dir("a"), *b = in_dir("a/b"), *file = in_dir("f");
        struct stat st;
        assert_se(mkdir_parents(deep, 0700) == 0);
        assert_se(stat(deep, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
        assert_se(mkdir_parents(deep, 0700) == 0);
        assert_se(write_file_atomic(file, "x", 1, 0644, 0) == 0);
        assert_se(mkdir_parents(file, 0755) == -ENOTDIR);
        assert_se(rmdir(deep) == 0 && rmdir(b) == 0 && rmdir(a) == 0 && unlink(file) == 0);
}

static int print_lines(FILE *f, const void *userdata) {
        int n = *(const int *) userdata;
        if (n < 0)
                return -EBADMSG;
        for (int i = 0; i < n; i++)
                fprintf(f, "line %d\n", i);
        return 0;
}

static void test_write_printed(void) {
        _cleanup_free_ char *path = in_dir("printed");
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        int n = 3, fail = -1;
        assert_se(write_file_atomic_printed(path, 0600, 0, print_lines, &n) == 0);
        assert_se(read_file_capped(path, 1024, 0, &data, &size, NULL) == 0);
        assert_se(size == 21 && memcmp(data, "line 0\nline 1\nline 2\n", 21) == 0);
        /* A failed print leaves the old file as it was, and no temporary file behind. */
        assert_se(write_file_atomic_printed(path, 0600, 0, print_lines, &fail) == -EBADMSG);
        free(data);
        data = NULL;
        assert_se(read_file_capped(path, 1024, 0, &data, &size, NULL) == 0 && size == 21);
        assert_se(unlink(path) == 0);
}

static void test_read_head(void) {
        _cleanup_free_ char *path = in_dir("head"), *empty = in_dir("empty"), *missing = in_dir("missing");
        char buf[6];
        assert_se(write_file_atomic(path, "abc\0defghij", 11, 0644, 0) == 0);
        assert_se(read_file_head(path, buf, sizeof buf) == 5);
        assert_se(memcmp(buf, "abc\0d", 6) == 0); /* NULs kept, one NUL after what was read */
        assert_se(write_file_atomic(empty, "", 0, 0644, 0) == 0);
        assert_se(read_file_head(empty, buf, sizeof buf) == 0 && buf[0] == 0);
        assert_se(read_file_head(missing, buf, sizeof buf) == -ENOENT);
        assert_se(unlink(path) == 0 && unlink(empty) == 0);
}

int main(void) {
        assert_se(mkdtemp(dir));
        test_read();
        test_write();
        test_copy();
        test_mkdir_parents();
        test_read_head();
        test_write_printed();
        assert_se(count_entries() == 0);
        assert_se(rmdir(dir) == 0);
        return 0;
}
