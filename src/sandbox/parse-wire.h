/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The messages between tinctd and its parser process (tinct-parse, docs/sandbox.md): a request
 * carries untrusted ICC or EDID bytes, a reply carries what the parser made of them. Pure:
 * buffers in, buffers out; no sockets, no processes, so it is unit-tested and fuzzed alone.
 *
 * The parser is assumed compromised once it has seen hostile bytes, so decoding a reply
 * validates everything the daemon will rely on: lengths within the buffer and within caps,
 * strings NUL-free UTF-8, checksums hex, kind/colorspace/warning names from the known sets,
 * booleans 0 or 1, numbers finite, counts bounded. A reply that fails is -EBADMSG. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "edid.h"
#include "icc-info.h"

typedef enum ParseOp {
        PARSE_OP_ICC_INFO = 1,          /* IccInfo (flags: IccInfoFlags) */
        PARSE_OP_ICC_WARNINGS = 2,      /* warning names only */
        PARSE_OP_EDID = 3,              /* Edid */
} ParseOp;

/* Fixed-size header in front of every request and every reply (host byte order: both ends
 * are the same machine). */
typedef struct ParseRequestHeader {
        uint32_t op;                    /* ParseOp */
        uint32_t flags;
        uint64_t size;                  /* bytes of data that follow */
} ParseRequestHeader;

typedef struct ParseReplyHeader {
        int32_t status;                 /* 0, or the parser's negative errno */
        uint32_t reserved;
        uint64_t size;                  /* bytes of payload that follow */
} ParseReplyHeader;

/* Requests are bounded by ICC_MAX_FILE_SIZE (icc-info.h: the largest input of any op, an
 * EDID being far smaller), checked by both ends from the header before the bytes are read. */
#define PARSE_MAX_REQUEST ICC_MAX_FILE_SIZE
#define PARSE_MAX_REPLY (32u * 1024 * 1024)
#define PARSE_MAX_STRING (16u * 1024 * 1024)
#define PARSE_MAX_STRV (1u << 20)
#define PARSE_MAX_REASON 4096u

typedef struct ParseBuffer {
        uint8_t *data;
        size_t size, allocated;
        int error;                      /* first failure (-ENOMEM); the buffer is unusable */
} ParseBuffer;

void parse_buffer_done(ParseBuffer *b);

/* Reply payloads, written by the parser. Each returns 0 or -ENOMEM. status < 0: an error
 * reply whose payload is the reason text (may be NULL). */
int parse_encode_icc_info(ParseBuffer *b, const IccInfo *info);
int parse_encode_warnings(ParseBuffer *b, char *const *warnings);
int parse_encode_edid(ParseBuffer *b, const Edid *e);
int parse_encode_error(ParseBuffer *b, const char *reason); /* cut, invalid UTF-8 replaced */

/* Reply payloads, read by the daemon. 0 with a new object, or -EBADMSG (or -ENOMEM). */
int parse_decode_icc_info(const uint8_t *data, size_t size, IccInfo **ret);
int parse_decode_warnings(const uint8_t *data, size_t size, char ***ret);
int parse_decode_edid(const uint8_t *data, size_t size, Edid **ret);
/* The reason text of an error reply; *ret may be NULL (no reason given). */
int parse_decode_error(const uint8_t *data, size_t size, char **ret);
