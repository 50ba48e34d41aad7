/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one shape of main() for tinct's programs: a run(argc, argv) that returns a negative errno
 * when it failed (having logged why, once, where it happened) or the exit status otherwise
 * (0, or a verb's own status as the tinct CLI documents them), and this wrapper, which turns
 * a negative errno into EXIT_FAILURE. Everything run() owns is freed by its cleanup
 * attributes before main() returns, so valgrind and LeakSanitizer see no leak on any path. */
#pragma once

#include <stdlib.h>

static inline int main_exit_status(int r) {
        return r < 0 ? EXIT_FAILURE : r;
}

#define DEFINE_MAIN_FUNCTION(impl)                              \
        int main(int argc, char **argv) {                       \
                return main_exit_status(impl(argc, argv));      \
        }
