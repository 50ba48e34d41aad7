/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's profile directories: watch, rescan, register (see user-profiles.h). */
#include "user-profiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dirwatch.h"
#include "file-diff.h"
#include "fileio.h"
#include "hashmap.h"
#include "icc-info.h"
#include "log.h"
#include "session-names.h"
#include "strv.h"

#define CHANGE_DELAY_USEC (100 * 1000)

typedef struct UserProfile {
        char *path;
        char *id;               /* icc-<checksum>; NULL when the file is not a usable profile */
        char checksum[33];
        char *object;           /* the daemon's object for it, when we registered it */
        bool told;              /* why it is not registered has been logged */
} UserProfile;

struct UserProfiles {
        sd_event *event;
        CmClient *cm;
        char **dirs;
        bool started;

        DirWatch *dirwatch;     /* NULL without inotify: the directories are read once */

        FileList listing;       /* what was last found, sorted by path */
        Hashmap *by_path;       /* path → UserProfile */
        Hashmap *registered;    /* id → the UserProfile whose object has it */
};

static UserProfile *user_profile_free(UserProfile *p) {
        if (!p)
                return NULL;
        free(p->path);
        free(p->id);
        free(p->object);
        free(p);
        return NULL;
}

/* ---- registration ---- */

static void unregister(UserProfiles *u, UserProfile *p) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        if (!p->object)
                return;
        hashmap_remove_value(u->registered, p->id, p);
        if (cm_client_daemon_present(u->cm)) {
                int r = cm_delete_profile(u->cm, p->object, &e);
                if (r < 0 && !cm_error_is(&e, "NotFound"))
                        log_warning("Cannot remove profile %s (%s): %s", p->id, p->path,
                                    e.message ? e.message : strerror(-r));
                else
                        log_info("Removed %s (%s)", p->path, p->id);
        }
        p->object = mfree(p->object);
}

static void try_register(UserProfiles *u, UserProfile *p) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_close_ int fd = -1;

        if (!p->id || p->object || !cm_client_daemon_present(u->cm))
                return;
        UserProfile *holder = hashmap_get(u->registered, p->id);
        if (holder) {
                if (!p->told)
                        log_info("%s is the same profile as %s (%s); registered once", p->path, holder->path, p->id);
                p->told = true;
                return;
        }
        fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                log_debug_errno(errno, "Cannot open %s any more: %m", p->path);
                return; /* gone or changed: the watch brings the next rescan */
        }
        int r = cm_create_profile_fd(u->cm, p->id, fd, p->path, p->checksum, &p->object, &e);
        if (r < 0) {
                if (!p->told) {
                        if (cm_error_is(&e, "AlreadyExists"))
                                log_info("%s: the daemon has profile %s already (a system-wide copy?)", p->path, p->id);
                        else
                                log_warning("Cannot register %s: %s", p->path, e.message ? e.message : strerror(-r));
                }
                p->told = true;
                return;
        }
        r = hashmap_put(u->registered, p->id, p);
        if (r < 0) {
                log_oom();
                unregister(u, p);
                return;
        }
        p->told = false;
        log_info("Registered %s as %s", p->path, p->id);
}

/* In path order, so which of two copies wins does not depend on hashing. */
static void register_pending(UserProfiles *u) {
        for (size_t i = 0; i < u->listing.n; i++) {
                UserProfile *p = hashmap_get(u->by_path, u->listing.files[i].path);
                if (p)
                        try_register(u, p);
        }
}

static void on_daemon(bool present, void *userdata) {
        UserProfiles *u = userdata;
        void *i = NULL;
        const char *k;
        void *v;

        if (!present) {
                /* Its objects went with it. */
                while (hashmap_iterate(u->by_path, &i, &k, &v)) {
                        UserProfile *p = v;
                        if (p->object)
                                hashmap_remove_value(u->registered, p->id, p);
                        p->object = mfree(p->object);
                        p->told = false;
                }
                return;
        }
        if (u->started)
                register_pending(u);
}

/* ---- reading a file ---- */

/* The id and checksum the file's bytes give, or *ret_id NULL when it is not a profile (said
 * once here; the identity must change before the file is read again). */
static int read_profile_id(const char *path, char **ret_id, char ret_checksum[33]) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *why = NULL;
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        size_t size;
        int r;

        *ret_id = NULL;
        const char *name = strrchr(path, '/');
        name = name ? name + 1 : path;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno != ENOENT)
                        log_notice_errno(errno, "Ignoring %s: %m", path);
                return 0;
        }
        r = read_fd_capped(fd, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size);
        if (r < 0) {
                log_notice_errno(r, "Ignoring %s: %m", path);
                return 0;
        }
        if (size == 0) {
                log_debug("%s is empty (yet)", path);
                return 0;
        }
        /* ICC.1 §7.2.9: the profile file signature 'acsp' at offset 36. */
        if (!session_name_has_icc_suffix(name) && (size < 40 || memcmp(data + 36, "acsp", 4) != 0)) {
                log_debug("%s is not an ICC profile", path);
                return 0;
        }
        r = icc_info_parse_flags(data, size, ICC_INFO_SKIP_WARNINGS, &info, &why);
        if (r == -ENOMEM)
                return log_oom();
        if (r < 0) {
                log_notice("Ignoring %s: %s", path, why ? why : strerror(-r));
                return 0;
        }
        if (asprintf(ret_id, "icc-%s", info->checksum) < 0) {
                *ret_id = NULL;
                return log_oom();
        }
        memcpy(ret_checksum, info->checksum, 33);
        return 0;
}

/* ---- the rescan ---- */

static void on_file_change(FileChange change, const FileIdentity *file, void *userdata) {
        UserProfiles *u = userdata;
        UserProfile *p;
        char checksum[33] = "";
        char *id = NULL;

        if (change == FILE_REMOVED) {
                p = hashmap_remove(u->by_path, file->path);
                if (p) {
                        unregister(u, p);
                        user_profile_free(p);
                }
                return;
        }
        if (read_profile_id(file->path, &id, checksum) < 0)
                return;
        p = hashmap_get(u->by_path, file->path);
        if (!p) {
                p = calloc(1, sizeof *p);
                if (!p || !(p->path = strdup(file->path)) || hashmap_put(u->by_path, p->path, p) < 0) {
                        user_profile_free(p);
                        free(id);
                        log_oom();
                        return;
                }
        }
        if (streq_ptr(p->id, id)) {
                free(id);       /* rewritten with the same bytes (or touched): nothing to do */
                return;
        }
        unregister(u, p);
        free(p->id);
        p->id = id;
        memcpy(p->checksum, checksum, sizeof checksum);
        p->told = false;
}

/* A candidate that is a regular file (symbolic links followed: a link to a profile kept
 * elsewhere counts). */
static int add_if_file(const char *path, FileList *into) {
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        return file_list_add(into, path, (uint64_t) st.st_size,
                             (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, (uint64_t) st.st_ino);
}

static int list_dir(const char *dir, FileList *into) {
        DIR *d = opendir(dir);
        if (!d) {
                if (errno != ENOENT && errno != ENOTDIR)
                        log_debug_errno(errno, "Cannot list %s: %m", dir);
                return 0;
        }
        int r = 0;
        struct dirent *de;
        while (r >= 0 && (de = readdir(d))) {
                _cleanup_free_ char *path = NULL;
                if (!session_name_is_candidate(de->d_name))
                        continue;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
                        r = -ENOMEM;
                else
                        r = add_if_file(path, into);
        }
        closedir(d);
        return r;
}

/* Lists path again into `after` (a whole directory, or one entry of one), and what was
 * known there into `before`. */
static int list_again(UserProfiles *u, const char *path, bool whole_dir, FileList *before, FileList *after) {
        int r = file_list_collect(&u->listing, path, before);
        if (r < 0)
                return r;
        return whole_dir ? list_dir(path, after) : add_if_file(path, after);
}

/* Applies what list_again() found (unless r says it failed) against what was known. */
static void apply(UserProfiles *u, int r, FileList *before, FileList *after) {
        if (r < 0)
                log_oom();
        else {
                file_list_sort(before);
                file_list_sort(after);
                file_list_diff(before, after, on_file_change, u);
                if (file_list_update(&u->listing, before, after) < 0)
                        log_oom(); /* the listing is stale: the next change of these files is taken as new */
                register_pending(u);
        }
        file_list_clear(before);
        file_list_clear(after);
}

static void rescan_all(UserProfiles *u) {
        FileList before = {}, after = {};
        int r = 0;
        for (char **dir = u->dirs; r >= 0 && dir && *dir; dir++)
                r = list_again(u, *dir, true, &before, &after);
        apply(u, r, &before, &after);
}

/* What the watcher names is listed again; a directory that came or went, or lost events,
 * is listed whole. A file being written is not named until it is closed (dirwatch.h). */
static void on_changes(const DirWatchChange *changes, size_t n, void *userdata) {
        UserProfiles *u = userdata;
        FileList before = {}, after = {};
        int r = 0;

        for (size_t i = 0; r >= 0 && i < n; i++) {
                const DirWatchChange *c = &changes[i];
                _cleanup_free_ char *path = NULL;
                if (c->change == DIR_RESCAN)
                        r = list_again(u, c->dir, true, &before, &after);
                else if (!session_name_is_candidate(c->name))
                        continue;
                else if (asprintf(&path, "%s/%s", c->dir, c->name) < 0)
                        r = -ENOMEM;
                else
                        r = list_again(u, path, false, &before, &after);
        }
        apply(u, r, &before, &after);
}

void user_profiles_rescan_now(UserProfiles *u) {
        if (u->dirwatch)
                dirwatch_flush(u->dirwatch);
        else
                rescan_all(u);
}

/* ---- life cycle ---- */

int user_profiles_new(sd_event *event, CmClient *cm, char *const *dirs, UserProfiles **ret) {
        _cleanup_(user_profiles_freep) UserProfiles *u = calloc(1, sizeof *u);
        int r;

        if (!u)
                return -ENOMEM;
        u->event = sd_event_ref(event);
        u->cm = cm;
        if (!(u->dirs = strv_copy(dirs)) || !(u->by_path = hashmap_new()) || !(u->registered = hashmap_new()))
                return -ENOMEM;
        r = cm_client_add_presence_watch(cm, on_daemon, u);
        if (r < 0)
                return r;
        r = dirwatch_new(event, CHANGE_DELAY_USEC, on_changes, u, &u->dirwatch);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                log_warning_errno(r, "No inotify: the profile directories are read once only: %m");
        *ret = TAKE_PTR(u);
        return 0;
}

UserProfiles *user_profiles_free(UserProfiles *u) {
        if (!u)
                return NULL;
        void *i = NULL;
        const char *k;
        void *v;
        while (hashmap_iterate(u->by_path, &i, &k, &v))
                user_profile_free(v);   /* the daemon drops our temp objects when we leave */
        hashmap_free(u->by_path);
        hashmap_free(u->registered);
        file_list_clear(&u->listing);
        dirwatch_free(u->dirwatch);
        strv_free(u->dirs);
        sd_event_unref(u->event);
        free(u);
        return NULL;
}

int user_profiles_start(UserProfiles *u) {
        u->started = true;
        /* Watched before listed, so nothing written meanwhile is missed. A directory that
         * does not exist yet is waited for on its nearest existing parent. */
        STRV_FOREACH(dir, u->dirs) {
                int r = u->dirwatch ? dirwatch_add(u->dirwatch, *dir) : 0;
                if (r < 0)
                        log_warning_errno(r, "Cannot watch %s: %m", *dir);
                else
                        log_debug("Watching %s", *dir);
        }
        rescan_all(u);
        return 0;
}
