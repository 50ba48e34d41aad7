/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `tinct edid-info [--json] FILE` and `tinct edid-profile FILE -o OUT`: the offline EDID
 * verbs. edid-info prints what src/edid parses; its --json form uses the key names and value
 * conventions of the corpus references (schema edid-ref/1, shared/corpus/README.md), so the
 * corpus test can diff the two. edid-profile turns an EDID into an ICC display profile.
 *
 * Not here: any parsing (src/edid), profile building (src/icc), the EDID → profile mapping
 * (src/edid-icc/edid-icc.h, shared with the daemon), or conformity checking. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edid.h"
#include "fileio.h"
#include "icc-create.h"
#include "edid-icc.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "verbs.h"

/* An EDID is at most 256 blocks of 128 bytes. */
#define EDID_FILE_MAX (EDID_MAX_BLOCKS * EDID_BLOCK_SIZE)

static int load_edid(const char *path, Edid **ret) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0;
        int r;

        r = read_file_capped(path, EDID_FILE_MAX, 0, &buf, &size, NULL);
        if (r == -EFBIG) {
                log_error("%s: EDID is longer than %u bytes", path, EDID_FILE_MAX);
                return r;
        }
        if (r < 0) {
                log_error("%s: cannot read: %s", path, strerror(-r));
                return r;
        }
        r = edid_parse(buf, size, ret);
        if (r < 0) {
                log_error("%s: %s", path, edid_strerror(r));
                return r;
        }
        return 0;
}

/* --- JSON output ----------------------------------------------------------------------- */

/* Strings from an EDID are arbitrary bytes: the lossy writers turn what is not UTF-8 into
 * U+FFFD, so the output is always valid JSON. */
static void key_uint(JsonWriter *w, const char *key, uint64_t v) {
        json_write_key(w, key);
        json_write_int64(w, (int64_t) v);
}

static void key_bool(JsonWriter *w, const char *key, bool v) {
        json_write_key(w, key);
        json_write_bool(w, v);
}

static void key_hex_byte(JsonWriter *w, const char *key, uint8_t v) {
        char buf[8];
        snprintf(buf, sizeof buf, "0x%02x", v);
        json_write_member_text(w, key, buf);
}

/* edid-decode prints chromaticities with 4 decimals, truncated; the reference keeps that
 * form, so we print the same (raw10 carries the exact value). */
static void write_xy_truncated(JsonWriter *w, const EdidXY *xy) {
        /* Integer arithmetic, so no rounding can sneak in: raw < 1024 gives 0.0000-0.9990. */
        char buf[16];
        json_write_begin_array(w);
        snprintf(buf, sizeof buf, "0.%04u", xy->raw_x * 10000u / 1024u);
        json_write_literal(w, buf);
        snprintf(buf, sizeof buf, "0.%04u", xy->raw_y * 10000u / 1024u);
        json_write_literal(w, buf);
        json_write_end_array(w);
}

static void key_luminance(JsonWriter *w, const char *key, const EdidLuminance *l) {
        json_write_key(w, key);
        if (!l->present) {
                json_write_null(w);
                return;
        }
        json_write_begin_object(w);
        key_uint(w, "code", l->code);
        json_write_key(w, "cd_m2");
        json_write_fixed(w, l->cd_m2, 3);
        json_write_end_object(w);
}

static void write_hdr_static_metadata(JsonWriter *w, const EdidCta *c) {
        char buf[128];

        json_write_begin_object(w);
        json_write_key(w, "eotfs");
        json_write_begin_array(w);
        for (unsigned i = 0; i < 8; i++) {
                if (!(c->eotfs & (1u << i)))
                        continue;
                const char *n = edid_eotf_name(i);
                if (!n) {
                        snprintf(buf, sizeof buf, "Unknown (%u)", i);
                        n = buf;
                }
                json_write_string_lossy(w, n);
        }
        json_write_end_array(w);
        json_write_key(w, "eotf_flags");
        json_write_begin_object(w);
        key_bool(w, "traditional_sdr", c->eotfs & EDID_EOTF_TRADITIONAL_SDR);
        key_bool(w, "traditional_hdr", c->eotfs & EDID_EOTF_TRADITIONAL_HDR);
        key_bool(w, "pq", c->eotfs & EDID_EOTF_PQ);
        key_bool(w, "hlg", c->eotfs & EDID_EOTF_HLG);
        json_write_end_object(w);
        json_write_key(w, "static_metadata_descriptors");
        json_write_begin_array(w);
        for (unsigned i = 0; i < 8; i++)
                if (c->static_metadata_descriptors & (1u << i)) {
                        /* CTA-861.3 Table 5: bit n is Static Metadata Type n+1. */
                        snprintf(buf, sizeof buf, "Static metadata type %u", i + 1);
                        json_write_string_lossy(w, buf);
                }
        json_write_end_array(w);
        key_luminance(w, "max_luminance", &c->max_luminance);
        key_luminance(w, "max_frame_avg_luminance", &c->max_frame_avg_luminance);
        key_luminance(w, "min_luminance", &c->min_luminance);
        json_write_end_object(w);
}

static void write_colorimetry(JsonWriter *w, const EdidCta *c) {
        static const struct { const char *name; uint16_t bit; } flags[] = {
                { "xvYCC601", EDID_COLORIMETRY_XVYCC601 },
                { "xvYCC709", EDID_COLORIMETRY_XVYCC709 },
                { "sYCC601", EDID_COLORIMETRY_SYCC601 },
                { "opYCC601", EDID_COLORIMETRY_OPYCC601 },
                { "opRGB", EDID_COLORIMETRY_OPRGB },
                { "BT2020cYCC", EDID_COLORIMETRY_BT2020CYCC },
                { "BT2020YCC", EDID_COLORIMETRY_BT2020YCC },
                { "BT2020RGB", EDID_COLORIMETRY_BT2020RGB },
                /* CTA-861-H has no separate DCI-P3 bit any more (its former place is
                 * ST 2113 RGB); the key is kept for the schema and is always false. */
                { "DCI-P3", 0 },
                { "ICtCp", EDID_COLORIMETRY_ICTCP },
                { "ST2113RGB", EDID_COLORIMETRY_ST2113RGB },
        };
        char buf[128];

        json_write_key(w, "colorimetry");
        if (c->has_colorimetry) {
                json_write_begin_array(w);
                for (unsigned i = 0; i < 16; i++) {
                        if (!(c->colorimetry & (1u << i)))
                                continue;
                        const char *n = edid_colorimetry_name(i);
                        if (!n) {
                                snprintf(buf, sizeof buf, "Unknown (bit %u)", i);
                                n = buf;
                        }
                        json_write_string_lossy(w, n);
                }
                json_write_end_array(w);
        } else
                json_write_null(w);
        json_write_key(w, "colorimetry_flags");
        if (c->has_colorimetry) {
                json_write_begin_object(w);
                for (size_t i = 0; i < ELEMENTSOF(flags); i++)
                        key_bool(w, flags[i].name, c->colorimetry & flags[i].bit);
                json_write_end_object(w);
        } else
                json_write_null(w);
}

static void write_cta(JsonWriter *w, const Edid *e) {
        const EdidCta *c = &e->cta;
        char buf[128];

        json_write_begin_object(w);
        key_uint(w, "blocks", c->n_blocks);
        key_uint(w, "revision", c->revision);
        key_bool(w, "malformed", c->malformed);
        json_write_key(w, "hdr_static_metadata");
        if (c->has_hdr_static_metadata)
                write_hdr_static_metadata(w, c);
        else
                json_write_null(w);
        write_colorimetry(w, c);
        key_bool(w, "hdmi_vsdb", c->hdmi_vsdb);
        key_bool(w, "hdmi_forum_vsdb", c->hdmi_forum_vsdb);
        key_bool(w, "hdr10plus_vsvdb", c->hdr10plus_vsvdb);
        key_bool(w, "dolby_vision_vsvdb", c->dolby_vision_vsvdb);
        json_write_key(w, "data_blocks");
        json_write_begin_array(w);
        for (size_t i = 0; i < c->n_data_blocks; i++)
                json_write_string_lossy(w, edid_cta_data_block_name(&c->data_blocks[i], buf, sizeof buf));
        json_write_end_array(w);
        json_write_end_object(w);
}

static int print_json(FILE *f, const Edid *e) {
        char buf[128];
        JsonWriter w;

        json_writer_init(&w, f);
        json_write_begin_object(&w);
        json_write_member_text(&w, "schema", "edid-ref/1");
        json_write_member_text(&w, "tool", "tinct edid-info --json");
        json_write_member_text(&w, "fatal_error", NULL);
        json_write_member_text(&w, "md5", e->md5);
        snprintf(buf, sizeof buf, "%u.%u", e->version, e->revision);
        json_write_member_text(&w, "edid_version", buf);
        json_write_member_text(&w, "manufacturer", e->manufacturer);
        key_uint(&w, "product_code", e->product_code);
        key_uint(&w, "serial_number", e->serial_number);
        json_write_member_text(&w, "serial_string", e->has_serial_string ? e->serial_string : NULL);
        json_write_member_text(&w, "model_name", e->has_model_name ? e->model_name : NULL);
        json_write_key(&w, "alphanumeric_strings");
        json_write_begin_array(&w);
        for (unsigned i = 0; i < e->n_alphanumeric; i++)
                json_write_string_lossy(&w, e->alphanumeric[i]);
        json_write_end_array(&w);

        /* E-EDID 1.4 §3.4.4: week 0 = only the year is given; 0xFF = model year. */
        json_write_key(&w, "week");
        if (e->week == 0 || e->week == 0xff)
                json_write_null(&w);
        else
                json_write_int64(&w, e->week);
        json_write_key(&w, "year");
        if (e->week == 0xff)
                json_write_null(&w);
        else
                json_write_int64(&w, e->year);
        json_write_key(&w, "model_year");
        if (e->week == 0xff)
                json_write_int64(&w, e->year);
        else
                json_write_null(&w);

        json_write_member_text(&w, "display_type", e->digital ? "digital" : "analog");
        json_write_key(&w, "gamma");
        if (e->gamma_in_extension)
                json_write_null(&w);
        else
                json_write_fixed(&w, e->gamma, 2);
        key_bool(&w, "gamma_in_extension", e->gamma_in_extension);

        const struct { const char *name; const EdidXY *xy; } prim[] = {
                { "red", &e->red }, { "green", &e->green }, { "blue", &e->blue }, { "white", &e->white },
        };
        json_write_key(&w, "chromaticity");
        json_write_begin_object(&w);
        for (size_t i = 0; i < ELEMENTSOF(prim); i++) {
                json_write_key(&w, prim[i].name);
                write_xy_truncated(&w, prim[i].xy);
        }
        json_write_end_object(&w);
        json_write_key(&w, "chromaticity_raw10");
        json_write_begin_object(&w);
        for (size_t i = 0; i < ELEMENTSOF(prim); i++) {
                json_write_key(&w, prim[i].name);
                json_write_begin_array(&w);
                json_write_int64(&w, prim[i].xy->raw_x);
                json_write_int64(&w, prim[i].xy->raw_y);
                json_write_end_array(&w);
        }
        json_write_end_object(&w);

        key_hex_byte(&w, "checksum", e->blocks[0].checksum);
        key_bool(&w, "checksum_valid", e->blocks[0].checksum_valid);
        key_uint(&w, "extension_blocks_declared", e->extension_count);
        key_uint(&w, "extension_blocks_found", e->n_blocks - 1);
        json_write_key(&w, "blocks");
        json_write_begin_array(&w);
        for (size_t i = 0; i < e->n_blocks; i++) {
                json_write_begin_object(&w);
                key_uint(&w, "index", i);
                json_write_member_text(&w, "type", edid_block_type_name(&e->blocks[i], i, buf, sizeof buf));
                key_hex_byte(&w, "checksum", e->blocks[i].checksum);
                key_bool(&w, "checksum_valid", e->blocks[i].checksum_valid);
                json_write_end_object(&w);
        }
        json_write_end_array(&w);
        key_bool(&w, "all_checksums_valid", edid_all_checksums_valid(e));

        json_write_key(&w, "cta");
        if (e->cta.n_blocks == 0)
                json_write_null(&w);
        else
                write_cta(&w, e);

        json_write_key(&w, "displayid_versions");
        json_write_begin_array(&w);
        for (size_t i = 0; i < e->n_displayid; i++) {
                snprintf(buf, sizeof buf, "%u.%u", e->displayid_versions[i] >> 4, e->displayid_versions[i] & 0xf);
                json_write_string_lossy(&w, buf);
        }
        json_write_end_array(&w);
        json_write_end_object(&w);
        return json_writer_finish(&w);
}

/* --- text output ----------------------------------------------------------------------- */

static void print_text(FILE *f, const Edid *e) {
        char buf[128];

        fprintf(f, "EDID version:      %u.%u (%zu bytes, md5 %s)\n", e->version, e->revision, e->size, e->md5);
        fprintf(f, "Manufacturer:      %s\n", e->manufacturer);
        fprintf(f, "Product code:      %u (0x%04x)\n", e->product_code, e->product_code);
        if (e->serial_number)
                fprintf(f, "Serial number:     %u\n", e->serial_number);
        if (e->has_serial_string)
                fprintf(f, "Serial string:     '%s'\n", e->serial_string);
        if (e->has_model_name)
                fprintf(f, "Product name:      '%s'\n", e->model_name);
        for (unsigned i = 0; i < e->n_alphanumeric; i++)
                fprintf(f, "Alphanumeric:      '%s'\n", e->alphanumeric[i]);
        if (e->week == 0xff)
                fprintf(f, "Model year:        %u\n", e->year);
        else if (e->week)
                fprintf(f, "Made in:           week %u of %u\n", e->week, e->year);
        else
                fprintf(f, "Made in:           %u\n", e->year);
        fprintf(f, "Display type:      %s\n", e->digital ? "digital" : "analog");
        if (e->gamma_in_extension)
                fprintf(f, "Gamma:             defined in an extension block\n");
        else
                fprintf(f, "Gamma:             %.2f\n", e->gamma);
        fprintf(f, "Chromaticity:      red   %.4f, %.4f\n", e->red.x, e->red.y);
        fprintf(f, "                   green %.4f, %.4f\n", e->green.x, e->green.y);
        fprintf(f, "                   blue  %.4f, %.4f\n", e->blue.x, e->blue.y);
        fprintf(f, "                   white %.4f, %.4f\n", e->white.x, e->white.y);
        fprintf(f, "Extension blocks:  %u declared, %zu found\n", e->extension_count, e->n_blocks - 1);
        for (size_t i = 0; i < e->n_blocks; i++)
                fprintf(f, "Block %zu:           %s, checksum 0x%02x%s\n", i,
                        edid_block_type_name(&e->blocks[i], i, buf, sizeof buf),
                        e->blocks[i].checksum, e->blocks[i].checksum_valid ? "" : " (invalid)");
        for (size_t i = 0; i < e->n_displayid; i++)
                fprintf(f, "DisplayID version: %u.%u\n", e->displayid_versions[i] >> 4,
                        e->displayid_versions[i] & 0xf);

        if (e->cta.n_blocks == 0)
                return;

        const EdidCta *c = &e->cta;
        fprintf(f, "CTA-861:           revision %u, %u block(s)%s\n", c->revision, c->n_blocks,
                c->malformed ? ", malformed" : "");
        for (size_t i = 0; i < c->n_data_blocks; i++)
                fprintf(f, "  %s%s\n", edid_cta_data_block_name(&c->data_blocks[i], buf, sizeof buf),
                        c->data_blocks[i].overruns ? " (runs past the DTD offset)" : "");
        if (c->has_hdr_static_metadata) {
                fprintf(f, "  HDR EOTFs:");
                for (unsigned i = 0; i < 8; i++)
                        if (c->eotfs & (1u << i))
                                fprintf(f, " [%s]", edid_eotf_name(i) ?: "Unknown");
                fputc('\n', f);
                if (c->max_luminance.present)
                        fprintf(f, "  Max luminance:           %u (%.3f cd/m²)\n",
                                c->max_luminance.code, c->max_luminance.cd_m2);
                if (c->max_frame_avg_luminance.present)
                        fprintf(f, "  Max frame-avg luminance: %u (%.3f cd/m²)\n",
                                c->max_frame_avg_luminance.code, c->max_frame_avg_luminance.cd_m2);
                if (c->min_luminance.present)
                        fprintf(f, "  Min luminance:           %u (%.3f cd/m²)\n",
                                c->min_luminance.code, c->min_luminance.cd_m2);
        }
        if (c->has_colorimetry) {
                fprintf(f, "  Colorimetry:");
                for (unsigned i = 0; i < 16; i++)
                        if (c->colorimetry & (1u << i))
                                fprintf(f, " %s", edid_colorimetry_name(i) ?: "Unknown");
                fputc('\n', f);
        }
        fprintf(f, "  HDMI VSDB: %s, HDMI Forum VSDB: %s, HDR10+: %s, Dolby Vision: %s\n",
                c->hdmi_vsdb ? "yes" : "no", c->hdmi_forum_vsdb ? "yes" : "no",
                c->hdr10plus_vsvdb ? "yes" : "no", c->dolby_vision_vsvdb ? "yes" : "no");
}

int verb_edid_info(Invocation *inv) {
        _cleanup_(edid_freep) Edid *e = NULL;

        if (load_edid(inv->args[0], &e) < 0)
                return EXIT_FAILURE;
        if (inv->opts.json) {
                int r = print_json(stdout, e);
                if (r < 0)
                        log_error("writing JSON: %s", strerror(-r));
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }
        print_text(stdout, e);
        return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int verb_edid_profile(Invocation *inv) {
        _cleanup_(edid_freep) Edid *e = NULL;
        _cleanup_free_ void *data = NULL;
        EdidIccParams params = {};
        const char *file = inv->args[0], *output = inv->opts.output, *reason = NULL;
        size_t size = 0;
        int r;

        if (load_edid(file, &e) < 0)
                return EXIT_FAILURE;

        /* Named as tinctd and tinct-session name the display, from the same PNP table, so
         * the profile's MAPPING_device_id is their device's id. */
        r = edid_icc_params_init_named(&params, e, "tinct edid-profile");
        if (r < 0) {
                log_error("%s: %s", file, strerror(-r));
                edid_icc_params_done(&params);
                return EXIT_FAILURE;
        }
        r = icc_create_display_profile(&params.params, &data, &size, &reason);
        edid_icc_params_done(&params);
        if (r < 0) {
                log_error("%s: cannot make a profile from this EDID: %s", file, reason);
                return EXIT_FAILURE;
        }

        r = write_file_atomic(output, data, size, 0644, 0);
        if (r < 0) {
                log_error("%s: cannot write: %s", output, strerror(-r));
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
