/* Reading an ICC profile into the facts colord exposes (spec §4.4, §4.7), on top of lcms2.
 * Bytes in, a plain struct out: no files, no bus, no SQL, no logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct IccInfo {
        char checksum[33];      /* header profile ID (bytes 84-99) as lower-case hex when
                                 * non-zero, else the MD5 of the whole file */
        char *description;      /* raw description (dscm, else desc; en_US/default), or NULL */
        char *title;            /* description cleaned up as colord does; NULL if none */
        char *copyright;        /* NULL if none */
        const char *kind;       /* "display-device", ... (static string, spec §4.4) */
        const char *colorspace; /* "rgb", ... (static string) */
        bool has_vcgt;
        int64_t created;        /* header date/time read as local time; 0 if unreadable */
        char **metadata;        /* 'meta' dict as key,value,key,value,...,NULL (UTF-8) */
        char **warnings;        /* warning names (spec §14.2), NULL-terminated, may be empty */
} IccInfo;

/* Parses a profile held in memory. Returns 0, or a negative errno with *ret_error set to a
 * human-readable reason (caller frees) when the data is not a usable ICC profile:
 * -EBADMSG for malformed data or a broken meta dict, -ENODATA for a profile without a
 * description (colord refuses those). */
int icc_info_parse(const void *data, size_t size, IccInfo **ret, char **ret_error);
IccInfo *icc_info_free(IccInfo *info);

#include "macro.h"
DEFINE_TRIVIAL_CLEANUP_FUNC(IccInfo *, icc_info_free);
