/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pieces every ICC writer of the tree shares on lcms2 (icc-write.h): text and 'meta'
 * tags from UTF-8, serialising to memory, the fixed header date.
 *
 * Not here: what goes into a profile (icc-create.c, src/profile-build), reading. */
#include <errno.h>
#include <lcms2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "icc-write.h"

/* UTF-8 to wchar_t (UTF-32 on Linux) for lcms's wide-string APIs, without depending on the
 * process locale as mbstowcs() would. Invalid sequences become U+FFFD. */
static wchar_t *utf8_to_wide(const char *s) {
        size_t n = strlen(s), k = 0;
        wchar_t *w = calloc(n + 1, sizeof *w);
        const unsigned char *p = (const unsigned char *) s;

        if (!w)
                return NULL;
        while (*p) {
                uint32_t c = *p, min;
                size_t len;

                if (c < 0x80) { len = 1; min = 0; }
                else if ((c & 0xe0) == 0xc0) { len = 2; c &= 0x1f; min = 0x80; }
                else if ((c & 0xf0) == 0xe0) { len = 3; c &= 0x0f; min = 0x800; }
                else if ((c & 0xf8) == 0xf0) { len = 4; c &= 0x07; min = 0x10000; }
                else { w[k++] = 0xfffd; p++; continue; }

                size_t i = 1;
                for (; i < len && (p[i] & 0xc0) == 0x80; i++)
                        c = c << 6 | (p[i] & 0x3f);
                if (i < len || c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
                        w[k++] = 0xfffd;
                        p += i;
                        continue;
                }
                w[k++] = (wchar_t) c;
                p += len;
        }
        w[k] = 0;
        return w;
}

/* en_US only: the one language every reader looks for (ICC.1 §10.15 for 'mluc'). */
int icc_write_text_tag(cmsHPROFILE h, cmsTagSignature sig, const char *text) {
        _cleanup_(mlu_freep) cmsMLU *mlu = NULL;
        _cleanup_free_ wchar_t *w = NULL;

        if (isempty(text))
                return 0;
        w = utf8_to_wide(text);
        mlu = cmsMLUalloc(NULL, 1);
        if (!w || !mlu)
                return -ENOMEM;
        if (!cmsMLUsetWide(mlu, "en", "US", w) || !cmsWriteTag(h, sig, mlu))
                return -EIO;
        return 0;
}

int icc_write_meta_tag(cmsHPROFILE h, const char *const *metadata) {
        _cleanup_(dict_freep) cmsHANDLE dict = NULL;

        if (!metadata || !metadata[0])
                return 0;
        dict = cmsDictAlloc(NULL);
        if (!dict)
                return -ENOMEM;
        for (const char *const *kv = metadata; kv[0] && kv[1]; kv += 2) {
                _cleanup_free_ wchar_t *k = NULL, *v = NULL;

                if (isempty(kv[0]) || isempty(kv[1]))
                        continue;
                k = utf8_to_wide(kv[0]);
                v = utf8_to_wide(kv[1]);
                if (!k || !v)
                        return -ENOMEM;
                if (!cmsDictAddEntry(dict, k, v, NULL, NULL))
                        return -ENOMEM;
        }
        if (!cmsWriteTag(h, cmsSigMetaTag, dict))
                return -EIO;
        return 0;
}

int icc_save_to_mem(cmsHPROFILE h, uint8_t **ret, size_t *ret_size) {
        cmsUInt32Number n = 0;
        _cleanup_free_ uint8_t *buf = NULL;

        if (!cmsSaveProfileToMem(h, NULL, &n) || n < 128)
                return -EIO;
        buf = malloc(n);
        if (!buf)
                return -ENOMEM;
        if (!cmsSaveProfileToMem(h, buf, &n))
                return -EIO;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

/* ICC.1 §4.2 dateTimeNumber at header bytes 24-35: six big-endian uint16 (y, m, d, h, m, s). */
void icc_set_fixed_date(uint8_t *header) {
        const uint16_t date[6] = { ICC_WRITE_DATE_YEAR, 1, 1, 0, 0, 0 };
        for (size_t i = 0; i < 6; i++) {
                header[24 + 2 * i] = (uint8_t) (date[i] >> 8);
                header[25 + 2 * i] = (uint8_t) (date[i] & 0xff);
        }
}
