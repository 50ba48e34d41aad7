/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The profile directories (colord §8): discovery of their ICC files, the metadata cache,
 * and watching them. Not a parser: the parsing is the parser processes' (src/sandbox).
 *
 * A walk goes to depth 2 below each root; bad files and too-deep directories are skipped one
 * at a time (colord aborts the whole start-up on either: colord §8.3, §16.1); duplicates by checksum
 * are ignored. Parsed metadata is cached in the store by file identity, so a restart reads
 * only files that changed; a file that failed to parse is remembered the same way and not
 * parsed again until it changes (store-failed.h). Cache misses are parsed in batches over
 * the parser pool (parser_icc_info_many()). Every directory walked is watched (dirwatch.h, a
 * missing profile directory until it exists); the watcher names what changed, and only those
 * paths are listed again and diffed against what was known there (file-diff.h), so a change
 * costs what changed, not the size of the directory; a whole directory is listed again only
 * when it came or went or events were lost. The diff adds, removes and replaces profile objects —
 * a deleted file's profile is removed like DeleteProfile (colord keeps it: colord §16.3). */
#pragma once

#include "manager.h"

typedef struct ProfileWatch ProfileWatch;

/* Starts watching (unless the event loop is missing), walks every directory, registers what
 * it finds. */
int profile_dirs_start(Manager *m);
/* A file the daemon wrote into a profile directory (InstallSystemWide): listed again like a
 * change the watcher names, so it is parsed without waiting and registered when that is done
 * (behind a change being applied), as the watcher would find it (colord §4.2). 0, or -ENOMEM
 * (then the watcher's own event still finds it). */
int profile_dirs_add_file(Manager *m, const char *path);
ProfileWatch *profile_watch_free(ProfileWatch *w);
