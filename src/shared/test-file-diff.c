/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for the rescan-and-diff logic of the profile directory watch. */
#include <stdio.h>

#include "file-diff.h"
#include "macro.h"
#include "tests.h"

typedef struct Seen {
        char log[512];
} Seen;

static void record(FileChange change, const FileIdentity *f, void *userdata) {
        Seen *s = userdata;
        static const char *const names[] = { "+", "-", "~" };
        size_t n = strlen(s->log);
        snprintf(s->log + n, sizeof s->log - n, "%s%s ", names[change], f->path);
}

static const char *diff(FileList *a, FileList *b, Seen *s) {
        s->log[0] = 0;
        file_list_sort(a);
        file_list_sort(b);
        file_list_diff(a, b, record, s);
        return s->log;
}

int main(void) {
        FileList a = { 0 }, b = { 0 };
        Seen s;

        assert_streq(diff(&a, &b, &s), "");

        /* added, removed, unchanged, changed by size, mtime or inode (an atomic rename) */
        assert_se(file_list_add(&a, "/d/keep.icc", 10, 100, 1) == 0);
        assert_se(file_list_add(&a, "/d/gone.icc", 10, 100, 2) == 0);
        assert_se(file_list_add(&a, "/d/size.icc", 10, 100, 3) == 0);
        assert_se(file_list_add(&a, "/d/mtime.icc", 10, 100, 4) == 0);
        assert_se(file_list_add(&a, "/d/inode.icc", 10, 100, 5) == 0);
        assert_se(file_list_add(&b, "/d/new.icc", 10, 100, 6) == 0);
        assert_se(file_list_add(&b, "/d/inode.icc", 10, 100, 7) == 0);
        assert_se(file_list_add(&b, "/d/mtime.icc", 10, 101, 4) == 0);
        assert_se(file_list_add(&b, "/d/size.icc", 11, 100, 3) == 0);
        assert_se(file_list_add(&b, "/d/keep.icc", 10, 100, 1) == 0);
        assert_streq(diff(&a, &b, &s), "-/d/gone.icc ~/d/inode.icc ~/d/mtime.icc +/d/new.icc ~/d/size.icc ");

        /* everything removed; everything added */
        FileList empty = { 0 };
        assert_streq(diff(&a, &empty, &s), "-/d/gone.icc -/d/inode.icc -/d/keep.icc -/d/mtime.icc -/d/size.icc ");
        assert_streq(diff(&empty, &a, &s), "+/d/gone.icc +/d/inode.icc +/d/keep.icc +/d/mtime.icc +/d/size.icc ");

        /* the same path listed twice: the last identity wins */
        FileList c = { 0 }, d = { 0 };
        assert_se(file_list_add(&c, "/d/x.icc", 1, 1, 1) == 0);
        assert_se(file_list_add(&d, "/d/x.icc", 1, 1, 1) == 0);
        assert_se(file_list_add(&d, "/d/x.icc", 2, 1, 1) == 0);
        assert_streq(diff(&c, &d, &s), "~/d/x.icc ");
        assert_se(d.n == 1);

        /* a part listed again: collect what is known there, merge the new listing in */
        FileList known = { 0 }, before = { 0 }, after = { 0 };
        const char *const paths[] = { "/d/a", "/d/a.icc", "/d/a/x.icc", "/d/a/y/z.icc", "/d/ab.icc", "/d/b.icc" };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                assert_se(file_list_add(&known, paths[i], 1, 1, i) == 0);
        file_list_sort(&known);
        assert_se(file_list_find(&known, "/d/a.icc") == 1 && file_list_find(&known, "/d/nope") == -1);
        assert_se(file_list_collect(&known, "/d/a", &before) == 0);
        assert_se(file_list_collect(&known, "/d/b.icc", &before) == 0);
        assert_se(file_list_collect(&known, "/d/new.icc", &before) == 0);
        file_list_sort(&before);
        assert_streq(diff(&before, &before, &s), "");
        assert_se(before.n == 4); /* /d/a, /d/a/x.icc, /d/a/y/z.icc, /d/b.icc, not /d/a.icc */
        assert_se(file_list_add(&after, "/d/a/x.icc", 1, 1, 2) == 0);
        assert_se(file_list_add(&after, "/d/new.icc", 1, 1, 9) == 0);
        file_list_sort(&after);
        assert_se(file_list_update(&known, &before, &after) == 0);
        assert_se(after.n == 0);
        s.log[0] = 0;
        file_list_diff(&empty, &known, record, &s);
        assert_streq(s.log, "+/d/a.icc +/d/a/x.icc +/d/ab.icc +/d/new.icc ");

        file_list_clear(&known);
        file_list_clear(&before);
        file_list_clear(&a);
        file_list_clear(&b);
        file_list_clear(&c);
        file_list_clear(&d);
        printf("test-file-diff: ok\n");
        return 0;
}
