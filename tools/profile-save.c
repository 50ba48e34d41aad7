/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The end of every tinct profile-build (display, printer, input): the build's refusal said,
 * or the profile written to --output atomically. Nothing else: the builds are in
 * src/profile-build, their reports in the verbs. */
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "log.h"
#include "verbs.h"

int profile_build_save(const Invocation *inv, const char *path, int r, const char *reason, const uint8_t *icc,
                       size_t icc_len) {
        if (r < 0) {
                log_error("%s: cannot make a profile: %s", path, reason ? reason : strerror(-r));
                return r;
        }
        r = write_file_atomic(inv->opts.output, icc, icc_len, 0644, 0);
        if (r < 0)
                log_error("%s: cannot write: %s", inv->opts.output, strerror(-r));
        return r;
}
