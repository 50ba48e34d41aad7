/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Discovery of ICC files in the profile directories (colord §8) and watching them.
 *
 * A walk goes to depth 2 below each root; bad files and too-deep directories are skipped one
 * at a time (colord aborts the whole start-up on either: colord §8.3, §16.1); duplicates by checksum
 * are ignored. Parsed metadata is cached in the store by file identity, so a restart reads
 * only files that changed; a file that failed to parse is remembered the same way and not
 * parsed again until it changes (store-failed.h). Cache misses are parsed in batches over
 * the parser pool (parser_icc_info_many()). Every directory walked gets an inotify watch; an event only
 * schedules a rescan, whose diff (file-diff.h) adds, removes and replaces profile objects —
 * a deleted file's profile is removed like DeleteProfile (colord keeps it: colord §16.3). */
#pragma once

#include "manager.h"

typedef struct ProfileWatch ProfileWatch;

/* Sets up inotify (unless the event loop is missing), walks every directory, registers what
 * it finds. */
int profile_scan_all(Manager *m);
/* Registers one file found by the daemon (used after InstallSystemWide). Returns 1 when a
 * profile was added, 0 when the file was skipped (not ICC, duplicate), negative on error. */
int profile_scan_file(Manager *m, const char *path);
ProfileWatch *profile_watch_free(ProfileWatch *w);
