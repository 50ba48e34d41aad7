/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a whole (ICC) file into memory for the CLI's offline checks. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Bigger than any real profile (the largest in the corpus is about 1 MB). */
#define ICC_INFO_MAX_FILE (64u * 1024u * 1024u)

/* Reads all of path (at most ICC_INFO_MAX_FILE bytes). 0, or a negative errno: -EFBIG
 * when the file is larger, -EIO on a read error. */
int read_whole_file(const char *path, uint8_t **ret, size_t *ret_size);
