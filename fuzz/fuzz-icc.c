/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the ICC reader (src/icc/icc-info.c): any bytes must be read or refused
 * cleanly, never crash or read outside the buffer. The full parse runs, warnings included,
 * because those drive lcms2's transform code with whatever the input described. The result
 * is checked for what the daemon relies on: a description, key/value pairs, and UTF-8 that
 * D-Bus will accept. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "icc-info.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool utf8_valid(const char *s) {
        const unsigned char *p = (const unsigned char *) s;
        while (*p) {
                uint32_t c;
                int n;
                if (*p < 0x80) {
                        p++;
                        continue;
                } else if ((*p & 0xE0) == 0xC0)
                        c = *p & 0x1F, n = 1;
                else if ((*p & 0xF0) == 0xE0)
                        c = *p & 0x0F, n = 2;
                else if ((*p & 0xF8) == 0xF0)
                        c = *p & 0x07, n = 3;
                else
                        return false;
                p++;
                for (int i = 0; i < n; i++, p++) {
                        if ((*p & 0xC0) != 0x80)
                                return false;
                        c = c << 6 | (*p & 0x3F);
                }
                if ((n == 1 && c < 0x80) || (n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
                    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
                        return false;
        }
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *error = NULL;

        int r = icc_info_parse(data, size, &info, &error);
        if (r < 0) {
                if (info || !error)
                        abort();
                return 0;
        }
        if (!info->description || !info->title || !info->kind || !info->colorspace ||
            !info->metadata || !info->warnings || strlen(info->checksum) != 32)
                abort();
        if (strv_length(info->metadata) % 2 != 0)
                abort();
        if (!utf8_valid(info->description) || !utf8_valid(info->title) ||
            (info->copyright && !utf8_valid(info->copyright)))
                abort();
        STRV_FOREACH(s, info->metadata)
                if (!utf8_valid(*s))
                        abort();
        return 0;
}
