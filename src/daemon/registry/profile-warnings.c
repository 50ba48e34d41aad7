/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile-warnings.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bus-order.h"
#include "fileio.h"
#include "log.h"
#include "parser.h"
#include "profile-load.h"
#include "signals.h"
#include "strv.h"

/* The parse of one profile's warnings, in a parser process while the loop serves others: a
 * profile whose colour transforms are slow delays nobody. The background pass starts it, or
 * a call that needs the warnings now. */
typedef struct WarningsJob {
        Profile *profile;
        ParserCall *call;
        bool from_file;
        bool idle;          /* the background pass's: the next starts when it ends */
        struct stat st;     /* the file's identity as read, when from_file */
        BusCall **waiting;  /* calls to dispatch again once the warnings are known */
        size_t n_waiting;
} WarningsJob;

static WarningsJob *job_free(WarningsJob *job) {
        if (!job)
                return NULL;
        parser_call_cancel(job->call);
        /* Dispatched again: they find the warnings, or (the profile gone) no object. */
        for (size_t i = 0; i < job->n_waiting; i++)
                bus_call_redispatch(job->waiting[i]);
        free(job->waiting);
        free(job);
        return NULL;
}

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
        return p->warnings;
}

static void idle_resume(Manager *m) {
        if (m->warnings_idle && m->warnings_pending.size > 0)
                (void) sd_event_source_set_enabled(m->warnings_idle, SD_EVENT_ON);
}

static void on_warnings(int r, char **w, const char *error, void *userdata) {
        WarningsJob *job = userdata;
        Profile *p = job->profile;
        Manager *m = p->manager;
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
        bool idle = job->idle;
        p->warnings_job = job_free(job);
        if (p->warnings)
                manager_profile_warnings_known(m, p);
        if (idle)
                idle_resume(m);
}

/* Starts the parse of p's warnings (p not queued, no job running). */
static int job_start(Profile *p, bool idle) {
        Manager *m = p->manager;
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
                return r;
        }
        job->profile = p;
        job->idle = idle;
        p->warnings_job = job;
        return 0;
}

int profile_warnings_request(Profile *p, BusCall *waiter) {
        if (p->warnings) {
                if (waiter)
                        bus_call_redispatch(waiter);
                return 0;
        }
        if (!p->warnings_job) {
                if (p->manager)
                        list_unlink(&p->manager->warnings_pending, &p->warnings_link);
                int r = job_start(p, false);
                if (r < 0) {
                        if (waiter)
                                bus_call_redispatch(waiter); /* answered with what there is */
                        return r;
                }
        }
        if (!waiter)
                return 0;
        WarningsJob *job = p->warnings_job;
        BusCall **t = reallocarray(job->waiting, job->n_waiting + 1, sizeof *t);
        if (!t) {
                bus_call_redispatch(waiter);
                return -ENOMEM;
        }
        job->waiting = t;
        job->waiting[job->n_waiting++] = waiter;
        return 1;
}

/* Whether msg asks for a profile's Warnings (Properties.Get of it, or GetAll of the profile
 * interface); the profile, if so. */
static Profile *asks_warnings(Manager *m, sd_bus_message *msg) {
        const char *path = sd_bus_message_get_path(msg);
        if (!path || strncmp(path, PROFILE_PATH_PREFIX "/", strlen(PROFILE_PATH_PREFIX "/")) != 0 ||
            !streq_ptr(sd_bus_message_get_interface(msg), "org.freedesktop.DBus.Properties"))
                return NULL;
        const char *iface = NULL, *name = NULL;
        int r;
        if (streq_ptr(sd_bus_message_get_member(msg), "Get"))
                r = sd_bus_message_read(msg, "ss", &iface, &name) > 0 && streq(name, "Warnings");
        else if (streq_ptr(sd_bus_message_get_member(msg), "GetAll"))
                r = sd_bus_message_read(msg, "s", &iface) > 0;
        else
                return NULL;
        bool wanted = r > 0 && (isempty(iface) || streq(iface, CM_PROFILE_IFACE));
        (void) sd_bus_message_rewind(msg, true);
        return wanted ? manager_find_profile_by_path(m, path) : NULL;
}

int profile_warnings_prepare(sd_bus_message *msg, void *userdata) {
        Manager *m = userdata;
        Profile *p = asks_warnings(m, msg);
        if (!p || p->warnings)
                return 0;
        BusCall *c = bus_call_keep(m->bus_order, msg);
        if (!c)
                return 0; /* answered now, with none */
        return profile_warnings_request(p, c) > 0;
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
        if (job_start(p, true) < 0)
                idle_resume(m);
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
                /* The profile leaves: its answer is not wanted. */
                bool idle = p->warnings_job->idle;
                p->warnings_job = job_free(p->warnings_job);
                if (idle && p->manager)
                        idle_resume(p->manager);
        }
}

void profile_warnings_shutdown(Manager *m) {
        m->warnings_idle = sd_event_source_disable_unref(m->warnings_idle);
}
