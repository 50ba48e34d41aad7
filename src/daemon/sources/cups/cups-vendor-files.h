/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The files of printers' vendor profiles, <state>/printers/<md5 of the profile id>.icc
 * (docs/printers.md, "Vendor profile files"): print filters read a profile by its Filename,
 * so each vendor profile the CUPS source registers is a file the daemon writes there. The
 * directory is the daemon's alone and tracked nowhere but in it: emptied at start (every
 * vendor profile is made again from its printer's answer, so no file of the last run is
 * named by anything), swept of every file no live vendor profile names whenever the source
 * lets profiles go, and capped as a whole (LIMIT_PRINTER_FILES, LIMIT_PRINTER_FILES_BYTES).
 * Not here: which profiles are live (cups-source.c knows), the bus, any file elsewhere. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At start: every file of <state_dir>/printers goes (subdirectories are left alone). 0, or
 * a negative errno when the directory cannot be read (a missing one is fine). *ret_files
 * and *ret_bytes (may be NULL) tell what went. */
int cups_vendor_files_clear(const char *state_dir, size_t *ret_files, uint64_t *ret_bytes);

/* The path of the profile of this id, for a write of len bytes the caller then makes
 * (atomically, off the loop: file-writer.h), creating the directory: 0 with *ret_path
 * (caller frees), -EDQUOT when the directory's files with the writes under way (the paths
 * in writing, NULL-terminated or NULL, writing_bytes together: counted once, whether their
 * file or its hidden temporary one is there yet or not) and this one would be more than
 * LIMIT_PRINTER_FILES or LIMIT_PRINTER_FILES_BYTES (the file of this id already there
 * counts as replaced), or another negative errno. */
int cups_vendor_files_reserve(const char *state_dir, const char *id, size_t len, char *const *writing,
                              uint64_t writing_bytes, char **ret_path);

/* Every file of the directory whose path is not in keep (a NULL-terminated list of the
 * Filenames of live vendor profiles and of the writes under way) goes, but the hidden
 * (temporary) ones when keep_temporary. *ret_files (may be NULL) tells how many went. */
int cups_vendor_files_sweep(const char *state_dir, char *const *keep, bool keep_temporary, size_t *ret_files);

/* The file of one vendor profile that goes, before the profile is announced gone (a client
 * told ProfileRemoved finds no file): only a path directly in the directory is touched. */
void cups_vendor_files_remove(const char *state_dir, const char *path);
