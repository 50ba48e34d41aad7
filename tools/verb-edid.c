/* `tinct edid-info [--json] FILE` and `tinct edid-profile FILE -o OUT.icc`: the offline EDID
 * verbs. edid-info prints what src/edid parses; its --json form uses the key names and value
 * conventions of the corpus references (schema edid-ref/1, shared/corpus/README.md), so the
 * corpus test can diff the two. edid-profile turns an EDID into an ICC display profile.
 *
 * Not here: any parsing (src/edid), profile building (src/icc), the EDID → profile mapping
 * (src/edid-icc/edid-icc.h, shared with the daemon), or conformity checking. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edid.h"
#include "icc-create.h"
#include "edid-icc.h"
#include "macro.h"
#include "verbs.h"

/* An EDID is at most 256 blocks of 128 bytes; read one byte more to notice longer files. */
#define EDID_FILE_MAX (EDID_MAX_BLOCKS * EDID_BLOCK_SIZE)

static int read_file(const char *path, size_t max, uint8_t **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ uint8_t *buf = NULL;
        size_t n = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        buf = malloc(max + 1);
        if (!buf)
                return -ENOMEM;
        for (;;) {
                ssize_t k = read(fd, buf + n, max + 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max)
                        return -EFBIG;
        }
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

static int load_edid(const char *path, Edid **ret) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0;
        int r;

        r = read_file(path, EDID_FILE_MAX, &buf, &size);
        if (r == -EFBIG) {
                fprintf(stderr, "%s: EDID is longer than %u bytes\n", path, EDID_FILE_MAX);
                return r;
        }
        if (r < 0) {
                fprintf(stderr, "%s: cannot read: %s\n", path, strerror(-r));
                return r;
        }
        r = edid_parse(buf, size, ret);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", path, edid_strerror(r));
                return r;
        }
        return 0;
}

/* --- JSON output ----------------------------------------------------------------------- */

/* Strings from an EDID are arbitrary bytes: escape controls, pass valid UTF-8, and replace
 * every other byte by U+FFFD so the output is always valid JSON. */
static void json_string(FILE *f, const char *s) {
        const unsigned char *p = (const unsigned char *) s;

        fputc('"', f);
        while (*p) {
                unsigned char c = *p;
                size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
                             (c & 0xf8) == 0xf0 ? 4 : 0;
                bool ok = len > 0;

                for (size_t i = 1; ok && i < len; i++)
                        ok = (p[i] & 0xc0) == 0x80;
                if (!ok) {
                        fputs("\\ufffd", f);
                        p++;
                        continue;
                }
                if (len > 1) {
                        fwrite(p, 1, len, f);
                        p += len;
                        continue;
                }
                if (c == '"' || c == '\\')
                        fprintf(f, "\\%c", c);
                else if (c < 0x20 || c == 0x7f)
                        fprintf(f, "\\u%04x", c);
                else
                        fputc(c, f);
                p++;
        }
        fputc('"', f);
}

static void json_key(FILE *f, int indent, const char *key) {
        fprintf(f, "%*s", indent, "");
        json_string(f, key);
        fputs(": ", f);
}

static const char *json_bool(bool b) {
        return b ? "true" : "false";
}

/* edid-decode prints chromaticities with 4 decimals, truncated; the reference keeps that
 * form, so we print the same (raw10 carries the exact value). */
static void json_xy_truncated(FILE *f, const EdidXY *xy) {
        /* Integer arithmetic, so no rounding can sneak in: raw < 1024 gives 0.0000-0.9990. */
        fprintf(f, "[0.%04u, 0.%04u]", xy->raw_x * 10000u / 1024u, xy->raw_y * 10000u / 1024u);
}

static void json_luminance(FILE *f, const EdidLuminance *l) {
        if (!l->present)
                fputs("null", f);
        else
                fprintf(f, "{\"code\": %u, \"cd_m2\": %.3f}", l->code, l->cd_m2);
}

static void json_cta(FILE *f, const Edid *e) {
        const EdidCta *c = &e->cta;
        char buf[128];
        bool first;

        fputs("{\n", f);
        json_key(f, 2, "blocks"); fprintf(f, "%u,\n", c->n_blocks);
        json_key(f, 2, "revision"); fprintf(f, "%u,\n", c->revision);
        json_key(f, 2, "malformed"); fprintf(f, "%s,\n", json_bool(c->malformed));

        json_key(f, 2, "hdr_static_metadata");
        if (!c->has_hdr_static_metadata)
                fputs("null,\n", f);
        else {
                fputs("{\n", f);
                json_key(f, 3, "eotfs"); fputc('[', f);
                first = true;
                for (unsigned i = 0; i < 8; i++) {
                        if (!(c->eotfs & (1u << i)))
                                continue;
                        const char *n = edid_eotf_name(i);
                        if (!n) {
                                snprintf(buf, sizeof buf, "Unknown (%u)", i);
                                n = buf;
                        }
                        fputs(first ? "" : ", ", f);
                        json_string(f, n);
                        first = false;
                }
                fputs("],\n", f);
                json_key(f, 3, "eotf_flags");
                fprintf(f, "{\"traditional_sdr\": %s, \"traditional_hdr\": %s, \"pq\": %s, \"hlg\": %s},\n",
                        json_bool(c->eotfs & EDID_EOTF_TRADITIONAL_SDR),
                        json_bool(c->eotfs & EDID_EOTF_TRADITIONAL_HDR),
                        json_bool(c->eotfs & EDID_EOTF_PQ), json_bool(c->eotfs & EDID_EOTF_HLG));
                json_key(f, 3, "static_metadata_descriptors"); fputc('[', f);
                first = true;
                for (unsigned i = 0; i < 8; i++) {
                        if (!(c->static_metadata_descriptors & (1u << i)))
                                continue;
                        /* CTA-861.3 Table 5: bit n is Static Metadata Type n+1. */
                        fprintf(f, "%s\"Static metadata type %u\"", first ? "" : ", ", i + 1);
                        first = false;
                }
                fputs("],\n", f);
                json_key(f, 3, "max_luminance"); json_luminance(f, &c->max_luminance); fputs(",\n", f);
                json_key(f, 3, "max_frame_avg_luminance"); json_luminance(f, &c->max_frame_avg_luminance); fputs(",\n", f);
                json_key(f, 3, "min_luminance"); json_luminance(f, &c->min_luminance); fputs("\n", f);
                fputs("  },\n", f);
        }

        json_key(f, 2, "colorimetry");
        if (!c->has_colorimetry)
                fputs("null,\n", f);
        else {
                fputc('[', f);
                first = true;
                for (unsigned i = 0; i < 16; i++) {
                        if (!(c->colorimetry & (1u << i)))
                                continue;
                        const char *n = edid_colorimetry_name(i);
                        if (!n) {
                                snprintf(buf, sizeof buf, "Unknown (bit %u)", i);
                                n = buf;
                        }
                        fputs(first ? "" : ", ", f);
                        json_string(f, n);
                        first = false;
                }
                fputs("],\n", f);
        }
        json_key(f, 2, "colorimetry_flags");
        if (!c->has_colorimetry)
                fputs("null,\n", f);
        else {
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
                fputc('{', f);
                for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                        fprintf(f, "%s", i ? ", " : "");
                        json_string(f, flags[i].name);
                        fprintf(f, ": %s", json_bool(c->colorimetry & flags[i].bit));
                }
                fputs("},\n", f);
        }

        json_key(f, 2, "hdmi_vsdb"); fprintf(f, "%s,\n", json_bool(c->hdmi_vsdb));
        json_key(f, 2, "hdmi_forum_vsdb"); fprintf(f, "%s,\n", json_bool(c->hdmi_forum_vsdb));
        json_key(f, 2, "hdr10plus_vsvdb"); fprintf(f, "%s,\n", json_bool(c->hdr10plus_vsvdb));
        json_key(f, 2, "dolby_vision_vsvdb"); fprintf(f, "%s,\n", json_bool(c->dolby_vision_vsvdb));
        json_key(f, 2, "data_blocks"); fputc('[', f);
        for (size_t i = 0; i < c->n_data_blocks; i++) {
                fputs(i ? ",\n   " : "\n   ", f);
                json_string(f, edid_cta_data_block_name(&c->data_blocks[i], buf, sizeof buf));
        }
        fputs(c->n_data_blocks ? "\n  ]\n" : "]\n", f);
        fputs(" },\n", f);
}

static void print_json(FILE *f, const Edid *e) {
        char buf[128];

        fputs("{\n", f);
        json_key(f, 1, "schema"); fputs("\"edid-ref/1\",\n", f);
        json_key(f, 1, "tool"); fputs("\"tinct edid-info --json\",\n", f);
        json_key(f, 1, "fatal_error"); fputs("null,\n", f);
        json_key(f, 1, "md5"); json_string(f, e->md5); fputs(",\n", f);
        json_key(f, 1, "edid_version"); fprintf(f, "\"%u.%u\",\n", e->version, e->revision);
        json_key(f, 1, "manufacturer"); json_string(f, e->manufacturer); fputs(",\n", f);
        json_key(f, 1, "product_code"); fprintf(f, "%u,\n", e->product_code);
        json_key(f, 1, "serial_number"); fprintf(f, "%u,\n", e->serial_number);
        json_key(f, 1, "serial_string");
        if (e->has_serial_string)
                json_string(f, e->serial_string);
        else
                fputs("null", f);
        fputs(",\n", f);
        json_key(f, 1, "model_name");
        if (e->has_model_name)
                json_string(f, e->model_name);
        else
                fputs("null", f);
        fputs(",\n", f);
        json_key(f, 1, "alphanumeric_strings"); fputc('[', f);
        for (unsigned i = 0; i < e->n_alphanumeric; i++) {
                fputs(i ? ", " : "", f);
                json_string(f, e->alphanumeric[i]);
        }
        fputs("],\n", f);

        /* E-EDID 1.4 §3.4.4: week 0 = only the year is given; 0xFF = model year. */
        json_key(f, 1, "week");
        if (e->week == 0 || e->week == 0xff)
                fputs("null,\n", f);
        else
                fprintf(f, "%u,\n", e->week);
        json_key(f, 1, "year");
        if (e->week == 0xff)
                fputs("null,\n", f);
        else
                fprintf(f, "%u,\n", e->year);
        json_key(f, 1, "model_year");
        if (e->week == 0xff)
                fprintf(f, "%u,\n", e->year);
        else
                fputs("null,\n", f);

        json_key(f, 1, "display_type"); fprintf(f, "\"%s\",\n", e->digital ? "digital" : "analog");
        json_key(f, 1, "gamma");
        if (e->gamma_in_extension)
                fputs("null,\n", f);
        else
                fprintf(f, "%.2f,\n", e->gamma);
        json_key(f, 1, "gamma_in_extension"); fprintf(f, "%s,\n", json_bool(e->gamma_in_extension));

        const struct { const char *name; const EdidXY *xy; } prim[] = {
                { "red", &e->red }, { "green", &e->green }, { "blue", &e->blue }, { "white", &e->white },
        };
        json_key(f, 1, "chromaticity"); fputs("{", f);
        for (size_t i = 0; i < ELEMENTSOF(prim); i++) {
                fprintf(f, "%s\"%s\": ", i ? ", " : "", prim[i].name);
                json_xy_truncated(f, prim[i].xy);
        }
        fputs("},\n", f);
        json_key(f, 1, "chromaticity_raw10"); fputs("{", f);
        for (size_t i = 0; i < ELEMENTSOF(prim); i++)
                fprintf(f, "%s\"%s\": [%u, %u]", i ? ", " : "", prim[i].name,
                        prim[i].xy->raw_x, prim[i].xy->raw_y);
        fputs("},\n", f);

        json_key(f, 1, "checksum"); fprintf(f, "\"0x%02x\",\n", e->blocks[0].checksum);
        json_key(f, 1, "checksum_valid"); fprintf(f, "%s,\n", json_bool(e->blocks[0].checksum_valid));
        json_key(f, 1, "extension_blocks_declared"); fprintf(f, "%u,\n", e->extension_count);
        json_key(f, 1, "extension_blocks_found"); fprintf(f, "%zu,\n", e->n_blocks - 1);
        json_key(f, 1, "blocks"); fputs("[", f);
        for (size_t i = 0; i < e->n_blocks; i++) {
                fputs(i ? ",\n  " : "\n  ", f);
                fprintf(f, "{\"index\": %zu, \"type\": ", i);
                json_string(f, edid_block_type_name(&e->blocks[i], i, buf, sizeof buf));
                fprintf(f, ", \"checksum\": \"0x%02x\", \"checksum_valid\": %s}",
                        e->blocks[i].checksum, json_bool(e->blocks[i].checksum_valid));
        }
        fputs("\n ],\n", f);
        json_key(f, 1, "all_checksums_valid"); fprintf(f, "%s,\n", json_bool(edid_all_checksums_valid(e)));

        json_key(f, 1, "cta");
        if (e->cta.n_blocks == 0)
                fputs("null,\n", f);
        else
                json_cta(f, e);

        json_key(f, 1, "displayid_versions"); fputc('[', f);
        for (size_t i = 0; i < e->n_displayid; i++)
                fprintf(f, "%s\"%u.%u\"", i ? ", " : "", e->displayid_versions[i] >> 4,
                        e->displayid_versions[i] & 0xf);
        fputs("]\n}\n", f);
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

int verb_edid_info(int argc, char **argv) {
        static const struct option options[] = {
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        _cleanup_(edid_freep) Edid *e = NULL;
        bool json = false;
        int c;

        optind = 0;
        while ((c = getopt_long(argc, argv, "jh", options, NULL)) >= 0)
                switch (c) {
                case 'j':
                        json = true;
                        break;
                case 'h':
                        printf("Usage: tinct edid-info [--json] FILE\n");
                        return 0;
                default:
                        return 2;
                }
        if (optind + 1 != argc) {
                fprintf(stderr, "Usage: tinct edid-info [--json] FILE\n");
                return 2;
        }

        if (load_edid(argv[optind], &e) < 0)
                return 1;

        if (json)
                print_json(stdout, e);
        else
                print_text(stdout, e);
        return fflush(stdout) == 0 ? 0 : 1;
}

static int write_file_atomic(const char *path, const void *data, size_t size) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -1;
        const uint8_t *p = data;
        int r = 0;

        /* Written beside the target and renamed, so a reader never sees half a profile. */
        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        while (size > 0) {
                ssize_t k = write(fd, p, size);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                p += k;
                size -= (size_t) k;
        }
        if (r == 0 && fchmod(fd, 0644) < 0)
                r = -errno;
        if (r == 0 && close(TAKE_FD(fd)) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

int verb_edid_profile(int argc, char **argv) {
        static const struct option options[] = {
                { "output", required_argument, NULL, 'o' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        _cleanup_(edid_freep) Edid *e = NULL;
        _cleanup_free_ void *data = NULL;
        EdidIccParams params = {};
        const char *output = NULL, *reason = NULL;
        size_t size = 0;
        int c, r;

        optind = 0;
        while ((c = getopt_long(argc, argv, "o:h", options, NULL)) >= 0)
                switch (c) {
                case 'o':
                        output = optarg;
                        break;
                case 'h':
                        printf("Usage: tinct edid-profile FILE -o OUT.icc\n");
                        return 0;
                default:
                        return 2;
                }
        if (optind + 1 != argc || !output) {
                fprintf(stderr, "Usage: tinct edid-profile FILE -o OUT.icc\n");
                return 2;
        }

        if (load_edid(argv[optind], &e) < 0)
                return 1;

        /* No PNP vendor table is available to the tool, so the vendor is the PNP id (after
         * the vendor quirks). */
        r = edid_icc_params_init(&params, e, NULL, "tinct edid-profile");
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", argv[optind], strerror(-r));
                edid_icc_params_done(&params);
                return 1;
        }
        r = icc_create_display_profile(&params.params, &data, &size, &reason);
        edid_icc_params_done(&params);
        if (r < 0) {
                fprintf(stderr, "%s: cannot make a profile from this EDID: %s\n", argv[optind], reason);
                return 1;
        }

        r = write_file_atomic(output, data, size);
        if (r < 0) {
                fprintf(stderr, "%s: cannot write: %s\n", output, strerror(-r));
                return 1;
        }
        return 0;
}
