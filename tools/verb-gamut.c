/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct gamut [--json] FILE... [--svg OUT]: how much of sRGB, Display P3, Adobe RGB and
 * BT.2020 each RGB profile covers, and its size against each, in CIE 1931 xy and CIE 1976
 * u'v' (both printed, each labelled), as triangles of the primaries. The arithmetic is
 * src/shared/gamut.c's, the primaries src/icc/icc-primaries.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamut.h"
#include "icc-primaries.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "fileio.h"
#include "verbs.h"

typedef struct Entry {
        const char *path;
        GamutPoint xy[3];
} Entry;

static const char *const colours[] = { "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b" };

static void print_text(const Entry *e) {
        printf("%s\n  primaries (xy): R %.4f %.4f  G %.4f %.4f  B %.4f %.4f\n", e->path, e->xy[0].x, e->xy[0].y,
               e->xy[1].x, e->xy[1].y, e->xy[2].x, e->xy[2].y);
        printf("  %-11s %12s %12s %12s %12s\n", "against", "covers (xy)", "size (xy)", "covers (u'v')", "size (u'v')");
        for (size_t i = 0; i < 4; i++) {
                GamutFigures a = gamut_compare(e->xy, gamut_references[i].primaries, 0);
                GamutFigures b = gamut_compare(e->xy, gamut_references[i].primaries, 1);
                printf("  %-11s %11.1f%% %11.1f%% %12.1f%% %11.1f%%\n", gamut_references[i].name, 100 * a.coverage,
                       100 * a.relative, 100 * b.coverage, 100 * b.relative);
        }
}

static void write_json_entry(JsonWriter *w, const Entry *e) {
        json_write_begin_object(w);
        json_write_member_text(w, "file", e->path);
        json_write_key(w, "primaries_xy");
        json_write_begin_array(w);
        for (size_t i = 0; i < 3; i++) {
                json_write_begin_array(w);
                json_write_fixed(w, e->xy[i].x, 6);
                json_write_fixed(w, e->xy[i].y, 6);
                json_write_end_array(w);
        }
        json_write_end_array(w);
        json_write_key(w, "against");
        json_write_begin_object(w);
        for (size_t i = 0; i < 4; i++) {
                json_write_key(w, gamut_references[i].name);
                json_write_begin_object(w);
                for (int uv = 0; uv <= 1; uv++) {
                        GamutFigures f = gamut_compare(e->xy, gamut_references[i].primaries, uv);
                        json_write_key(w, uv ? "coverage_uv" : "coverage_xy");
                        json_write_fixed(w, f.coverage, 6);
                        json_write_key(w, uv ? "relative_uv" : "relative_xy");
                        json_write_fixed(w, f.relative, 6);
                }
                json_write_end_object(w);
        }
        json_write_end_object(w);
        json_write_end_object(w);
}

/* A chromaticity diagram, xy 0..0.8 × 0..0.9 on 800×900 units, y up. */
static int write_svg(const char *out, const Entry *entries, size_t n) {
        FILE *f = fopen(out, "we");
        if (!f)
                return -errno;
#define PX(p) (p).x * 1000 + 50, 950 - (p).y * 1000
        fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 900 1000\" font-family=\"sans-serif\" font-size=\"18\">\n");
        fprintf(f, "<title>CIE 1931 xy chromaticity diagram</title>\n<rect width=\"900\" height=\"1000\" fill=\"white\"/>\n");
        fprintf(f, "<path d=\"M50 950 H850 M50 950 V50\" stroke=\"black\" fill=\"none\"/>\n");
        for (int t = 1; t <= 8; t++)
                fprintf(f, "<text x=\"%d\" y=\"975\" text-anchor=\"middle\">0.%d</text><text x=\"40\" y=\"%d\" text-anchor=\"end\">0.%d</text>\n",
                        50 + t * 100, t, 956 - t * 100, t);
        const GamutPoint *locus = gamut_spectral_locus();
        fprintf(f, "<polygon fill=\"#f4f4f4\" stroke=\"black\" points=\"");
        for (int i = 0; i < GAMUT_LOCUS_POINTS; i++)
                fprintf(f, "%.1f,%.1f ", PX(locus[i]));
        fprintf(f, "\"><title>spectral locus, 380-700 nm</title></polygon>\n");
        for (size_t i = 0; i < 4; i++) {
                const GamutPoint *p = gamut_references[i].primaries;
                fprintf(f, "<polygon fill=\"none\" stroke=\"#777\" stroke-dasharray=\"6 4\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"><title>%s</title></polygon>\n",
                        PX(p[0]), PX(p[1]), PX(p[2]), gamut_references[i].name);
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#777\" font-size=\"14\">%s</text>\n", PX(p[1]), gamut_references[i].name);
        }
        for (size_t i = 0; i < n; i++) {
                const char *c = colours[i % (sizeof colours / sizeof *colours)];
                const char *base = strrchr(entries[i].path, '/');
                base = base ? base + 1 : entries[i].path;
                fprintf(f, "<polygon fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n", c,
                        PX(entries[i].xy[0]), PX(entries[i].xy[1]), PX(entries[i].xy[2]));
                fprintf(f, "<text x=\"520\" y=\"%zu\" fill=\"%s\">", 80 + 26 * i, c);
                for (const char *s = base; *s; s++)
                        fputs(*s == '<' ? "&lt;" : *s == '&' ? "&amp;" : *s == '>' ? "&gt;" : (char[2]) { *s, 0 }, f);
                fprintf(f, "</text>\n");
        }
#undef PX
        fprintf(f, "</svg>\n");
        return fclose(f) == 0 ? 0 : -errno;
}

int verb_gamut(Invocation *inv) {
        size_t n = inv->n_args, good = 0;
        int status = EXIT_SUCCESS;
        /* Freed by hand: as a _cleanup_free_ local, GCC 12 under ASan sees a false
         * -Wstringop-overread in print_text(). */
        Entry *entries = calloc(n, sizeof *entries);
        if (!entries)
                return log_oom(), EXIT_FAILURE;
        for (size_t i = 0; i < n; i++) {
                uint8_t *data = NULL;
                size_t size;
                char *why = NULL;
                double xy[3][2];
                int r = read_file_capped(inv->args[i], TOOL_MAX_FILE, 0, &data, &size, NULL);
                if (r >= 0)
                        r = icc_rgb_primaries(data, size, xy, &why);
                free(data);
                if (r < 0) {
                        fprintf(stderr, "tinct gamut: %s: %s\n", inv->args[i], why ? why : strerror(-r));
                        free(why);
                        status = EXIT_FAILURE;
                        continue;
                }
                entries[good].path = inv->args[i];
                for (int k = 0; k < 3; k++)
                        entries[good].xy[k] = (GamutPoint) { xy[k][0], xy[k][1] };
                good++;
        }
        if (inv->opts.json) {
                JsonWriter w;
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, "gamuts");
                json_write_begin_array(&w);
                for (size_t i = 0; i < good; i++)
                        write_json_entry(&w, &entries[i]);
                json_write_end_array(&w);
                json_write_end_object(&w);
                if (json_writer_finish(&w) < 0)
                        status = EXIT_FAILURE;
        } else
                for (size_t i = 0; i < good; i++)
                        print_text(&entries[i]);
        const char *svg = inv->opts.svg;
        if (svg && good > 0) {
                int r = write_svg(svg, entries, good);
                if (r < 0) {
                        fprintf(stderr, "tinct gamut: cannot write %s: %s\n", svg, strerror(-r));
                        status = EXIT_FAILURE;
                }
        }
        free(entries);
        return status;
}
