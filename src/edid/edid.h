/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A pure EDID parser: bytes in, a plain struct out. It decodes the base block (VESA E-EDID
 * 1.0-1.4), walks every extension block (tag and checksum), and reads the colour-related parts
 * of CTA-861 extensions (HDR static metadata, colorimetry, the vendor blocks that signal HDMI
 * 2.x / HDR10+ / Dolby Vision) and the version of DisplayID extensions.
 *
 * Deliberately not here: timings (DTDs, VICs, established/standard timings), audio, range
 * limits, any I/O, logging or policy. A block with a bad checksum is still decoded and merely
 * flagged; deciding whether to trust it is the caller's business. The parser never reads
 * outside the buffer it is given, whatever the bytes claim. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

#define EDID_BLOCK_SIZE 128u
/* The base block's extension count is one byte, so a well-formed EDID has at most 256 blocks;
 * anything longer is refused rather than decoded (bounds the work an input can cause). */
#define EDID_MAX_BLOCKS 256u
/* A display descriptor holds at most 13 characters of text (E-EDID 1.4 §3.10.3). */
#define EDID_DESCRIPTOR_TEXT_MAX 13u
/* The base block has four 18-byte descriptors (E-EDID 1.4 §3.10). */
#define EDID_BASE_DESCRIPTORS 4u

/* Extension block tags (E-EDID 1.4 §2.2.4, Table 2.1 and CTA-861 / DisplayID). */
enum {
        EDID_EXT_CTA         = 0x02,
        EDID_EXT_VTB         = 0x10,
        EDID_EXT_DI          = 0x40,
        EDID_EXT_LS          = 0x50,
        EDID_EXT_DPVL        = 0x60,
        EDID_EXT_DISPLAYID   = 0x70,
        EDID_EXT_BLOCK_MAP   = 0xf0,
        EDID_EXT_VENDOR      = 0xff,
};

/* CTA-861.3 / CTA-861-G §7.5.13, Table 85: supported EOTFs (byte 3 of the block). */
enum {
        EDID_EOTF_TRADITIONAL_SDR = 1u << 0,
        EDID_EOTF_TRADITIONAL_HDR = 1u << 1,
        EDID_EOTF_PQ              = 1u << 2, /* SMPTE ST 2084 */
        EDID_EOTF_HLG             = 1u << 3, /* ITU-R BT.2100 HLG */
};

/* CTA-861-H §7.5.5, Table 74: Colorimetry Data Block. The low byte is data byte 3, the high byte
 * data byte 4 (MD0..MD3 gamut metadata bits, ICtCp, ST 2113 RGB). */
enum {
        EDID_COLORIMETRY_XVYCC601   = 1u << 0,
        EDID_COLORIMETRY_XVYCC709   = 1u << 1,
        EDID_COLORIMETRY_SYCC601    = 1u << 2,
        EDID_COLORIMETRY_OPYCC601   = 1u << 3,
        EDID_COLORIMETRY_OPRGB      = 1u << 4,
        EDID_COLORIMETRY_BT2020CYCC = 1u << 5,
        EDID_COLORIMETRY_BT2020YCC  = 1u << 6,
        EDID_COLORIMETRY_BT2020RGB  = 1u << 7,
        EDID_COLORIMETRY_MD0        = 1u << 8,
        EDID_COLORIMETRY_MD1        = 1u << 9,
        EDID_COLORIMETRY_MD2        = 1u << 10,
        EDID_COLORIMETRY_MD3        = 1u << 11,
        EDID_COLORIMETRY_ICTCP      = 1u << 14,
        EDID_COLORIMETRY_ST2113RGB  = 1u << 15, /* P3 D65 RGB */
};

typedef struct EdidXY {
        uint16_t raw_x, raw_y;  /* 10-bit register values */
        double x, y;            /* raw / 1024 (E-EDID 1.4 §3.7) */
} EdidXY;

typedef struct EdidBlock {
        uint8_t tag;            /* byte 0; the base block reports 0x00 */
        uint8_t checksum;       /* byte 127 */
        bool checksum_valid;    /* the 128 bytes sum to 0 mod 256 */
} EdidBlock;

typedef struct EdidLuminance {
        bool present;           /* false when the block is too short to hold the byte */
        uint8_t code;           /* raw code value */
        double cd_m2;           /* converted as CTA-861.3 §4.2 defines */
} EdidLuminance;

/* One CTA data block as found in the data block collection, in order. */
typedef struct EdidCtaDataBlock {
        uint8_t tag;            /* bits 7-5 of the header byte */
        uint8_t length;         /* bits 4-0: payload length, extended tag byte included */
        bool extended;          /* tag 7: the first payload byte is an extended tag */
        uint8_t extended_tag;
        bool has_oui;           /* vendor-specific blocks (tag 3, extended 1 and 17) */
        uint32_t oui;           /* IEEE OUI as written "00-0C-03" = 0x000c03 */
        bool overruns;          /* the payload claims bytes past the DTD offset */
} EdidCtaDataBlock;

typedef struct EdidCta {
        unsigned n_blocks;              /* CTA-861 extension blocks found */
        uint8_t revision;               /* of the first CTA block */
        bool malformed;                 /* a DTD offset or data block length does not fit */

        EdidCtaDataBlock *data_blocks;  /* every CTA block's collection, in order */
        size_t n_data_blocks;

        bool has_hdr_static_metadata;
        uint8_t eotfs;                  /* EDID_EOTF_* (and reserved bits as found) */
        uint8_t static_metadata_descriptors; /* bit 0: Static Metadata Type 1 */
        EdidLuminance max_luminance, max_frame_avg_luminance, min_luminance;

        bool has_colorimetry;
        uint16_t colorimetry;           /* EDID_COLORIMETRY_* */

        bool hdmi_vsdb, hdmi_forum_vsdb, hdr10plus_vsvdb, dolby_vision_vsvdb;
} EdidCta;

typedef struct Edid {
        size_t size;                    /* bytes given (a whole number of blocks) */
        char md5[33];                   /* MD5 of the whole blob, lower-case hex */

        /* Base block. */
        uint8_t version, revision;
        char manufacturer[4];           /* PNP id, e.g. "DEL" */
        uint16_t product_code;
        uint32_t serial_number;         /* 0 when unused */
        /* Descriptor strings (E-EDID 1.4 §3.10.3): the text up to the 0x0A terminator or
         * the first byte that is not printable ASCII, trailing spaces kept, NUL-terminated; empty
         * when absent (see has_*). */
        bool has_serial_string, has_model_name;
        char serial_string[EDID_DESCRIPTOR_TEXT_MAX + 1];
        char model_name[EDID_DESCRIPTOR_TEXT_MAX + 1];
        char alphanumeric[EDID_BASE_DESCRIPTORS][EDID_DESCRIPTOR_TEXT_MAX + 1];
        unsigned n_alphanumeric;
        bool spwg;                      /* descriptors 3-4 hold SPWG notebook panel data */
        uint8_t week;                   /* 0 unknown, 0xff: model year instead */
        unsigned year;                  /* manufacture year, or model year when week == 0xff */
        bool digital;
        bool gamma_in_extension;        /* byte 23 is 0xff */
        double gamma;                   /* 0 when gamma_in_extension */
        EdidXY red, green, blue, white;
        uint8_t extension_count;        /* byte 126, as declared */

        /* All blocks found, the base block first. */
        EdidBlock *blocks;
        size_t n_blocks;

        EdidCta cta;                    /* n_blocks == 0 when there is no CTA extension */

        /* DisplayID version byte of each DisplayID extension, e.g. 0x12 for 1.2. */
        uint8_t displayid_versions[EDID_MAX_BLOCKS];
        size_t n_displayid;
} Edid;

/* Parses an EDID. Returns 0 and a newly allocated Edid, or a negative errno:
 * -ENODATA for an empty buffer, -EMSGSIZE when the size is not a whole number of 128-byte
 * blocks, -EBADMSG when the 8-byte header is wrong, -E2BIG beyond EDID_MAX_BLOCKS, -ENOMEM. */
int edid_parse(const uint8_t *buf, size_t len, Edid **ret);
Edid *edid_free(Edid *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(Edid *, edid_free);

static inline bool edid_all_checksums_valid(const Edid *e) {
        for (size_t i = 0; i < e->n_blocks; i++)
                if (!e->blocks[i].checksum_valid)
                        return false;
        return true;
}

/* Names, as edid-decode prints them (used by `tinct edid-info` and its corpus test). */
/* "Base EDID", "CTA-861 Extension Block", ... ; index is needed because the base block has
 * no tag of its own. Returns buf. */
const char *edid_block_type_name(const EdidBlock *b, size_t index, char *buf, size_t size);
/* "Video Data Block", "Vendor-Specific Data Block (HDMI), OUI 00-0C-03", ... Returns buf. */
const char *edid_cta_data_block_name(const EdidCtaDataBlock *d, char *buf, size_t size);
/* For bit i (0..7): "SMPTE ST2084", ... or NULL for a reserved bit. */
const char *edid_eotf_name(unsigned bit);
/* For bit i (0..15) of EdidCta.colorimetry: "BT2020RGB", "Reserved MD0", ... or NULL. */
const char *edid_colorimetry_name(unsigned bit);
/* Error text for edid_parse()'s return values. */
const char *edid_strerror(int r);
