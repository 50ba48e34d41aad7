/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct gamut [--json] FILE... [--svg OUT]: how much of sRGB, Display P3, Adobe RGB and
 * BT.2020 each RGB profile covers, and its size against each, in CIE 1931 xy and CIE 1976
 * u'v' (both printed, each labelled), as triangles of the primaries. The arithmetic is
 * src/shared/gamut.c's, the primaries src/icc/icc-primaries.c's, the diagram gamut-svg.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamut.h"
#include "gamut-svg.h"
#include "icc-primaries.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "fileio.h"
#include "verbs.h"

static void print_text(const GamutSvgEntry *e) {
        printf("%s\n  primaries (xy): R %.4f %.4f  G %.4f %.4f  B %.4f %.4f\n", e->label, e->xy[0].x, e->xy[0].y,
               e->xy[1].x, e->xy[1].y, e->xy[2].x, e->xy[2].y);
        printf("  %-11s %12s %12s %12s %12s\n", "against", "covers (xy)", "size (xy)", "covers (u'v')", "size (u'v')");
        for (size_t i = 0; i < 4; i++) {
                GamutFigures a = gamut_compare(e->xy, gamut_references[i].primaries, 0);
                GamutFigures b = gamut_compare(e->xy, gamut_references[i].primaries, 1);
                printf("  %-11s %11.1f%% %11.1f%% %12.1f%% %11.1f%%\n", gamut_references[i].name, 100 * a.coverage,
                       100 * a.relative, 100 * b.coverage, 100 * b.relative);
        }
}

static void write_json_entry(JsonWriter *w, const GamutSvgEntry *e) {
        json_write_begin_object(w);
        json_write_member_text(w, "file", e->label);
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

int verb_gamut_check(const Invocation *inv) {
        if (inv->opts.uv && !inv->opts.svg)
                return verb_usage_error(inv, "--uv chooses the diagram of --svg: give --svg OUT too");
        return 0;
}

int verb_gamut(Invocation *inv) {
        size_t n = inv->n_args, good = 0;
        int status = EXIT_SUCCESS;
        /* Freed by hand: as a _cleanup_free_ local, GCC 12 under ASan sees a false
         * -Wstringop-overread in print_text(). */
        GamutSvgEntry *entries = calloc(n, sizeof *entries);
        if (!entries) {
                log_oom();
                return EXIT_FAILURE;
        }
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
                        log_error("%s: %s", inv->args[i], why ? why : strerror(-r));
                        free(why);
                        status = EXIT_FAILURE;
                        continue;
                }
                entries[good].label = inv->args[i];
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
                int r = gamut_svg_write(svg, entries, good, inv->opts.uv);
                if (r < 0) {
                        log_error("cannot write %s: %s", svg, strerror(-r));
                        status = EXIT_FAILURE;
                }
        }
        free(entries);
        return status;
}
