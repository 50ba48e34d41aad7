/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile-load.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bus-errors.h"
#include "bus-order.h"
#include "fileio.h"
#include "icc-info.h"
#include "log.h"
#include "parser.h"

/* The parser's facts and the bytes go into the profile (the bytes are taken). */
static int apply_parsed(Profile *p, const IccInfo *info, uint8_t *data, size_t size, sd_bus_error *error) {
        _cleanup_free_ uint8_t *owned = data;
        int r = profile_apply_icc(p, info);
        if (r == -E2BIG)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many metadata entries");
        if (r < 0)
                return r;
        free(p->data);
        p->data = TAKE_PTR(owned);
        p->size = size;
        return 0;
}

static int parse_error(int r, const char *why, sd_bus_error *error) {
        return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ, "failed to load: %s",
                             why ? why : strerror(-r));
}

int profile_load_data(Profile *p, uint8_t *data, size_t size, sd_bus_error *error) {
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *why = NULL;
        _cleanup_free_ uint8_t *owned = data;

        /* Warnings later, from the kept bytes (profile-warnings.h). */
        int r = parser_icc_info(p->manager->parser, data, size, ICC_INFO_SKIP_WARNINGS, &info, &why);
        if (r < 0)
                return parse_error(r, why, error);
        return apply_parsed(p, info, TAKE_PTR(owned), size, error);
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

int profile_read_fd(int fd, uint8_t **ret_data, size_t *ret_size, sd_bus_error *error) {
        int r = read_fd_capped(fd, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, ret_data, ret_size);
        if (r < 0)
                return read_error(r, "the passed file descriptor", error);
        return 0;
}

static bool inside_profile_dirs(Manager *m, const char *path) {
        STRV_FOREACH(d, m->config.profile_dirs) {
                size_t n = strlen(*d);
                if (strncmp(path, *d, n) == 0 && path[n] == '/' && !strstr(path, "/../"))
                        return true;
        }
        return false;
}

int profile_read_filename(Manager *m, const char *filename, bool privileged, uint8_t **ret_data, size_t *ret_size,
                          sd_bus_error *error) {
        if (filename[0] != '/')
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to load file: '%s' is not an absolute path", filename);
        if (!privileged && !inside_profile_dirs(m, filename))
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to load file: the daemon does not open files for unprivileged "
                                     "callers; pass a file descriptor (CreateProfileWithFd)");
        _cleanup_close_ int fd = open(filename, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ,
                                     "failed to load file: Error opening file %s: %s", filename, strerror(errno));
        int r = read_fd_capped(fd, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, ret_data, ret_size);
        if (r < 0)
                return read_error(r, filename, error);
        return 0;
}

/* ---- calls waiting for their parse -------------------------------------------------- */

struct ProfileLoad {
        ListLink link;          /* in Manager.loads_pending */
        Manager *manager;
        Profile *profile;
        BusCall *call;          /* the caller's order waits for it (bus-order.h) */
        uid_t uid;
        ParserCall *parse;
        ProfileLoadContinuation cont;
        void *userdata;
        void (*free_userdata)(void *);
};

static ProfileLoad *load_free(ProfileLoad *l) {
        if (!l)
                return NULL;
        list_unlink(&l->manager->loads_pending, &l->link);
        parser_call_cancel(l->parse);
        profile_free(l->profile);
        bus_call_free(l->call);
        if (l->free_userdata)
                l->free_userdata(l->userdata);
        free(l);
        return NULL;
}

static void on_parsed(int r, IccInfo *info, const char *why, uint8_t *data, size_t size, void *userdata) {
        ProfileLoad *l = userdata;
        _cleanup_(icc_info_freep) IccInfo *owned_info = info;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;

        l->parse = NULL; /* done: nothing to cancel */
        if (r < 0) {
                free(data);
                r = parse_error(r, why, &error);
        } else
                r = apply_parsed(l->profile, info, data, size, &error);
        if (r >= 0)
                r = l->cont(l->call->msg, l->manager, &l->profile, l->userdata, &error);
        /* The caller may have left meanwhile: then the answer goes nowhere, which is fine. */
        if (r < 0) {
                if (sd_bus_error_is_set(&error))
                        (void) sd_bus_reply_method_error(l->call->msg, &error);
                else
                        (void) sd_bus_reply_method_errno(l->call->msg, r, NULL);
        }
        load_free(l);
}

int profile_load_async(Profile *p, uint8_t *data, size_t size, sd_bus_message *msg, uid_t uid,
                       ProfileLoadContinuation cont, void *userdata, void (*free_userdata)(void *),
                       sd_bus_error *error) {
        Manager *m = p->manager;
        _cleanup_(profile_freep) Profile *owned_profile = p;
        _cleanup_free_ uint8_t *owned_data = data;

        unsigned of_uid = 0;
        ProfileLoad *it;
        LIST_FOREACH(&m->loads_pending, it, ProfileLoad, link)
                of_uid += it->uid == uid;
        if (m->loads_pending.size >= LIMIT_PENDING_LOADS || of_uid >= LIMIT_PENDING_LOADS_PER_UID) {
                if (free_userdata)
                        free_userdata(userdata);
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL,
                                     "too many profiles being loaded at once (at most %u, %u per user); try again",
                                     LIMIT_PENDING_LOADS, LIMIT_PENDING_LOADS_PER_UID);
        }
        ProfileLoad *l = calloc(1, sizeof *l);
        BusCall *call = l ? bus_call_keep(m->bus_order, msg) : NULL;
        if (!call) {
                free(l);
                if (free_userdata)
                        free_userdata(userdata);
                return -ENOMEM;
        }
        *l = (ProfileLoad) { .manager = m, .profile = TAKE_PTR(owned_profile), .call = call,
                             .uid = uid, .cont = cont, .userdata = userdata, .free_userdata = free_userdata };
        list_append(&m->loads_pending, &l->link);
        /* With the Warnings: only this caller waits for the colour transforms, and a profile
         * whose transforms are slow fails here, in its process, instead of in a later read of
         * its Warnings property, which the loop would have to wait for. */
        int r = parser_icc_info_async(m->parser, TAKE_PTR(owned_data), size, 0, on_parsed, l, &l->parse);
        if (r < 0) {
                load_free(l);
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_READ, "failed to load: %s", strerror(-r));
        }
        return 1;
}

void profile_load_cancel_all(Manager *m) {
        while (m->loads_pending.size > 0)
                load_free(list_entry(m->loads_pending.head.next, ProfileLoad, link));
}
