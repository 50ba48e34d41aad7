/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ICC reader: what the daemon needs from a profile (colord §4.4) and the profile-check warnings
 * colord computes (colord §4.7), on top of lcms2.
 *
 * Before lcms2 sees a byte we check the structure ourselves (ICC.1:2010 §7.2 header, §7.3 tag
 * table), because the tag table is where crafted files attack a reader and we would rather not
 * depend on every lcms2 release getting those checks right:
 *   rejected (-EBADMSG): fewer than 132 bytes (header + tag count; colord's "file size too
 *     small"), no 'acsp' magic, more than 100 tags (lcms2's own limit), a tag table running
 *     past the data, a header size field smaller than header + tag table, and a 'meta' dict
 *     whose records point outside the tag (colord fails those loads too, or reads garbage);
 *   accepted, entry left out: a tag whose offset+size (computed in 64 bits, so no 32-bit
 *     wrap) lies beyond the data or beyond the header size field. lcms2 and colord drop
 *     such tags silently and still load the profile (a truncated download keeps its
 *     description), so we do the same, but on a copy of the table we built, and count them.
 *   A header size field larger than the data (truncation, padding) is not an error by itself.
 * The profile ID is not verified: v2 files carry junk in those bytes and real v4 files ship
 * with stale IDs, and colord uses the bytes as they are.
 *
 * Deliberately not here: reading files, logging, any policy about which profiles to offer. */

#include "icc-info.h"

#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "hashmap.h"
#include "macro.h"
#include "md5.h"
#include "names.h"
#include "strv.h"

#define ICC_HEADER_SIZE    128u
#define ICC_MIN_SIZE       (ICC_HEADER_SIZE + 4u) /* header + tag count (0x84) */
#define ICC_TAG_ENTRY_SIZE 12u
#define ICC_MAX_TAGS       100u /* lcms2's MAX_TABLE_TAG: it refuses more anyway */

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p) {
        return (uint16_t) (p[0] << 8 | p[1]);
}

_printf_(3, 4)
static int set_error(char **ret_error, int r, const char *fmt, ...) {
        if (ret_error) {
                va_list ap;
                char *s = NULL;

                va_start(ap, fmt);
                if (vasprintf(&s, fmt, ap) < 0)
                        s = NULL;
                va_end(ap);
                free(*ret_error);
                *ret_error = s;
        }
        return r;
}

/* ---- structural validation (before lcms2) ---- */

typedef struct IccView {
        const uint8_t *data;    /* what lcms2 reads: the caller's bytes or `copy` */
        uint32_t size;          /* min(data length, header size field) */
        uint8_t *copy;          /* owned; only made when table entries were left out */
        unsigned tags_ignored;
        /* our own view of two tags lcms2 is lenient about; size 0 = absent */
        uint32_t meta_offset, meta_size;
        uint32_t vcgt_offset, vcgt_size;
} IccView;

static void icc_view_done(IccView *v) {
        free(v->copy);
        *v = (IccView) {};
}

/* Well-formed UTF-16BE: every surrogate in a pair. lcms2 2.14 refuses a dict string with a
 * stray surrogate, but leaks the record's other string on that error path, which a client
 * could repeat at will; so such a dict never reaches it. */
static bool utf16be_valid(const uint8_t *p, uint32_t size) {
        uint32_t n = size / 2;
        for (uint32_t i = 0; i < n; i++) {
                uint16_t u = be16(p + 2 * i);
                if (u >= 0xDC00 && u <= 0xDFFF)
                        return false;
                if (u >= 0xD800 && u <= 0xDBFF) {
                        if (i + 1 >= n)
                                return false;
                        uint16_t low = be16(p + 2 * (i + 1));
                        if (low < 0xDC00 || low > 0xDFFF)
                                return false;
                        i++;
                }
        }
        return true;
}

/* ICC.1:2010 §10.7 (dictType): 16-byte head, then count records of 16, 24 or 32 bytes, each
 * a list of (offset, size) pairs relative to the tag start. Name and value must be present
 * (lcms2 refuses a record without them as well); display name/value are optional. */
static int check_dict(const uint8_t *t, uint32_t size, char **ret_error) {
        if (size < 16 || memcmp(t, "dict", 4) != 0)
                return set_error(ret_error, -EBADMSG, "corrupt meta dict: not a dictType tag");

        uint32_t count = be32(t + 8), record = be32(t + 12);
        if (record != 16 && record != 24 && record != 32)
                return set_error(ret_error, -EBADMSG, "corrupt meta dict: record length %u", record);
        if (count > ICC_MAX_METADATA_ENTRIES)
                return set_error(ret_error, -E2BIG, "meta dict has %u entries, more than %u", count,
                                 ICC_MAX_METADATA_ENTRIES);
        if (16 + (uint64_t) count * record > size)
                return set_error(ret_error, -EBADMSG,
                                 "corrupt meta dict: %u records do not fit in %u bytes", count, size);

        for (uint32_t i = 0; i < count; i++) {
                const uint8_t *r = t + 16 + (size_t) i * record;
                for (unsigned k = 0; k < record / 8; k++) {
                        uint32_t off = be32(r + 8 * k), len = be32(r + 8 * k + 4);
                        if (off == 0) {
                                if (k < 2)
                                        return set_error(ret_error, -EBADMSG,
                                                         "corrupt meta dict: record %u has no %s",
                                                         i, k == 0 ? "name" : "value");
                                continue;
                        }
                        if ((uint64_t) off + len > size)
                                return set_error(ret_error, -EBADMSG,
                                                 "corrupt meta dict: record %u points outside the tag", i);
                        if (k < 2 && !utf16be_valid(t + off, len))
                                return set_error(ret_error, -EBADMSG,
                                                 "corrupt meta dict: record %u is not valid UTF-16", i);
                }
        }
        return 0;
}

/* vcgt (Apple's video card gamma tag): table type 0 is channels, entries, entry size and
 * the data; formula type 1 is nine s15Fixed16 numbers. lcms2 reads a table that is larger
 * than its tag from whatever follows, so we only evaluate a vcgt that is complete. */
static bool vcgt_is_complete(const uint8_t *t, uint32_t size) {
        if (size < 12)
                return false;
        switch (be32(t + 8)) {
        case 0:
                if (size < 18)
                        return false;
                return 18 + (uint64_t) be16(t + 12) * be16(t + 14) * be16(t + 16) <= size;
        case 1:
                return size >= 12 + 9 * 4;
        default:
                return false;
        }
}

static int icc_view_init(IccView *v, const uint8_t *buf, size_t len, char **ret_error) {
        *v = (IccView) {};

        if (len > ICC_MAX_FILE_SIZE)
                return set_error(ret_error, -EFBIG, "larger than %u bytes", ICC_MAX_FILE_SIZE);
        if (len < ICC_MIN_SIZE)
                return set_error(ret_error, -EBADMSG, "icc was not valid (file size too small)");
        if (memcmp(buf + 36, "acsp", 4) != 0)
                return set_error(ret_error, -EBADMSG, "not an ICC profile (no 'acsp' signature)");

        uint32_t size_field = be32(buf);
        uint32_t count = be32(buf + ICC_HEADER_SIZE);
        if (count > ICC_MAX_TAGS)
                return set_error(ret_error, -EBADMSG, "not an ICC profile (tag count %u is over %u)",
                                 count, ICC_MAX_TAGS);
        size_t table_end = ICC_MIN_SIZE + (size_t) count * ICC_TAG_ENTRY_SIZE;
        if (table_end > len)
                return set_error(ret_error, -EBADMSG,
                                 "not an ICC profile (tag table of %u entries runs past the end of the data)",
                                 count);
        if (size_field < table_end)
                return set_error(ret_error, -EBADMSG,
                                 "not an ICC profile (header size field %u is smaller than its tag table)",
                                 size_field);

        /* Everything lcms2 may read lies below `limit`: it trusts the size field when that is
         * smaller than the data, and the data length otherwise. */
        uint32_t limit = len < size_field ? (uint32_t) len : size_field;
        unsigned bad = 0;
        for (uint32_t i = 0; i < count; i++) {
                const uint8_t *e = buf + ICC_MIN_SIZE + (size_t) i * ICC_TAG_ENTRY_SIZE;
                if ((uint64_t) be32(e + 4) + be32(e + 8) > limit)
                        bad++;
        }

        v->data = buf;
        v->size = limit;
        if (bad > 0) {
                /* Hand lcms2 a table with only the usable entries. */
                v->copy = malloc(limit);
                if (!v->copy)
                        return -ENOMEM;
                memcpy(v->copy, buf, limit);

                uint32_t w = 0;
                for (uint32_t i = 0; i < count; i++) {
                        const uint8_t *e = buf + ICC_MIN_SIZE + (size_t) i * ICC_TAG_ENTRY_SIZE;
                        if ((uint64_t) be32(e + 4) + be32(e + 8) > limit)
                                continue;
                        memcpy(v->copy + ICC_MIN_SIZE + (size_t) w * ICC_TAG_ENTRY_SIZE, e,
                               ICC_TAG_ENTRY_SIZE);
                        w++;
                }
                memset(v->copy + ICC_MIN_SIZE + (size_t) w * ICC_TAG_ENTRY_SIZE, 0,
                       (size_t) (count - w) * ICC_TAG_ENTRY_SIZE);
                uint8_t *p = v->copy + ICC_HEADER_SIZE;
                p[0] = w >> 24, p[1] = w >> 16, p[2] = w >> 8, p[3] = w;
                p = v->copy;
                p[0] = limit >> 24, p[1] = limit >> 16, p[2] = limit >> 8, p[3] = limit;

                v->data = v->copy;
                v->tags_ignored = bad;
                count = w;
        }

        /* lcms2 uses the first entry with a given signature; so do we. */
        for (uint32_t i = 0; i < count; i++) {
                const uint8_t *e = v->data + ICC_MIN_SIZE + (size_t) i * ICC_TAG_ENTRY_SIZE;
                uint32_t off = be32(e + 4), sz = be32(e + 8);
                if (memcmp(e, "meta", 4) == 0 && v->meta_size == 0 && sz > 0)
                        v->meta_offset = off, v->meta_size = sz;
                else if (memcmp(e, "vcgt", 4) == 0 && v->vcgt_size == 0 && sz > 0)
                        v->vcgt_offset = off, v->vcgt_size = sz;
        }

        if (v->meta_size > 0) {
                int r = check_dict(v->data + v->meta_offset, v->meta_size, ret_error);
                if (r < 0) {
                        icc_view_done(v);
                        return r;
                }
        }
        return 0;
}

/* ---- lcms2 ---- */

/* lcms2 reports problems through a per-context callback; we keep the text for our error
 * messages instead of letting anything reach stderr. */
typedef struct LcmsLog {
        char text[256];
} LcmsLog;

static void lcms_log(cmsContext ctx, cmsUInt32Number code, const char *text) {
        LcmsLog *log = cmsGetContextUserData(ctx);
        if (!log || !text)
                return;
        size_t n = strlen(log->text);
        if (n + 1 < sizeof log->text)
                snprintf(log->text + n, sizeof log->text - n, "%s%s", n > 0 ? "; " : "", text);
}

typedef struct Lcms {
        cmsContext ctx;
        cmsHPROFILE profile;
        LcmsLog log;
} Lcms;

static void lcms_done(Lcms *l) {
        if (l->profile)
                cmsCloseProfile(l->profile);
        if (l->ctx)
                cmsDeleteContext(l->ctx);
        l->profile = l->ctx = NULL;
}

/* `l` must stay at the same address while open: the context points at l->log. */
static int lcms_open(Lcms *l, const IccView *v, char **ret_error) {
        *l = (Lcms) {};
        l->ctx = cmsCreateContext(NULL, &l->log);
        if (!l->ctx)
                return -ENOMEM;
        cmsSetLogErrorHandlerTHR(l->ctx, lcms_log);

        l->profile = cmsOpenProfileFromMemTHR(l->ctx, v->data, v->size);
        if (!l->profile) {
                int r = set_error(ret_error, -EBADMSG, "failed to load: not an ICC profile%s%s%s",
                                  l->log.text[0] ? " (" : "", l->log.text, l->log.text[0] ? ")" : "");
                lcms_done(l);
                return r;
        }
        return 0;
}

/* ---- text ---- */

static size_t utf8_put(char *p, uint32_t c) {
        if (c < 0x80) {
                p[0] = (char) c;
                return 1;
        }
        if (c < 0x800) {
                p[0] = (char) (0xC0 | c >> 6);
                p[1] = (char) (0x80 | (c & 0x3F));
                return 2;
        }
        if (c < 0x10000) {
                p[0] = (char) (0xE0 | c >> 12);
                p[1] = (char) (0x80 | (c >> 6 & 0x3F));
                p[2] = (char) (0x80 | (c & 0x3F));
                return 3;
        }
        p[0] = (char) (0xF0 | c >> 18);
        p[1] = (char) (0x80 | (c >> 12 & 0x3F));
        p[2] = (char) (0x80 | (c >> 6 & 0x3F));
        p[3] = (char) (0x80 | (c & 0x3F));
        return 4;
}

/* lcms2 2.14 hands text over as wchar_t, but holding UTF-16 code units (mluc and dict strings
 * are stored as UTF-16BE and widened unit by unit), or, for text read from ASCII fields
 * (textDescription, textType), bytes sign-extended through 'char'. We pair surrogates and
 * read such bytes as Latin-1. colord's g_ucs4_to_utf8() does neither: it passes surrogates
 * through as invalid UTF-8 and fails on high bytes. Anything else that is not a Unicode
 * scalar value is an error when strict, else U+FFFD. Stops at NUL or after n units. */
static int wide_to_utf8(const wchar_t *w, size_t n, bool strict, char **ret) {
        size_t len = 0;
        while (len < n && w[len] != 0)
                len++;
        if (len > (SIZE_MAX - 1) / 4)
                return -ENOMEM;

        char *s = malloc(len * 4 + 1), *p = s;
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < len; i++) {
                int64_t u = (int64_t) w[i];
                uint32_t c;

                if (u < 0 && u >= -128)
                        c = (uint32_t) (u + 256);
                else if (u >= 0xD800 && u <= 0xDBFF && i + 1 < len &&
                         (int64_t) w[i + 1] >= 0xDC00 && (int64_t) w[i + 1] <= 0xDFFF) {
                        c = 0x10000 + (((uint32_t) u - 0xD800) << 10) + ((uint32_t) w[i + 1] - 0xDC00);
                        i++;
                } else if (u < 0 || u > 0x10FFFF || (u >= 0xD800 && u <= 0xDFFF)) {
                        if (strict) {
                                free(s);
                                return -EBADMSG;
                        }
                        c = 0xFFFD;
                } else
                        c = (uint32_t) u;
                p += utf8_put(p, c);
        }
        *p = 0;
        *ret = s;
        return 0;
}

/* The en_US text of the first of `sigs` that lcms2 can read (colord's choice: lcms2 falls back
 * to the first "en" entry, then to the first entry). *ret = NULL when there is none. */
static int read_text(cmsHPROFILE profile, const cmsTagSignature *sigs, char **ret) {
        cmsMLU *mlu = NULL;

        *ret = NULL;
        for (; *sigs && !mlu; sigs++)
                if (cmsIsTag(profile, *sigs))
                        mlu = cmsReadTag(profile, *sigs);
        if (!mlu)
                return 0;

        cmsUInt32Number bytes = cmsMLUgetWide(mlu, "en", "US", NULL, 0);
        if (bytes < sizeof(wchar_t))
                return 0;
        size_t n = bytes / sizeof(wchar_t);
        _cleanup_free_ wchar_t *w = calloc(n, sizeof(wchar_t));
        if (!w)
                return -ENOMEM;
        if (cmsMLUgetWide(mlu, "en", "US", w, (cmsUInt32Number) (n * sizeof(wchar_t))) == 0)
                return 0;
        return wide_to_utf8(w, n, /* strict= */ false, ret);
}

/* key,value,... in file order. lcms2 builds its list by prepending, so we walk it backwards.
 * colord fills a hash table from lcms2's list, so for a repeated key the entry that comes
 * first in the file wins; we keep that. */
static int read_metadata(Lcms *l, char ***ret, char **ret_error) {
        if (!cmsIsTag(l->profile, cmsSigMetaTag)) {
                char **empty = calloc(1, sizeof(char *));
                if (!empty)
                        return -ENOMEM;
                *ret = empty;
                return 0;
        }

        l->log.text[0] = 0;
        cmsHANDLE dict = cmsReadTag(l->profile, cmsSigMetaTag);
        if (!dict)
                return set_error(ret_error, -EBADMSG, "corrupt meta dict: %s",
                                 l->log.text[0] ? l->log.text : "unreadable");

        size_t n = 0;
        for (const cmsDICTentry *e = cmsDictGetEntryList(dict); e; e = cmsDictNextEntry(e))
                n++;
        /* check_dict() capped the records; lcms2 builds no more entries than records. */
        if (n > ICC_MAX_METADATA_ENTRIES)
                return set_error(ret_error, -E2BIG, "meta dict has %zu entries, more than %u", n,
                                 ICC_MAX_METADATA_ENTRIES);
        _cleanup_free_ const cmsDICTentry **entries = calloc(n ? n : 1, sizeof(cmsDICTentry *));
        /* The list is built whole and sized once (appending one pair at a time re-counts it),
         * and repeated keys are found in a hash map: linear in the entries. */
        _cleanup_strv_free_ char **m = calloc(2 * n + 1, sizeof(char *));
        _cleanup_(hashmap_freep) Hashmap *seen = hashmap_new();
        if (!entries || !m || !seen)
                return -ENOMEM;
        size_t i = n;
        for (const cmsDICTentry *e = cmsDictGetEntryList(dict); e; e = cmsDictNextEntry(e))
                entries[--i] = e;

        size_t k = 0;
        for (i = 0; i < n; i++) {
                _cleanup_free_ char *key = NULL, *value = NULL;
                int r;

                if (!entries[i]->Name || !entries[i]->Value)
                        return set_error(ret_error, -EBADMSG, "corrupt meta dict: entry without name or value");
                r = wide_to_utf8(entries[i]->Name, SIZE_MAX, /* strict= */ true, &key);
                if (r == 0)
                        r = wide_to_utf8(entries[i]->Value, SIZE_MAX, /* strict= */ true, &value);
                if (r == -EBADMSG)
                        return set_error(ret_error, r, "corrupt meta dict: entry %zu is not valid UTF-16", i);
                if (r < 0)
                        return r;
                if (hashmap_get(seen, key))
                        continue;
                /* the key stays alive in m, which outlives the map */
                r = hashmap_put(seen, key, key);
                if (r < 0)
                        return r;
                m[k++] = TAKE_PTR(key);
                m[k++] = TAKE_PTR(value);
        }

        *ret = TAKE_PTR(m);
        return 0;
}

/* ---- header fields ---- */

static const struct {
        char sig[5];
        const char *name;
} kind_table[] = {
        { "scnr", "input-device" },
        { "mntr", "display-device" },
        { "prtr", "output-device" },
        { "link", "devicelink" },
        { "spac", "colorspace-conversion" },
        { "abst", "abstract" },
        { "nmcl", "named-color" },
        { "", "unknown" },
}, colorspace_table[] = {
        { "XYZ ", "xyz" }, { "Lab ", "lab" }, { "Luv ", "luv" }, { "YCbr", "ycbcr" },
        { "Yxy ", "yxy" }, { "RGB ", "rgb" }, { "GRAY", "gray" }, { "HSV ", "hsv" },
        { "CMYK", "cmyk" }, { "CMY ", "cmy" },
        { "", "unknown" },
};

/* The last row of each table ("unknown") matches no signature. */
#define SIG_LOOKUP(table, sig)                                                  \
        ({                                                                      \
                const char *_name = table[ELEMENTSOF(table) - 1].name;          \
                for (size_t _i = 0; _i + 1 < ELEMENTSOF(table); _i++)           \
                        if (memcmp(sig, table[_i].sig, 4) == 0) {               \
                                _name = table[_i].name;                         \
                                break;                                          \
                        }                                                       \
                _name;                                                          \
        })
#define NAME_LOOKUP(table, n)                                                   \
        ({                                                                      \
                const char *_name = NULL;                                       \
                for (size_t _i = 0; _i < ELEMENTSOF(table) && n; _i++)          \
                        if (strcmp(n, table[_i].name) == 0) {                   \
                                _name = table[_i].name;                         \
                                break;                                          \
                        }                                                       \
                _name;                                                          \
        })

static const char *kind_from_class(const uint8_t *sig) {
        return SIG_LOOKUP(kind_table, sig);
}

static const char *colorspace_from_sig(const uint8_t *sig) {
        return SIG_LOOKUP(colorspace_table, sig);
}

const char *icc_info_kind_name(const char *name) {
        return NAME_LOOKUP(kind_table, name);
}

const char *icc_info_colorspace_name(const char *name) {
        return NAME_LOOKUP(colorspace_table, name);
}

/* Every name compute_warnings() may report. */
static const struct {
        const char *name;
} warning_table[] = {
        { "description-missing" }, { "copyright-missing" }, { "vcgt-non-monotonic" },
        { "scum-dot" }, { "primaries-invalid" }, { "primaries-non-additive" },
        { "primaries-unlikely" }, { "whitepoint-invalid" }, { "whitepoint-unlikely" },
        { "gray-axis-invalid" }, { "gray-axis-non-monotonic" },
};

const char *icc_info_warning_name(const char *name) {
        return NAME_LOOKUP(warning_table, name);
}

/* Header bytes 24-35 (dateTimeNumber), read as local time the way colord does (GLib's
 * g_date_time_new_local(), which refuses out-of-range fields: we return 0 for those). */
static int64_t header_created(const uint8_t *h) {
        static const uint8_t mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
        unsigned y = be16(h + 24), mo = be16(h + 26), d = be16(h + 28);
        unsigned hh = be16(h + 30), mi = be16(h + 32), ss = be16(h + 34);

        if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
            hh > 23 || mi > 59 || ss > 59)
                return 0;
        if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
                return 0;

        struct tm tm = {
                .tm_year = (int) y - 1900, .tm_mon = (int) mo - 1, .tm_mday = (int) d,
                .tm_hour = (int) hh, .tm_min = (int) mi, .tm_sec = (int) ss,
                .tm_isdst = -1,
        };
        time_t t = mktime(&tm);
        if (t == (time_t) -1)
                return 0;
        return (int64_t) t;
}

/* ---- warnings (colord §4.7), the checks colord runs in cd_icc_get_warnings() ---- */

static bool check_vcgt_monotonic(cmsHPROFILE profile) {
        const cmsToneCurve **vcgt = cmsReadTag(profile, cmsSigVcgtTag);
        float previous[3] = { -1, -1, -1 };

        if (!vcgt || !vcgt[0] || !vcgt[1] || !vcgt[2])
                return true;
        for (unsigned i = 0; i < 32; i++) {
                float in = (float) i / 31.0f;
                for (unsigned c = 0; c < 3; c++) {
                        float now = cmsEvalToneCurveFloat(vcgt[c], in);
                        if (i > 0 && now < previous[c])
                                return false;
                        previous[c] = now;
                }
        }
        return true;
}

/* Lab 100,0,0 must come out as RGB 255,255,255 (relative colorimetric), or white paper
 * prints with a "scum dot". A transform lcms2 cannot build gives no warning, as in colord. */
static bool check_scum_dot(Lcms *l) {
        cmsHPROFILE lab = cmsCreateLab2ProfileTHR(l->ctx, cmsD50_xyY());
        bool ok = true;

        if (!lab)
                return true;
        cmsHTRANSFORM t = cmsCreateTransformTHR(l->ctx, lab, TYPE_Lab_DBL, l->profile, TYPE_RGB_8,
                                                INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
        if (t) {
                cmsCIELab white = { .L = 100.0, .a = 0.0, .b = 0.0 };
                uint8_t rgb[3] = {};
                cmsDoTransform(t, &white, rgb, 1);
                ok = rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255;
                cmsDeleteTransform(t);
        }
        cmsCloseProfile(lab);
        return ok;
}

/* A 16-step grey ramp through RGB -> Lab: a* and b* must stay at or below 5 (colord compares
 * the signed values, not their magnitude) and L* must not fall. Display class only. */
static const char *check_gray_axis(Lcms *l) {
        cmsHPROFILE lab = cmsCreateLab2ProfileTHR(l->ctx, cmsD50_xyY());
        const char *warning = NULL;

        if (!lab)
                return NULL;
        cmsHTRANSFORM t = cmsCreateTransformTHR(l->ctx, l->profile, TYPE_RGB_8, lab, TYPE_Lab_DBL,
                                                INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
        if (t) {
                uint8_t rgb[3 * 16];
                cmsCIELab gray[16];
                for (unsigned i = 0; i < 16; i++)
                        rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = (uint8_t) (17 * i);
                cmsDoTransform(t, rgb, gray, 16);

                for (unsigned i = 0; i < 16 && !warning; i++)
                        if (gray[i].a > 5.0 || gray[i].b > 5.0)
                                warning = "gray-axis-invalid";
                double last = -1;
                for (unsigned i = 0; i < 16 && !warning; i++) {
                        if (last > 0 && gray[i].L < last)
                                warning = "gray-axis-non-monotonic";
                        last = gray[i].L;
                }
                cmsDeleteTransform(t);
        }
        cmsCloseProfile(lab);
        return warning;
}

/* The colorant tags against fixed bounds taken from ultra-wide gamut spaces (CIE RGB,
 * ProPhoto). Stops quietly at the first missing tag. */
static bool check_primaries(cmsHPROFILE profile) {
        const cmsCIEXYZ *r = cmsReadTag(profile, cmsSigRedColorantTag);
        if (!r)
                return true;
        if (r->X > 0.85f || r->Y < 0.15f || r->Z < -0.01)
                return false;
        const cmsCIEXYZ *g = cmsReadTag(profile, cmsSigGreenColorantTag);
        if (!g)
                return true;
        if (g->X < 0.10f || g->Y > 0.85f || g->Z < -0.01f)
                return false;
        const cmsCIEXYZ *b = cmsReadTag(profile, cmsSigBlueColorantTag);
        if (!b)
                return true;
        if (b->X < 0.01f || b->Y < 0.0f || b->Z > 0.87f)
                return false;
        return true;
}

/* Red, green, blue and white through RGB -> XYZ (relative): primaries near the spectral
 * locus corners, and, for displays, white at D50 and R+G+B adding up to it. One warning at
 * most: colord stops at the first failed check. */
static const char *check_d50_and_primaries(Lcms *l, bool display) {
        cmsHPROFILE xyz = cmsCreateXYZProfileTHR(l->ctx);
        const char *warning = NULL;

        if (!xyz)
                return NULL;
        cmsHTRANSFORM t = cmsCreateTransformTHR(l->ctx, l->profile, TYPE_RGB_8, xyz, TYPE_XYZ_DBL,
                                                INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
        if (!t) {
                cmsCloseProfile(xyz);
                return NULL;
        }

        const uint8_t rgb[12] = { 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255 };
        cmsCIEXYZ p[4];
        cmsCIExyY c;
        const double rgb_error = 0.05, white_error = 0.05, additive_error = 0.1;
        cmsDoTransform(t, rgb, p, 4);

        cmsXYZ2xyY(&c, &p[0]);
        if (c.x - 0.735 > rgb_error || 0.265 - c.y > rgb_error)
                warning = "primaries-unlikely";
        if (!warning) {
                cmsXYZ2xyY(&c, &p[1]);
                if (0.160 - c.x > rgb_error || c.y - 0.840 > rgb_error)
                        warning = "primaries-unlikely";
        }
        if (!warning) {
                cmsXYZ2xyY(&c, &p[2]);
                if (0.037 - c.x > rgb_error || c.y - 0.358 > rgb_error)
                        warning = "primaries-unlikely";
        }
        if (!warning && display) {
                const cmsCIEXYZ *d50 = cmsD50_XYZ();
                if (fabs(p[3].X - d50->X) > white_error || fabs(p[3].Y - d50->Y) > white_error ||
                    fabs(p[3].Z - d50->Z) > white_error)
                        warning = "whitepoint-invalid";
                else {
                        double x = p[0].X + p[1].X + p[2].X;
                        double y = p[0].Y + p[1].Y + p[2].Y;
                        double z = p[0].Z + p[1].Z + p[2].Z;
                        if (fabs(x - d50->X) > additive_error || fabs(y - d50->Y) > additive_error ||
                            fabs(z - d50->Z) > additive_error)
                                warning = "primaries-non-additive";
                }
        }

        cmsDeleteTransform(t);
        cmsCloseProfile(xyz);
        return warning;
}

static bool has_ascii_text(cmsHPROFILE profile, cmsInfoType info) {
        char buf[8] = {};
        /* colord asks lcms2 for the ASCII en_US text ('desc' only, never 'dscm') and calls an
         * empty first character missing. */
        return cmsGetProfileInfoASCII(profile, info, "en", "US", buf, sizeof buf) > 0 && buf[0] != 0;
}

/* Order and conditions as in colord. "whitepoint-unlikely" needs the colour temperature,
 * which the daemon's load path never computes, so it never fires there and not here. */
static int compute_warnings(Lcms *l, const IccView *v, char ***ret) {
        const char *w[12];
        size_t n = 0;
        const char *s;

        if (!has_ascii_text(l->profile, cmsInfoDescription))
                w[n++] = "description-missing";
        if (!has_ascii_text(l->profile, cmsInfoCopyright))
                w[n++] = "copyright-missing";

        if (cmsGetColorSpace(l->profile) == cmsSigRgbData) {
                bool display = cmsGetDeviceClass(l->profile) == cmsSigDisplayClass;

                if (v->vcgt_size > 0 && vcgt_is_complete(v->data + v->vcgt_offset, v->vcgt_size) &&
                    !check_vcgt_monotonic(l->profile))
                        w[n++] = "vcgt-non-monotonic";
                if (!check_scum_dot(l))
                        w[n++] = "scum-dot";
                if (display && (s = check_gray_axis(l)))
                        w[n++] = s;
                if (!check_primaries(l->profile))
                        w[n++] = "primaries-invalid";
                if ((s = check_d50_and_primaries(l, display)))
                        w[n++] = s;
        }

        _cleanup_strv_free_ char **l_ret = calloc(n + 1, sizeof(char *));
        if (!l_ret)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                l_ret[i] = strdup(w[i]);
                if (!l_ret[i])
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l_ret);
        return 0;
}

/* ---- public ---- */

IccInfo *icc_info_free(IccInfo *info) {
        if (!info)
                return NULL;
        free(info->description);
        free(info->title);
        free(info->copyright);
        free(info->manufacturer);
        free(info->model);
        strv_free(info->metadata);
        strv_free(info->warnings);
        free(info);
        return NULL;
}

static int parse_opened(Lcms *l, const IccView *v, const uint8_t *buf, size_t size,
                        IccInfoFlags flags, IccInfo **ret, char **ret_error) {
        static const cmsTagSignature description_sigs[] = {
                cmsSigProfileDescriptionMLTag, cmsSigProfileDescriptionTag, 0
        };
        static const cmsTagSignature copyright_sigs[] = { cmsSigCopyrightTag, 0 };
        static const cmsTagSignature manufacturer_sigs[] = { cmsSigDeviceMfgDescTag, 0 };
        static const cmsTagSignature model_sigs[] = { cmsSigDeviceModelDescTag, 0 };
        int r;

        _cleanup_(icc_info_freep) IccInfo *info = calloc(1, sizeof(IccInfo));
        if (!info)
                return -ENOMEM;

        r = read_text(l->profile, description_sigs, &info->description);
        if (r < 0)
                return r;
        if (!info->description)
                return set_error(ret_error, -ENODATA, "profile has no description");
        info->title = names_profile_title(info->description);
        if (!info->title)
                return -ENOMEM;
        r = read_text(l->profile, copyright_sigs, &info->copyright);
        if (r < 0)
                return r;
        /* not exposed by colord; tinct create-virtual-device names its device after them */
        r = read_text(l->profile, manufacturer_sigs, &info->manufacturer);
        if (r < 0)
                return r;
        r = read_text(l->profile, model_sigs, &info->model);
        if (r < 0)
                return r;

        r = read_metadata(l, &info->metadata, ret_error);
        if (r < 0)
                return r;

        /* colord §4.3: the embedded profile ID when set, else the MD5 of all the bytes */
        bool id_set = false;
        for (size_t i = 84; i < 100; i++)
                id_set = id_set || buf[i] != 0;
        if (id_set)
                md5_digest_to_hex(buf + 84, info->checksum);
        else
                md5_hex(buf, size, info->checksum);

        info->kind = kind_from_class(buf + 12);
        info->colorspace = colorspace_from_sig(buf + 16);
        info->has_vcgt = cmsIsTag(l->profile, cmsSigVcgtTag);
        info->created = header_created(buf);
        info->tags_ignored = v->tags_ignored;

        if (!(flags & ICC_INFO_SKIP_WARNINGS)) {
                r = compute_warnings(l, v, &info->warnings);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(info);
        return 0;
}

int icc_info_parse_flags(const void *data, size_t size, IccInfoFlags flags, IccInfo **ret,
                         char **ret_error) {
        IccView v;
        Lcms l;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if (!data && size > 0)
                return -EINVAL;

        r = icc_view_init(&v, data, size, ret_error);
        if (r < 0)
                goto finish;
        r = lcms_open(&l, &v, ret_error);
        if (r >= 0) {
                r = parse_opened(&l, &v, data, size, flags, ret, ret_error);
                lcms_done(&l);
        }
        icc_view_done(&v);
finish:
        if (r == -ENOMEM)
                set_error(ret_error, r, "out of memory");
        return r;
}

int icc_info_parse(const void *data, size_t size, IccInfo **ret, char **ret_error) {
        return icc_info_parse_flags(data, size, 0, ret, ret_error);
}

int icc_info_compute_warnings(const void *data, size_t size, char ***ret_warnings,
                              char **ret_error) {
        IccView v;
        Lcms l;
        int r;

        if (!data && size > 0)
                return -EINVAL;
        if (ret_error)
                *ret_error = NULL;

        r = icc_view_init(&v, data, size, ret_error);
        if (r < 0)
                return r;
        r = lcms_open(&l, &v, ret_error);
        if (r >= 0) {
                r = compute_warnings(&l, &v, ret_warnings);
                lcms_done(&l);
        }
        icc_view_done(&v);
        return r;
}

/* ---- vcgt ramps ---- */

/* Entry i of n evenly spaced 16-bit values, rounded: i * 257 for n = 256. */
static uint16_t ramp_value(size_t i, size_t n) {
        return n > 1 ? (uint16_t) ((i * 65535 + (n - 1) / 2) / (n - 1)) : 0;
}

void icc_linear_ramp(size_t n, uint16_t *red, uint16_t *green, uint16_t *blue) {
        for (size_t i = 0; i < n; i++)
                red[i] = green[i] = blue[i] = ramp_value(i, n);
}

int icc_vcgt_ramp(const void *data, size_t size, size_t n, uint16_t *red, uint16_t *green, uint16_t *blue,
                  char **ret_error) {
        IccView v;
        Lcms l;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if ((!data && size > 0) || n == 0)
                return -EINVAL;
        r = icc_view_init(&v, data, size, ret_error);
        if (r < 0)
                return r;
        if (v.vcgt_size == 0 || !vcgt_is_complete(v.data + v.vcgt_offset, v.vcgt_size)) {
                icc_view_done(&v);
                return set_error(ret_error, -ENODATA, v.vcgt_size == 0 ? "no vcgt tag" : "incomplete vcgt tag");
        }
        r = lcms_open(&l, &v, ret_error);
        if (r >= 0) {
                const cmsToneCurve **vcgt = cmsReadTag(l.profile, cmsSigVcgtTag);
                if (!vcgt || !vcgt[0] || !vcgt[1] || !vcgt[2])
                        r = set_error(ret_error, -ENODATA, "unreadable vcgt tag");
                else {
                        uint16_t *out[3] = { red, green, blue };
                        for (size_t i = 0; i < n; i++) {
                                /* For n = 256 the inputs are i * 257: exactly the nodes of a
                                 * 256-entry table, so such a table comes back unchanged. */
                                for (unsigned c = 0; c < 3; c++)
                                        out[c][i] = cmsEvalToneCurve16(vcgt[c], ramp_value(i, n));
                        }
                }
                lcms_done(&l);
        }
        icc_view_done(&v);
        return r;
}
