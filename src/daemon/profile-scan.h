/* Discovery of ICC files in the profile directories (spec §8): a recursive walk to depth
 * 2 below each root, one bad file or deep directory skipped at a time (colord aborts the
 * whole start-up on either: §8.3, §16.1), duplicates by checksum ignored. */
#pragma once

#include "manager.h"

/* Scans every configured profile directory and registers what it finds. */
int profile_scan_all(Manager *m);
/* Registers one file found by the daemon. Returns 1 when a profile was added, 0 when the
 * file was skipped (not ICC, duplicate), negative on a read or parse error (logged). */
int profile_scan_file(Manager *m, const char *path);
