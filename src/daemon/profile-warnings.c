/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "profile-warnings.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "fileio.h"
#include "log.h"
#include "parser.h"
#include "profile-load.h"

static int compute_from_file(Profile *p, char ***ret) {
        if (!p->filename)
                return -ENOENT;
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        struct stat st;
        int r = read_file_capped(p->filename, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size, &st);
        if (r < 0)
                return r;
        r = parser_icc_warnings(p->manager->parser, data, size, ret, NULL);
        if (r < 0)
                return r;

        /* The identity after the read: the cache row is updated only if it still describes
         * these bytes (a file rewritten meanwhile is parsed again by the watch). */
        Store *store = p->manager->store;
        if (store) {
                int64_t mtime_ns = (int64_t) st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
                r = store_profile_cache_set_warnings(store, p->filename, (uint64_t) st.st_size, mtime_ns,
                                                     (uint64_t) st.st_ino, *ret);
                if (r < 0)
                        log_debug_errno(r, "Failed to cache the warnings of %s: %m", p->filename);
        }
        return 0;
}

char *const *profile_warnings(Profile *p) {
        static char *const none[] = { NULL };
        if (p->warnings)
                return p->warnings;

        profile_warnings_dequeue(p);
        char **w = NULL;
        int r = p->data ? parser_icc_warnings(p->manager->parser, p->data, p->size, &w, NULL) : compute_from_file(p, &w);
        if (r < 0) {
                log_debug_errno(r, "No warnings for profile %s: %m", p->id);
                w = calloc(1, sizeof(char *));
        }
        p->warnings = w; /* NULL only when out of memory: asked again next time */
        return w ? w : none;
}

static int on_idle(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        if (m->warnings_pending.size == 0)
                return sd_event_source_set_enabled(s, SD_EVENT_OFF);
        /* One profile per turn of the loop: a call waits at most one computation. */
        Profile *p = list_entry(m->warnings_pending.head.next, Profile, warnings_link);
        (void) profile_warnings(p);
        if (!p->warnings)
                profile_warnings_dequeue(p); /* out of memory: leave it to a later request */
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
}

void profile_warnings_shutdown(Manager *m) {
        m->warnings_idle = sd_event_source_disable_unref(m->warnings_idle);
}
