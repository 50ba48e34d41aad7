/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place that picks a udev back-end (see udev-source.h). */
#include "udev-source.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "strv.h"
#include "udev-source-backend.h"

int udev_source_new(sd_event *event, const char *root, char *const *subsystems, UdevSourceHandler handler,
                    void *userdata, UdevSource **ret) {
        _cleanup_(udev_source_freep) UdevSource *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        *s = (UdevSource) {
                .backend = isempty(root) ? &udev_source_system : &udev_source_fake,
                .event = event ? sd_event_ref(event) : NULL,
                .handler = handler,
                .userdata = userdata,
        };
        if (!(s->subsystems = strv_copy(subsystems)) || (!isempty(root) && !(s->root = strdup(root))))
                return -ENOMEM;
        *ret = TAKE_PTR(s);
        return 0;
}

UdevSource *udev_source_free(UdevSource *s) {
        if (!s)
                return NULL;
        s->backend->done(s);
        sd_event_unref(s->event);
        strv_free(s->subsystems);
        free(s->root);
        free(s);
        return NULL;
}

int udev_source_watch(UdevSource *s) {
        assert(s->event);
        return s->backend->watch(s);
}

int udev_source_enumerate(UdevSource *s) {
        return s->backend->enumerate(s);
}

bool udev_source_wants(const UdevSource *s, const char *subsystem) {
        return subsystem && strv_contains(s->subsystems, subsystem);
}
