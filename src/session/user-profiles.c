/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's profile directories: watch, rescan, register (see user-profiles.h). */
#include "user-profiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "debounce.h"
#include "file-diff.h"
#include "fileio.h"
#include "hashmap.h"
#include "icc-info.h"
#include "log.h"
#include "session-names.h"
#include "strv.h"

#define RESCAN_DELAY_USEC (100 * 1000)

#define TARGET_MASK (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_MODIFY | \
                     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
#define PARENT_MASK (IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

typedef struct UserProfile {
        char *path;
        char *id;               /* icc-<checksum>; NULL when the file is not a usable profile */
        char checksum[33];
        char *object;           /* the daemon's object for it, when we registered it */
        bool told;              /* why it is not registered has been logged */
} UserProfile;

typedef struct Watch {
        int wd;
        char *path;
        bool target;            /* one of the directories itself, not a parent waiting for it */
} Watch;

struct UserProfiles {
        sd_event *event;
        CmClient *cm;
        char **dirs;
        bool started;

        int inotify_fd;
        sd_event_source *inotify_source;
        Watch *watches;
        size_t n_watches;
        Debounce *rescan;

        FileList listing;       /* the last rescan's, sorted by path */
        char **writing;         /* paths created or modified here and not closed since */
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

static int list_dir(const char *dir, FileList *into) {
        DIR *d = opendir(dir);
        if (!d) {
                if (errno != ENOENT && errno != ENOTDIR)
                        log_debug_errno(errno, "Cannot list %s: %m", dir);
                return 0;
        }
        int r = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                if (!session_name_is_candidate(de->d_name))
                        continue;
                /* Symbolic links are followed: a link to a profile kept elsewhere counts. */
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                        continue;
                _cleanup_free_ char *path = NULL;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                r = file_list_add(into, path, (uint64_t) st.st_size,
                                  (int64_t) st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, (uint64_t) st.st_ino);
                if (r < 0)
                        break;
        }
        closedir(d);
        return r;
}

/* The nearest existing directory at or above dir (a new string). */
static char *nearest_existing(const char *dir) {
        char *p = strdup(dir);
        struct stat st;
        while (p && stat(p, &st) < 0) {
                char *slash = strrchr(p, '/');
                if (!slash || slash == p) {
                        free(p);
                        return strdup("/");
                }
                *slash = 0;
        }
        return p;
}

/* Watches each directory, or its nearest existing parent until it exists. Run before each
 * listing, so a directory made (or removed) since the last one is followed. */
static int update_watches(UserProfiles *u) {
        Watch *now = NULL;
        size_t n = 0;
        int r = 0;

        if (u->inotify_fd < 0)
                return 0;

        STRV_FOREACH(dir, u->dirs) {
                _cleanup_free_ char *path = nearest_existing(*dir);
                if (!path)
                        return -ENOMEM;
                bool target = streq(path, *dir);
                bool seen = false;
                for (size_t i = 0; i < n; i++)
                        if (streq(now[i].path, path))
                                seen = true;
                if (seen)
                        continue;
                int wd = inotify_add_watch(u->inotify_fd, path, target ? TARGET_MASK : PARENT_MASK);
                if (wd < 0) {
                        log_debug_errno(errno, "Cannot watch %s: %m", path);
                        continue;
                }
                Watch *grown = realloc(now, (n + 1) * sizeof *now);
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                now = grown;
                now[n++] = (Watch) { .wd = wd, .path = TAKE_PTR(path), .target = target };
        }
        /* Watches no longer wanted (the directory they waited for exists now). */
        for (size_t i = 0; i < u->n_watches; i++) {
                bool kept = false;
                for (size_t k = 0; k < n; k++)
                        kept = kept || now[k].wd == u->watches[i].wd;
                if (!kept)
                        (void) inotify_rm_watch(u->inotify_fd, u->watches[i].wd);
                free(u->watches[i].path);
        }
        free(u->watches);
        u->watches = now;
        u->n_watches = n;
        return r;
}

static const FileIdentity *find_listed(const FileList *l, const char *path) {
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->files[i].path, path))
                        return &l->files[i];
        return NULL;
}

/* A file being written (modified, not closed since) is not read yet: it is left as the last
 * rescan saw it (not there, or its earlier contents), and its IN_CLOSE_WRITE brings the next
 * rescan. */
static int leave_writing_alone(UserProfiles *u, FileList *now) {
        FileList kept = {};
        for (size_t i = 0; i < now->n; i++) {
                const FileIdentity *f = &now->files[i];
                if (strv_contains(u->writing, f->path)) {
                        f = find_listed(&u->listing, f->path);
                        if (!f)
                                continue;
                }
                if (file_list_add(&kept, f->path, f->size, f->mtime_ns, f->inode) < 0) {
                        file_list_clear(&kept);
                        return -ENOMEM;
                }
        }
        file_list_clear(now);
        *now = kept;
        return 0;
}

static bool read_events(UserProfiles *u);

static void rescan(void *userdata) {
        UserProfiles *u = userdata;
        FileList now = {};
        int r;

        /* What happened up to now is known before the listing: a write that has begun is seen
         * as IN_MODIFY, so the file is left alone (this rescan covers the other events). */
        if (u->inotify_fd >= 0)
                (void) read_events(u);

        if ((r = update_watches(u)) < 0) {
                log_oom();
                return;
        }
        STRV_FOREACH(dir, u->dirs)
                if ((r = list_dir(*dir, &now)) < 0) {
                        file_list_clear(&now);
                        log_oom();
                        return;
                }
        file_list_sort(&now);
        if (!strv_isempty(u->writing) && (r = leave_writing_alone(u, &now)) < 0) {
                file_list_clear(&now);
                log_oom();
                return;
        }
        file_list_diff(&u->listing, &now, on_file_change, u);
        file_list_clear(&u->listing);
        u->listing = now;
        register_pending(u);
}

void user_profiles_rescan_now(UserProfiles *u) {
        rescan(u);
}

/* ---- inotify ---- */

static const Watch *find_watch(const UserProfiles *u, int wd) {
        for (size_t i = 0; i < u->n_watches; i++)
                if (u->watches[i].wd == wd)
                        return &u->watches[i];
        return NULL;
}

/* Follows which files are being written; returns whether the event can change what a
 * rescan finds. */
static bool handle_event(UserProfiles *u, const struct inotify_event *ev) {
        if (ev->mask & IN_Q_OVERFLOW) {
                u->writing = strv_free(u->writing);     /* we cannot know any more */
                return true;
        }
        const Watch *w = find_watch(u, ev->wd);
        if (!w)
                return false;   /* a watch we dropped, IN_IGNORED among them */
        if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF))
                return true;
        if (!w->target)
                return (ev->mask & IN_ISDIR) != 0;
        if (ev->len == 0 || (ev->mask & IN_ISDIR) || !session_name_is_candidate(ev->name))
                return false;

        _cleanup_free_ char *path = NULL;
        if (asprintf(&path, "%s/%s", w->path, ev->name) < 0) {
                log_oom();
                return true;
        }
        if (ev->mask & IN_MODIFY) {
                /* Being written: taken when it is closed (IN_CLOSE_WRITE). */
                if (!strv_contains(u->writing, path) && strv_extend(&u->writing, path) < 0)
                        log_oom();
                return false;
        }
        /* IN_CREATE: a file opened to be written is empty until its first IN_MODIFY (and
         * skipped while empty); a hard link (how write_file_atomic() refuses to replace, as
         * `tinct import-profile` writes) or a symbolic link gets no other event. */
        (void) strv_remove(u->writing, path);
        return (ev->mask & (IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)) != 0;
}

/* Reads every queued event; returns whether any can change what a rescan finds. */
static bool read_events(UserProfiles *u) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool matters = false;

        for (;;) {
                ssize_t n = read(u->inotify_fd, buf, sizeof buf);
                if (n <= 0)
                        break;
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;
                        matters = handle_event(u, ev) || matters;
                        p += sizeof *ev + ev->len;
                }
        }
        return matters;
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        UserProfiles *u = userdata;
        if (read_events(u))
                debounce_schedule(u->rescan);
        return 0;
}

/* ---- life cycle ---- */

int user_profiles_new(sd_event *event, CmClient *cm, char *const *dirs, UserProfiles **ret) {
        _cleanup_(user_profiles_freep) UserProfiles *u = calloc(1, sizeof *u);
        int r;

        if (!u)
                return -ENOMEM;
        u->inotify_fd = -1;
        u->event = sd_event_ref(event);
        u->cm = cm;
        if (!(u->dirs = strv_copy(dirs)) || !(u->by_path = hashmap_new()) || !(u->registered = hashmap_new()))
                return -ENOMEM;
        if ((r = debounce_new(event, RESCAN_DELAY_USEC, rescan, u, &u->rescan)) < 0)
                return r;
        if ((r = cm_client_add_presence_watch(cm, on_daemon, u)) < 0)
                return r;
        u->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (u->inotify_fd < 0)
                log_warning_errno(errno, "No inotify: the profile directories are read once only: %m");
        else if ((r = sd_event_add_io(event, &u->inotify_source, u->inotify_fd, EPOLLIN, on_inotify, u)) < 0)
                return r;
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
        strv_free(u->writing);
        for (size_t n = 0; n < u->n_watches; n++)
                free(u->watches[n].path);
        free(u->watches);
        sd_event_source_disable_unref(u->inotify_source);
        if (u->inotify_fd >= 0)
                close(u->inotify_fd);
        debounce_free(u->rescan);
        strv_free(u->dirs);
        sd_event_unref(u->event);
        free(u);
        return NULL;
}

int user_profiles_start(UserProfiles *u) {
        u->started = true;
        STRV_FOREACH(dir, u->dirs)
                log_debug("Watching %s", *dir);
        rescan(u);
        return 0;
}
