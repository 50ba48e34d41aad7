/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t utf8_sequence_length(const char *s, size_t left) {
        const unsigned char *p = (const unsigned char *) s;
        if (left == 0)
                return 0;
        if (p[0] < 0x80)
                return 1;
        size_t n;
        uint32_t cp;
        if (p[0] >= 0xc2 && p[0] <= 0xdf) {
                n = 1;
                cp = p[0] & 0x1f;
        } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
                n = 2;
                cp = p[0] & 0x0f;
        } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
                n = 3;
                cp = p[0] & 0x07;
        } else
                return 0;
        if (left <= n)
                return 0;
        for (size_t i = 1; i <= n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3f);
        }
        /* overlong forms, surrogates, beyond Unicode */
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        return n + 1;
}

void utf8_escape(const char *s, char *out, size_t size) {
        size_t o = 0, left = strlen(s);
        for (size_t i = 0; i < left;) {
                unsigned char c = (unsigned char) s[i];
                size_t n = utf8_sequence_length(s + i, left - i);
                char esc[5];
                const char *piece = s + i;
                size_t len = n;
                if (n == 1 && (c < 0x20 || c == 0x7f)) {
                        if (c == '\n' || c == '\t' || c == '\r')
                                snprintf(esc, sizeof esc, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
                        else
                                snprintf(esc, sizeof esc, "\\x%02x", c);
                        piece = esc;
                        len = strlen(esc);
                } else if (n == 0) {
                        snprintf(esc, sizeof esc, "\\x%02x", c);
                        piece = esc;
                        len = strlen(esc);
                        n = 1;
                }
                if (o + len >= size)
                        break;
                memcpy(out + o, piece, len);
                o += len;
                i += n;
        }
        out[o] = 0;
}

bool utf8_is_valid(const char *s, size_t len) {
        for (size_t i = 0; i < len;) {
                size_t n = utf8_sequence_length(s + i, len - i);
                if (n == 0)
                        return false;
                i += n;
        }
        return true;
}
