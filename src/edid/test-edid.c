/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the EDID parser: a few real EDIDs from the shared corpus checked field by
 * field, and hand-made malformed buffers (every truncation of a real file, bad checksums,
 * too many declared extensions, CTA offsets and lengths that point out of the block).
 * The whole-corpus comparison with edid-decode is check-corpus.py, not this. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edid.h"
#include "tests.h"

static const char *corpus_edid_dir;

static uint8_t *load(const char *name, size_t *ret_size) {
        char path[4096];
        uint8_t *buf;
        FILE *f;
        long n;

        snprintf(path, sizeof path, "%s/%s", corpus_edid_dir, name);
        f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "cannot open %s\n", path);
                abort();
        }
        assert_se(fseek(f, 0, SEEK_END) == 0);
        n = ftell(f);
        assert_se(n >= 0);
        rewind(f);
        buf = malloc((size_t) n + 1);
        assert_se(buf);
        assert_se(fread(buf, 1, (size_t) n, f) == (size_t) n);
        fclose(f);
        *ret_size = (size_t) n;
        return buf;
}

static void fix_checksum(uint8_t *block) {
        uint8_t sum = 0;
        for (size_t i = 0; i < 127; i++)
                sum += block[i];
        block[127] = (uint8_t) (0x100 - sum);
}

static void test_dell_u2713h(void) {
        _cleanup_(edid_freep) Edid *e = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        buf = load("colord-tests--DELL-U2713H.bin", &size);
        assert_se(edid_parse(buf, size, &e) == 0);
        assert_streq(e->manufacturer, "DEL");
        assert_se(e->product_code == 41106);
        assert_se(e->serial_number == 826496844);
        assert_se(e->has_serial_string);
        assert_streq(e->serial_string, "C6F0K34T1CWL");
        assert_se(e->has_model_name);
        assert_streq(e->model_name, "DELL U2713H");
        assert_se(e->n_alphanumeric == 0);
        assert_se(e->week == 18 && e->year == 2013);
        assert_se(e->version == 1 && e->revision == 4);
        assert_se(e->digital);
        assert_se(!e->gamma_in_extension && fabs(e->gamma - 2.2) < 1e-9);
        assert_se(e->red.raw_x == 696 && e->red.raw_y == 317);
        assert_se(e->green.raw_x == 215 && e->green.raw_y == 717);
        assert_se(e->blue.raw_x == 151 && e->blue.raw_y == 55);
        assert_se(e->white.raw_x == 321 && e->white.raw_y == 337);
        assert_se(fabs(e->red.x - 696 / 1024.0) < 1e-12);
        assert_se(e->extension_count == 1 && e->n_blocks == 2);
        assert_se(e->blocks[0].checksum == 0xbc && e->blocks[0].checksum_valid);
        assert_se(e->blocks[1].tag == EDID_EXT_CTA && e->blocks[1].checksum == 0x9d);
        assert_se(edid_all_checksums_valid(e));
        assert_se(e->cta.n_blocks == 1 && e->cta.revision == 3 && !e->cta.malformed);
        assert_se(e->cta.n_data_blocks == 3);
        assert_se(e->cta.data_blocks[0].tag == 2); /* video */
        assert_se(e->cta.data_blocks[1].tag == 1); /* audio */
        assert_se(e->cta.data_blocks[2].tag == 4); /* speaker allocation */
        assert_se(!e->cta.has_hdr_static_metadata && !e->cta.has_colorimetry);
        assert_se(!e->cta.hdmi_vsdb && !e->cta.hdmi_forum_vsdb);
        assert_se(e->n_displayid == 0);
        /* MANIFEST.json md5 of this file */
        assert_streq(e->md5, "ac6dab5272cfbd2e87dd9c635f4c0e9d");
}

static void test_lg_nul_in_name(void) {
        _cleanup_(edid_freep) Edid *e = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        /* The product name holds a NUL after "L225W": the string ends there. */
        buf = load("colord-tests--LG-L225W-External.bin", &size);
        assert_se(edid_parse(buf, size, &e) == 0);
        assert_streq(e->manufacturer, "GSM");
        assert_se(e->has_model_name);
        assert_streq(e->model_name, "L225W");
        assert_se(e->digital);
        assert_se(e->cta.n_blocks == 0);
}

static void test_hdr(void) {
        _cleanup_(edid_freep) Edid *e = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        /* CTA HDR static metadata block with max/max-FALL code 96 (400 cd/m²) and min 40. */
        buf = load("CSO1410-5941FC64F8BE.bin", &size);
        assert_se(edid_parse(buf, size, &e) == 0);
        assert_se(e->n_blocks == 3 && e->n_displayid == 1 && e->displayid_versions[0] == 0x13);
        assert_se(e->cta.has_hdr_static_metadata);
        assert_se(e->cta.eotfs == EDID_EOTF_TRADITIONAL_SDR);
        assert_se(e->cta.static_metadata_descriptors == 1);
        assert_se(e->cta.max_luminance.present && e->cta.max_luminance.code == 96);
        assert_se(fabs(e->cta.max_luminance.cd_m2 - 400.0) < 1e-9);
        assert_se(e->cta.min_luminance.present && e->cta.min_luminance.code == 40);
        assert_se(fabs(e->cta.min_luminance.cd_m2 - 400.0 * (40 / 255.0) * (40 / 255.0) / 100) < 1e-9);
        assert_se(e->n_alphanumeric == 2);
        assert_streq(e->alphanumeric[0], "CSOT T3");
}

static void test_truncation(void) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        /* Every prefix of a 3-block EDID, each in a buffer of exactly that size so the
         * sanitizers see any read past the end. */
        buf = load("CSO1410-5941FC64F8BE.bin", &size);
        assert_se(size == 384);
        for (size_t len = 0; len <= size; len++) {
                _cleanup_(edid_freep) Edid *e = NULL;
                _cleanup_free_ uint8_t *copy = malloc(len ? len : 1);
                int r;

                assert_se(copy);
                memcpy(copy, buf, len);
                r = edid_parse(copy, len, &e);
                if (len == 0)
                        assert_se(r == -ENODATA);
                else if (len % EDID_BLOCK_SIZE != 0)
                        assert_se(r == -EMSGSIZE);
                else {
                        assert_se(r == 0);
                        assert_se(e->n_blocks == len / EDID_BLOCK_SIZE);
                        assert_se(e->extension_count == 2);
                }
        }
}

static void test_bad_input(void) {
        _cleanup_(edid_freep) Edid *e = NULL;
        uint8_t zero[128] = {};

        assert_se(edid_parse(NULL, 0, &e) == -ENODATA);
        assert_se(edid_parse(zero, sizeof zero, &e) == -EBADMSG);
        assert_se(!e);

        uint8_t *big = calloc(EDID_MAX_BLOCKS + 1, EDID_BLOCK_SIZE);
        assert_se(big);
        assert_se(edid_parse(big, (EDID_MAX_BLOCKS + 1) * EDID_BLOCK_SIZE, &e) == -E2BIG);
        free(big);

        assert_se(edid_strerror(-EBADMSG));
}

static void test_checksums_and_counts(void) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        buf = load("colord-tests--DELL-U2713H.bin", &size);

        {
                /* Bad base checksum: still decoded, flagged. */
                _cleanup_(edid_freep) Edid *e = NULL;
                buf[127]++;
                assert_se(edid_parse(buf, size, &e) == 0);
                assert_se(!e->blocks[0].checksum_valid && e->blocks[1].checksum_valid);
                assert_se(!edid_all_checksums_valid(e));
                assert_streq(e->model_name, "DELL U2713H");
                buf[127]--;
        }
        {
                /* Bad extension checksum. */
                _cleanup_(edid_freep) Edid *e = NULL;
                buf[128 + 127] ^= 0x55;
                assert_se(edid_parse(buf, size, &e) == 0);
                assert_se(e->blocks[0].checksum_valid && !e->blocks[1].checksum_valid);
                buf[128 + 127] ^= 0x55;
        }
        {
                /* Extension count too high: counts differ, nothing read beyond the buffer. */
                _cleanup_(edid_freep) Edid *e = NULL;
                buf[126] = 3;
                fix_checksum(buf);
                assert_se(edid_parse(buf, size, &e) == 0);
                assert_se(e->extension_count == 3 && e->n_blocks == 2);
                assert_se(e->blocks[0].checksum_valid);
                buf[126] = 1;
                fix_checksum(buf);
        }
        {
                /* Base block alone although one extension is declared. */
                _cleanup_(edid_freep) Edid *e = NULL;
                _cleanup_free_ uint8_t *one = malloc(128);
                assert_se(one);
                memcpy(one, buf, 128);
                assert_se(edid_parse(one, 128, &e) == 0);
                assert_se(e->extension_count == 1 && e->n_blocks == 1 && e->cta.n_blocks == 0);
        }
}

static void test_cta_offsets(void) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size;

        buf = load("colord-tests--DELL-U2713H.bin", &size);
        uint8_t *cta = buf + 128;

        /* DTD offset past the block, and every other offset value: never a read outside. */
        for (unsigned d = 0; d < 256; d++) {
                _cleanup_(edid_freep) Edid *e = NULL;
                _cleanup_free_ uint8_t *copy = malloc(size);
                assert_se(copy);
                memcpy(copy, buf, size);
                copy[128 + 2] = (uint8_t) d;
                fix_checksum(copy + 128);
                assert_se(edid_parse(copy, size, &e) == 0);
                assert_se(e->cta.n_blocks == 1);
                assert_se(e->cta.malformed == ((d > 0 && d < 4) || d > 127 ||
                                               (e->cta.n_data_blocks > 0 &&
                                                e->cta.data_blocks[e->cta.n_data_blocks - 1].overruns)));
                if (d == 0 || d == 4)
                        assert_se(e->cta.n_data_blocks == 0);
                if (d > 127)
                        assert_se(e->cta.malformed);
        }

        {
                /* A data block whose length runs past the DTD offset. */
                _cleanup_(edid_freep) Edid *e = NULL;
                cta[4 + 1 + (cta[4] & 0x1f)] = (uint8_t) ((1 << 5) | 31); /* audio, len 31 */
                fix_checksum(cta);
                assert_se(edid_parse(buf, size, &e) == 0);
                assert_se(e->cta.malformed);
                assert_se(e->cta.n_data_blocks == 2 && e->cta.data_blocks[1].overruns);
        }
}

static void test_cta_synthetic(void) {
        /* Base block from a real file, CTA block written by hand. */
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_(edid_freep) Edid *e = NULL;
        size_t size;
        char name[128];

        buf = load("colord-tests--DELL-U2713H.bin", &size);
        uint8_t *c = buf + 128;
        memset(c, 0, 128);
        c[0] = 0x02;
        c[1] = 3;
        size_t i = 4;
        /* HDMI VSDB: tag 3, OUI 00-0C-03 LSB first, physical address. */
        const uint8_t hdmi[] = { 0x65, 0x03, 0x0c, 0x00, 0x10, 0x00 };
        /* HDMI Forum VSDB. */
        const uint8_t hf[] = { 0x64, 0xd8, 0x5d, 0xc4, 0x01 };
        /* Colorimetry: BT2020RGB + BT2020YCC, MD0. */
        const uint8_t colorimetry[] = { 0xe3, 0x05, 0xc0, 0x01 };
        /* HDR static: SDR + PQ + HLG, type 1, max 115, FALL 90, min 50. */
        const uint8_t hdr[] = { 0xe6, 0x06, 0x0d, 0x01, 115, 90, 50 };
        /* HDR10+ VSVDB and Dolby VSVDB. */
        const uint8_t hdr10p[] = { 0xe5, 0x01, 0x8b, 0x84, 0x90, 0x01 };
        const uint8_t dolby[] = { 0xe4, 0x01, 0x46, 0xd0, 0x00 };
        /* Unknown extended tag 0x7c (HDMI-related range). */
        const uint8_t unk[] = { 0xe2, 0x7c, 0x00 };
        const uint8_t *blocks[] = { hdmi, hf, colorimetry, hdr, hdr10p, dolby, unk };
        const size_t sizes[] = { sizeof hdmi, sizeof hf, sizeof colorimetry, sizeof hdr,
                                 sizeof hdr10p, sizeof dolby, sizeof unk };
        for (size_t k = 0; k < ELEMENTSOF(blocks); k++) {
                memcpy(c + i, blocks[k], sizes[k]);
                i += sizes[k];
        }
        c[2] = (uint8_t) i;
        fix_checksum(c);

        assert_se(edid_parse(buf, size, &e) == 0);
        assert_se(!e->cta.malformed);
        assert_se(e->cta.n_data_blocks == ELEMENTSOF(blocks));
        assert_se(e->cta.hdmi_vsdb && e->cta.hdmi_forum_vsdb);
        assert_se(e->cta.hdr10plus_vsvdb && e->cta.dolby_vision_vsvdb);
        assert_se(e->cta.has_colorimetry);
        assert_se(e->cta.colorimetry == (EDID_COLORIMETRY_BT2020RGB | EDID_COLORIMETRY_BT2020YCC |
                                         EDID_COLORIMETRY_MD0));
        assert_se(e->cta.has_hdr_static_metadata);
        assert_se(e->cta.eotfs == (EDID_EOTF_TRADITIONAL_SDR | EDID_EOTF_PQ | EDID_EOTF_HLG));
        /* CTA-861.3: 50 * 2^(115/32) = 603.666 cd/m², min = max * (50/255)^2 / 100. */
        assert_se(fabs(e->cta.max_luminance.cd_m2 - 603.666) < 0.001);
        assert_se(fabs(e->cta.max_frame_avg_luminance.cd_m2 - 50 * pow(2, 90 / 32.0)) < 1e-9);
        assert_se(fabs(e->cta.min_luminance.cd_m2 - 603.666 * (50 / 255.0) * (50 / 255.0) / 100) < 0.0001);

        assert_streq(edid_cta_data_block_name(&e->cta.data_blocks[0], name, sizeof name),
                     "Vendor-Specific Data Block (HDMI), OUI 00-0C-03");
        assert_streq(edid_cta_data_block_name(&e->cta.data_blocks[4], name, sizeof name),
                     "Vendor-Specific Video Data Block (HDR10+), OUI 90-84-8B");
        assert_streq(edid_cta_data_block_name(&e->cta.data_blocks[6], name, sizeof name),
                     "Unknown CTA-861 HDMI-Related Data Block (extended tag 0x7c, length 1)");

        /* HDR block cut to its mandatory bytes: no luminance. */
        edid_free(TAKE_PTR(e));
        c[2] = 4;
        memcpy(c + 4, (const uint8_t[]) { 0xe3, 0x06, 0x05, 0x01 }, 4);
        c[2] = 8;
        fix_checksum(c);
        assert_se(edid_parse(buf, size, &e) == 0);
        assert_se(e->cta.has_hdr_static_metadata && e->cta.eotfs == 0x05);
        assert_se(!e->cta.max_luminance.present && !e->cta.min_luminance.present);
}

int main(int argc, char **argv) {
        static char dir[4096];

        if (argc != 2) {
                fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
                return 2;
        }
        snprintf(dir, sizeof dir, "%s/edid", argv[1]);
        corpus_edid_dir = dir;

        test_dell_u2713h();
        test_lg_nul_in_name();
        test_hdr();
        test_truncation();
        test_bad_input();
        test_checksums_and_counts();
        test_cta_offsets();
        test_cta_synthetic();
        return 0;
}
