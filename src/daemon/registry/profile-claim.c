/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile-claim.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "bus-errors.h"
#include "fileio.h"
#include "icc-info.h"
#include "log.h"

int profile_claim_check_fd(Profile *p, int fd, bool trusted, sd_bus_error *error) {
        struct stat passed, named;

        if (fstat(fd, &passed) < 0)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to read the passed file descriptor: %s", strerror(errno));
        /* A relative name means nothing to the daemon; it can only be the caller's word. */
        if (p->filename[0] == '/' && stat(p->filename, &named) >= 0) {
                if (named.st_dev != passed.st_dev || named.st_ino != passed.st_ino)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID,
                                             "Filename '%s' is not the file passed as the file descriptor",
                                             p->filename);
                p->filename_claimed = false;
                return 0;
        }
        /* Nothing to compare with: a confined daemon sees no home directories. */
        p->filename_claimed = !trusted;
        if (p->filename_claimed)
                log_debug("Profile %s: Filename cannot be checked, kept as uid %u's claim", p->id, (unsigned) p->owner);
        return 0;
}

void profile_claim_check_restored(Profile *p, bool trusted) {
        p->filename_claimed = false;
        if (!p->filename || trusted)
                return;
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        /* The same bytes as were passed then: the file is what the Filename said. */
        if (p->data && p->filename[0] == '/' &&
            read_file_capped(p->filename, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size, NULL) >= 0 &&
            size == p->size && memcmp(data, p->data, size) == 0)
                return;
        p->filename_claimed = true;
}

bool profile_filename_answers(const Profile *p, uid_t uid) {
        return !p->filename_claimed || p->owner == uid;
}
