/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profile directories: walks, the metadata cache, the watch (see profile-dirs.h). */
#include "profile-dirs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "dirwatch.h"
#include "file-diff.h"
#include "icc-info.h"
#include "fileio.h"
#include "log.h"
#include "utf8.h"
#include "parser.h"
#include "profile-load.h"
#include "signals.h"
#include "profile.h"
#include "store-failed.h"

#define MAX_DEPTH 2
/* Coalesces the events of one copy or rename into one change; short, since a change costs
 * only what changed (the signal is due within 200 ms at any size), and a file being
 * written is held back by the watcher until it is closed. */
#define CHANGE_DELAY_USEC (80 * 1000ULL)

/* A file skipped because a registered profile has its checksum: when that profile goes,
 * this copy takes over. */
typedef struct Shadowed {
        char *id;
        char path[];
} Shadowed;

struct ProfileWatch {
        DirWatch *dirwatch;     /* NULL without an event loop or inotify */
        FileList known;         /* every file found, sorted by path */
        Hashmap *shadowed;      /* path → Shadowed */
        bool lost;              /* a change could not be applied: list everything again */
        struct Rescan *rescan;  /* the change being applied, while its files are parsed */
        struct Again *queued;   /* paths named by changes since: listed once it is applied */
        size_t n_queued;
};

static struct Rescan *rescan_free(struct Rescan *r);

static void shadowed_clear(ProfileWatch *w) {
        void *i = NULL, *v;
        while (hashmap_iterate(w->shadowed, &i, NULL, &v)) {
                free(((Shadowed *) v)->id);
                free(v);
        }
        w->shadowed = hashmap_free(w->shadowed);
}

/* What is listed again: a watched directory (rescan), or an entry of one. */
typedef struct Again {
        char *path;
        int depth;
        bool is_dir;
} Again;

static void free_again(Again *again, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(again[i].path);
        free(again);
}

ProfileWatch *profile_watch_free(ProfileWatch *w) {
        if (!w)
                return NULL;
        dirwatch_free(w->dirwatch);
        rescan_free(w->rescan); /* its parse is cancelled: no callback comes */
        free_again(w->queued, w->n_queued);
        file_list_clear(&w->known);
        shadowed_clear(w);
        free(w);
        return NULL;
}

static void shadow_remove(ProfileWatch *w, const char *path) {
        Shadowed *s = w->shadowed ? hashmap_remove(w->shadowed, path) : NULL;
        if (s) {
                free(s->id);
                free(s);
        }
}

static void shadow_add(ProfileWatch *w, const char *path, const char *id) {
        size_t len = strlen(path);
        Shadowed *s = calloc(1, sizeof *s + len + 1);
        shadow_remove(w, path);
        if (!s || !(s->id = strdup(id)) || (!w->shadowed && !(w->shadowed = hashmap_new()))) {
                if (s)
                        free(s->id);
                free(s);
                log_oom(); /* the copy is not taken over when the first goes; it is still a skipped copy */
                return;
        }
        memcpy(s->path, path, len + 1);
        if (hashmap_put(w->shadowed, s->path, s) < 0) {
                free(s->id);
                free(s);
                log_oom();
        }
}

static bool has_icc_suffix(const char *name) {
        size_t n = strlen(name);
        return n > 4 && (strcasecmp(name + n - 4, ".icc") == 0 || strcasecmp(name + n - 4, ".icm") == 0);
}

static bool has_icc_magic(const uint8_t *data, size_t size) {
        return size >= 40 && memcmp(data + 36, "acsp", 4) == 0;
}

static bool is_temporary_name(const char *base) {
        /* GIO's atomic writers and our own InstallSystemWide write under such names first. */
        return base[0] == '.' || strstr(base, ".goutputstream");
}

/* A batch's share of memory: the bytes of its files are held until the batch is parsed. */
#define BATCH_MAX_FILES 256
#define BATCH_MAX_BYTES (64u * 1024 * 1024)

typedef struct Batch {
        ParserIccJob jobs[BATCH_MAX_FILES];
        size_t index[BATCH_MAX_FILES];  /* which file of the caller's array */
        uint64_t dev[BATCH_MAX_FILES];  /* its device: part of a failed file's identity */
        size_t n, bytes;
} Batch;

/* Caches each answer of a parsed batch (r: parser_icc_info_many()'s): the facts, or the
 * failure by the file's identity, so that it is not parsed again until it changes
 * (store-failed.h). */
static void batch_collect(Manager *m, Batch *b, int r, const FileIdentity *files, IccInfo **infos) {
        for (size_t j = 0; j < b->n; j++) {
                ParserIccJob *job = &b->jobs[j];
                const FileIdentity *f = &files[b->index[j]];
                if (r < 0)
                        log_warning_errno(r, "Skipping %s: %m", f->path);
                else if (job->r < 0) {
                        const char *why = job->error ? job->error : strerror(-job->r);
                        log_warning("Skipping %s: %s", f->path, why);
                        int q = job->input_failed ?
                                store_failed_put(m->store, f->path, b->dev[j], f->size, f->mtime_ns, f->inode, why) : 0;
                        if (q < 0)
                                log_debug_errno(q, "Failed to remember that %s failed: %m", f->path);
                } else {
                        if (job->info->tags_ignored > 0)
                                log_notice("%s: %u tags point outside the file and were ignored", f->path,
                                           job->info->tags_ignored);
                        int q = store_profile_cache_put(m->store, f->path, f->size, f->mtime_ns, f->inode, job->info);
                        if (q < 0)
                                log_debug_errno(q, "Failed to cache %s: %m", f->path);
                        infos[b->index[j]] = TAKE_PTR(job->info);
                }
                icc_info_free(job->info);
                free(job->error);
                free((void *) job->data); /* NULL when the pool took it */
        }
        b->n = b->bytes = 0;
}

/* Fills b with files[*next..n) that need parsing, until it is full: infos[i] comes from the
 * cache when a file's identity is unchanged, and stays NULL for a file that is skipped (not
 * an ICC profile, unreadable, or failed before with the same identity). */
static void batch_fill(Manager *m, Batch *b, const FileIdentity *files, size_t n, size_t *next, IccInfo **infos) {
        for (; *next < n && b->n < BATCH_MAX_FILES; (*next)++) {
                const FileIdentity *f = &files[*next];
                infos[*next] = NULL;
                /* D-Bus strings are UTF-8: such a Filename would break every listing that reads
                 * it. Skipped, once per appearance (the log escapes the name). */
                if (!utf8_is_valid(f->path, strlen(f->path))) {
                        log_warning("Skipping %s: its name is not valid UTF-8, which D-Bus cannot carry", f->path);
                        continue;
                }
                if (store_profile_cache_get(m->store, f->path, f->size, f->mtime_ns, f->inode, &infos[*next]) >= 0)
                        continue;
                /* The listing's identity has no device; a failed file's has. */
                struct stat st;
                if (stat(f->path, &st) < 0) {
                        log_warning_errno(errno, "Skipping %s: %m", f->path);
                        continue;
                }
                _cleanup_free_ char *why = NULL;
                if (store_failed_get(m->store, f->path, (uint64_t) st.st_dev, f->size, f->mtime_ns, f->inode, &why) > 0) {
                        log_debug("Skipping %s: it failed to parse before and has not changed (%s)", f->path,
                                  why ? why : "no reason kept");
                        continue;
                }

                uint8_t *data;
                size_t size;
                int r = read_file_capped(f->path, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size, NULL);
                if (r < 0) {
                        log_warning_errno(r, "Skipping %s: %m", f->path);
                        continue;
                }
                const char *base = strrchr(f->path, '/');
                if (size == 0 || (!has_icc_suffix(base ? base + 1 : f->path) && !has_icc_magic(data, size))) {
                        free(data);
                        continue;
                }
                if (b->n > 0 && b->bytes + size > BATCH_MAX_BYTES) {
                        free(data); /* read again for the next batch */
                        return;
                }
                /* The count a test reads to prove a failed file is not asked again. */
                log_debug("Parsing %s", f->path);
                b->jobs[b->n] = (ParserIccJob) { .data = data, .size = size };
                b->dev[b->n] = (uint64_t) st.st_dev;
                b->index[b->n++] = *next;
                b->bytes += size;
        }
}

/* Parsed facts for files[0..n), waiting for the parser (start-up only, before the bus name
 * is taken; later changes parse without waiting: rescan_next()): batch_fill(), then each
 * batch parsed over the pool at once. */
static void load_infos(Manager *m, const FileIdentity *files, size_t n, IccInfo **infos) {
        _cleanup_free_ Batch *b = calloc(1, sizeof *b);
        if (!b) {
                for (size_t i = 0; i < n; i++)
                        infos[i] = NULL;
                log_oom();
                return;
        }
        for (size_t next = 0; next < n;) {
                batch_fill(m, b, files, n, &next, infos);
                if (b->n > 0)
                        batch_collect(m, b, parser_icc_info_many(m->parser, b->jobs, b->n, ICC_INFO_SKIP_WARNINGS),
                                      files, infos);
        }
}

/* colord's rule (colord §4.1): what the daemon finds is system-wide, except under
 * /usr/local (scanned, not system-wide). Our own and --profile-dir directories count. */
static bool path_is_system_wide(const char *path) {
        return strncmp(path, "/usr/local/", strlen("/usr/local/")) != 0;
}

static int register_info(Manager *m, const char *path, const IccInfo *info, bool auto_add) {
        _cleanup_free_ char *id = NULL;
        if (asprintf(&id, "icc-%s", info->checksum) < 0)
                return log_oom();
        Profile *dup = manager_find_profile_by_id(m, id);
        if (dup) {
                log_debug("Skipping %s: same checksum as %s", path, strempty(dup->filename));
                if (m->profile_watch && !streq_ptr(dup->filename, path))
                        shadow_add(m->profile_watch, path, id);
                return 0;
        }

        _cleanup_(profile_freep) Profile *p = NULL;
        int r = profile_new(m, id, 0, SCOPE_UNKNOWN, &p);
        if (r < 0)
                return log_oom();
        p->is_system_wide = path_is_system_wide(path);
        r = profile_set_file(p, path, info, (const char *const[]) { "FILE_checksum", info->checksum, NULL });
        if (r < 0)
                return log_warning_errno(r, "Skipping %s: %m", path);
        profile_apply_well_known_id(p);
        r = manager_add_profile(m, p, auto_add);
        if (r < 0)
                return log_warning_errno(r, "Failed to add profile %s: %m", path);
        TAKE_PTR(p);
        return 1;
}

/* Loads files[0..n) (load_infos()) and registers them in that order: which of two
 * identical files wins does not depend on which was parsed first. Returns the number added. */
static unsigned register_files(Manager *m, const FileIdentity *files, size_t n, bool auto_add) {
        if (n == 0)
                return 0;
        _cleanup_free_ IccInfo **infos = calloc(n, sizeof *infos);
        if (!infos) {
                log_oom();
                return 0;
        }
        load_infos(m, files, n, infos);
        unsigned added = 0;
        for (size_t i = 0; i < n; i++) {
                if (infos[i] && register_info(m, files[i].path, infos[i], auto_add) > 0)
                        added++;
                icc_info_free(infos[i]);
        }
        return added;
}

static int stat_identity(const char *path, FileList *into) {
        struct stat st;
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                return 0;
        return file_list_add(into, path, (uint64_t) st.st_size,
                             (int64_t) st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, (uint64_t) st.st_ino);
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int walk_dir(Manager *m, const char *dir, int depth, const FileList *known, FileList *into);

/* Lists dir (and below) into `into`. Any failure is returned: a listing cut short must not
 * be taken for the directory's content. A directory that no longer exists is empty. */
static int list_dir(Manager *m, const char *dir, int depth, const FileList *known, FileList *into) {
        ProfileWatch *w = m->profile_watch;
        if (w && w->dirwatch) {
                int k = dirwatch_add(w->dirwatch, dir);
                if (k < 0)
                        log_warning_errno(k, "Cannot watch %s: %m", dir);
        }

        _cleanup_strv_free_ char **names = NULL;
        size_t n_names = 0, allocated = 0;
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        int r = 0;
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(d);
                if (!de) {
                        r = -errno;
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n_names + 1 >= allocated) {
                        size_t want = allocated ? allocated * 2 : 64;
                        char **t = realloc(names, want * sizeof(char *));
                        if (!t) {
                                r = -ENOMEM;
                                break;
                        }
                        names = t;
                        allocated = want;
                }
                names[n_names] = strdup(de->d_name);
                if (!names[n_names]) {
                        r = -ENOMEM;
                        break;
                }
                names[++n_names] = NULL;
        }
        closedir(d);
        if (r < 0)
                return r;
        /* Sorted, so which of two identical files wins does not depend on the filesystem. */
        if (names)
                qsort(names, n_names, sizeof(char *), compare_names);

        STRV_FOREACH(n, names) {
                _cleanup_free_ char *path = NULL;
                struct stat st;
                if (is_temporary_name(*n))
                        continue;
                if (asprintf(&path, "%s/%s", dir, *n) < 0)
                        return -ENOMEM;
                if (lstat(path, &st) < 0) {
                        if (errno == ENOENT)
                                continue; /* gone since the listing */
                        return -errno;
                }
                if (S_ISDIR(st.st_mode)) {
                        if (depth < MAX_DEPTH) {
                                r = walk_dir(m, path, depth + 1, known, into);
                                if (r < 0)
                                        return r;
                        } else
                                log_warning("Not descending into %s: deeper than %d levels", path, MAX_DEPTH);
                } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
                        r = stat_identity(path, into);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static void file_list_truncate(FileList *l, size_t n) {
        while (l->n > n)
                free(l->files[--l->n].path);
}

/* Lists dir into `into`. When its listing fails (an allocation, an unreadable directory, an
 * I/O error), what `known` had below dir is kept instead: a rescan would otherwise take
 * those files for deleted and remove their profiles. Returns an error only when even that
 * fails; the caller then changes nothing at all. */
static int walk_dir(Manager *m, const char *dir, int depth, const FileList *known, FileList *into) {
        size_t start = into->n;
        int r = list_dir(m, dir, depth, known, into);
        if (r >= 0)
                return 0;
        log_warning_errno(r, "Cannot list %s: %m. What was found there before is kept.", dir);
        file_list_truncate(into, start);
        return known ? file_list_collect(known, dir, into) : 0;
}

static int walk_all(Manager *m, const FileList *known, FileList *into) {
        STRV_FOREACH(dir, m->config.profile_dirs) {
                int r = walk_dir(m, *dir, 0, known, into);
                if (r < 0)
                        return r;
        }
        file_list_sort(into);
        return 0;
}

/* The profile the daemon made for this file, not a client's profile naming the same path. */
static Profile *discovered_profile(Manager *m, const char *path) {
        Profile *p = manager_find_profile_by_filename(m, path);
        if (p && p->scope == SCOPE_UNKNOWN && p->owner == 0)
                return p;
        LIST_FOREACH(&m->profiles, p, Profile, link)
                if (p->scope == SCOPE_UNKNOWN && p->owner == 0 && streq_ptr(p->filename, path))
                        return p;
        return NULL;
}

/* A change being applied: its arrived files are parsed batch by batch without waiting
 * (the loop serves clients meanwhile; a file that hangs the parser costs only this change's
 * time), then the diff is applied at once. One at a time per watch: changes that come
 * meanwhile are queued (ProfileWatch.queued) and listed after it, so none is lost or
 * applied twice. */
typedef struct Rescan {
        FileList gone;    /* removed, or changed (their old identity no longer holds) */
        FileList arrived; /* added, or changed */
        IccInfo **infos;  /* by arrived file, as load_infos() */
        Batch *batch;     /* the one being parsed */
        size_t next;      /* the next arrived file for batch_fill() */
        ParserBatch *call; /* while batch is parsed */
} Rescan;

static Rescan *rescan_free(Rescan *r) {
        if (!r)
                return NULL;
        parser_batch_cancel(r->call); /* the pool frees the data it took */
        for (size_t j = 0; r->batch && j < r->batch->n; j++)
                free((void *) r->batch->jobs[j].data);
        for (size_t i = 0; r->infos && i < r->arrived.n; i++)
                icc_info_free(r->infos[i]);
        free(r->infos);
        free(r->batch);
        file_list_clear(&r->gone);
        file_list_clear(&r->arrived);
        free(r);
        return NULL;
}

static void collect_change(FileChange change, const FileIdentity *f, void *userdata) {
        Rescan *r = userdata;
        if (change != FILE_ADDED)
                (void) file_list_add(&r->gone, f->path, f->size, f->mtime_ns, f->inode);
        if (change != FILE_REMOVED)
                (void) file_list_add(&r->arrived, f->path, f->size, f->mtime_ns, f->inode);
}

/* The room a change's arrived files need while they are parsed. */
static int rescan_alloc(Rescan *r) {
        r->infos = calloc(r->arrived.n + 1, sizeof *r->infos);
        r->batch = calloc(1, sizeof *r->batch);
        return r->infos && r->batch ? 0 : -ENOMEM;
}

/* Files skipped as copies whose profile is gone now, each perhaps the only copy left: a
 * change of their own (*ret, NULL when there is none) that has them arrive, parsed like any
 * other without waiting (a cache miss costs no client anything). In path order, so which
 * copy takes over does not depend on hashing; a second copy of one profile is skipped as a
 * copy again when the first registers. */
static int revive_shadowed(Manager *m, Rescan **ret) {
        ProfileWatch *w = m->profile_watch;
        _cleanup_strv_free_ char **paths = NULL;
        void *i = NULL, *v;
        *ret = NULL;
        while (hashmap_iterate(w->shadowed, &i, NULL, &v)) {
                const Shadowed *s = v;
                if (manager_find_profile_by_id(m, s->id))
                        continue;
                int r = strv_extend(&paths, s->path);
                if (r < 0)
                        return r;
        }
        if (!paths)
                return 0;
        qsort(paths, strv_length(paths), sizeof(char *), compare_names);
        Rescan *rv = calloc(1, sizeof *rv);
        if (!rv)
                return -ENOMEM;
        int r = 0;
        STRV_FOREACH(p, paths) {
                shadow_remove(w, *p); /* registered, or shadowed again by the one before it */
                ssize_t at = file_list_find(&w->known, *p);
                if (at < 0)
                        continue;
                const FileIdentity *f = &w->known.files[at];
                r = file_list_add(&rv->arrived, f->path, f->size, f->mtime_ns, f->inode);
                if (r < 0)
                        break;
        }
        if (r >= 0 && rv->arrived.n == 0) {
                rescan_free(rv);
                return 0;
        }
        if (r >= 0)
                r = rescan_alloc(rv);
        if (r < 0) {
                rescan_free(rv);
                return r;
        }
        *ret = rv;
        return 0;
}

static void rescan_queued(Manager *m);
static void rescan_next(Manager *m);

/* Applies the change once every arrived file is parsed. A file renamed or moved within the
 * watched directories, or rewritten with the same profile, keeps its object (only Filename
 * changes), so devices keep it; a profile whose file is gone is removed like DeleteProfile;
 * new profiles get automatic assignment, so stored hard mappings attach them again.
 * Profiles are looked up now, not when the change was seen: clients may have changed them
 * while the files were parsed. */
static void rescan_apply(Manager *m) {
        ProfileWatch *w = m->profile_watch;
        Rescan *r = w->rescan;
        IccInfo **infos = r->infos;
        unsigned added = 0, removed = 0, moved = 0;

        (void) store_begin(m->store);
        for (size_t g = 0; g < r->gone.n; g++) {
                shadow_remove(w, r->gone.files[g].path);
                Profile *p = discovered_profile(m, r->gone.files[g].path);
                if (!p)
                        continue;
                size_t a = 0;
                for (; a < r->arrived.n; a++)
                        if (infos[a] && strncmp(p->id, "icc-", 4) == 0 && streq(p->id + 4, infos[a]->checksum))
                                break;
                if (a < r->arrived.n) {
                        if (!streq(p->filename, r->arrived.files[a].path)) {
                                log_info("Profile file %s moved to %s", p->filename, r->arrived.files[a].path);
                                manager_profile_set_filename(m, p, r->arrived.files[a].path);
                                profile_emit_property_changed(p, "Filename");
                                moved++;
                        }
                        infos[a] = icc_info_free(infos[a]); /* consumed */
                        continue;
                }
                log_info("Profile file %s is gone", r->gone.files[g].path);
                manager_remove_profile(m, p);
                removed++;
        }
        for (size_t a = 0; a < r->arrived.n; a++)
                if (infos[a] && register_info(m, r->arrived.files[a].path, infos[a], true) > 0)
                        added++;
        /* A file skipped as a duplicate may now be the only copy left. (Files that failed
         * before are not parsed again: store-failed.h.) */
        Rescan *revive = NULL;
        if (removed > 0) {
                int q = revive_shadowed(m, &revive);
                if (q < 0)
                        log_warning_errno(q, "Copies of the removed profiles are not taken over until they change: %m");
        }
        (void) store_commit(m->store);
        log_debug("Profile files changed: %u profiles added, %u removed, %u moved", added, removed, moved);
        w->rescan = rescan_free(r);
        if (revive) {
                /* The copies first; changes queued meanwhile follow when they are applied. */
                w->rescan = revive;
                rescan_next(m);
        } else if (w->n_queued > 0)
                rescan_queued(m);
}

static void on_batch_parsed(ParserIccJob *jobs, size_t n, void *userdata);

/* Hands the next batch of arrived files to the parser pool without waiting, or, when none
 * is left to parse, applies the change. */
static void rescan_next(Manager *m) {
        Rescan *r = m->profile_watch->rescan;
        for (;;) {
                batch_fill(m, r->batch, r->arrived.files, r->arrived.n, &r->next, r->infos);
                if (r->batch->n == 0) {
                        rescan_apply(m);
                        return;
                }
                int q = parser_icc_info_many_async(m->parser, r->batch->jobs, r->batch->n, ICC_INFO_SKIP_WARNINGS,
                                                   on_batch_parsed, m, &r->call);
                if (q >= 0)
                        return;
                batch_collect(m, r->batch, q, r->arrived.files, r->infos); /* each is skipped, logged */
        }
}

static void on_batch_parsed(ParserIccJob *jobs, size_t n, void *userdata) {
        Manager *m = userdata;
        Rescan *r = m->profile_watch->rescan;
        assert(r && jobs == r->batch->jobs && n == r->batch->n);
        r->call = NULL;
        (void) store_begin(m->store);
        batch_collect(m, r->batch, 0, r->arrived.files, r->infos);
        (void) store_commit(m->store);
        rescan_next(m);
}

/* What changed between two listings of the same paths, to apply (rescan_next()); NULL
 * when nothing did. */
static int rescan_new(const FileList *before, const FileList *after, Rescan **ret) {
        *ret = NULL;
        Rescan *r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        file_list_diff(before, after, collect_change, r);
        if (r->gone.n == 0 && r->arrived.n == 0) {
                rescan_free(r);
                return 0;
        }
        if (rescan_alloc(r) < 0) {
                rescan_free(r);
                return -ENOMEM;
        }
        *ret = r;
        return 0;
}

/* How far below its profile directory dir is (0 for the directory itself). */
static int dir_depth(Manager *m, const char *dir) {
        int best = -1;
        STRV_FOREACH(root, m->config.profile_dirs) {
                size_t len = strlen(*root);
                while (len > 1 && (*root)[len - 1] == '/')
                        len--;
                if (strncmp(dir, *root, len) != 0 || (dir[len] != 0 && dir[len] != '/'))
                        continue;
                int depth = 0;
                for (const char *c = dir + len; *c; c++)
                        depth += *c == '/';
                if (best < 0 || depth < best)
                        best = depth;
        }
        return best;
}

/* Lists path again into `into`: a watched directory (rescan), or an entry of one. */
static int list_again(Manager *m, const char *path, int depth, bool is_dir, FileList *into) {
        ProfileWatch *w = m->profile_watch;
        struct stat st;
        if (is_dir)
                return walk_dir(m, path, depth, &w->known, into);
        if (lstat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        if (S_ISDIR(st.st_mode)) {
                if (depth <= MAX_DEPTH)
                        return walk_dir(m, path, depth, &w->known, into);
                log_warning("Not descending into %s: deeper than %d levels", path, MAX_DEPTH);
                return 0;
        }
        if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
                return stat_identity(path, into);
        return 0;
}

static int compare_again(const void *a, const void *b) {
        return strcmp(((const Again *) a)->path, ((const Again *) b)->path);
}

/* Whether a path listed again covers this one (an ancestor of it is listed too). */
static bool covered(Hashmap *listed, const char *path) {
        char buf[strlen(path) + 1];
        strcpy(buf, path);
        for (char *slash; (slash = strrchr(buf, '/')) && slash != buf;) {
                *slash = 0;
                if (hashmap_get(listed, buf))
                        return true;
        }
        return false;
}

/* The paths the watcher named (or every profile directory, after a change was lost). */
static int collect_again(Manager *m, const DirWatchChange *changes, size_t n, Again **ret, size_t *ret_n) {
        ProfileWatch *w = m->profile_watch;
        size_t n_roots = w->lost ? strv_length(m->config.profile_dirs) : 0, k = 0;
        Again *again = calloc(n + n_roots + 1, sizeof *again);
        if (!again)
                return -ENOMEM;
        for (size_t i = 0; i < n_roots; i++)
                again[k++] = (Again) { strdup(m->config.profile_dirs[i]), 0, true };
        for (size_t i = 0; i < n; i++) {
                const DirWatchChange *c = &changes[i];
                int depth = dir_depth(m, c->dir);
                if (depth < 0 || (c->name && is_temporary_name(c->name)))
                        continue;
                if (c->change == DIR_RESCAN)
                        again[k++] = (Again) { strdup(c->dir), depth, true };
                else if (asprintf(&again[k].path, "%s/%s", c->dir, c->name) >= 0)
                        again[k++].depth = depth + 1;
                else
                        again[k++].path = NULL;
        }
        *ret = again;
        *ret_n = k;
        for (size_t i = 0; i < k; i++)
                if (!again[i].path)
                        return -ENOMEM;
        return 0;
}

/* Lists the queued paths again and applies what changed. The known list is updated at
 * once, so that a change queued while this one's files are parsed is compared with it. */
static void rescan_queued(Manager *m) {
        ProfileWatch *w = m->profile_watch;
        Again *again = TAKE_PTR(w->queued);
        size_t n_again = w->n_queued;
        _cleanup_(hashmap_freep) Hashmap *listed = hashmap_new();
        FileList before = { 0 }, after = { 0 };

        w->n_queued = 0;
        qsort(again, n_again, sizeof *again, compare_again);
        int r = listed ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n_again; i++)
                r = hashmap_replace(listed, again[i].path, &again[i]);
        for (size_t i = 0; r >= 0 && i < n_again; i++) {
                if (covered(listed, again[i].path) || (i > 0 && streq(again[i - 1].path, again[i].path)))
                        continue;
                r = file_list_collect(&w->known, again[i].path, &before);
                if (r >= 0)
                        r = list_again(m, again[i].path, again[i].depth, again[i].is_dir, &after);
        }
        Rescan *change = NULL;
        if (r >= 0) {
                file_list_sort(&before);
                file_list_sort(&after);
                r = rescan_new(&before, &after, &change);
        }
        if (r >= 0)
                r = file_list_update(&w->known, &before, &after);
        if (r >= 0) {
                w->lost = false;
                w->rescan = TAKE_PTR(change);
                if (w->rescan)
                        rescan_next(m);
        } else {
                /* Nothing lost for good: the next change lists every directory again. */
                log_warning_errno(r, "Cannot list the changed profile files: %m. Everything is listed again at the next change.");
                w->lost = true;
        }
        rescan_free(change);
        free_again(again, n_again);
        file_list_clear(&before);
        file_list_clear(&after);
}

/* Queues again[0..n) (taken, also on failure) to be listed again: now, unless a change is
 * being applied; then behind it. */
static int queue_again(Manager *m, Again *again, size_t n) {
        ProfileWatch *w = m->profile_watch;
        Again *q = reallocarray(w->queued, w->n_queued + n + 1, sizeof *q);
        if (!q) {
                free_again(again, n);
                return -ENOMEM;
        }
        memcpy(q + w->n_queued, again, n * sizeof *again);
        w->queued = q;
        w->n_queued += n;
        free(again); /* its paths moved to the queue */
        if (!w->rescan)
                rescan_queued(m);
        else /* the line a test waits for */
                log_debug("Profile files changed while a change is parsed: queued behind it");
        return 0;
}

static void on_changes(const DirWatchChange *changes, size_t n, void *userdata) {
        Manager *m = userdata;
        ProfileWatch *w = m->profile_watch;
        Again *again = NULL;
        size_t n_again = 0;

        int r = collect_again(m, changes, n, &again, &n_again);
        if (r < 0)
                free_again(again, n_again);
        else
                r = queue_again(m, again, n_again);
        if (r < 0) {
                log_warning("Cannot keep the changed profile files: %s. Everything is listed again at the next change.",
                            strerror(-r));
                w->lost = true;
        }
}

int profile_dirs_start(Manager *m) {
        ProfileWatch *w = calloc(1, sizeof *w);
        if (!w)
                return log_oom();
        m->profile_watch = w;
        if (m->event) {
                /* Watching before listing, so nothing written meanwhile is missed. */
                int r = dirwatch_new(m->event, CHANGE_DELAY_USEC, on_changes, m, &w->dirwatch);
                if (r < 0)
                        log_warning_errno(r, "Profile directories are not watched: %m");
        }

        /* A failed listing here leaves files out until a rescan lists them; nothing known
         * can be lost yet. Their cache rows are kept then. */
        int r = walk_all(m, NULL, &w->known);
        if (r < 0)
                log_warning_errno(r, "Cannot list the profile directories: %m. Some profiles are missing until the next rescan.");
        (void) store_begin(m->store);
        /* No automatic assignment here: no device exists yet (colord §5.5); disk devices are
         * restored after the scan and pick up their mappings then. */
        (void) register_files(m, w->known.files, w->known.n, false);
        (void) store_commit(m->store);

        /* Forget cached files that are gone, so the cache does not grow for ever. */
        _cleanup_strv_free_ char **live = r < 0 ? NULL : calloc(w->known.n + 1, sizeof(char *));
        if (live) {
                for (size_t i = 0; i < w->known.n; i++)
                        live[i] = w->known.files[i].path;
                (void) store_profile_cache_prune(m->store, live);
                for (size_t i = 0; i < w->known.n; i++)
                        live[i] = NULL; /* borrowed */
        }
        log_info("Found %zu profiles in %zu files", m->profiles.size, w->known.n);
        return 0;
}

int profile_dirs_add_file(Manager *m, const char *path) {
        assert(m->profile_watch);
        _cleanup_free_ char *dir = strdup(path);
        Again *again = calloc(2, sizeof *again);
        if (!dir || !again || !(again[0].path = strdup(path))) {
                free(again);
                return -ENOMEM;
        }
        char *slash = strrchr(dir, '/');
        if (slash)
                *slash = 0;
        /* The daemon's own directory is always one of the profile directories (main.c). */
        int depth = slash ? dir_depth(m, dir) : -1;
        again[0].depth = depth < 0 ? 1 : depth + 1;
        return queue_again(m, again, 1);
}
