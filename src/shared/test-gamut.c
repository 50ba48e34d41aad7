/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for gamut.c against figures worked out by hand from the primaries (shoelace
 * areas; sRGB lies wholly inside Display P3, so its coverage of P3 is the ratio of areas). */
#include <math.h>

#include "gamut.h"
#include "tests.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) < (eps))

static void test_areas(void) {
        const GamutPoint *srgb = gamut_references[0].primaries, *p3 = gamut_references[1].primaries;
        /* sRGB: |0.64*0.60 - 0.30*0.33 + 0.30*0.06 - 0.15*0.60 + 0.15*0.33 - 0.64*0.06| / 2 */
        assert_se(NEAR(gamut_triangle_area(srgb), 0.11205, 1e-12));
        assert_se(NEAR(gamut_triangle_area(p3), 0.152, 1e-12));
        assert_se(NEAR(gamut_intersection_area(srgb, p3), 0.11205, 1e-12));
        assert_se(NEAR(gamut_intersection_area(p3, srgb), 0.11205, 1e-12));

        GamutFigures f = gamut_compare(srgb, p3, 0);
        assert_se(NEAR(f.coverage, 0.11205 / 0.152, 1e-9) && NEAR(f.relative, 0.11205 / 0.152, 1e-9));
        f = gamut_compare(p3, srgb, 0);
        assert_se(NEAR(f.coverage, 1, 1e-9) && NEAR(f.relative, 0.152 / 0.11205, 1e-9));
        f = gamut_compare(srgb, srgb, 1);
        assert_se(NEAR(f.coverage, 1, 1e-9) && NEAR(f.relative, 1, 1e-9));

        /* Half-overlapping right triangles: the common part is (0.5,0) (1,0) (0.5,0.5). */
        const GamutPoint a[3] = { { 0, 0 }, { 1, 0 }, { 0, 1 } }, b[3] = { { 0.5, 0 }, { 1.5, 0 }, { 0.5, 1 } };
        assert_se(NEAR(gamut_intersection_area(a, b), 0.125, 1e-12));
        /* Orientation does not matter. */
        const GamutPoint b_cw[3] = { b[0], b[2], b[1] };
        assert_se(NEAR(gamut_intersection_area(a, b_cw), 0.125, 1e-12));
        /* Disjoint. */
        const GamutPoint far[3] = { { 5, 5 }, { 6, 5 }, { 5, 6 } };
        assert_se(gamut_intersection_area(a, far) == 0);
}

static void test_uv_and_locus(void) {
        /* D65: u' = 4x / (-2x + 12y + 3) = 1.2508 / 6.3226, v' = 9y / (...) = 2.961 / 6.3226 */
        GamutPoint uv = gamut_xy_to_uv((GamutPoint) { 0.3127, 0.3290 });
        assert_se(NEAR(uv.x, 1.2508 / 6.3226, 1e-9) && NEAR(uv.y, 2.961 / 6.3226, 1e-9));

        GamutPoint locus[GAMUT_LOCUS_POINTS];
        for (int k = 0; k < GAMUT_LOCUS_POINTS; k++)
                locus[k] = gamut_spectral_locus_xy(k);
        /* The published chromaticities (CIE 15, to 4 places): 520 nm, 700 nm and beyond. */
        assert_se(gamut_locus_nm(28) == 520 && gamut_locus_nm(GAMUT_LOCUS_POINTS - 1) == 780);
        assert_se(NEAR(locus[28].x, 0.0743, 5e-5) && NEAR(locus[28].y, 0.8338, 5e-5));
        assert_se(NEAR(locus[64].x, 0.7347, 5e-5) && NEAR(locus[64].y, 0.2653, 5e-5));
        assert_se(NEAR(locus[GAMUT_LOCUS_POINTS - 1].x, 0.7347, 5e-5));
        /* The references' primaries lie inside the locus (spectral colours bound them):
         * inside the polygon the locus and its purple line close. Only sRGB's and Adobe
         * RGB's: BT.2020's are spectral (630, 532, 467 nm) and Display P3's red lies within
         * 0.001 of the curve, closer than the 5 nm chords. */
        for (int s = 0; s < 3; s += 2)
                for (int i = 0; i < 3; i++) {
                        GamutPoint p = gamut_references[s].primaries[i];
                        int crossings = 0;
                        for (int k = 0; k < GAMUT_LOCUS_POINTS; k++) {
                                GamutPoint a = locus[k], b = locus[(k + 1) % GAMUT_LOCUS_POINTS];
                                if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y))
                                        crossings++;
                        }
                        if (crossings % 2 != 1)
                                fprintf(stderr, "%s primary %d (%g, %g) outside the locus\n", gamut_references[s].name, i, p.x, p.y);
                        assert_se(crossings % 2 == 1);
                }
}

int main(void) {
        test_areas();
        test_uv_and_locus();
        return 0;
}
