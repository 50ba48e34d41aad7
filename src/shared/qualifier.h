/* SPDX-License-Identifier: GPL-2.0-or-later */
/* colord's qualifier matching (colord §5.4): "C.M.R" against a profile's qualifier, split on
 * '.' into at most three parts (the third keeps further dots); '*' as a whole part matches
 * anything; a part missing on both sides is equal, on one side only it is not. A query of
 * exactly "*" matches every profile, even one without a qualifier. Pure: no I/O. */
#pragma once

#include <stdbool.h>

/* profile_qualifier may be NULL (a profile that has none). */
bool qualifier_match(const char *query, const char *profile_qualifier);
