/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One inotify watcher for a set of directories, on sd-event: it owns the inotify fd, drains
 * it, debounces, and reports what changed by name, so a change in a directory of 100 000
 * files costs what changed. A directory that does not exist (yet) is waited for on its
 * nearest existing parent; when it comes or goes, or the kernel's queue overflows, the
 * report says "list it again" (rescan) instead of naming files. A directory made while its
 * parent's watch was being set up (so no event will tell of it) is looked for again once that
 * watch is there, so nothing that came with it is missed.
 *
 * A file being written (modified and not closed since) is held back until it is closed,
 * moved or removed, so a reader never sees it half-written. A writer that never closes
 * it keeps it back for good; that is what the daemon and the session helper want.
 *
 * Deliberately not here: reading or listing the files (the caller does, with what it knows
 * of them), recursion (the caller adds the sub-directories it wants watched). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef struct DirWatch DirWatch;

/* The net effect of the events on a name since the last report. */
typedef enum DirChange {
        DIR_NAME_ADDED,   /* there now, and came by IN_CREATE or IN_MOVED_TO (which a rename
                           * over an existing entry also sends: "added" may replace one) */
        DIR_NAME_CHANGED, /* there before and now (written, touched) */
        DIR_NAME_REMOVED, /* not there now (perhaps made and removed within the burst) */
        DIR_RESCAN,       /* name is NULL: the directory came, went, or events were lost */
} DirChange;

typedef struct DirWatchChange {
        const char *dir;  /* as given to dirwatch_add() */
        const char *name; /* an entry of dir; NULL for DIR_RESCAN */
        DirChange change;
} DirWatchChange;

/* Called from the loop once per burst with every change, grouped by directory in the order
 * the directories were added and by name within one. A directory with DIR_RESCAN has no
 * names in the same report. The strings live until the handler returns; the handler may
 * call dirwatch_add(). */
typedef void (*DirWatchHandler)(const DirWatchChange *changes, size_t n, void *userdata);

/* delay_usec: how long after the first event of a burst the report comes. */
int dirwatch_new(sd_event *event, uint64_t delay_usec, DirWatchHandler handler, void *userdata, DirWatch **ret);
DirWatch *dirwatch_free(DirWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(DirWatch *, dirwatch_free);

/* Watches dir. A missing directory is waited for; its appearance is reported as
 * DIR_RESCAN. Added again, it is watched where the path leads now (a directory moved away
 * with its parent and another made in its place), with no second entry. Errors: -ENOMEM, or
 * inotify's for a directory that exists but cannot be watched (then nothing is added). */
int dirwatch_add(DirWatch *w, const char *dir);
/* Drains the fd and reports what is pending now, without waiting for the delay (a caller
 * that has just written a file and wants it taken at once). */
void dirwatch_flush(DirWatch *w);
