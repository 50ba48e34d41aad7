/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What every verb may call back of the command line's shape (cli.h): the usage error. Its own
 * file so that the verbs depend on it and not on tinct.c, whose tables name the verbs. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

int verb_usage_error(const Invocation *inv, const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "tinct %s: ", inv->verb->name);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return EXIT_USAGE;
}
