/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the ICC reader (icc-info.c) on real profiles from the shared corpus, plus
 * edits of them made in memory: truncations, corrupted header and table bytes, dict strings.
 * The expected warnings were checked against libcolord 1.4.6 (CdIcc, lcms2 2.14) on Debian 12.
 * The corpus comparison over every file is check-corpus.py; this file pins the behaviour. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "icc-info.h"
#include "icc-write.h"
#include "md5.h"
#include "strv.h"
#include "tests.h"

#ifndef ICC_CORPUS_DIR
#error "ICC_CORPUS_DIR must point at corpus/icc"
#endif

static uint8_t *load(const char *name, size_t *ret_size) {
        char path[4096];
        uint8_t *buf = NULL;
        snprintf(path, sizeof path, "%s/%s", ICC_CORPUS_DIR, name);
        if (read_file_capped(path, 64u * 1024 * 1024, 0, &buf, ret_size, NULL) < 0) {
                fprintf(stderr, "cannot read %s\n", path);
                abort();
        }
        return buf;
}

static IccInfo *parse_ok(const char *name) {
        size_t size;
        _cleanup_free_ uint8_t *buf = load(name, &size);
        _cleanup_free_ char *error = NULL;
        IccInfo *info = NULL;
        int r = icc_info_parse(buf, size, &info, &error);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", name, error);
                abort();
        }
        assert_se(info && !error);
        return info;
}

static void parse_fails(const char *name, int expected, const char *message_part) {
        size_t size;
        _cleanup_free_ uint8_t *buf = load(name, &size);
        _cleanup_free_ char *error = NULL;
        IccInfo *info = NULL;
        int r = icc_info_parse(buf, size, &info, &error);
        if (r != expected || !error || !strstr(error, message_part)) {
                fprintf(stderr, "%s: got %d (%s), want %d (...%s...)\n", name, r,
                        error ? error : "no message", expected, message_part);
                abort();
        }
        assert_se(!info);
}

static const char *meta(const IccInfo *info, const char *key) {
        for (size_t i = 0; info->metadata[i]; i += 2)
                if (streq(info->metadata[i], key))
                        return info->metadata[i + 1];
        return NULL;
}

static int64_t local_time(int y, int mo, int d, int h, int mi, int s) {
        struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                         .tm_hour = h, .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };
        return (int64_t) mktime(&tm);
}

static void assert_warnings(const IccInfo *info, const char *const *want) {
        size_t n = 0;
        while (want[n])
                n++;
        if (strv_length(info->warnings) != n) {
                fprintf(stderr, "%s: %zu warnings, want %zu:", info->description,
                        strv_length(info->warnings), n);
                STRV_FOREACH(w, info->warnings)
                        fprintf(stderr, " %s", *w);
                fputc('\n', stderr);
                abort();
        }
        for (size_t i = 0; i < n; i++)
                assert_streq(info->warnings[i], want[i]);
}

/* colord's own test profile (colord §4.3, §4.7): embedded ID, no warnings. */
static void test_ibm_t61(void) {
        _cleanup_(icc_info_freep) IccInfo *info = parse_ok("colord-tests--ibm-t61.icc");

        assert_streq(info->checksum, "9ace8cce8baac8d492a93a2a232d7702");
        assert_streq(info->description, "Huey, LENOVO - 6464Y1H - 15\" (2009-12-23)");
        assert_streq(info->title, "Huey, LENOVO - 6464Y1H - 15\" (2009-12-23)");
        assert_streq(info->copyright, "Copyright (c) 2009 Richard Hughes");
        assert_streq(info->manufacturer, "IBM France"); /* dmnd, dmdd */
        assert_streq(info->model, "ThinkPad T61");
        assert_streq(info->kind, "display-device");
        assert_streq(info->colorspace, "rgb");
        assert_se(info->has_vcgt);
        assert_se(info->created == local_time(2009, 12, 23, 22, 20, 46));
        assert_se(strv_length(info->metadata) == 2);
        assert_streq(meta(info, "EDID_md5"), "f09e42aa86585d1bb6687d3c322ed0c1");
        assert_se(info->warnings && !info->warnings[0]);
        assert_se(info->tags_ignored == 0);
}

static void test_colord_srgb(void) {
        _cleanup_(icc_info_freep) IccInfo *info = parse_ok("colord-data--sRGB.icc");

        assert_streq(info->checksum, "6209e0eee05d1da9df7b4e3c2da33f62");
        assert_streq(info->description, "sRGB");
        assert_streq(info->copyright, "This profile is free of known copyright restrictions");
        /* file order, not lcms2's reversed list */
        static const char *const want[] = {
                "DATA_source", "standard", "CMF_binary", "cd-create-profile", "CMF_product", "colord",
                "License", "CC0", "STANDARD_space", "srgb", "CMF_version", "1.4.6", NULL,
        };
        assert_se(strv_length(info->metadata) == ELEMENTSOF(want) - 1);
        for (size_t i = 0; want[i]; i++)
                assert_streq(info->metadata[i], want[i]);
        assert_se(!info->has_vcgt);
        assert_se(info->created == local_time(2023, 3, 2, 10, 45, 31));
}

/* A v2 profile with zero ID bytes: the checksum is the MD5 of the whole file (colord §4.3). */
static void test_md5_checksum(void) {
        size_t size;
        _cleanup_free_ uint8_t *buf = load("icc-profiles-free--sRGB.icc", &size);
        char md5[33];
        md5_hex(buf, size, md5);
        assert_streq(md5, "7fb30d688bf82d32a0e748daf3dba95d");

        _cleanup_(icc_info_freep) IccInfo *info = parse_ok("icc-profiles-free--sRGB.icc");
        assert_streq(info->checksum, md5);
        assert_streq(info->kind, "display-device");
        assert_se(strv_length(info->metadata) == 0 && info->metadata);

        /* v2 with junk in the reserved ID bytes: used as they are, as colord does */
        _cleanup_(icc_info_freep) IccInfo *lab = parse_ok("icc-profiles-free--LCMSLABI.ICM");
        assert_streq(lab->kind, "display-device");
        assert_streq(lab->colorspace, "lab");
        _cleanup_free_ uint8_t *lbuf = load("icc-profiles-free--LCMSLABI.ICM", &size);
        md5_hex(lbuf, size, md5);
        assert_se(!streq(lab->checksum, md5));
}

static void test_kinds_and_dates(void) {
        _cleanup_(icc_info_freep) IccInfo *a = parse_ok("colord-data--x11-colors.icc");
        assert_streq(a->kind, "named-color");
        _cleanup_(icc_info_freep) IccInfo *b = parse_ok("scribus-data--ISOcoated_v2_300_bas.icc");
        assert_streq(b->kind, "output-device");
        assert_streq(b->colorspace, "cmyk");
        _cleanup_(icc_info_freep) IccInfo *c = parse_ok("icc-profiles-free--Gray.icc");
        assert_streq(c->colorspace, "gray");
        assert_se(!c->manufacturer && !c->model);
        /* all-zero header date: GLib refuses it, colord reports 0 */
        _cleanup_(icc_info_freep) IccInfo *d = parse_ok("libgs-common--a98.icc");
        assert_se(d->created == 0);
        /* title clean-up is applied (names_profile_title) */
        _cleanup_(icc_info_freep) IccInfo *e = parse_ok("krita-data--sRGB-elle-V2-srgbtrc.icc");
        assert_streq(e->description, "sRGB-elle-V2-srgbtrc.icc");
        assert_streq(e->title, "sRGB-elle-V2-srgbtrc");
        _cleanup_(icc_info_freep) IccInfo *f = parse_ok("rawtherapee-data--RTv2_ACES-AP0.icc");
        assert_streq(f->title, "RTv2 ACES AP0");
}

static void test_rejected(void) {
        parse_fails("colord-tests--empty.icc", -EBADMSG, "file size too small");
        parse_fails("crafted-truncated-header-only-colord-AdobeRGB1998.icc", -EBADMSG, "file size too small");
        parse_fails("crafted-bad-magic-iccfree-Gray.icc", -EBADMSG, "acsp");
        parse_fails("crafted-tag-count-huge-iccfree-AdobeRGB.icc", -EBADMSG, "tag count");
        parse_fails("crafted-truncated-in-tag-table-iccfree-sRGB.icc", -EBADMSG, "tag table");
        parse_fails("crafted-desc-ascii-count-overflow-iccfree-sRGB.icc", -ENODATA, "no description");
        parse_fails("crafted-mluc-record-length-overflow-colord-sRGB.icc", -ENODATA, "no description");
        parse_fails("colord-tests--corrupt-dict.icc", -EBADMSG, "corrupt meta dict");
        parse_fails("crafted-dict-name-offset-out-of-bounds-colord-sRGB.icc", -EBADMSG, "corrupt meta dict");

        IccInfo *info = NULL;
        assert_se(icc_info_parse(NULL, 0, &info, NULL) == -EBADMSG && !info);
        uint8_t small[131] = {};
        assert_se(icc_info_parse(small, sizeof small, &info, NULL) == -EBADMSG && !info);
}

/* Crafted files that lcms2 and colord load with the broken tags left out: so do we. */
static void test_accepted_crafted(void) {
        _cleanup_(icc_info_freep) IccInfo *half = parse_ok("crafted-truncated-half-colord-sRGB.icc");
        assert_streq(half->description, "sRGB");
        assert_se(half->tags_ignored == 1);
        assert_streq(meta(half, "STANDARD_space"), "srgb");

        _cleanup_(icc_info_freep) IccInfo *eof = parse_ok("crafted-tag-offset-past-eof-colord-Rec709.icc");
        assert_se(eof->tags_ignored == 1);
        _cleanup_(icc_info_freep) IccInfo *wrap = parse_ok("crafted-tag-offset-size-overflow-colord-AppleRGB.icc");
        assert_se(wrap->tags_ignored == 1);
        assert_streq(wrap->description, "Apple RGB");

        /* size field 1000: only 'desc' lies inside it, as lcms2 reads it */
        _cleanup_(icc_info_freep) IccInfo *small = parse_ok("crafted-size-field-too-small-colord-Bluish.icc");
        assert_streq(small->description, "Blue");
        assert_se(!small->has_vcgt && !small->copyright);
        assert_se(small->tags_ignored == 13);
        static const char *const cw[] = { "copyright-missing", NULL };
        assert_warnings(small, cw);

        _cleanup_(icc_info_freep) IccInfo *large = parse_ok("crafted-size-field-too-large-argyll-sRGB.icc");
        assert_se(large->tags_ignored == 0);
        _cleanup_(icc_info_freep) IccInfo *v5 = parse_ok("crafted-version-5-iccfree-Gray.icc");
        assert_streq(v5->description, "Gray");

        /* the ID is taken as it is, never verified */
        _cleanup_(icc_info_freep) IccInfo *id = parse_ok("crafted-wrong-profile-id-colord-AppleRGB.icc");
        assert_streq(id->checksum, "e028c7a15cdd16e0806e220ee049983c");

        /* vcgt present but shorter than its table: HasVcgt as colord, and not evaluated */
        _cleanup_(icc_info_freep) IccInfo *vcgt = parse_ok("crafted-vcgt-tag-too-small-colord-Gamma6500K.icc");
        assert_se(vcgt->has_vcgt);
        assert_se(vcgt->warnings && !vcgt->warnings[0]);
}

static void test_warnings(void) {
        static const struct {
                const char *file;
                const char *warnings[5];
        } table[] = {
                { "colord-data--Bluish.icc", { NULL } },
                { "icc-profiles-free--CineonLog_M.icc", { "scum-dot", NULL } },
                { "libgs-common--esrgb.icc", { "scum-dot", NULL } },
                { "krita-data--ITUR_2100_PQ_FULL.ICC", { "scum-dot", "whitepoint-invalid", NULL } },
                { "rawtherapee-data--RTv2_ACES-AP0.icc", { "primaries-invalid", "primaries-unlikely", NULL } },
                { "displaycal--Rec2020_HLG1000_cLUT.icm", { "primaries-non-additive", NULL } },
                { "displaycal--XYZ_D50_ICC_PCS_encoding.icm",
                  { "scum-dot", "gray-axis-invalid", "primaries-invalid", "primaries-unlikely", NULL } },
                { "digikam-data--widegamut.icm", { "copyright-missing", NULL } },
                { "scribus-data--ISOcoated_v2_300_bas.icc", { NULL } }, /* not RGB: text checks only */
        };

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                _cleanup_(icc_info_freep) IccInfo *info = parse_ok(table[i].file);
                assert_warnings(info, table[i].warnings);

                /* the separate entry point gives the same list */
                size_t size;
                _cleanup_free_ uint8_t *buf = load(table[i].file, &size);
                _cleanup_strv_free_ char **w = NULL;
                assert_se(icc_info_compute_warnings(buf, size, &w, NULL) == 0);
                assert_se(strv_length(w) == strv_length(info->warnings));
                for (size_t k = 0; w[k]; k++)
                        assert_streq(w[k], info->warnings[k]);

                _cleanup_(icc_info_freep) IccInfo *quick = NULL;
                assert_se(icc_info_parse_flags(buf, size, ICC_INFO_SKIP_WARNINGS, &quick, NULL) == 0);
                assert_se(!quick->warnings);
                assert_streq(quick->checksum, info->checksum);
        }
}

/* Where a profile's 'meta' dict keeps the value of record `index` (UTF-16BE). */
static uint8_t *dict_value(uint8_t *buf, size_t size, unsigned index, uint32_t *ret_len) {
        uint32_t count = (uint32_t) buf[128] << 24 | buf[129] << 16 | buf[130] << 8 | buf[131];
        for (uint32_t i = 0; i < count; i++) {
                const uint8_t *e = buf + 132 + 12 * i;
                if (memcmp(e, "meta", 4) != 0)
                        continue;
                uint32_t off = (uint32_t) e[4] << 24 | e[5] << 16 | e[6] << 8 | e[7];
                const uint8_t *rec = buf + off + 16 + 16 * index;
                uint32_t voff = (uint32_t) rec[8] << 24 | rec[9] << 16 | rec[10] << 8 | rec[11];
                *ret_len = (uint32_t) rec[12] << 24 | rec[13] << 16 | rec[14] << 8 | rec[15];
                assert_se(off + voff + *ret_len <= size);
                return buf + off + voff;
        }
        abort();
}

static void test_dict_utf16(void) {
        size_t size;
        _cleanup_free_ uint8_t *buf = load("colord-data--sRGB.icc", &size);
        uint32_t len;
        /* the first record in the file is DATA_source=standard */
        uint8_t *v = dict_value(buf, size, 0, &len);
        assert_se(len >= 4 && v[1] == 's');

        /* a surrogate pair becomes one 4-byte UTF-8 sequence (U+1F600) */
        v[0] = 0xD8, v[1] = 0x3D, v[2] = 0xDE, v[3] = 0x00;
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        assert_se(icc_info_parse(buf, size, &info, NULL) == 0);
        assert_streq(meta(info, "DATA_source"), "\xF0\x9F\x98\x80" "andard");

        /* a lone surrogate cannot be converted: the load fails, as colord's does */
        v[0] = 0xDC, v[1] = 0x00;
        _cleanup_free_ char *error = NULL;
        IccInfo *bad = NULL;
        assert_se(icc_info_parse(buf, size, &bad, &error) == -EBADMSG && !bad);
        assert_se(strstr(error, "meta dict"));
}

/* Every prefix of a real profile, and every single-byte corruption of its header and tag
 * table, gives either a clean error or a result (the sanitizer build checks the reads). */
static void test_robustness(void) {
        size_t size;
        _cleanup_free_ uint8_t *orig = load("colord-tests--ibm-t61.icc", &size);
        _cleanup_free_ uint8_t *buf = malloc(size);
        assert_se(buf);
        unsigned ok = 0, failed = 0;

        for (size_t n = 0; n <= size; n += n < 400 ? 1 : 211) {
                IccInfo *info = NULL;
                char *error = NULL;
                memcpy(buf, orig, n);
                int r = icc_info_parse_flags(buf, n, ICC_INFO_SKIP_WARNINGS, &info, &error);
                assert_se(r == 0 ? info && !error : !info && error && (r == -EBADMSG || r == -ENODATA));
                r == 0 ? ok++ : failed++;
                icc_info_free(info);
                free(error);
        }

        size_t table_end = 132 + 12 * (size_t) orig[131];
        for (size_t i = 0; i < table_end; i++)
                for (unsigned k = 0; k < 3; k++) {
                        static const uint8_t values[] = { 0x00, 0xFF, 0x80 };
                        IccInfo *info = NULL;
                        char *error = NULL;
                        memcpy(buf, orig, size);
                        buf[i] = orig[i] == values[k] ? (uint8_t) ~values[k] : values[k];
                        int r = icc_info_parse(buf, size, &info, &error);
                        assert_se(r == 0 ? info && info->warnings : !info && error);
                        r == 0 ? ok++ : failed++;
                        icc_info_free(info);
                        free(error);
                }
        assert_se(ok > 0 && failed > 0);
}

/* The vcgt ramp, against the table read straight from the file's bytes (ICC private tag
 * 'vcgt', type 0: channels, entries, entry size, then big-endian entries per channel). */
static void test_vcgt_ramp(void) {
        size_t size;
        _cleanup_free_ uint8_t *buf = load("colord-data--Bluish.icc", &size);
        const uint8_t *tag = NULL;
        uint32_t count = (uint32_t) buf[128] << 24 | buf[129] << 16 | buf[130] << 8 | buf[131];
        for (uint32_t i = 0; i < count; i++) {
                const uint8_t *e = buf + 132 + 12 * i;
                if (memcmp(e, "vcgt", 4) == 0)
                        tag = buf + ((uint32_t) e[4] << 24 | e[5] << 16 | e[6] << 8 | e[7]);
        }
        assert_se(tag && tag[11] == 0);                         /* table type */
        assert_se(tag[13] == 3 && tag[14] == 1 && tag[15] == 0 && tag[17] == 2); /* 3 × 256 × 16 bit */

        uint16_t r[256], g[256], b[256];
        assert_se(icc_vcgt_ramp(buf, size, 256, r, g, b, NULL) == 0);
        uint16_t *ch[3] = { r, g, b };
        bool linear = true;
        for (unsigned c = 0; c < 3; c++)
                for (unsigned i = 0; i < 256; i++) {
                        const uint8_t *p = tag + 18 + 2 * (256 * c + i);
                        assert_se(ch[c][i] == (uint16_t) (p[0] << 8 | p[1]));
                        linear = linear && ch[c][i] == i * 257;
                }
        assert_se(!linear);

        /* Other sizes: sampled, ends kept, still monotonic for this monotonic table. */
        uint16_t r2[1024], g2[1024], b2[1024];
        assert_se(icc_vcgt_ramp(buf, size, 1024, r2, g2, b2, NULL) == 0);
        assert_se(r2[0] == r[0] && r2[1023] == r[255] && b2[1023] == b[255]);
        for (unsigned i = 1; i < 1024; i++)
                assert_se(r2[i] >= r2[i - 1] && g2[i] >= g2[i - 1] && b2[i] >= b2[i - 1]);
        assert_se(icc_vcgt_ramp(buf, size, 0, r, g, b, NULL) == -EINVAL);

        /* A profile without one, one whose vcgt is cut short, one that is no profile. */
        _cleanup_free_ char *why = NULL;
        size_t size2;
        _cleanup_free_ uint8_t *srgb = load("colord-data--sRGB.icc", &size2);
        assert_se(icc_vcgt_ramp(srgb, size2, 256, r, g, b, &why) == -ENODATA && why);
        free(why);
        why = NULL;
        _cleanup_free_ uint8_t *cut = load("crafted-vcgt-tag-too-small-colord-Gamma6500K.icc", &size2);
        assert_se(icc_vcgt_ramp(cut, size2, 256, r, g, b, &why) == -ENODATA && why);
        free(why);
        why = NULL;
        assert_se(icc_vcgt_ramp(buf, 100, 256, r, g, b, &why) == -EBADMSG && why);

        icc_linear_ramp(256, r, g, b);
        assert_se(r[0] == 0 && r[255] == 65535 && g[128] == 128 * 257 && b[1] == 257);
        icc_linear_ramp(1024, r2, g2, b2);
        assert_se(r2[0] == 0 && r2[1023] == 65535 && r2[512] == 32800);
}

/* An sRGB profile whose 'meta' dict has n records; with dup, every record repeats the key
 * "k" (value "v<i>"), else each key is its own ("k<i>"). */
static uint8_t *profile_with_meta(size_t n, bool dup, size_t *ret_size) {
        _cleanup_(profile_closep) cmsHPROFILE h = cmsCreate_sRGBProfile();
        assert_se(h);
        assert_se(icc_write_text_tag(h, cmsSigProfileDescriptionTag, "meta test") == 0);
        char **kv = calloc(2 * n + 1, sizeof(char *));
        assert_se(kv);
        for (size_t i = 0; i < n; i++) {
                assert_se(asprintf(&kv[2 * i], dup ? "k" : "k%zu", i) > 0);
                assert_se(asprintf(&kv[2 * i + 1], "v%zu", i) > 0);
        }
        assert_se(icc_write_meta_tag(h, (const char *const *) kv) == 0);
        strv_free(kv);
        uint8_t *data;
        assert_se(icc_save_to_mem(h, &data, ret_size) == 0);
        return data;
}

/* The duplicate-key check is linear (it was quadratic: 7 s at 40 000 keys) and the record
 * count is capped before lcms2 reads the dict. */
static void test_meta_cap(void) {
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *error = NULL;
        size_t size;

        /* at the cap: accepted, every key kept in file order */
        _cleanup_free_ uint8_t *at_cap = profile_with_meta(ICC_MAX_METADATA_ENTRIES, false, &size);
        assert_se(icc_info_parse_flags(at_cap, size, ICC_INFO_SKIP_WARNINGS, &info, &error) == 0);
        assert_se(strv_length(info->metadata) == 2 * ICC_MAX_METADATA_ENTRIES);
        assert_streq(info->metadata[0], "k0");
        assert_streq(info->metadata[2 * ICC_MAX_METADATA_ENTRIES - 1], "v127");
        info = icc_info_free(info);

        /* repeated keys: the first in the file wins (colord §4.4's hash table order) */
        _cleanup_free_ uint8_t *dups = profile_with_meta(100, true, &size);
        assert_se(icc_info_parse_flags(dups, size, ICC_INFO_SKIP_WARNINGS, &info, &error) == 0);
        assert_se(strv_length(info->metadata) == 2);
        assert_streq(info->metadata[0], "k");
        assert_streq(info->metadata[1], "v0");
        info = icc_info_free(info);

        /* one over the cap, and the 80 000-key file of issue 19: refused with a reason */
        _cleanup_free_ uint8_t *over = profile_with_meta(ICC_MAX_METADATA_ENTRIES + 1, false, &size);
        assert_se(icc_info_parse_flags(over, size, ICC_INFO_SKIP_WARNINGS, &info, &error) == -E2BIG);
        assert_se(!info && strstr(error, "meta dict has 129 entries"));
        error = mfree(error);
        _cleanup_free_ uint8_t *hostile = profile_with_meta(80000, false, &size);
        assert_se(size > 1000000);
        assert_se(icc_info_parse_flags(hostile, size, 0, &info, &error) == -E2BIG);
        assert_se(strstr(error, "more than 128"));
        error = mfree(error);
        char **w = NULL;
        assert_se(icc_info_compute_warnings(hostile, size, &w, &error) == -E2BIG && !w);
        error = mfree(error);

        /* over the file cap: refused from the size alone */
        assert_se(icc_info_parse(at_cap, (size_t) ICC_MAX_FILE_SIZE + 1, &info, &error) == -EFBIG);
        assert_se(strstr(error, "larger than"));
}

int main(void) {
        test_ibm_t61();
        test_colord_srgb();
        test_md5_checksum();
        test_kinds_and_dates();
        test_rejected();
        test_accepted_crafted();
        test_warnings();
        test_dict_utf16();
        test_robustness();
        test_vcgt_ramp();
        test_meta_cap();
        printf("test-icc: ok\n");
        return 0;
}
