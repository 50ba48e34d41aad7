/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading an ICC profile into the facts colord exposes (colord §4.4, §4.7), on top of lcms2.
 * Bytes in, a plain struct out: no files, no bus, no SQL, no logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ICC_MAX_FILE_SIZE and ICC_MAX_METADATA_ENTRIES: the bounds on a profile. */
#include "tinct-limits.h"

typedef struct IccInfo {
        char checksum[33];      /* header profile ID (bytes 84-99) as lower-case hex when
                                 * non-zero, else the MD5 of the whole file */
        char *description;      /* raw description (dscm, else desc; en_US/default), or NULL */
        char *title;            /* description cleaned up as colord does; NULL if none */
        char *copyright;        /* NULL if none */
        char *manufacturer;     /* device manufacturer description ('dmnd'), or NULL */
        char *model;            /* device model description ('dmdd'), or NULL */
        const char *kind;       /* "display-device", ... (static string, colord §4.4) */
        const char *colorspace; /* "rgb", ... (static string) */
        bool has_vcgt;
        int64_t created;        /* header date/time read as local time; 0 if unreadable */
        char **metadata;        /* 'meta' dict as key,value,key,value,...,NULL (UTF-8) */
        char **warnings;        /* warning names (colord §14.2), NULL-terminated, may be empty;
                                 * NULL only when parsed with ICC_INFO_SKIP_WARNINGS */
        unsigned tags_ignored;  /* tag-table entries left out because their data lies outside
                                 * the file or beyond the header's size field (worth a log line) */
} IccInfo;

typedef enum IccInfoFlags {
        /* The warnings need several colour transforms (the bulk of the parse time). Skip them
         * when they are cached, and compute them later with icc_info_compute_warnings(). */
        ICC_INFO_SKIP_WARNINGS = 1 << 0,
} IccInfoFlags;

/* Parses a profile held in memory. Returns 0, or a negative errno with *ret_error set to a
 * human-readable reason (caller frees) when the data is not a usable ICC profile:
 * -EBADMSG for malformed data or a broken meta dict, -E2BIG for a meta dict of more than
 * ICC_MAX_METADATA_ENTRIES records, -EFBIG for more than ICC_MAX_FILE_SIZE bytes, -ENODATA for
 * a profile without a description (colord refuses those). ret_error may be NULL. */
int icc_info_parse(const void *data, size_t size, IccInfo **ret, char **ret_error);
int icc_info_parse_flags(const void *data, size_t size, IccInfoFlags flags, IccInfo **ret,
                         char **ret_error);

/* Only the warnings of colord §4.7 (NULL-terminated, possibly empty array of static names
 * copied into a new strv). Same validation and errors as icc_info_parse(), except that a
 * profile without a description is not an error here (it gets "description-missing"). */
int icc_info_compute_warnings(const void *data, size_t size, char ***ret_warnings,
                              char **ret_error);

IccInfo *icc_info_free(IccInfo *info);

/* The profile's video card gamma (the 'vcgt' tag: Apple's private tag, kept by ICC.1 as a
 * registered private tag; table or formula form, decoded by lcms2) sampled at n evenly spaced
 * inputs as 16-bit values, the form of an X CRTC gamma ramp. -ENODATA when the profile has no
 * vcgt or an incomplete one (then a caller loads a linear ramp), -EBADMSG when the data is
 * not a profile (*ret_error says why; may be NULL), -EINVAL when n is 0. */
int icc_vcgt_ramp(const void *data, size_t size, size_t n, uint16_t *red, uint16_t *green, uint16_t *blue,
                  char **ret_error);
/* The identity ramp of n entries: 0 .. 65535, evenly spaced. */
void icc_linear_ramp(size_t n, uint16_t *red, uint16_t *green, uint16_t *blue);

/* The static string equal to name among the kinds, colorspaces and warning names this module
 * reports, or NULL when it is none of them (for checking data that comes from elsewhere). */
const char *icc_info_kind_name(const char *name);
const char *icc_info_colorspace_name(const char *name);
const char *icc_info_warning_name(const char *name);

#include "macro.h"
DEFINE_TRIVIAL_CLEANUP_FUNC(IccInfo *, icc_info_free);
