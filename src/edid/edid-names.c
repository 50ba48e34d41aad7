/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Human-readable names for EDID blocks and CTA-861 fields, spelled as edid-decode spells them,
 * so `tinct edid-info` output can be compared with the reference corpus. Pure lookups: the
 * parser's struct stays numeric and these are only presentation. */
#include <stdio.h>

#include "edid.h"

const char *edid_block_type_name(const EdidBlock *b, size_t index, char *buf, size_t size) {
        const char *n;

        if (index == 0) {
                snprintf(buf, size, "Base EDID");
                return buf;
        }

        /* E-EDID 1.4 §2.2.4, Table 2.1: extension block tag numbers. */
        switch (b->tag) {
        case EDID_EXT_CTA:       n = "CTA-861 Extension Block"; break;
        case EDID_EXT_VTB:       n = "Video Timing Extension Block"; break;
        case EDID_EXT_DI:        n = "Display Information Extension Block"; break;
        case EDID_EXT_LS:        n = "Localized String Extension Block"; break;
        case EDID_EXT_DPVL:      n = "Digital Packet Video Link Extension"; break;
        case EDID_EXT_DISPLAYID: n = "DisplayID Extension Block"; break;
        case EDID_EXT_BLOCK_MAP: n = "Block Map Extension Block"; break;
        case EDID_EXT_VENDOR:    n = "Manufacturer-Specific Extension Block"; break;
        default:
                snprintf(buf, size, "Unknown EDID Extension Block 0x%02x", b->tag);
                return buf;
        }
        snprintf(buf, size, "%s", n);
        return buf;
}

static const char *oui_vendor(uint32_t oui) {
        switch (oui) {
        case 0x000c03: return "HDMI";
        case 0xc45dd8: return "HDMI Forum";
        case 0x00001a: return "AMD";
        case 0x00044b: return "NVIDIA";
        case 0x0014b9: return "MSTAR";
        case 0x00d046: return "Dolby";
        case 0x90848b: return "HDR10+";
        default:       return NULL;
        }
}

static const char *vendor_block_name(const char *kind, const EdidCtaDataBlock *d, char *buf, size_t size) {
        const char *v;

        if (!d->has_oui) {
                snprintf(buf, size, "%s", kind);
                return buf;
        }
        v = oui_vendor(d->oui);
        if (v)
                snprintf(buf, size, "%s (%s), OUI %02X-%02X-%02X", kind, v,
                         (d->oui >> 16) & 0xff, (d->oui >> 8) & 0xff, d->oui & 0xff);
        else
                snprintf(buf, size, "%s, OUI %02X-%02X-%02X", kind,
                         (d->oui >> 16) & 0xff, (d->oui >> 8) & 0xff, d->oui & 0xff);
        return buf;
}

/* CTA-861-H Table 55: extended tag codes. */
static const char *extended_tag_name(uint8_t t) {
        switch (t) {
        case 0:   return "Video Capability Data Block";
        case 2:   return "VESA Video Display Device Data Block";
        case 3:   return "VESA Video Timing Block Extension";
        case 5:   return "Colorimetry Data Block";
        case 6:   return "HDR Static Metadata Data Block";
        case 7:   return "HDR Dynamic Metadata Data Block";
        case 13:  return "Video Format Preference Data Block";
        case 14:  return "YCbCr 4:2:0 Video Data Block";
        case 15:  return "YCbCr 4:2:0 Capability Map Data Block";
        case 18:  return "HDMI Audio Data Block";
        case 19:  return "Room Configuration Data Block";
        case 20:  return "Speaker Location Data Block";
        case 32:  return "InfoFrame Data Block";
        case 34:  return "DisplayID Type VII Video Timing Data Block";
        case 35:  return "DisplayID Type VIII Video Timing Data Block";
        case 42:  return "DisplayID Type X Video Timing Data Block";
        case 120: return "HDMI Forum EDID Extension Override Data Block";
        case 121: return "HDMI Forum Sink Capability Data Block";
        default:  return NULL;
        }
}

const char *edid_cta_data_block_name(const EdidCtaDataBlock *d, char *buf, size_t size) {
        const char *n;

        /* CTA-861-H Table 54: data block tag codes. */
        switch (d->tag) {
        case 1: snprintf(buf, size, "Audio Data Block"); return buf;
        case 2: snprintf(buf, size, "Video Data Block"); return buf;
        case 3: return vendor_block_name("Vendor-Specific Data Block", d, buf, size);
        case 4: snprintf(buf, size, "Speaker Allocation Data Block"); return buf;
        case 5: snprintf(buf, size, "VESA Display Transfer Characteristics Data Block"); return buf;
        case 7:
                if (!d->extended)
                        break;
                if (d->extended_tag == 1)
                        return vendor_block_name("Vendor-Specific Video Data Block", d, buf, size);
                if (d->extended_tag == 17)
                        return vendor_block_name("Vendor-Specific Audio Data Block", d, buf, size);
                n = extended_tag_name(d->extended_tag);
                if (n) {
                        snprintf(buf, size, "%s", n);
                        return buf;
                }
                /* The length edid-decode shows for an extended block excludes the tag byte. */
                snprintf(buf, size, "Unknown CTA-861 %sData Block (extended tag 0x%02x, length %u)",
                         d->extended_tag >= 0x70 && d->extended_tag <= 0x7f ? "HDMI-Related " : "",
                         d->extended_tag, d->length - 1u);
                return buf;
        default:
                break;
        }
        snprintf(buf, size, "Unknown CTA-861 Data Block (tag 0x%02x, length %u)", d->tag, d->length);
        return buf;
}

const char *edid_eotf_name(unsigned bit) {
        /* CTA-861.3 §4.2, Table 4 (CTA-861-H Table 85). */
        static const char *const names[] = {
                "Traditional gamma - SDR luminance range",
                "Traditional gamma - HDR luminance range",
                "SMPTE ST2084",
                "Hybrid Log-Gamma",
        };
        return bit < ELEMENTSOF(names) ? names[bit] : NULL;
}

const char *edid_colorimetry_name(unsigned bit) {
        /* CTA-861-H §7.5.5, Table 74; MD0-MD3 are the gamut metadata profile bits, which
         * edid-decode prints as "Reserved MDn". */
        static const char *const names[16] = {
                "xvYCC601", "xvYCC709", "sYCC601", "opYCC601",
                "opRGB", "BT2020cYCC", "BT2020YCC", "BT2020RGB",
                "Reserved MD0", "Reserved MD1", "Reserved MD2", "Reserved MD3",
                NULL, NULL, "ICtCp", "ST2113RGB",
        };
        return bit < ELEMENTSOF(names) ? names[bit] : NULL;
}
