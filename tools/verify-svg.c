/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The verification picture (verify-svg.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fileio.h"
#include "gamut-svg.h"
#include "macro.h"
#include "verify-svg.h"

#define ROW 30          /* px per patch */
#define TOP 86          /* the heading */
#define SWATCH 56
#define BAR_X 360
#define BAR_PER_DE 40.0 /* px per unit of ΔE00 */
#define BAR_MAX 280.0

/* The colours people read ΔE00 by: below 1 invisible, below 3 hard to see, above clear. */
static const char *grade_colour(double de) {
        return de < 1.0 ? "#2e7d32" : de < 3.0 ? "#f9a825" : "#c62828";
}

static void swatch(FILE *f, int x, int y, const double lab[3]) {
        uint8_t c[3];
        display_verify_lab_to_srgb8(lab, c);
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#%02x%02x%02x\" stroke=\"#888\"/>\n", x, y,
                SWATCH, ROW - 6, c[0], c[1], c[2]);
}

typedef struct Chart {
        const DisplayVerify *v;
        const char *device_id, *profile_id, *date;
} Chart;

static int write_svg(FILE *f, const void *userdata) {
        const Chart *c = userdata;
        const DisplayVerify *v = c->v;
        const char *device_id = c->device_id, *profile_id = c->profile_id, *date = c->date;
        int width = (int) (BAR_X + BAR_MAX + 60), height = TOP + (int) v->n * ROW + 30;

        fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                   "font-family=\"sans-serif\" font-size=\"13\">\n"
                   "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n", width, height, width, height);
        fprintf(f, "<text x=\"16\" y=\"24\" font-size=\"16\" font-weight=\"bold\">Verification of ");
        svg_put_text(f, device_id);
        fprintf(f, "</text>\n<text x=\"16\" y=\"44\">against profile ");
        svg_put_text(f, profile_id);
        fprintf(f, ", measured ");
        svg_put_text(f, date);
        fprintf(f, "</text>\n<text x=\"16\" y=\"64\">ΔE00 mean %.2f, max %.2f over %zu patches</text>\n", v->mean,
                v->max, v->n);
        fprintf(f, "<text x=\"150\" y=\"%d\" font-size=\"11\">expected</text>\n"
                   "<text x=\"214\" y=\"%d\" font-size=\"11\">measured</text>\n"
                   "<text x=\"290\" y=\"%d\" font-size=\"11\">ΔE00</text>\n", TOP - 6, TOP - 6, TOP - 6);
        for (size_t i = 0; i < v->n; i++) {
                const DisplayVerifyPatch *p = &v->patches[i];
                int y = TOP + (int) i * ROW;
                double bar = fmin(p->de2000 * BAR_PER_DE, BAR_MAX);

                fprintf(f, "<text x=\"16\" y=\"%d\">", y + 17);
                svg_put_text(f, p->name);
                fprintf(f, "</text>\n");
                swatch(f, 150, y, p->expected_lab);
                swatch(f, 150 + SWATCH + 8, y, p->measured_lab);
                fprintf(f, "<text x=\"290\" y=\"%d\">%.2f</text>\n", y + 17, p->de2000);
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", BAR_X, y + 6, bar,
                        ROW - 16, grade_colour(p->de2000));
        }
        /* scale marks at ΔE00 1, 3 (the grades) and 5 */
        for (int de = 1; de <= 5; de += 2) {
                double x = BAR_X + de * BAR_PER_DE;
                fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#bbb\" stroke-dasharray=\"3,3\"/>\n"
                           "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>\n",
                        x, TOP - 2, x, TOP + (int) v->n * ROW, x, TOP + (int) v->n * ROW + 14, de);
        }
        fprintf(f, "</svg>\n");
        return 0;
}

int verify_svg_write(const char *out, const DisplayVerify *v, const char *device_id, const char *profile_id,
                     const char *date) {
        Chart c = { v, device_id, profile_id, date };
        return write_file_atomic_printed(out, 0644, 0, write_svg, &c);
}
