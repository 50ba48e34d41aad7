/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's line format (see scanner-wire.h). */
#include "scanner-wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "utf8.h"

static const struct {
        const char *name;
        unsigned n_fields;
} kinds[] = {
        [SCANNER_RECORD_SANE] = { "sane", 4 },
        [SCANNER_RECORD_ESCL] = { "escl", 4 },
        [SCANNER_RECORD_ESCL_ERROR] = { "escl-error", 3 },
        [SCANNER_RECORD_END] = { "end", 0 },
};

const char *scanner_record_kind_name(ScannerRecordKind kind) {
        return kinds[kind].name;
}

unsigned scanner_record_n_fields(ScannerRecordKind kind) {
        return kinds[kind].n_fields;
}

void scanner_wire_field(const char *s, char out[static SCANNER_FIELD_OUT_MAX]) {
        size_t len = s ? strnlen(s, SCANNER_FIELD_MAX) : 0, o = 0;
        for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char) s[i];
                size_t n = utf8_sequence_length(s + i, len - i);
                if (n == 0) {
                        /* One scanner's bad bytes must not make the whole listing unreadable. */
                        memcpy(out + o, "\xef\xbf\xbd", 3);
                        o += 3;
                        i++;
                } else if (c < 0x20 || c == 0x7f) {
                        out[o++] = ' ';
                        i++;
                } else {
                        memcpy(out + o, s + i, n);
                        o += n;
                        i += n;
                }
        }
        out[o] = 0;
}

int scanner_wire_parse_line(char *line, ScannerRecord *ret) {
        if (!utf8_is_valid(line, strlen(line)))
                return -EBADMSG;
        char *tab = strchr(line, '\t');
        if (tab)
                *tab = 0;
        ScannerRecord rec = {};
        size_t k;
        for (k = 0; k < ELEMENTSOF(kinds); k++)
                if (streq(line, kinds[k].name))
                        break;
        if (k == ELEMENTSOF(kinds))
                return -EBADMSG;
        rec.kind = (ScannerRecordKind) k;
        unsigned n = 0;
        for (char *p = tab ? tab + 1 : NULL; p; n++) {
                if (n == kinds[k].n_fields)
                        return -EBADMSG; /* too many */
                rec.field[n] = p;
                p = strchr(p, '\t');
                if (p)
                        *p++ = 0;
        }
        if (n != kinds[k].n_fields)
                return -EBADMSG;
        for (unsigned i = 0; i < n; i++)
                for (const char *c = rec.field[i]; *c; c++)
                        if ((unsigned char) *c < 0x20)
                                return -EBADMSG;
        *ret = rec;
        return 0;
}

int scanner_request_format(char buf[static SCANNER_REQUEST_MAX], unsigned http_ms, unsigned total_ms) {
        if (http_ms == 0 || total_ms == 0 || http_ms > SCANNER_TIMEOUT_MS_MAX || total_ms > SCANNER_TIMEOUT_MS_MAX)
                return -EINVAL;
        snprintf(buf, SCANNER_REQUEST_MAX, "list\t%u\t%u\n", http_ms, total_ms);
        return 0;
}

/* A decimal number in 1..SCANNER_TIMEOUT_MS_MAX, digits only. */
static int parse_ms(const char *s, const char *end, unsigned *ret) {
        unsigned long v = 0;
        if (s == end || end - s > 7)
                return -EBADMSG;
        for (const char *c = s; c < end; c++) {
                if (*c < '0' || *c > '9')
                        return -EBADMSG;
                v = v * 10 + (unsigned) (*c - '0');
        }
        if (v == 0 || v > SCANNER_TIMEOUT_MS_MAX)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

int scanner_request_parse(const char *line, unsigned *ret_http_ms, unsigned *ret_total_ms) {
        unsigned http_ms, total_ms;
        if (strncmp(line, "list\t", 5) != 0)
                return -EBADMSG;
        const char *a = line + 5, *tab = strchr(a, '\t');
        if (!tab || parse_ms(a, tab, &http_ms) < 0 || parse_ms(tab + 1, tab + 1 + strlen(tab + 1), &total_ms) < 0)
                return -EBADMSG;
        *ret_http_ms = http_ms;
        *ret_total_ms = total_ms;
        return 0;
}
