/* SPDX-License-Identifier: GPL-2.0-or-later */
/* EDID base block decoder and extension walker (VESA E-EDID Standard, Release A Rev. 2, i.e.
 * EDID 1.4; fields that 1.0-1.3 define identically are read the same way).
 *
 * Every read goes through a 128-byte block the walker has already proven to be inside the
 * buffer, at a constant offset below 128, so no byte in the input can move a read out of
 * bounds. Timings, range limits and other descriptors we do not need are skipped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edid-internal.h"
#include "md5.h"

/* E-EDID 1.4 §3.3: the fixed 8-byte header pattern. */
static const uint8_t edid_header[8] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };

/* E-EDID 1.4 §3.11 (and §2.2 for extensions): all 128 bytes sum to 0 modulo 256. */
static bool block_checksum_valid(const uint8_t *block) {
        uint8_t sum = 0;
        for (size_t i = 0; i < EDID_BLOCK_SIZE; i++)
                sum += block[i];
        return sum == 0;
}

/* E-EDID 1.4 §3.4.1: bytes 8-9, big-endian, three 5-bit letters where 1 = 'A'. Values
 * outside 1..26 are not letters; like edid-decode we still map them ('@' for 0) rather
 * than refuse, so a slightly broken id stays visible. */
static void decode_pnp_id(const uint8_t *b, char ret[4]) {
        uint16_t v = (uint16_t) (b[8] << 8 | b[9]);
        ret[0] = (char) ('A' - 1 + ((v >> 10) & 0x1f));
        ret[1] = (char) ('A' - 1 + ((v >> 5) & 0x1f));
        ret[2] = (char) ('A' - 1 + (v & 0x1f));
        ret[3] = '\0';
}

/* E-EDID 1.4 §3.10.3: a display descriptor's text is bytes 5-17 of ASCII, ended by 0x0A and
 * padded with 0x20. We end the string at the terminator and also at the first byte that is
 * not printable ASCII (a NUL, or the binary junk some panels put there): the result must be
 * a clean C string for ids and metadata, and that is where the reference tool (edid-decode)
 * stops too. Trailing spaces are kept; callers that want them gone trim. */
static void decode_descriptor_text(const uint8_t *d, char ret[EDID_DESCRIPTOR_TEXT_MAX + 1]) {
        size_t n = 0;
        for (; n < EDID_DESCRIPTOR_TEXT_MAX; n++) {
                uint8_t c = d[5 + n];
                if (c < 0x20 || c > 0x7e)
                        break;
                ret[n] = (char) c;
        }
        ret[n] = '\0';
}

static bool descriptor_is_display(const uint8_t *d, uint8_t tag) {
        /* E-EDID §3.10.3: a display descriptor has a zero pixel clock (bytes 0-1); byte 3 is its tag. */
        return d[0] == 0 && d[1] == 0 && d[3] == tag;
}

static bool descriptor_is_timing(const uint8_t *d) {
        return d[0] != 0 || d[1] != 0;
}

/* E-EDID 1.4 §3.7, Table 3.12: 10-bit chromaticity values, the two low bits of each packed
 * into bytes 25 (red/green) and 26 (blue/white), the eight high bits in bytes 27-34. */
static void decode_xy(const uint8_t *b, unsigned hi_x, unsigned low_byte, unsigned shift, EdidXY *ret) {
        ret->raw_x = (uint16_t) (b[hi_x] << 2 | ((b[low_byte] >> (shift + 2)) & 0x3));
        ret->raw_y = (uint16_t) (b[hi_x + 1] << 2 | ((b[low_byte] >> shift) & 0x3));
        ret->x = ret->raw_x / 1024.0;
        ret->y = ret->raw_y / 1024.0;
}

static void decode_base_block(Edid *e, const uint8_t *b) {
        decode_pnp_id(b, e->manufacturer);

        /* E-EDID §3.4.2: ID product code, bytes 10-11, little-endian. */
        e->product_code = (uint16_t) (b[10] | b[11] << 8);
        /* E-EDID §3.4.3: ID serial number, bytes 12-15, little-endian; 0 means unused. */
        e->serial_number = (uint32_t) b[12] | (uint32_t) b[13] << 8 |
                           (uint32_t) b[14] << 16 | (uint32_t) b[15] << 24;
        /* E-EDID §3.4.4: byte 16 week (0 unknown, 0xFF model year flag in 1.4), byte 17 year - 1990. */
        e->week = b[16];
        e->year = 1990u + b[17];

        /* E-EDID §3.5: version (byte 18) and revision (byte 19). */
        e->version = b[18];
        e->revision = b[19];

        /* E-EDID §3.6.1: video input definition, bit 7 set for a digital input. */
        e->digital = b[20] & 0x80;

        /* E-EDID §3.6.3: display transfer characteristic, byte 23 = gamma * 100 - 100; 0xFF means it
         * is defined in an extension block (DI-EXT). */
        if (b[23] == 0xff)
                e->gamma_in_extension = true;
        else
                e->gamma = (b[23] + 100) / 100.0;

        /* E-EDID §3.7: colour characteristics, bytes 25-34. */
        decode_xy(b, 27, 25, 4, &e->red);
        decode_xy(b, 29, 25, 0, &e->green);
        decode_xy(b, 31, 26, 4, &e->blue);
        decode_xy(b, 33, 26, 0, &e->white);

        /* SPWG Notebook Panel Specification: two detailed timings, then two 0xFE descriptors
         * carrying SPWG data (PC maker part number, supplier EDID revision, manufacturer part
         * number; SMBus values, LVDS channel count, self-test flag, then 0x0A at byte 15 of the
         * last descriptor). Such data only looks like alphanumeric strings and contains binary
         * fields, so it is not reported as strings. The 0x0A position tells it from a panel
         * that really has two plain strings there. */
        e->spwg = descriptor_is_timing(b + 54) && descriptor_is_timing(b + 72) &&
                  descriptor_is_display(b + 90, 0xfe) && descriptor_is_display(b + 108, 0xfe) &&
                  b[108 + 15] == 0x0a;

        /* E-EDID §3.10: four 18-byte descriptors at 54, 72, 90, 108. Only the first serial and
         * product name are kept (a second one would be a conformity error anyway). */
        for (unsigned i = 0; i < EDID_BASE_DESCRIPTORS; i++) {
                const uint8_t *d = b + 54 + 18 * i;

                if (descriptor_is_timing(d))
                        continue;

                switch (d[3]) {
                case 0xff: /* E-EDID §3.10.3.1: display product serial number */
                        if (!e->has_serial_string) {
                                decode_descriptor_text(d, e->serial_string);
                                e->has_serial_string = true;
                        }
                        break;
                case 0xfe: /* E-EDID §3.10.3.2: alphanumeric data string */
                        if (!e->spwg)
                                decode_descriptor_text(d, e->alphanumeric[e->n_alphanumeric++]);
                        break;
                case 0xfc: /* E-EDID §3.10.3.4: display product name */
                        if (!e->has_model_name) {
                                decode_descriptor_text(d, e->model_name);
                                e->has_model_name = true;
                        }
                        break;
                default:
                        break;
                }
        }

        /* E-EDID §3.9: byte 126, number of extension blocks that follow. */
        e->extension_count = b[126];
}

int edid_parse(const uint8_t *buf, size_t len, Edid **ret) {
        _cleanup_(edid_freep) Edid *e = NULL;
        size_t n_blocks;
        int r;

        if (!buf || len == 0)
                return -ENODATA;
        if (len % EDID_BLOCK_SIZE != 0)
                return -EMSGSIZE;
        n_blocks = len / EDID_BLOCK_SIZE;
        if (n_blocks > EDID_MAX_BLOCKS)
                return -E2BIG;
        if (memcmp(buf, edid_header, sizeof edid_header) != 0)
                return -EBADMSG;

        e = calloc(1, sizeof *e);
        if (!e)
                return -ENOMEM;
        e->blocks = calloc(n_blocks, sizeof *e->blocks);
        if (!e->blocks)
                return -ENOMEM;

        e->size = len;
        md5_hex(buf, len, e->md5);
        decode_base_block(e, buf);

        /* Every block present is walked, not just the declared count: real dumps may hold
         * fewer blocks than declared (truncated reads) or more (duplicated uploads), and a
         * caller comparing the two needs both numbers. */
        for (size_t i = 0; i < n_blocks; i++) {
                const uint8_t *block = buf + i * EDID_BLOCK_SIZE;
                EdidBlock *eb = &e->blocks[i];

                eb->tag = i == 0 ? 0 : block[0];
                eb->checksum = block[127];
                eb->checksum_valid = block_checksum_valid(block);
                e->n_blocks++;

                if (i == 0)
                        continue;

                switch (block[0]) {
                case EDID_EXT_CTA:
                        r = edid_cta_parse_block(e, block);
                        if (r < 0)
                                return r;
                        break;
                case EDID_EXT_DISPLAYID:
                        /* DisplayID 1.3 §2.1 / DisplayID 2.0 §3.1: in an EDID extension, byte 1
                         * is the section's version and revision (0x12 = 1.2, 0x20 = 2.0). */
                        e->displayid_versions[e->n_displayid++] = block[1];
                        break;
                default:
                        break;
                }
        }

        *ret = TAKE_PTR(e);
        return 0;
}

Edid *edid_free(Edid *e) {
        if (!e)
                return NULL;
        free(e->cta.data_blocks);
        free(e->blocks);
        free(e);
        return NULL;
}

const char *edid_strerror(int r) {
        switch (r) {
        case -ENODATA:
                return "EDID is empty";
        case -EMSGSIZE:
                return "EDID size is not a multiple of 128 bytes";
        case -EBADMSG:
                return "no EDID header found";
        case -E2BIG:
                return "EDID is longer than 256 blocks";
        case -ENOMEM:
                return "out of memory";
        default:
                return "invalid EDID";
        }
}
