/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tinct-fetch (the confined vendor-profile fetcher, docs/printers.md) answers the
 * daemon: the printer's own identity and its profiles' bytes, or one problem line. The
 * daemon validates a reply as if the helper were compromised: every length inside the
 * buffer and under its cap, strings UTF-8 without NUL. Pure: buffers in, buffers out.
 *
 * Layout: "TFR1", then records of { u8 type, u32 length (big-endian), bytes }, then a
 * record of type FETCH_END with length 0. A profile record is { u16 name length, name,
 * u16 url length, url, ICC bytes }. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define FETCH_MAX_TOTAL (64u * 1024u * 1024u) /* every profile of one printer together */
#define FETCH_MAX_PROFILES 16
#define FETCH_MAX_STRING 4096
#define FETCH_MAX_REQUEST 4096 /* the printer URI and its newline */

enum {
        FETCH_END = 0,
        FETCH_UUID = 1,       /* printer-uuid as the printer says it */
        FETCH_DEVICE_ID = 2,  /* printer-device-id */
        FETCH_PROFILE = 3,
        FETCH_PROBLEM = 4,    /* one line for the log: what the printer did wrong */
        FETCH_MEDIA_TYPE = 5, /* one media-type-supported keyword (qualifier mapping) */
};

typedef struct FetchProfile {
        char *name, *url;
        const uint8_t *icc; /* into the reply buffer */
        size_t icc_len;
} FetchProfile;

typedef struct FetchReply {
        char *uuid, *device_id;
        char **problems;       /* NULL-terminated */
        char **media_types;    /* NULL-terminated */
        FetchProfile profiles[FETCH_MAX_PROFILES];
        size_t n_profiles;
} FetchReply;

typedef struct FetchWriter {
        uint8_t *buf;
        size_t len, size;
        int error;
} FetchWriter;

void fetch_writer_init(FetchWriter *w);
void fetch_write_string(FetchWriter *w, uint8_t type, const char *s);
void fetch_write_profile(FetchWriter *w, const char *name, const char *url, const uint8_t *icc, size_t len);
/* Appends the end record; returns w->error (0 or negative). */
int fetch_write_end(FetchWriter *w);
void fetch_writer_done(FetchWriter *w);

/* -EBADMSG for anything that breaks the layout or a cap; the reply points into buf. */
int fetch_reply_parse(const uint8_t *buf, size_t len, FetchReply *ret);
void fetch_reply_done(FetchReply *r);
