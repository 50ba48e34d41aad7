/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's own ICC profiles (colord §8.5): the files in the user's ICC directories
 * (session-names.h), each registered with the daemon as a temp profile through
 * CreateProfileWithFd, id icc-<checksum> (colord §4.3), Filename and FILE_checksum set. The
 * file goes to the daemon as an open descriptor: it may not read a home directory.
 *
 * The directories are watched (dirwatch.h), a missing one on its nearest existing parent, so
 * a directory made later is picked up. The watcher names the files that changed; those are
 * listed again and diffed by file identity (file-diff.h), a directory that came or went is
 * listed whole. A file that is new or changed is read, removed ones are deleted from the
 * daemon. A file written in place is taken when it is closed, one renamed into place or
 * linked there at once; the watcher holds back a file that is being written, so half a
 * file is not read. A file that is not a
 * usable profile costs one log line and nothing else; two files with one checksum give one
 * profile, and the other takes over when that one goes. When the daemon restarts, everything
 * is registered again.
 *
 * Not here: sub-directories (not walked, as colord's session agents do not either), and the
 * EDID profiles of displays (x11.c). */
#pragma once

#include <systemd/sd-event.h>

#include "cm-client.h"
#include "macro.h"

typedef struct UserProfiles UserProfiles;

/* dirs: the directories to watch (copied). Registers nothing yet. */
int user_profiles_new(sd_event *event, CmClient *cm, char *const *dirs, UserProfiles **ret);
UserProfiles *user_profiles_free(UserProfiles *u);
DEFINE_TRIVIAL_CLEANUP_FUNC(UserProfiles *, user_profiles_free);

/* The first scan, at once (not debounced): watches set, every file registered. */
int user_profiles_start(UserProfiles *u);
/* A rescan now rather than after the watch's delay: the calibration helper saves a profile
 * and needs it registered before it can assign it. */
void user_profiles_rescan_now(UserProfiles *u);
