/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile-load.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bus-errors.h"
#include "fileio.h"
#include "icc-info.h"
#include "log.h"
#include "parser.h"

static int parse_into(Profile *p, uint8_t *data, size_t size, sd_bus_error *error) {
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *why = NULL;
        _cleanup_free_ uint8_t *owned = data;

        /* Warnings later, from the kept bytes (profile-warnings.h): a CreateProfileWithFd
         * need not wait for the colour transforms. */
        int r = parser_icc_info(p->manager->parser, data, size, ICC_INFO_SKIP_WARNINGS, &info, &why);
        if (r < 0)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ, "failed to load: %s",
                                     why ? why : strerror(-r));
        r = profile_apply_icc(p, info);
        if (r == -E2BIG)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many metadata entries");
        if (r < 0)
                return r;
        free(p->data);
        p->data = TAKE_PTR(owned);
        p->size = size;
        return 0;
}

/* colord answers every read failure with Profile.FailedToRead, and clients expect that name. */
static int read_error(int r, const char *what, sd_bus_error *error) {
        if (r == -EBADFD)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ, "failed to read %s: not a regular file", what);
        if (r == -EFBIG)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ, "failed to read %s: larger than %u bytes (docs/sandbox.md)",
                                     what, ICC_MAX_FILE_SIZE);
        return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ, "failed to read %s: %s", what, strerror(-r));
}

int profile_load_data(Profile *p, uint8_t *data, size_t size, sd_bus_error *error) {
        return parse_into(p, data, size, error);
}

int profile_load_fd(Profile *p, int fd, sd_bus_error *error) {
        uint8_t *data;
        size_t size;
        int r = read_fd_capped(fd, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size);
        if (r < 0)
                return read_error(r, "the passed file descriptor", error);
        return parse_into(p, data, size, error);
}

static bool inside_profile_dirs(Manager *m, const char *path) {
        STRV_FOREACH(d, m->config.profile_dirs) {
                size_t n = strlen(*d);
                if (strncmp(path, *d, n) == 0 && path[n] == '/' && !strstr(path, "/../"))
                        return true;
        }
        return false;
}

int profile_load_filename(Profile *p, const char *filename, bool privileged, sd_bus_error *error) {
        if (filename[0] != '/')
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to load file: '%s' is not an absolute path", filename);
        if (!privileged && !inside_profile_dirs(p->manager, filename))
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to load file: the daemon does not open files for unprivileged "
                                     "callers; pass a file descriptor (CreateProfileWithFd)");
        _cleanup_close_ int fd = open(filename, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to load file: Error opening file %s: %s", filename, strerror(errno));
        uint8_t *data;
        size_t size;
        int r = read_fd_capped(fd, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size);
        if (r < 0)
                return read_error(r, filename, error);
        return parse_into(p, data, size, error);
}
