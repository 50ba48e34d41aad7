/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile-warnings.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "log.h"
#include "parser.h"
#include "profile-load.h"
#include "strv.h"

/* The background pass's parse of one profile's warnings, in a parser process while the loop
 * serves others: a profile whose colour transforms are slow delays nobody. */
typedef struct WarningsJob {
        Profile *profile;
        ParserCall *call;
        bool from_file;
        struct stat st; /* the file's identity as read, when from_file */
} WarningsJob;

/* The bytes the warnings are computed from: the kept copy, or the file (and its identity
 * after the read). */
static int read_bytes(Profile *p, uint8_t **ret_data, size_t *ret_size, bool *ret_from_file, struct stat *ret_st) {
        if (p->data) {
                uint8_t *copy = malloc(p->size ? p->size : 1);
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, p->data, p->size);
                *ret_data = copy;
                *ret_size = p->size;
                *ret_from_file = false;
                return 0;
        }
        if (!p->filename)
                return -ENOENT;
        *ret_from_file = true;
        return read_file_capped(p->filename, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, ret_data, ret_size, ret_st);
}

/* The cache row is updated only if it still describes the bytes read (a file rewritten
 * meanwhile is parsed again by the watch). */
static void cache_warnings(Profile *p, const struct stat *st, char *const *w) {
        Store *store = p->manager->store;
        if (!store)
                return;
        int64_t mtime_ns = (int64_t) st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
        int r = store_profile_cache_set_warnings(store, p->filename, (uint64_t) st->st_size, mtime_ns,
                                                 (uint64_t) st->st_ino, w);
        if (r < 0)
                log_debug_errno(r, "Failed to cache the warnings of %s: %m", p->filename);
}

char *const *profile_warnings(Profile *p) {
        static char *const none[] = { NULL };
        if (p->warnings)
                return p->warnings;

        /* Asked for before the background pass got there (or while it runs): computed now,
         * the caller waits. */
        profile_warnings_dequeue(p);
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        bool from_file;
        struct stat st;
        char **w = NULL;
        int r = read_bytes(p, &data, &size, &from_file, &st);
        if (r >= 0)
                r = parser_icc_warnings(p->manager->parser, data, size, &w, NULL);
        if (r >= 0 && from_file)
                cache_warnings(p, &st, w);
        if (r < 0) {
                log_debug_errno(r, "No warnings for profile %s: %m", p->id);
                w = calloc(1, sizeof(char *));
        }
        p->warnings = w; /* NULL only when out of memory: asked again next time */
        return w ? w : none;
}

static void idle_resume(Manager *m) {
        if (m->warnings_idle && m->warnings_pending.size > 0)
                (void) sd_event_source_set_enabled(m->warnings_idle, SD_EVENT_ON);
}

static void on_warnings(int r, char **w, const char *error, void *userdata) {
        WarningsJob *job = userdata;
        Profile *p = job->profile;
        job->call = NULL;
        if (r < 0) {
                log_debug("No warnings for profile %s: %s", p->id, error ? error : strerror(-r));
                w = calloc(1, sizeof(char *));
        } else if (job->from_file)
                cache_warnings(p, &job->st, w);
        if (!p->warnings)
                p->warnings = w;
        else
                strv_free(w);
        p->warnings_job = NULL;
        free(job);
        idle_resume(p->manager);
}

static int on_idle(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        /* One profile at a time, in a parser process; the pass waits for its answer, so that
         * client calls find the other processes free. */
        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        if (m->warnings_pending.size == 0)
                return 0;
        Profile *p = list_entry(m->warnings_pending.head.next, Profile, warnings_link);
        profile_warnings_dequeue(p);

        WarningsJob *job = calloc(1, sizeof *job);
        uint8_t *data = NULL;
        size_t size = 0;
        int r = job ? read_bytes(p, &data, &size, &job->from_file, &job->st) : -ENOMEM;
        if (r >= 0)
                r = parser_icc_warnings_async(m->parser, data, size, on_warnings, job, &job->call);
        if (r < 0) {
                free(job);
                log_debug_errno(r, "No warnings for profile %s: %m", p->id);
                /* a file that cannot be read any more has none (the profile watch drops it) */
                if (r != -ENOMEM && !p->warnings)
                        p->warnings = calloc(1, sizeof(char *));
                idle_resume(m);
                return 0;
        }
        job->profile = p;
        p->warnings_job = job;
        return 0;
}

void profile_warnings_queue(Profile *p) {
        Manager *m = p->manager;
        if (p->warnings || p->warnings_link.next)
                return;
        list_append(&m->warnings_pending, &p->warnings_link);
        if (!m->event)
                return;
        if (!m->warnings_idle) {
                int r = sd_event_add_defer(m->event, &m->warnings_idle, on_idle, m);
                if (r >= 0)
                        r = sd_event_source_set_priority(m->warnings_idle, SD_EVENT_PRIORITY_IDLE);
                if (r < 0) {
                        log_warning_errno(r, "No background pass for profile warnings, computed on demand: %m");
                        m->warnings_idle = sd_event_source_disable_unref(m->warnings_idle);
                        return;
                }
        }
        (void) sd_event_source_set_enabled(m->warnings_idle, SD_EVENT_ON);
}

void profile_warnings_dequeue(Profile *p) {
        if (p->manager)
                list_unlink(&p->manager->warnings_pending, &p->warnings_link);
        if (p->warnings_job) {
                /* The profile leaves (or computes them itself): its answer is not wanted. */
                parser_call_cancel(p->warnings_job->call);
                p->warnings_job = mfree(p->warnings_job);
                if (p->manager)
                        idle_resume(p->manager);
        }
}

void profile_warnings_shutdown(Manager *m) {
        m->warnings_idle = sd_event_source_disable_unref(m->warnings_idle);
}
