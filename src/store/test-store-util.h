/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers the store's unit tests share (test-store-util.c). Tests only. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <unistd.h>

#include "store.h"

/* A new directory under /tmp (caller frees the name; rm_rf() removes it). */
char *make_temp_dir(void);
void rm_rf(const char *path);
char *path_in(const char *dir, const char *name);
bool exists(const char *dir, const char *name);
/* SQL run on the file directly, beside the store (to make old schemas and damaged rows). */
void raw_exec(const char *db_path, const char *sql);
/* Fills a store with one of everything; check_populated() checks it is all there. */
void populate(Store *s);
void check_populated(Store *s);

typedef enum Damage {
        DAMAGE_PAGES,      /* garbage over every page but the first */
        DAMAGE_HEADER,     /* garbage over the file header */
        DAMAGE_TRUNCATE,   /* cut in the middle */
        DAMAGE_EMPTY,      /* truncated to zero bytes */
        DAMAGE_TEXT,       /* replaced by a text file */
} Damage;
void damage_file(const char *path, Damage how);

void silence_stderr(void);
bool child_aborted(pid_t pid);

/* A programming error (a NULL argument, a malformed list) stops the caller with assert(),
 * as docs/CODING_STYLE.md asks: expr runs in a child, which must end with SIGABRT. */
#define assert_aborts(expr)                                                                            \
        do {                                                                                           \
                pid_t pid_ = fork();                                                                   \
                assert_se(pid_ >= 0);                                                                  \
                if (pid_ == 0) {                                                                       \
                        silence_stderr();                                                              \
                        (void) (expr);                                                                 \
                        _exit(0);                                                                      \
                }                                                                                      \
                assert_se(child_aborted(pid_));                                                        \
        } while (0)
