/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gamut-svg: draws the chromaticity diagram (gamut-svg.h). The picture is built in memory and
 * written atomically, so a failure never leaves half a file. Text in SVG has no measured
 * width, so every placement that must not overlap (wavelength labels, legend rows) uses a
 * conservative estimate of the text's box, and the legend sits outside the plot. Elements
 * carry classes (plot-frame, axis-label, tick-x, tick-y, wavelength-tick, wavelength-label,
 * legend-box) so that tests and style sheets can find them; an axis tick's data-at is where
 * on the axis its value lies. */
#include "gamut-svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"
#include "utf8.h"

#define FONT 16.0          /* px: axis and tick text */
#define SMALL_FONT 13.0    /* px: wavelength labels */
#define CHAR_WIDTH 0.62    /* of the font size: wider than the average sans-serif glyph */
#define LEGEND_ROW 30.0    /* px between legend rows (boxes are LEGEND_BOX high) */
#define LEGEND_BOX 24.0
#define LEGEND_MAX_CHARS 36 /* longer labels are shortened at the front with "…" */
#define MARGIN_LEFT 80.0
#define MARGIN_TOP 50.0
#define MARGIN_BOTTOM 80.0
#define LEGEND_GAP 40.0
#define LEGEND_SAMPLE 56.0  /* px before a legend row's text: the sample of the stroke */
/* Room for the longest row (a label of LEGEND_MAX_CHARS) and a margin. */
#define LEGEND_WIDTH (LEGEND_SAMPLE + LEGEND_MAX_CHARS * FONT * CHAR_WIDTH + 20)

/* The diagram's frame: its coordinate ranges and the px per unit. */
typedef struct Frame {
        bool uv;
        double max_x, max_y, scale;
} Frame;

typedef struct Box {
        double x0, y0, x1, y1;
} Box;

static const char *const profile_colours[] = { "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b" };
/* The references in one grey, told apart by their dashes (gamut_references' order). */
static const char *const reference_dashes[] = { "2 3", "9 4", "14 4 3 4", "5 2 1 2 1 2" };

static GamutPoint to_diagram(const Frame *f, GamutPoint xy) {
        return f->uv ? gamut_xy_to_uv(xy) : xy;
}

static double px(const Frame *f, double x) {
        return MARGIN_LEFT + x * f->scale;
}

static double py(const Frame *f, double y) {
        return MARGIN_TOP + (f->max_y - y) * f->scale;
}

static bool boxes_overlap(const Box *a, const Box *b) {
        return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* Text for an XML attribute or element: markup escaped; control characters and bytes that
 * are not UTF-8 (file names may hold both) become '?', which XML can carry. */
void svg_put_text(FILE *f, const char *s) {
        bool valid = utf8_is_valid(s, strlen(s));
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p == '<')
                        fputs("&lt;", f);
                else if (*p == '>')
                        fputs("&gt;", f);
                else if (*p == '&')
                        fputs("&amp;", f);
                else if (*p == '"')
                        fputs("&quot;", f);
                else if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && !valid))
                        fputc('?', f);
                else
                        fputc(*p, f);
}

/* The number of characters of a UTF-8 string (bytes that do not start a sequence are not
 * counted), for width estimates. */
static size_t text_chars(const char *s) {
        size_t n = 0;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                n += (*p & 0xc0) != 0x80;
        return n;
}

/* A legend label: the file's base name, its front cut off when long. */
static const char *legend_label(const char *path, char *buf, size_t size) {
        const char *base = strrchr(path, '/');
        base = base && base[1] ? base + 1 : path;
        size_t n = text_chars(base);
        if (n <= LEGEND_MAX_CHARS)
                return base;
        const char *p = base;
        for (size_t skip = n - (LEGEND_MAX_CHARS - 1); skip > 0;) {
                p++;
                if ((((unsigned char) *p) & 0xc0) != 0x80)
                        skip--;
        }
        snprintf(buf, size, "…%s", p);
        return buf;
}

static void write_axes(FILE *f, const Frame *fr) {
        int nx = (int) lround(fr->max_x * 10), ny = (int) lround(fr->max_y * 10);
        double left = px(fr, 0), right = px(fr, fr->max_x), top = py(fr, fr->max_y), bottom = py(fr, 0);

        fprintf(f, "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n");
        for (int i = 1; i < nx; i++)
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px(fr, i / 10.0), top,
                        px(fr, i / 10.0), bottom);
        for (int i = 1; i < ny; i++)
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", left, py(fr, i / 10.0), right,
                        py(fr, i / 10.0));
        fprintf(f, "</g>\n<rect class=\"plot-frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"none\" stroke=\"black\"/>\n", left, top, right - left, bottom - top);
        for (int i = 0; i <= nx; i++)
                fprintf(f, "<text class=\"tick-x\" data-at=\"%.2f\" x=\"%.1f\" y=\"%.1f\" "
                           "text-anchor=\"middle\">%.1f</text>\n", px(fr, i / 10.0), px(fr, i / 10.0),
                        bottom + FONT + 6, i / 10.0);
        for (int i = 0; i <= ny; i++)
                fprintf(f, "<text class=\"tick-y\" data-at=\"%.2f\" x=\"%.1f\" y=\"%.1f\" "
                           "text-anchor=\"end\">%.1f</text>\n", py(fr, i / 10.0), left - 8,
                        py(fr, i / 10.0) + FONT / 3, i / 10.0);
        /* The axes' names, in the middle of each axis, in italics as the quantities are. */
        fprintf(f, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"20\" "
                   "font-style=\"italic\">%s</text>\n", (left + right) / 2, bottom + FONT + 40, fr->uv ? "u′" : "x");
        fprintf(f, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"20\" "
                   "font-style=\"italic\">%s</text>\n", left - 55, (top + bottom) / 2, fr->uv ? "v′" : "y");
}

/* The locus, closed by the line of purples, and a tick every 10 nm from 400 to 700 nm
 * (outwards, across the curve), labelled where a label fits beside the ones already placed
 * (the ends of the curve crowd: there some ticks go without a label). */
static void write_locus(FILE *f, const Frame *fr) {
        GamutPoint p[GAMUT_LOCUS_POINTS];
        for (int i = 0; i < GAMUT_LOCUS_POINTS; i++) {
                GamutPoint d = to_diagram(fr, gamut_spectral_locus_xy(i));
                p[i] = (GamutPoint) { px(fr, d.x), py(fr, d.y) };
        }
        fprintf(f, "<polygon class=\"locus\" fill=\"#f7f7f7\" stroke=\"black\" stroke-width=\"1.5\" "
                   "stroke-linejoin=\"round\" points=\"");
        for (int i = 0; i < GAMUT_LOCUS_POINTS; i++)
                fprintf(f, "%s%.2f,%.2f", i ? " " : "", p[i].x, p[i].y);
        fprintf(f, "\"><title>spectral locus, %d-%d nm (CIE 1931 2°)</title></polygon>\n", GAMUT_LOCUS_FIRST_NM,
                gamut_locus_nm(GAMUT_LOCUS_POINTS - 1));

        GamutPoint white_d = to_diagram(fr, (GamutPoint) { 0.3127, 0.3290 });
        GamutPoint white = { px(fr, white_d.x), py(fr, white_d.y) };
        Box placed[GAMUT_LOCUS_POINTS];
        size_t n_placed = 0;
        for (int i = 1; i + 1 < GAMUT_LOCUS_POINTS; i++) {
                int nm = gamut_locus_nm(i);
                if (nm % 10 != 0 || nm < 400 || nm > 700)
                        continue;
                /* The normal of the chord through the neighbours, pointed away from the white. */
                double tx = p[i + 1].x - p[i - 1].x, ty = p[i + 1].y - p[i - 1].y, len = hypot(tx, ty);
                if (len <= 0)
                        continue;
                double nx = ty / len, ny = -tx / len;
                if (nx * (p[i].x - white.x) + ny * (p[i].y - white.y) < 0) {
                        nx = -nx;
                        ny = -ny;
                }
                fprintf(f, "<line class=\"wavelength-tick\" data-nm=\"%d\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                           "y2=\"%.2f\" stroke=\"black\"/>\n", nm, p[i].x, p[i].y, p[i].x + 7 * nx, p[i].y + 7 * ny);

                char text[8];
                snprintf(text, sizeof text, "%d", nm);
                double w = strlen(text) * SMALL_FONT * CHAR_WIDTH, h = SMALL_FONT;
                /* The label's centre, far enough along the normal that its box clears the tick
                 * whatever the direction: outside the curve, or inside it where outside is past
                 * the plot's left edge (500 nm). Where a neighbour's label is, none. */
                double d = 12 + 0.5 * (fabs(nx) * w + fabs(ny) * h);
                double cx = p[i].x + d * nx, cy = p[i].y + d * ny;
                if (cx - w / 2 < px(fr, 0)) {
                        cx = p[i].x - d * nx;
                        cy = p[i].y - d * ny;
                }
                Box b = { cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2 };
                bool inside_frame = b.x0 >= px(fr, 0) && b.y1 <= py(fr, 0) && b.y0 >= py(fr, fr->max_y);
                bool free = inside_frame;
                for (size_t k = 0; k < n_placed && free; k++)
                        free = !boxes_overlap(&b, &placed[k]);
                if (!free)
                        continue;
                placed[n_placed++] = b;
                fprintf(f, "<text class=\"wavelength-label\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\" "
                           "font-size=\"%g\">%s</text>\n", (b.x0 + b.x1) / 2, b.y1 - h * 0.15, SMALL_FONT, text);
        }
}

static void write_triangle(FILE *f, const Frame *fr, const GamutPoint xy[3], const char *attrs) {
        fprintf(f, "<polygon fill=\"none\" %s points=\"", attrs);
        for (int i = 0; i < 3; i++) {
                GamutPoint d = to_diagram(fr, xy[i]);
                fprintf(f, "%s%.2f,%.2f", i ? " " : "", px(fr, d.x), py(fr, d.y));
        }
        fprintf(f, "\"/>\n");
}

/* One legend row: its box, a sample of the stroke, the text. */
static void write_legend_row(FILE *f, double x, double y, const char *stroke_attrs, const char *text) {
        double w = LEGEND_SAMPLE + text_chars(text) * FONT * CHAR_WIDTH;
        fprintf(f, "<g class=\"legend-entry\">\n<rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\" fill=\"white\" stroke=\"#d0d0d0\"/>\n", x, y, w, LEGEND_BOX);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x + 8, y + LEGEND_BOX / 2, x + 44,
                y + LEGEND_BOX / 2, stroke_attrs);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", x + 50, y + LEGEND_BOX / 2 + FONT / 3);
        svg_put_text(f, text);
        fprintf(f, "</text>\n</g>\n");
}

typedef struct Diagram {
        Frame frame;
        const GamutSvgEntry *entries;
        size_t n;
} Diagram;

static int write_svg(FILE *f, const void *userdata) {
        const Diagram *d = userdata;
        const Frame *fr = &d->frame;
        const GamutSvgEntry *entries = d->entries;
        size_t n = d->n;
        double plot_w = fr->max_x * fr->scale, plot_h = fr->max_y * fr->scale;
        double legend_x = MARGIN_LEFT + plot_w + LEGEND_GAP;
        double width = legend_x + LEGEND_WIDTH, height = MARGIN_TOP + plot_h + MARGIN_BOTTOM;
        size_t rows = 2 + ELEMENTSOF(reference_dashes) + n;
        if (MARGIN_TOP + rows * LEGEND_ROW + 20 > height)
                height = MARGIN_TOP + rows * LEGEND_ROW + 20;
        const char *title = fr->uv ? "CIE 1976 u′v′ chromaticity diagram" : "CIE 1931 xy chromaticity diagram";
        char attrs[160], buf[256];

        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" data-diagram=\"%s\" width=\"%.0f\" height=\"%.0f\" "
                   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"%g\">\n",
                fr->uv ? "uv" : "xy", width, height, width, height, FONT);
        fprintf(f, "<title>%s</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", title);
        fprintf(f, "<text x=\"%.1f\" y=\"30\" font-size=\"20\">%s</text>\n", MARGIN_LEFT, title);
        write_axes(f, fr);
        write_locus(f, fr);
        for (size_t i = 0; i < ELEMENTSOF(reference_dashes); i++) {
                snprintf(attrs, sizeof attrs, "stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"%s\"",
                         reference_dashes[i]);
                write_triangle(f, fr, gamut_references[i].primaries, attrs);
        }
        for (size_t i = 0; i < n; i++) {
                snprintf(attrs, sizeof attrs, "stroke=\"%s\" stroke-width=\"2.5\" stroke-linejoin=\"round\"",
                         profile_colours[i % ELEMENTSOF(profile_colours)]);
                write_triangle(f, fr, entries[i].xy, attrs);
        }
        GamutPoint w = to_diagram(fr, (GamutPoint) { 0.3127, 0.3290 });
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"black\"/>\n", px(fr, w.x), py(fr, w.y));

        /* The legend: one row per line style, outside the plot, rows LEGEND_ROW apart. */
        double y = MARGIN_TOP;
        write_legend_row(f, legend_x, y, "stroke=\"black\" stroke-width=\"1.5\"", "spectral locus (380-780 nm)");
        y += LEGEND_ROW;
        fprintf(f, "<g class=\"legend-entry\">\n<rect class=\"legend-box\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                   "height=\"%.1f\" fill=\"white\" stroke=\"#d0d0d0\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n"
                   "<text x=\"%.1f\" y=\"%.1f\">D65 white</text>\n</g>\n", legend_x, y,
                LEGEND_SAMPLE + 9 * FONT * CHAR_WIDTH, LEGEND_BOX, legend_x + 26, y + LEGEND_BOX / 2, legend_x + 50,
                y + LEGEND_BOX / 2 + FONT / 3);
        y += LEGEND_ROW;
        for (size_t i = 0; i < ELEMENTSOF(reference_dashes); i++, y += LEGEND_ROW) {
                snprintf(attrs, sizeof attrs, "stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"%s\"",
                         reference_dashes[i]);
                write_legend_row(f, legend_x, y, attrs, gamut_references[i].name);
        }
        for (size_t i = 0; i < n; i++, y += LEGEND_ROW) {
                snprintf(attrs, sizeof attrs, "stroke=\"%s\" stroke-width=\"2.5\"",
                         profile_colours[i % ELEMENTSOF(profile_colours)]);
                write_legend_row(f, legend_x, y, attrs, legend_label(entries[i].label, buf, sizeof buf));
        }
        fprintf(f, "</svg>\n");
        return 0;
}

int gamut_svg_write(const char *out, const GamutSvgEntry *entries, size_t n, bool uv) {
        /* xy: x 0..0.8, y 0..0.9; u'v': both 0..0.7 (the locus reaches u' 0.62, v' 0.59). */
        Diagram d = {
                .frame = uv ? (Frame) { .uv = true, .max_x = 0.7, .max_y = 0.7, .scale = 1250 }
                            : (Frame) { .uv = false, .max_x = 0.8, .max_y = 0.9, .scale = 1000 },
                .entries = entries,
                .n = n,
        };
        return write_file_atomic_printed(out, 0644, 0, write_svg, &d);
}
