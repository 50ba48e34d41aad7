/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the ICC writers (icc-create.c for EDID and standard profiles,
 * src/profile-build for measured ones) on top of lcms2: text tags and the 'meta'
 * dictionary from UTF-8 strings, serialising a profile to memory, and the fixed header date
 * that keeps generated profiles byte-for-byte reproducible. Cleanup helpers for lcms handles.
 *
 * Not here: the content of any profile, reading profiles (icc-info.c). */
#pragma once

#include <lcms2.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* Fixed header creation date (ICC.1 §7.2.8) of every generated profile: 2000-01-01 00:00:00. */
#define ICC_WRITE_DATE_YEAR 2000

static inline void mlu_freep(cmsMLU **m) {
        if (*m)
                cmsMLUfree(*m);
}

static inline void profile_closep(cmsHPROFILE *h) {
        if (*h)
                cmsCloseProfile(*h);
}

static inline void tone_curve_freep(cmsToneCurve **t) {
        if (*t)
                cmsFreeToneCurve(*t);
}

static inline void dict_freep(cmsHANDLE *d) {
        if (*d)
                cmsDictFree(*d);
}

/* Writes a text tag (lcms2 picks the type for the profile's version: 'mluc' in v4, 'desc' or
 * 'text' in v2) in en_US. Empty or NULL text writes nothing. 0, -ENOMEM or -EIO. */
int icc_write_text_tag(cmsHPROFILE h, cmsTagSignature sig, const char *text);

/* Writes the 'meta' dictionary from key, value, key, value, ..., NULL; pairs with an empty
 * key or value are skipped, NULL or an empty list writes nothing. 0, -ENOMEM or -EIO. */
int icc_write_meta_tag(cmsHPROFILE h, const char *const *metadata);

/* Serialises the profile. 0 with *ret (caller frees) and *ret_size, -EIO or -ENOMEM. */
int icc_save_to_mem(cmsHPROFILE h, uint8_t **ret, size_t *ret_size);

/* Overwrites the creation date in a serialised header (at least 128 bytes). */
void icc_set_fixed_date(uint8_t *header);
