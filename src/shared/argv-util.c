/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options tinctd and tinct-session share (argv-util.h). It prints and logs; it does not
 * parse any option of one program alone. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "argv-util.h"
#include "log.h"

int argv_common_option(int c, const char *program, void (*help)(void)) {
        switch (c) {
        case 'v':
                log_set_max_level(LOG_DEBUG);
                return 1;
        case ARG_COMMON_VERSION:
                printf("%s %s\n", program, TINCT_VERSION);
                return 0;
        case 'h':
                help();
                return 0;
        default:
                return -EINVAL;
        }
}

int argv_no_positional(int argc, char **argv) {
        if (optind < argc) {
                log_error("Unexpected argument: %s", argv[optind]);
                return -EINVAL;
        }
        return 0;
}
