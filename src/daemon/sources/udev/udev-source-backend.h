/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between udev-source.c and its two back-ends (udev-source-system.c, udev-source-fake.c):
 * nothing else includes this. */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "udev-source.h"

typedef struct UdevSourceBackend {
        int (*watch)(UdevSource *s);
        int (*enumerate)(UdevSource *s);
        void (*done)(UdevSource *s);    /* frees s->state */
} UdevSourceBackend;

struct UdevSource {
        const UdevSourceBackend *backend;
        sd_event *event;
        char *root;             /* the fake tree; NULL for the system */
        char **subsystems;
        UdevSourceHandler handler;
        void *userdata;
        void *state;            /* the back-end's own */
};

extern const UdevSourceBackend udev_source_system;
extern const UdevSourceBackend udev_source_fake;

bool udev_source_wants(const UdevSource *s, const char *subsystem);

/* A copy of s, or NULL for NULL; -ENOMEM. */
static inline int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (s && !(*ret = strdup(s)))
                return -ENOMEM;
        return 0;
}
