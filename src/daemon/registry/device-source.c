/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The registry's side of the device sources (device-source.h): their table in the Manager,
 * and each question put to every running source in turn. Which sources exist, and in which
 * order they start, is startup.c's to say. */
#include "device-source.h"

#include <errno.h>
#include <stdlib.h>

#include "log.h"

int manager_start_sources(Manager *m, const DeviceSourceSetup *sources, size_t n) {
        assert(!m->sources);
        m->sources = calloc(n ?: 1, sizeof *m->sources);
        if (!m->sources)
                return log_oom();
        for (size_t i = 0; i < n; i++) {
                DeviceSource *s = &m->sources[m->n_sources++];
                s->vtable = sources[i].vtable;
                /* logged by the source; the daemon runs on */
                (void) s->vtable->start(m, sources[i].config, &s->state);
        }
        return 0;
}

void manager_stop_sources(Manager *m) {
        for (size_t i = 0; i < m->n_sources; i++)
                if (m->sources[i].state)
                        m->sources[i].vtable->stop(TAKE_PTR(m->sources[i].state));
        m->sources = mfree(m->sources);
        m->n_sources = 0;
}

void *manager_source_state(Manager *m, const DeviceSourceVTable *vtable) {
        for (size_t i = 0; i < m->n_sources; i++)
                if (m->sources[i].vtable == vtable)
                        return m->sources[i].state;
        return NULL;
}

#define FOREACH_RUNNING_SOURCE(m, s, fn)                                                   \
        for (DeviceSource *s = (m)->sources; s < (m)->sources + (m)->n_sources; s++)       \
                if (s->state && s->vtable->fn)

void manager_sources_hotplug(Manager *m, const char *subsystem) {
        FOREACH_RUNNING_SOURCE(m, s, hotplug)
                s->vtable->hotplug(s->state, subsystem);
}

void manager_sources_device_removed(Manager *m, Device *d) {
        FOREACH_RUNNING_SOURCE(m, s, device_removed)
                s->vtable->device_removed(s->state, d);
}

const char *manager_sources_alias_target(Manager *m, const char *id) {
        FOREACH_RUNNING_SOURCE(m, s, alias_target) {
                const char *target = s->vtable->alias_target(s->state, id);
                if (target)
                        return target;
        }
        return NULL;
}

DeviceSource *manager_source_yielding(Manager *m, const Device *d) {
        FOREACH_RUNNING_SOURCE(m, s, yields_to_client)
                if (s->vtable->yields_to_client(s->state, d))
                        return s;
        return NULL;
}

void manager_sources_choice_stored(Manager *m, const Device *d, const char *profile_id, uint64_t timestamp) {
        FOREACH_RUNNING_SOURCE(m, s, choice_stored)
                s->vtable->choice_stored(s->state, d, profile_id, timestamp);
}

bool manager_sources_reserve_profile_id(Manager *m, const char *id) {
        for (DeviceSource *s = m->sources; s < m->sources + m->n_sources; s++)
                if (s->vtable->profile_id_reserved && s->vtable->profile_id_reserved(id))
                        return true;
        return false;
}
