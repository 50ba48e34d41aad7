/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CTA-861 extension block decoder (CTA-861-H, with CTA-861.3 for HDR static metadata): the
 * data block collection's shape, and the colour facts a colour manager needs: HDR static
 * metadata, colorimetry, and the vendor blocks that announce HDMI, HDMI Forum, HDR10+ and
 * Dolby Vision support.
 *
 * Not decoded: video/audio/speaker blocks, DTDs, the HDMI blocks' contents. All reads stay
 * inside the 128-byte block and inside the data block collection (bytes 4 .. d-1); a data
 * block whose length runs past d is recorded, flagged, and read only up to d. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "edid-internal.h"

/* CTA-861-H Table 54: data block tag codes (header bits 7-5). */
enum {
        CTA_TAG_VENDOR   = 3,
        CTA_TAG_EXTENDED = 7,
};

/* CTA-861-H Table 55: extended tag codes. */
enum {
        CTA_EXT_VENDOR_VIDEO   = 1,
        CTA_EXT_COLORIMETRY    = 5,
        CTA_EXT_HDR_STATIC     = 6,
        CTA_EXT_VENDOR_AUDIO   = 17,
};

/* IEEE OUIs of the vendor blocks we look for (HDMI 1.4b §8.3.2, HDMI 2.1 §10.3.2, HDR10+
 * System Spec §3.3 and Dolby Vision's VSVDB). */
#define OUI_HDMI          0x000c03u
#define OUI_HDMI_FORUM    0xc45dd8u
#define OUI_HDR10PLUS     0x90848bu
#define OUI_DOLBY         0x00d046u

/* CTA-861.3 §4.2: max and max frame-average luminance are 50 * 2^(CV/32) cd/m². */
static double cta_max_luminance(uint8_t cv) {
        return 50.0 * pow(2.0, cv / 32.0);
}

/* CTA-861.3 §4.2: min luminance is max * (CV/255)^2 / 100, where max is the block's
 * desired content max luminance. */
static double cta_min_luminance(double max_cd_m2, uint8_t cv) {
        double r = cv / 255.0;
        return max_cd_m2 * r * r / 100.0;
}

/* CTA-861.3 §4.2 / CTA-861-H §7.5.13: HDR Static Metadata Data Block. p[0] is the extended
 * tag; p[1] EOTFs, p[2] static metadata descriptors are mandatory; p[3..5] (max, max
 * frame-average, min luminance) are optional and present as far as the length allows. */
static void parse_hdr_static(EdidCta *c, const uint8_t *p, size_t n) {
        c->has_hdr_static_metadata = true;
        c->eotfs = n > 1 ? p[1] : 0;
        c->static_metadata_descriptors = n > 2 ? p[2] : 0;
        c->max_luminance = (EdidLuminance) {};
        c->max_frame_avg_luminance = (EdidLuminance) {};
        c->min_luminance = (EdidLuminance) {};
        if (n > 3)
                c->max_luminance = (EdidLuminance) { true, p[3], cta_max_luminance(p[3]) };
        if (n > 4)
                c->max_frame_avg_luminance = (EdidLuminance) { true, p[4], cta_max_luminance(p[4]) };
        if (n > 5)
                /* n > 5 implies the max luminance byte is there too. */
                c->min_luminance = (EdidLuminance) { true, p[5],
                        cta_min_luminance(c->max_luminance.cd_m2, p[5]) };
}

/* CTA-861-H §7.5.5: Colorimetry Data Block. p[0] extended tag, p[1] and p[2] the flags. */
static void parse_colorimetry(EdidCta *c, const uint8_t *p, size_t n) {
        c->has_colorimetry = true;
        c->colorimetry = (uint16_t) ((n > 1 ? p[1] : 0) | (n > 2 ? p[2] : 0) << 8);
}

/* Vendor-specific blocks carry a 24-bit IEEE OUI, least significant byte first (CTA-861-H
 * §7.5.4 for VSDB, §7.5.7 for VSVDB, §7.5.8 for VSADB). */
static bool read_oui(const uint8_t *p, size_t n, uint32_t *ret) {
        if (n < 3)
                return false;
        *ret = (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16;
        return true;
}

static int append_data_block(EdidCta *c, const EdidCtaDataBlock *d) {
        /* At most 31 blocks fit in one CTA block (each takes >= 1 of bytes 4..126) and at
         * most 255 CTA blocks exist, so this stays small; grow geometrically anyway. */
        if ((c->n_data_blocks & (c->n_data_blocks - 1)) == 0) {
                size_t want = c->n_data_blocks ? c->n_data_blocks * 2 : 8;
                EdidCtaDataBlock *t = reallocarray(c->data_blocks, want, sizeof *t);
                if (!t)
                        return -ENOMEM;
                c->data_blocks = t;
        }
        c->data_blocks[c->n_data_blocks++] = *d;
        return 0;
}

int edid_cta_parse_block(Edid *e, const uint8_t *block) {
        EdidCta *c = &e->cta;
        size_t end;
        int r;

        /* CTA-861-H §7.1, Table 52: byte 1 revision, byte 2 offset d of the first DTD (0: no
         * DTDs and no data blocks), byte 3 flags, data blocks in bytes 4 .. d-1. */
        if (c->n_blocks++ == 0)
                c->revision = block[1];

        /* Data blocks were introduced with revision 3 (CEA-861-B); earlier revisions keep
         * bytes 4 .. d-1 reserved. */
        if (block[1] < 3)
                return 0;

        end = block[2];
        if (end == 0)
                return 0;
        if (end < 4) {
                c->malformed = true;
                return 0;
        }
        if (end > EDID_BLOCK_SIZE - 1) {
                /* d points past the last byte before the checksum: decode what can be
                 * there, but never read beyond the block. */
                c->malformed = true;
                end = EDID_BLOCK_SIZE - 1;
        }

        for (size_t i = 4; i < end; ) {
                EdidCtaDataBlock d = {
                        .tag = block[i] >> 5,
                        .length = block[i] & 0x1f,
                };
                const uint8_t *p = block + i + 1;
                size_t avail = end - (i + 1);   /* payload bytes inside the collection */
                size_t n = d.length;

                if (n > avail) {
                        d.overruns = true;
                        c->malformed = true;
                        n = avail;
                }

                if (d.tag == CTA_TAG_VENDOR) {
                        d.has_oui = read_oui(p, n, &d.oui);
                        if (d.has_oui && d.oui == OUI_HDMI)
                                c->hdmi_vsdb = true;
                        else if (d.has_oui && d.oui == OUI_HDMI_FORUM)
                                c->hdmi_forum_vsdb = true;
                } else if (d.tag == CTA_TAG_EXTENDED && n >= 1) {
                        d.extended = true;
                        d.extended_tag = p[0];
                        switch (d.extended_tag) {
                        case CTA_EXT_VENDOR_VIDEO:
                                d.has_oui = read_oui(p + 1, n - 1, &d.oui);
                                if (d.has_oui && d.oui == OUI_HDR10PLUS)
                                        c->hdr10plus_vsvdb = true;
                                else if (d.has_oui && d.oui == OUI_DOLBY)
                                        c->dolby_vision_vsvdb = true;
                                break;
                        case CTA_EXT_VENDOR_AUDIO:
                                d.has_oui = read_oui(p + 1, n - 1, &d.oui);
                                break;
                        case CTA_EXT_COLORIMETRY:
                                parse_colorimetry(c, p, n);
                                break;
                        case CTA_EXT_HDR_STATIC:
                                parse_hdr_static(c, p, n);
                                break;
                        default:
                                break;
                        }
                } else if (d.tag == CTA_TAG_EXTENDED) {
                        d.extended = false; /* no room even for the extended tag */
                }

                r = append_data_block(c, &d);
                if (r < 0)
                        return r;

                if (d.overruns)
                        break;
                i += 1 + (size_t) d.length;
        }

        return 0;
}
