/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal assertions for unit tests: a failed check prints where and aborts the test
 * program, which meson reports as a failure. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define assert_se(expr)                                                                 \
        do {                                                                            \
                if (!(expr)) {                                                          \
                        fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__,      \
                                __LINE__, #expr);                                       \
                        abort();                                                        \
                }                                                                       \
        } while (0)

#define assert_streq(a, b)                                                              \
        do {                                                                            \
                const char *_a = (a), *_b = (b);                                        \
                if (!_a || !_b || strcmp(_a, _b) != 0) {                                \
                        fprintf(stderr, "%s:%d: \"%s\" != \"%s\" (%s vs %s)\n", __FILE__, \
                                __LINE__, _a ? _a : "(null)", _b ? _b : "(null)", #a, #b); \
                        abort();                                                        \
                }                                                                       \
        } while (0)
