/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IPP keywords → the generated PPD's names (see cups-qualifier.h). */
#include "cups-qualifier.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

const char *cups_ppd_color_model(const char *mode) {
        static const struct { const char *ipp, *ppd; } table[] = {
                { "color", "RGB" }, { "auto", "RGB" }, { "monochrome", "Gray" }, { "process-monochrome", "Gray" },
                { "auto-monochrome", "Gray" }, { "bi-level", "FastGray" }, { "process-bi-level", "FastGray" },
                { "adobe-rgb", "AdobeRGB" },
        };
        for (size_t i = 0; mode && i < ELEMENTSOF(table); i++)
                if (streq(mode, table[i].ipp))
                        return table[i].ppd;
        return NULL;
}

char *cups_ppd_media_type(const char *keyword) {
        char *s = malloc(strlen(keyword) + 1), *o = s;
        if (!s)
                return NULL;
        bool upper = true;
        for (const char *p = keyword; *p; p++) {
                if (*p == '-' && isalnum((unsigned char) p[1])) {
                        upper = true;
                        continue;
                }
                *o++ = upper ? (char) toupper((unsigned char) *p) : *p;
                upper = false;
        }
        *o = 0;
        return s;
}

char *cups_ppd_resolution(int32_t x, int32_t y) {
        char *s;
        int r = x == y ? asprintf(&s, "%ddpi", x) : asprintf(&s, "%dx%ddpi", x, y);
        return r < 0 ? NULL : s;
}

/* Whether word occurs in name with no letter or digit right before or after it. */
static bool contains_word(const char *name, const char *word) {
        size_t n = strlen(word);
        for (const char *p = name; (p = strcasestr(p, word)); p++) {
                bool start = p == name || !isalnum((unsigned char) p[-1]);
                bool end = !isalnum((unsigned char) p[n]);
                if (start && end)
                        return true;
        }
        return false;
}

/* PWG 5101.1 §5.3's media types a vendor is most likely to name its profiles after. */
static const char *const common_media[] = {
        "photographic-glossy", "photographic-high-gloss", "photographic-matte", "photographic-satin",
        "photographic-semi-gloss", "photographic", "stationery-coated", "stationery-inkjet", "stationery-matte",
        "stationery-heavyweight", "stationery-lightweight", "stationery-recycled", "stationery", "transparency",
        "labels", "envelope", "cardstock", NULL,
};

static const char *longest_media(const char *name, char *const *a, const char *const *b) {
        const char *best = NULL;
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; pass == 0 ? a && a[i] : b[i] != NULL; i++) {
                        const char *m = pass == 0 ? a[i] : b[i];
                        if (*m && contains_word(name, m) && (!best || strlen(m) > strlen(best)))
                                best = m;
                }
        return best;
}

static const char *resolution_in(const char *name, char buf[static 32]) {
        for (const char *p = name; *p; p++) {
                if (!isdigit((unsigned char) *p) || (p > name && isalnum((unsigned char) p[-1])))
                        continue;
                char *end;
                long x = strtol(p, &end, 10), y = x;
                if (*end == 'x' && isdigit((unsigned char) end[1]))
                        y = strtol(end + 1, &end, 10);
                if (strncasecmp(end, "dpi", 3) == 0 && !isalnum((unsigned char) end[3]) && x > 0 && x < 100000 &&
                    y > 0 && y < 100000) {
                        if (x == y)
                                snprintf(buf, 32, "%lddpi", x);
                        else
                                snprintf(buf, 32, "%ldx%lddpi", x, y);
                        return buf;
                }
        }
        return "*";
}

char *cups_profile_qualifier(const char *name, const char *colorspace, char *const *media_types) {
        const char *color;
        if (contains_word(name, "adobe-rgb") || contains_word(name, "adobergb"))
                color = "AdobeRGB";
        else if (contains_word(name, "monochrome") || contains_word(name, "gray") || contains_word(name, "grey"))
                color = "Gray";
        else if (streq_ptr(colorspace, "rgb"))
                color = "RGB";
        else if (streq_ptr(colorspace, "gray"))
                color = "Gray";
        else if (streq_ptr(colorspace, "cmyk"))
                color = "CMYK";
        else
                color = "*";
        const char *media = longest_media(name, media_types, common_media);
        _cleanup_free_ char *media_ppd = media ? cups_ppd_media_type(media) : strdup("*");
        char res[32];
        char *s;
        if (!media_ppd || asprintf(&s, "%s.%s.%s", color, media_ppd, resolution_in(name, res)) < 0)
                return NULL;
        return s;
}
