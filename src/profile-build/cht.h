/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The chart layouts ArgyllCMS's scanin reads (.cht, Debian's argyll-ref installs them): where
 * each patch of a test chart lies, in the chart's own units (docs/cht-format.md). Bytes in,
 * a list of named patch rectangles and the chart's outline out.
 *
 * Deliberately not here: the edge lists (XLIST/YLIST) and EXPECTED colours, which scanin
 * uses for its own matching (read and ignored); images, finding the chart (chart-find.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

#define CHT_MAX_SIZE (4u * 1024u * 1024u)
#define CHT_MAX_PATCHES 10000u
#define CHT_MAX_LABEL 16u

typedef struct ChtPatch {
        char name[CHT_MAX_LABEL * 2 + 1];       /* "A1", "GS03", as the reference names it */
        double x, y, w, h;                      /* the box, chart units, y downwards */
} ChtPatch;

typedef struct Cht {
        size_t n_patches;
        ChtPatch *patches;
        double corners[8];      /* the fiducial outline (F): top-left, top-right, bottom-right,
                                 * bottom-left as x, y pairs; the patches' bounding box if none */
        bool has_fiducials;
        double shrink;          /* BOX_SHRINK: chart units left out on each side when sampling */
} Cht;

/* Parses a .cht. Returns 0 with *ret, or a negative errno with *ret_error (caller frees;
 * "line N: ..."): -EINVAL malformed, -EFBIG past a bound, -ENOMEM. */
int cht_parse(const char *buf, size_t len, Cht **ret, char **ret_error);
Cht *cht_free(Cht *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Cht *, cht_free);

/* The index of the patch a reference names, or -ENOENT. Names compare without case and with
 * numbers by value ("A1" is "a01", as argyll-ref's ColorChecker.cht and .cie spell them). */
int cht_find_patch(const Cht *c, const char *name);
bool cht_names_equal(const char *a, const char *b);
