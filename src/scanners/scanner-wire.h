/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure: the lines tinct-sane-list writes and tinctd reads (docs/scanners.md, "The
 * helper's output"). A record is a kind and its fields, separated by tabs; the writer
 * turns control characters in a field into spaces and bytes that are not UTF-8 into U+FFFD
 * (what a scanner sends is never trusted to be text), the reader refuses a line with the
 * wrong number of fields, an unknown kind, or a field that is not UTF-8. No I/O.
 * Reached through its socket (tinct-sane-list --socket), the helper first reads the
 * daemon's request, one line: "list", a tab, the time limit of one eSCL request in ms, a
 * tab, the time limit of the whole listing in ms. */
#pragma once

typedef enum ScannerRecordKind {
        SCANNER_RECORD_SANE,       /* name vendor model type */
        SCANNER_RECORD_ESCL,       /* name uuid url make-and-model */
        SCANNER_RECORD_ESCL_ERROR, /* name url reason */
        SCANNER_RECORD_END,        /* the listing is complete */
} ScannerRecordKind;

#define SCANNER_RECORD_FIELDS_MAX 4
#define SCANNER_FIELD_MAX 1024     /* a field's bytes as read; longer ones are cut */
/* A field as written: each byte read may become U+FFFD's three bytes. */
#define SCANNER_FIELD_OUT_MAX (3 * SCANNER_FIELD_MAX + 1)

typedef struct ScannerRecord {
        ScannerRecordKind kind;
        const char *field[SCANNER_RECORD_FIELDS_MAX]; /* point into the line */
} ScannerRecord;

#define SCANNER_REQUEST_MAX 64     /* the request line's bytes, newline included */
#define SCANNER_TIMEOUT_MS_MAX 3600000u

/* Writes the request line (with its newline) into buf; -EINVAL for a limit out of range. */
int scanner_request_format(char buf[static SCANNER_REQUEST_MAX], unsigned http_ms, unsigned total_ms);
/* Reads a request line (without its newline); -EBADMSG for anything else. */
int scanner_request_parse(const char *line, unsigned *ret_http_ms, unsigned *ret_total_ms);

/* The first SCANNER_FIELD_MAX bytes of s (NULL: empty) as a field: control characters and
 * DEL as spaces, every byte that is not part of a valid UTF-8 sequence as U+FFFD, so the
 * line is one the reader takes. */
void scanner_wire_field(const char *s, char out[static SCANNER_FIELD_OUT_MAX]);
/* Splits line (modified in place, no newline) into *ret; -EBADMSG for a bad line. */
int scanner_wire_parse_line(char *line, ScannerRecord *ret);
/* The kind's name as written. */
const char *scanner_record_kind_name(ScannerRecordKind kind);
/* How many fields the kind has. */
unsigned scanner_record_n_fields(ScannerRecordKind kind);
