/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small language helpers shared by every module: cleanup attributes, ownership hand-over,
 * array sizes. Nothing here allocates or does I/O. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Built with AddressSanitizer (gcc says so with __SANITIZE_ADDRESS__, clang with
 * __has_feature): it reserves terabytes of shadow address space, so no RLIMIT_AS then. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Take ownership of a pointer: returns it and sets the variable to NULL. */
#define TAKE_PTR(p)                          \
        ({                                   \
                __typeof__(p) _p_ = (p);     \
                (p) = NULL;                  \
                _p_;                         \
        })

#define TAKE_FD(fd)                          \
        ({                                   \
                int _fd_ = (fd);             \
                (fd) = -1;                   \
                _fd_;                        \
        })

/* Define foo_freep() for a foo_free() that takes NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)  \
        static inline void func##p(type *p) {    \
                if (*p)                          \
                        func(*p);                \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0)
                close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}
#define streq(a, b) (strcmp((a), (b)) == 0)

static inline bool isempty(const char *s) {
        return !s || !*s;
}

static inline const char *strempty(const char *s) {
        return s ? s : "";
}

/* Free a string and replace it with a copy of another; returns -ENOMEM on failure. */
static inline int free_and_strdup(char **p, const char *s) {
        char *t = NULL;
        if (s) {
                t = strdup(s);
                if (!t)
                        return -ENOMEM;
        }
        free(*p);
        *p = t;
        return 0;
}

static inline void *mfree(void *p) {
        free(p);
        return NULL;
}
