/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Printer profiles and display verification without files: a synthetic CMYK printer (each
 * ink absorbing its part of X, Y, Z, with dot gain) measured at random points, the profile
 * built from them read back through lcms2 — its A2B against the printer on other points, the
 * B2A1 round trip, the total ink limit in B2A, black generation (more black for darker
 * neutrals; each --black setting asking for more than the one before), the perceptual
 * mapping (monotonic in chroma, hue kept, printable), the gamut tag — lcms2's interpolation matching ours (the fit's own error on its
 * samples), the interpolation's exact derivatives (the inversion's Jacobian) against finite
 * differences, an RGB printer, refused measurements (negative, NaN, no paper), and a display
 * verified against its own profile (ΔE00 0) and against a warmer white (not 0). */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display-verify.h"
#include "icc-write.h"
#include "mat3.h"
#include "output-build.h"
#include "output-samples.h"
#include "profile-fit.h"
#include "tests.h"

static const double paper[3] = { 0.88, 0.91, 0.76 }; /* a slightly warm paper, Y 0.91 */

/* The printer: XYZ = paper · Π per-ink transmittance in X, Y, Z; dot gain d + 0.3 d (1 − d)
 * (7.5% at mid-tones). */
static void printer_cmyk(const double d[4], double xyz[3]) {
        static const double absorb[4][3] = {
                { 0.80, 0.50, 0.20 }, /* cyan absorbs long wavelengths (X) */
                { 0.30, 0.70, 0.25 }, /* magenta the middle (Y); a* stays in the PCS range */
                { 0.05, 0.10, 0.90 }, /* yellow short (Z) */
                { 0.92, 0.93, 0.92 }, /* black all */
        };
        for (size_t c = 0; c < 3; c++) {
                xyz[c] = paper[c];
                for (size_t k = 0; k < 4; k++)
                        xyz[c] *= 1.0 - absorb[k][c] * (d[k] + 0.3 * d[k] * (1.0 - d[k]));
        }
}

static void printer_rgb(const double rgb[3], double xyz[3]) {
        double d[4] = { 1.0 - rgb[0], 1.0 - rgb[1], 1.0 - rgb[2], 0.0 };
        printer_cmyk(d, xyz);
}

static unsigned seed = 7;
static double rnd(void) {
        seed = seed * 1103515245u + 12345u;
        return ((seed >> 8) & 0xffffff) / (double) 0xffffff;
}

static OutputSamples *measure(OutputSpace space, size_t n) {
        OutputSamples *s = calloc(1, sizeof *s);
        assert_se(s);
        s->space = space;
        s->n_channels = space == OUTPUT_SPACE_CMYK ? 4 : 3;
        s->n_samples = n;
        s->device = calloc(n * s->n_channels, sizeof(double));
        s->xyz = calloc(n * 3, sizeof(double));
        s->lab = calloc(n * 3, sizeof(double));
        assert_se(s->device && s->xyz && s->lab);
        for (size_t i = 0; i < n; i++) {
                double *d = s->device + i * s->n_channels;
                for (unsigned c = 0; c < s->n_channels; c++)
                        /* the paper first, then corners and random points */
                        d[c] = i == 0 ? (space == OUTPUT_SPACE_CMYK ? 0.0 : 1.0) : i < 17 ? (double) ((i >> c) & 1) : rnd();
                if (space == OUTPUT_SPACE_CMYK)
                        printer_cmyk(d, s->xyz + 3 * i);
                else
                        printer_rgb(d, s->xyz + 3 * i);
        }
        memcpy(s->white, s->xyz, sizeof s->white);
        s->n_white = 1;
        for (size_t i = 0; i < n; i++)
                output_xyz_to_relative_lab(s->xyz + 3 * i, s->white, s->lab + 3 * i);
        return s;
}

static void transform_freep(cmsHTRANSFORM *t) {
        if (*t)
                cmsDeleteTransform(*t);
}

static void test_cmyk(void) {
        _cleanup_(output_samples_freep) OutputSamples *s = measure(OUTPUT_SPACE_CMYK, 1200);
        _cleanup_free_ uint8_t *icc = NULL;
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, lab = NULL;
        _cleanup_(transform_freep) cmsHTRANSFORM fwd = NULL, back = NULL;
        OutputBuildReport rep;
        const char *reason = NULL;
        size_t len = 0;
        double sum = 0.0, worst = 0.0, rt = 0.0, rt_worst = 0.0, most_ink = 0.0;
        size_t n_rt = 0;

        assert_se(output_build(s, NULL, 2.8, OUTPUT_BLACK_DEFAULT, &icc, &len, &rep, &reason) == 0);
        /* The fit through lcms2 on its own (exact) samples: lcms2 interpolates as we do. */
        printf("cmyk: smoothness %g, self %.4f/%.4f, round trip %.4f/%.4f, black L* %.2f, most ink %.3f\n",
               rep.smoothness, rep.de2000_mean, rep.de2000_max, rep.round_trip_mean, rep.round_trip_max,
               rep.black_lightness, rep.max_ink);
        assert_se(rep.de2000_mean < 0.05);
        assert_se(rep.max_ink <= 2.8 + 1e-9);

        h = cmsOpenProfileFromMem(icc, (cmsUInt32Number) len);
        lab = cmsCreateLab4Profile(NULL);
        assert_se(h && lab);
        assert_se(cmsGetDeviceClass(h) == cmsSigOutputClass && cmsGetColorSpace(h) == cmsSigCmykData &&
                  cmsGetPCS(h) == cmsSigLabData);
        assert_se(cmsIsTag(h, cmsSigGamutTag) && cmsIsTag(h, cmsSigBToA0Tag) && cmsIsTag(h, cmsSigBToA2Tag));
        fwd = cmsCreateTransform(h, TYPE_CMYK_DBL, lab, TYPE_Lab_DBL, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
        back = cmsCreateTransform(lab, TYPE_Lab_DBL, h, TYPE_CMYK_DBL, INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOOPTIMIZE);
        assert_se(fwd && back);

        /* Points the fit never saw. */
        for (unsigned i = 0; i < 400; i++) {
                double d[4], xyz[3], want[3], pct[4], ink = 0.0;
                cmsCIELab got, again;
                for (unsigned c = 0; c < 4; c++) {
                        d[c] = rnd();
                        pct[c] = d[c] * 100.0;
                        ink += d[c];
                }
                printer_cmyk(d, xyz);
                output_xyz_to_relative_lab(xyz, paper, want);
                cmsDoTransform(fwd, pct, &got, 1);
                double e = ciede2000(want, (double[]) { got.L, got.a, got.b });
                sum += e;
                worst = fmax(worst, e);
                if (ink > 2.8)
                        continue;
                cmsCIELab in = { want[0], want[1], want[2] };
                double dev[4];
                cmsDoTransform(back, &in, dev, 1);
                cmsDoTransform(fwd, dev, &again, 1);
                e = ciede2000(want, (double[]) { again.L, again.a, again.b });
                rt += e;
                rt_worst = fmax(rt_worst, e);
                n_rt++;
        }
        printf("cmyk: unseen A2B %.4f/%.4f, round trip %.4f/%.4f (%zu)\n", sum / 400, worst, rt / (double) n_rt,
               rt_worst, n_rt);
        assert_se(sum / 400 < 0.3 && worst < 5.0);
        assert_se(rt / (double) n_rt < 0.5);

        /* The ink limit and black generation, over the PCS: darker neutrals get more black. */
        double k_prev = -1.0;
        for (int l = 95; l >= 15; l -= 10) {
                cmsCIELab grey = { l, 0, 0 };
                double dev[4];
                cmsDoTransform(back, &grey, dev, 1);
                assert_se(dev[3] >= k_prev - 1.0); /* percent; within a point */
                k_prev = dev[3];
        }
        assert_se(k_prev > 50.0);
        for (unsigned i = 0; i < 2000; i++) {
                cmsCIELab in = { 100.0 * rnd(), 200.0 * rnd() - 100.0, 200.0 * rnd() - 100.0 };
                double dev[4];
                cmsDoTransform(back, &in, dev, 1);
                most_ink = fmax(most_ink, dev[0] + dev[1] + dev[2] + dev[3]);
        }
        assert_se(most_ink <= 280.5);

        /* gamt: paper in gamut, a saturated blue far outside any CMYK gamut out. */
        _cleanup_(transform_freep) cmsHTRANSFORM gamut = NULL;
        cmsPipeline *g = cmsReadTag(h, cmsSigGamutTag);
        assert_se(g && cmsPipelineOutputChannels(g) == 1);
        float in_g[3] = { 95.0f / 100.0f, 128.0f / 255.0f, 128.0f / 255.0f }, out_g[1];
        cmsPipelineEvalFloat(in_g, out_g, g);
        assert_se(out_g[0] < 0.01f);
        float blue[3] = { 30.0f / 100.0f, (60.0f + 128.0f) / 255.0f, (-120.0f + 128.0f) / 255.0f };
        cmsPipelineEvalFloat(blue, out_g, g);
        assert_se(out_g[0] > 0.5f);
}

/* The printer itself as an A2B grid (each node its exact colour): black generation alone,
 * without a fit. */
static void exact_lut(unsigned grid, OutputLut *ret) {
        *ret = (OutputLut) { .n_in = 4, .grid = grid, .n_nodes = (size_t) grid * grid * grid * grid };
        ret->node = calloc(ret->n_nodes * 3, sizeof(double));
        assert_se(ret->node);
        for (size_t i = 0; i < ret->n_nodes; i++) {
                double d[4], xyz[3];
                size_t q = i;
                for (unsigned c = 4; c > 0; c--) { /* the first input varies slowest */
                        d[c - 1] = (double) (q % grid) / (grid - 1);
                        q /= grid;
                }
                printer_cmyk(d, xyz);
                output_xyz_to_relative_lab(xyz, paper, ret->node + 3 * i);
        }
}

/* output_lut_slope(), the inversion's Jacobian, against finite differences of
 * output_lut_eval() with three and four inputs: inside a simplex they agree; on a face (a
 * node's plane, two equal fractions) the slope is the one-sided one towards larger values, and
 * at 1, where no step up is left, towards smaller. Its own generator: measure()'s points stay
 * those of the other tests. */
static void test_slope(void) {
        unsigned state = 11, checked = 0;
        OutputLut lut3 = { .n_in = 3, .grid = 5, .n_nodes = 125 }, lut4;
        double worst = 0.0;

        lut3.node = calloc(3 * lut3.n_nodes, sizeof(double));
        assert_se(lut3.node);
        for (size_t i = 0; i < 3 * lut3.n_nodes; i++) {
                state = state * 1103515245u + 12345u;
                lut3.node[i] = 100.0 * ((state >> 8) & 0xffffff) / (double) 0xffffff - 50.0;
        }
        exact_lut(5, &lut4);
        for (unsigned t = 0; t < 400; t++) {
                const OutputLut *l = t % 2 ? &lut4 : &lut3;
                double d[4], slope[4][3], at[3];

                for (unsigned a = 0; a < l->n_in; a++) {
                        state = state * 1103515245u + 12345u;
                        d[a] = ((state >> 8) & 0xffffff) / (double) 0xffffff;
                }
                switch (t / 2 % 4) {
                case 1: /* on a node's plane: 0.25 is node 1 of 5 */
                        d[t / 8 % l->n_in] = 0.25;
                        break;
                case 2: /* two fractions equal: a tie in the tetrahedral walk */
                        d[l->n_in - 1] = d[l->n_in - 2];
                        break;
                case 3: /* the grid's last node, and a tie there too */
                        d[l->n_in - 1] = d[l->n_in - 2] = 1.0;
                        break;
                }
                output_lut_slope(l, d, slope);
                output_lut_eval(l, d, at);
                for (unsigned a = 0; a < l->n_in; a++) {
                        double h = d[a] >= 1.0 ? -1e-7 : 1e-7, dh[4], moved[3];
                        memcpy(dh, d, sizeof dh);
                        dh[a] += h;
                        output_lut_eval(l, dh, moved);
                        for (unsigned c = 0; c < 3; c++) {
                                double fd = (moved[c] - at[c]) / h;
                                worst = fmax(worst, fabs(slope[a][c] - fd) / (1.0 + fabs(fd)));
                                checked++;
                        }
                }
        }
        printf("slope: %u derivatives, worst relative difference from finite differences %.2g\n", checked, worst);
        assert_se(worst < 1e-5);
        free(lut3.node);
        output_lut_done(&lut4);
}

/* --black: on neutrals and dark colours each setting asks for at least the black of the one
 * before (none ≤ light ≤ medium ≤ heavy ≤ max), max much more than none, and every setting
 * reaches the colours as closely (inverse then forward, ΔE2000, in the ink limit). */
static void test_black_generation(void) {
        static const double targets[][3] = {
                { 90, 0, 0 }, { 75, 0, 0 }, { 60, 0, 0 }, { 45, 0, 0 }, { 30, 0, 0 }, { 22, 0, 0 },
                { 40, 10, -20 }, { 35, -15, 5 }, { 30, 20, 15 }, { 50, 5, 30 },
        };
        double k[_OUTPUT_BLACK_N][ELEMENTSOF(targets)], err[_OUTPUT_BLACK_N];
        OutputLut lut;
        OutputBlack b;

        assert_se(output_black_from_string("heavy", &b) == 0 && b == OUTPUT_BLACK_HEAVY);
        assert_se(output_black_from_string("Heavy", &b) == -EINVAL && output_black_from_string(NULL, &b) == -EINVAL);
        assert_se(streq(output_black_to_string(OUTPUT_BLACK_DEFAULT), "medium"));
        exact_lut(9, &lut);
        for (b = 0; b < _OUTPUT_BLACK_N; b++) {
                _cleanup_(output_inverter_freep) OutputInverter *inv = NULL;
                assert_se(output_inverter_new(&lut, OUTPUT_SPACE_CMYK, 3.0, b, &inv) == 0);
                err[b] = 0.0;
                for (size_t i = 0; i < ELEMENTSOF(targets); i++) {
                        double d[4], got[3];
                        output_invert(inv, targets[i], d, NULL);
                        assert_se(d[0] + d[1] + d[2] + d[3] <= 3.0 + 1e-9);
                        output_lut_eval(&lut, d, got);
                        err[b] = fmax(err[b], ciede2000(targets[i], got));
                        k[b][i] = d[3];
                }
                printf("black %-6s: K on L* 90..22 greys %.2f %.2f %.2f %.2f %.2f %.2f, dark colours %.2f %.2f %.2f "
                       "%.2f; worst round trip ΔE00 %.4f\n",
                       output_black_to_string(b), k[b][0], k[b][1], k[b][2], k[b][3], k[b][4], k[b][5], k[b][6],
                       k[b][7], k[b][8], k[b][9], err[b]);
        }
        for (b = 0; b < _OUTPUT_BLACK_N; b++) {
                assert_se(err[b] < 0.05); /* as the default: the black comes second, colour first */
                for (size_t i = 0; b > 0 && i < ELEMENTSOF(targets); i++)
                        assert_se(k[b][i] >= k[b - 1][i] - 0.01);
        }
        /* Mid greys: from no black to most of it. Dark greys need black whatever the setting
         * (CMY alone within 300% do not reach them). */
        for (size_t i = 1; i < 4; i++)
                assert_se(k[OUTPUT_BLACK_NONE][i] < 0.05 && k[OUTPUT_BLACK_MAX][i] > 0.4);
        assert_se(k[OUTPUT_BLACK_NONE][4] > 0.5);
        assert_se(k[OUTPUT_BLACK_LIGHT][2] + 0.1 < k[OUTPUT_BLACK_MEDIUM][2] &&
                  k[OUTPUT_BLACK_MEDIUM][2] + 0.1 < k[OUTPUT_BLACK_HEAVY][2]);
        output_lut_done(&lut);
}

static double hue_of(const double lab[3]) {
        return atan2(lab[2], lab[1]) * (180.0 / M_PI);
}

static double hue_difference(double a, double b) {
        double d = fabs(fmod(a - b, 360.0));
        return d > 180.0 ? 360.0 - d : d;
}

/* The perceptual mapping (B2A0): along each hue line, more chroma in never prints less chroma
 * out, the hue that prints is the one asked for, every mapped colour is printable, and
 * lightness keeps its order from the paper down to the printer's black. Through the whole
 * path: mapping, inversion, and the printer. */
static void test_perceptual_mapping(void) {
        _cleanup_(output_inverter_freep) OutputInverter *inv = NULL;
        double worst_hue = 0.0, worst_back = 0.0, worst_miss = 0.0, prev_l = -1.0;
        OutputLut lut;

        exact_lut(9, &lut);
        assert_se(output_inverter_new(&lut, OUTPUT_SPACE_CMYK, 3.0, OUTPUT_BLACK_DEFAULT, &inv) == 0);
        assert_se(output_inverter_make_boundary(inv) == 0);
        for (double l = 0.0; l <= 100.0; l += 5.0) {
                double m[3];
                output_map_perceptual(inv, (double[]) { l, 0.0, 0.0 }, m);
                assert_se(m[0] >= prev_l && fabs(m[1]) < 1e-9 && fabs(m[2]) < 1e-9);
                prev_l = m[0];
        }
        assert_se(fabs(prev_l - 100.0) < 1e-9);
        for (double l = 30.0; l <= 80.0; l += 25.0)
                for (double h = 0.0; h < 360.0; h += 30.0) {
                        double prev_in = -1.0, prev_out = -1.0;
                        for (double c = 0.0; c <= 150.0; c += 5.0) {
                                double lab[3] = { l, c * cos(h * M_PI / 180.0), c * sin(h * M_PI / 180.0) };
                                double m[3], d[4], got[3], err;
                                output_map_perceptual(inv, lab, m);
                                double cm = hypot(m[1], m[2]);
                                assert_se(cm >= prev_in - 1e-9); /* the mapping itself: monotonic */
                                prev_in = cm;
                                if (c > 0.0)
                                        assert_se(hue_difference(hue_of(m), h) < 1e-6);
                                output_invert(inv, m, d, &err);
                                worst_miss = fmax(worst_miss, err);
                                output_lut_eval(&lut, d, got);
                                double cg = hypot(got[1], got[2]);
                                worst_back = fmax(worst_back, prev_out - cg);
                                prev_out = fmax(prev_out, cg);
                                if (cg > 5.0)
                                        worst_hue = fmax(worst_hue, hue_difference(hue_of(got), h));
                        }
                }
        printf("perceptual: printed hue within %.2f°, chroma never back by more than %.3f, "
               "mapped colours printed within ΔE76 %.3f\n", worst_hue, worst_back, worst_miss);
        /* The boundary is a table of chroma printed within OUTPUT_GAMUT_TOLERANCE, interpolated
         * over L* and hue: where it bends (dark yellows) the interpolation overshoots a little. */
        assert_se(worst_miss < 2.0 * OUTPUT_GAMUT_TOLERANCE);
        assert_se(worst_back < 0.1);
        assert_se(worst_hue < 2.0);
        output_lut_done(&lut);
}

static void test_rgb_v2(void) {
        _cleanup_(output_samples_freep) OutputSamples *s = measure(OUTPUT_SPACE_RGB, 600);
        _cleanup_free_ uint8_t *icc = NULL, *again = NULL;
        ProfileBuildOptions o = { .v2 = true, .description = "RGB printer" };
        OutputBuildReport rep;
        const char *reason = NULL;
        size_t len = 0, len2 = 0;

        assert_se(output_build(s, &o, 0.0, OUTPUT_BLACK_DEFAULT, &icc, &len, &rep, &reason) == 0);
        printf("rgb v2: smoothness %g, self %.4f/%.4f, round trip %.4f/%.4f\n", rep.smoothness, rep.de2000_mean, rep.de2000_max, rep.round_trip_mean,
               rep.round_trip_max);
        assert_se(icc[8] == 2 && icc[9] == 0x40);
        assert_se(memcmp(icc + 12, "prtrRGB Lab ", 12) == 0);
        assert_se(rep.de2000_mean < 0.05 && rep.round_trip_mean < 0.5);
        /* Deterministic. */
        assert_se(output_build(s, &o, 0.0, OUTPUT_BLACK_DEFAULT, &again, &len2, NULL, &reason) == 0);
        assert_se(len == len2 && memcmp(icc, again, len) == 0);
}

static void refuse(const char *text, const char *message) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        _cleanup_(output_samples_freep) OutputSamples *s = NULL;
        _cleanup_free_ char *error = NULL;

        assert_se(cgats_parse(text, strlen(text), &c, &error) == 0);
        assert_se(output_samples_from_cgats(c, &s, &error) == -EINVAL);
        if (!strstr(error, message)) {
                fprintf(stderr, "%s: want \"%s\"\n", error, message);
                abort();
        }
        assert_se(!s);
}

#define HEAD "CTI3\nDEVICE_CLASS \"OUTPUT\"\nCOLOR_REP \"CMYK_XYZ\"\nNUMBER_OF_FIELDS 8\nBEGIN_DATA_FORMAT\n" \
             "SAMPLE_ID CMYK_C CMYK_M CMYK_Y CMYK_K XYZ_X XYZ_Y XYZ_Z\nEND_DATA_FORMAT\nNUMBER_OF_SETS 2\nBEGIN_DATA\n"

static void test_refusals(void) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        _cleanup_(output_samples_freep) OutputSamples *s = NULL;
        _cleanup_free_ char *error = NULL;
        const char *good = HEAD "1 0 0 0 0 88 91 76\n2 100 0 0 0 20 60 70\nEND_DATA\n";

        assert_se(cgats_parse(good, strlen(good), &c, &error) == 0);
        assert_se(streq(cgats_device_class(c), "OUTPUT"));
        assert_se(output_samples_from_cgats(c, &s, &error) == 0);
        assert_se(s->n_samples == 2 && s->n_white == 1 && fabs(s->white[1] - 0.91) < 1e-12);
        assert_se(fabs(s->lab[0] - 100.0) < 1e-9 && fabs(s->lab[1]) < 1e-9 && fabs(s->lab[2]) < 1e-9); /* paper: L* 100 */

        refuse(HEAD "1 0 0 0 0 88 91 76\n2 100 0 0 0 20 -60 70\nEND_DATA\n", "line 11: XYZ_Y -60 is negative");
        refuse(HEAD "1 0 0 0 0 88 91 76\n2 100 -1 0 0 20 60 70\nEND_DATA\n", "CMYK_M -1 is negative");
        refuse(HEAD "1 0 0 0 0 88 91 76\n2 100 0 0 0 20 nan 70\nEND_DATA\n", "XYZ_Y \"nan\" is not a finite number");
        refuse(HEAD "1 5 0 0 0 88 91 76\n2 100 0 0 0 20 60 70\nEND_DATA\n", "no paper white");
        refuse(HEAD "1 0 0 0 0 0 0 0\n2 100 0 0 0 20 60 70\nEND_DATA\n", "not a white");
}

/* A display verified against its own profile: readings made from the profile's own
 * prediction (un-adapted with the inverse of its 'chad'), then a white 3% bluer. */
static void test_display_verify(void) {
        _cleanup_(profile_closep) cmsHPROFILE srgb = cmsCreate_sRGBProfile();
        _cleanup_free_ uint8_t *icc = NULL;
        _cleanup_free_ DisplayVerify *v = calloc(1, sizeof *v);
        const char *reason = NULL;
        size_t len = 0;
        double inv[9];

        assert_se(srgb && v);
        assert_se(icc_save_to_mem(srgb, &icc, &len) >= 0);
        assert_se(display_verify_prepare(icc, len, v, &reason) == 0);
        assert_se(v->n == display_verify_n_patches() && v->n == 27);
        assert_se(streq(v->patches[0].name, "white") && v->patches[0].rgb[1] == 1.0);
        assert_se(mat3_invert(v->adapt, inv) == 0);
        for (size_t i = 0; i < v->n; i++) {
                double fy = (v->patches[i].expected_lab[0] + 16.0) / 116.0;
                double f[3] = { fy + v->patches[i].expected_lab[1] / 500.0, fy, fy - v->patches[i].expected_lab[2] / 200.0 };
                double d50[3];
                for (size_t c = 0; c < 3; c++)
                        d50[c] = profile_fit_d50[c] * (f[c] > 6.0 / 29.0 ? f[c] * f[c] * f[c]
                                                                            : 3.0 * 36.0 / 841.0 * (f[c] - 4.0 / 29.0));
                for (size_t c = 0; c < 3; c++) /* in cd/m²: the scale must not matter */
                        v->patches[i].measured_xyz[c] = 120.0 * (inv[3 * c] * d50[0] + inv[3 * c + 1] * d50[1] +
                                                                 inv[3 * c + 2] * d50[2]);
        }
        assert_se(display_verify_compare(v, &reason) == 0);
        printf("verify against itself: mean %.5f max %.5f\n", v->mean, v->max);
        assert_se(v->max < 0.01);
        for (size_t i = 0; i < v->n; i++)
                v->patches[i].measured_xyz[2] *= 1.03;
        assert_se(display_verify_compare(v, &reason) == 0);
        assert_se(v->patches[0].de2000 > 1.0 && v->mean > 0.5);

        DisplayVerifyRecord rec;
        display_verify_record(v, DISPLAY_VERIFY_PROFILED, "p1", 1764892800 /* 2025-12-05 */, &rec);
        /* the date last: it makes the daemon record the result (verify-keys.h) */
        assert_se(streq(rec.keys[0], "TINCT_profiled_dE2000_mean") && streq(rec.keys[4], "TINCT_profiled_date"));
        assert_se(streq(rec.values[4], "2025-12-05T00:00:00Z") && streq(rec.values[2], "p1") && streq(rec.values[3], "27"));

        for (size_t i = 0; i < v->n; i++)
                v->patches[i].measured_xyz[1] = 0.0;
        assert_se(display_verify_compare(v, &reason) == -EINVAL && strstr(reason, "white"));

        uint8_t c[3];
        display_verify_lab_to_srgb8((double[]) { 100.0, 0.0, 0.0 }, c);
        assert_se(c[0] == 255 && c[1] == 255 && c[2] == 255);
}

#ifdef __SANITIZE_ADDRESS__
#define ADDRESS_SANITIZER true
#else
#define ADDRESS_SANITIZER false
#endif

int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        test_refusals();
        test_slope();
        test_display_verify();
        test_black_generation();
        test_perceptual_mapping();
        /* The two whole builds: under AddressSanitizer (run-tests' sanitizer pass, where they
         * cost a minute and a half of CPU) they would take output_build()'s code paths a
         * second time, which tests/cli/test-printer-profile.py's CMYK (v4, ink limit) and RGB
         * (v2) builds take in that pass already; their figures are the plain build's. */
        if (!ADDRESS_SANITIZER) {
                test_rgb_v2();
                test_cmyk();
        }
        return 0;
}
