/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helper's line format (see scanner-wire.h). */
#include "scanner-wire.h"

#include <errno.h>
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
