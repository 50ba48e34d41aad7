/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the input-profile pieces: .cht layouts (every one argyll-ref installs, when
 * it is installed, and hostile ones), reference files, the ColorChecker editions, the
 * homography, TIFF and PNG reading (files written here with libtiff and libpng, truncated
 * ones), chart finding on a synthetic image, and the input fit and profile on a synthetic
 * device (exact data: the model must come back; a nonlinear device: the LUT must win by
 * cross-validation). */
#include <dirent.h>
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

#include "chart-find.h"
#include "chart-ref.h"
#include "chart-sample.h"
#include "cht.h"
#include "image-read.h"
#include "input-build.h"
#include "input-fit.h"
#include "input-icc.h"
#include "strv.h"
#include "tests.h"

static const char cc_cht[] =
        "\nBOXES 25\n"
        "  F _ _ 10.0 9.75  321.25  9.75   321.26  217  10.0 217\n"
        "  D ALL ALL _ _ 330 228  0 0  0 0\n"
        "  Y 1 6 A D  46.0 46.0    12.0  11.5  52.5  52.5\n"
        "\nBOX_SHRINK 6.0\n\nREF_ROTATION 0.0\n\nXLIST 2\n  12.0 1.0 1.0\n  58.5 1.0 1.0\n"
        "\nEXPECTED XYZ 1\n  A1 11.773 10.213 4.9219\n";

static void test_cht(void) {
        Cht *c = NULL;
        char *err = NULL;

        assert_se(cht_parse(cc_cht, strlen(cc_cht), &c, &err) == 0);
        assert_se(c->n_patches == 24 && c->has_fiducials && c->shrink == 6.0);
        assert_streq(c->patches[0].name, "A1");
        assert_streq(c->patches[23].name, "D6");
        assert_se(c->patches[7].x == 12.0 + 52.5 && c->patches[7].y == 11.5 + 52.5); /* B2 */
        assert_se(cht_find_patch(c, "a01") == 0 && cht_find_patch(c, "D06") == 23 && cht_find_patch(c, "E1") < 0);
        cht_free(c);

        /* X: x label first; multi-character odometer labels */
        const char *x = "BOXES 6\n X 2Y 3A 1 2 10 10 0 0 10 10\n";
        assert_se(cht_parse(x, strlen(x), &c, &err) == 0);
        assert_se(c->n_patches == 6 && !c->has_fiducials);
        assert_streq(c->patches[1].name, "2Z1");
        assert_streq(c->patches[2].name, "3A1");
        assert_streq(c->patches[5].name, "3A2");
        assert_se(c->corners[4] == 30 && c->corners[5] == 20);
        cht_free(c);

        const char *bad[] = {
                "BOXES 3\n Y 1 2 A A 10 10 0 0 10 10\n",                        /* count disagrees */
                "BOXES 1\n Q 1 1 A A 10 10 0 0 10 10\n BOX_SHRINK 1\n",          /* unknown kind ends BOXES */
                "BOXES 1\n Y 1 1 A A 10 10 0 0 10 10\nBOX_SHRINK 5\n",           /* nothing left */
                "BOXES 1\n Y 1 1 A A 10 nan 0 0 10 10\n",                       /* not a number */
                "BOXES 1\n Y 1 1 A A -1 10 0 0 10 10\n",                        /* negative size */
                "BOXES 1\n Y 1 9999999999999999 A A 1 1 0 0 1 1\n",              /* label range too long */
                "BOXES 1\n Y 9 1 A A 1 1 0 0 1 1\n",                            /* never reaches the end */
                "BOX_SHRINK 1\n",                                                /* no boxes */
                "BOXES 1\n Y 1 1 A A 10 10 0 0 10 10\nBOXES 1\n",                /* two BOXES */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                c = NULL;
                err = NULL;
                int r = cht_parse(bad[i], strlen(bad[i]), &c, &err);
                if (r >= 0)
                        fprintf(stderr, "accepted: %s", bad[i]);
                assert_se(r < 0 && !c && err);
                free(err);
        }
        assert_se(cht_names_equal("GS01", "gs1") && !cht_names_equal("A1", "A10") && !cht_names_equal("A", "A1"));

        /* every layout argyll-ref installs parses (scanin's own files) */
        DIR *d = opendir("/usr/share/color/argyll/ref");
        size_t n_files = 0;
        for (struct dirent *de; d && (de = readdir(d));) {
                size_t l = strlen(de->d_name);
                if (l < 5 || strcmp(de->d_name + l - 4, ".cht") != 0)
                        continue;
                char path[512];
                snprintf(path, sizeof path, "/usr/share/color/argyll/ref/%s", de->d_name);
                FILE *f = fopen(path, "re");
                assert_se(f);
                char *buf = calloc(1, CHT_MAX_SIZE);
                size_t len = fread(buf, 1, CHT_MAX_SIZE, f);
                fclose(f);
                err = NULL;
                c = NULL;
                int r = cht_parse(buf, len, &c, &err);
                if (r < 0)
                        fprintf(stderr, "%s: %s\n", de->d_name, err);
                assert_se(r == 0 && c->n_patches >= 20);
                cht_free(c);
                free(buf);
                n_files++;
        }
        if (d)
                closedir(d);
        printf("cht: %zu argyll-ref layouts parsed\n", n_files);
}

static void test_reference(void) {
        const char lab[] = "IT8.7/2\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L LAB_A LAB_B\n"
                           "END_DATA_FORMAT\nNUMBER_OF_SETS 2\nBEGIN_DATA\nA01 50 0 0\nA02 100 0 0\nEND_DATA\n";
        const char xyz[] = "CTI3\nNUMBER_OF_FIELDS 5\nBEGIN_DATA_FORMAT\nSAMPLE_ID SAMPLE_LOC XYZ_X XYZ_Y XYZ_Z\n"
                           "END_DATA_FORMAT\nNUMBER_OF_SETS 1\nBEGIN_DATA\n1 \"B3\" 20 21.5 17\nEND_DATA\n";
        const char nolab[] = "CTI3\nNUMBER_OF_FIELDS 2\nBEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L\nEND_DATA_FORMAT\n"
                             "NUMBER_OF_SETS 1\nBEGIN_DATA\n1 50\nEND_DATA\n";
        ChartRef *r = NULL;
        char *err = NULL;

        assert_se(chart_ref_parse(lab, strlen(lab), &r, &err) == 0);
        assert_se(r->n == 2);
        assert_streq(r->names[1], "A02");
        assert_se(fabs(r->xyz[1][0] - 0.9642) < 1e-3 && fabs(r->xyz[1][1] - 1.0) < 1e-9);
        assert_se(fabs(r->xyz[0][1] - 0.18419) < 1e-4); /* L* 50 */
        chart_ref_free(r);
        assert_se(chart_ref_parse(xyz, strlen(xyz), &r, &err) == 0);
        assert_streq(r->names[0], "B3");
        assert_se(fabs(r->xyz[0][1] - 0.215) < 1e-9);
        chart_ref_free(r);
        r = NULL;
        assert_se(chart_ref_parse(nolab, strlen(nolab), &r, &err) == -EINVAL && !r && err);
        free(err);

        /* each edition is recognised as itself; a random chart as neither */
        for (ColorCheckerEdition e = COLORCHECKER_PRE_2014; e <= COLORCHECKER_POST_2014; e++) {
                double l[24][3];
                for (size_t i = 0; i < 24; i++) {
                        double x[3];
                        colorchecker_xyz(e, i, x);
                        xyz_to_lab_d50(x, l[i]);
                }
                assert_se(colorchecker_edition((const double(*)[3]) l, 24) == e);
                l[0][1] += 40;
                l[5][2] -= 40;
                l[9][0] += 30;
                l[18][1] += 50;
                assert_se(colorchecker_edition((const double(*)[3]) l, 24) == COLORCHECKER_NONE);
        }
}

static void test_homography(void) {
        const double src[8] = { 0, 0, 100, 0, 100, 50, 0, 50 }, dst[8] = { 10, 20, 205, 35, 190, 140, 5, 120 };
        double h[9], x, y;

        assert_se(homography_from_corners(src, dst, h) == 0);
        for (size_t i = 0; i < 4; i++) {
                homography_apply(h, src[2 * i], src[2 * i + 1], &x, &y);
                assert_se(fabs(x - dst[2 * i]) < 1e-9 && fabs(y - dst[2 * i + 1]) < 1e-9);
        }
        const double line[8] = { 0, 0, 1, 1, 2, 2, 3, 3 };
        assert_se(homography_from_corners(line, dst, h) == -EINVAL);
}

/* --- images --- */

static void write_tiff(const char *path, unsigned w, unsigned h, unsigned bits, const uint16_t *rgb) {
        TIFF *t = TIFFOpen(path, "w");
        assert_se(t);
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
        TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        uint8_t *row = malloc((size_t) w * 6);
        for (unsigned y = 0; y < h; y++) {
                for (unsigned i = 0; i < w * 3; i++) {
                        uint16_t v = rgb[(size_t) y * w * 3 + i];
                        if (bits == 8)
                                row[i] = (uint8_t) (v >> 8);
                        else
                                ((uint16_t *) row)[i] = v;
                }
                assert_se(TIFFWriteScanline(t, row, y, 0) == 1);
        }
        free(row);
        TIFFClose(t);
}

static void write_png(const char *path, unsigned w, unsigned h, unsigned bits, const uint16_t *rgb) {
        FILE *f = fopen(path, "wbe");
        png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
        png_infop info = png_create_info_struct(p);
        uint8_t *row = malloc((size_t) w * 6);

        assert_se(f && p && info && row);
        png_init_io(p, f);
        png_set_IHDR(p, info, w, h, (int) bits, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                     PNG_FILTER_TYPE_DEFAULT);
        png_write_info(p, info);
        for (unsigned y = 0; y < h; y++) {
                for (unsigned i = 0; i < w * 3; i++) {
                        uint16_t v = rgb[(size_t) y * w * 3 + i];
                        if (bits == 8)
                                row[i] = (uint8_t) (v >> 8);
                        else {
                                row[2 * i] = (uint8_t) (v >> 8);
                                row[2 * i + 1] = (uint8_t) v;
                        }
                }
                png_write_row(p, row);
        }
        png_write_end(p, NULL);
        png_destroy_write_struct(&p, &info);
        free(row);
        fclose(f);
}

static void truncate_file(const char *path) {
        FILE *f = fopen(path, "r+e");
        assert_se(f && fseek(f, 0, SEEK_END) == 0);
        long n = ftell(f);
        assert_se(ftruncate(fileno(f), n / 2) == 0);
        fclose(f);
}

/* A ColorChecker-like chart: 6 × 4 patches, each a distinct grey-ish colour, on a dark
 * base, turned by 5° and scaled into a 400 × 300 image on a lighter background. */
static uint16_t *synthetic_chart(const Cht *c, const double (*colour)[3], unsigned w, unsigned h, double ret_h[9],
                                 int glare) {
        const double img[8] = { 60, 40, 350, 65, 332, 262, 42, 237 };
        double inv[9];
        uint16_t *rgb = calloc((size_t) w * h * 3, sizeof(uint16_t));

        assert_se(homography_from_corners(c->corners, img, ret_h) == 0);
        assert_se(homography_from_corners(img, c->corners, inv) == 0);
        for (unsigned y = 0; y < h; y++)
                for (unsigned x = 0; x < w; x++) {
                        double u, v, px[3] = { 0.5, 0.45, 0.4 };
                        homography_apply(inv, x + 0.5, y + 0.5, &u, &v);
                        if (u >= c->corners[0] && u <= c->corners[2] && v >= c->corners[1] && v <= c->corners[5])
                                px[0] = px[1] = px[2] = 0.04;
                        for (size_t i = 0; i < c->n_patches; i++) {
                                const ChtPatch *p = &c->patches[i];
                                if (u >= p->x && u < p->x + p->w && v >= p->y && v < p->y + p->h) {
                                        memcpy(px, colour[i], sizeof px);
                                        if ((int) i == glare) /* 20 % brighter on the right */
                                                for (size_t k = 0; k < 3; k++)
                                                        px[k] *= 1.0 + 0.2 * (u - p->x) / p->w;
                                }
                        }
                        for (unsigned k = 0; k < 3; k++)
                                rgb[((size_t) y * w + x) * 3 + k] = (uint16_t) lround(px[k] * 65535);
                }
        return rgb;
}

static void test_images_and_finding(void) {
        char dir[] = "/tmp/test-chart-XXXXXX", path[256];
        Cht *c = NULL;
        char *err = NULL;
        double colour[24][3], lightness[24], h[9];
        const unsigned w = 400, ht = 300;

        assert_se(mkdtemp(dir));
        assert_se(cht_parse(cc_cht, strlen(cc_cht), &c, &err) == 0);
        for (size_t i = 0; i < 24; i++) {
                double g = 0.1 + 0.8 * ((i * 7) % 24) / 23.0;
                colour[i][0] = g * (0.8 + 0.2 * (i % 3 == 0));
                colour[i][1] = g;
                colour[i][2] = g * (0.8 + 0.2 * (i % 2));
                lightness[i] = 100 * cbrt(g);
        }
        uint16_t *rgb = synthetic_chart(c, (const double(*)[3]) colour, w, ht, h, -1);

        for (unsigned kind = 0; kind < 4; kind++) {
                Image *img = NULL;
                unsigned bits = kind % 2 ? 16 : 8;
                snprintf(path, sizeof path, "%s/chart-%u.%s", dir, bits, kind < 2 ? "tif" : "png");
                if (kind < 2)
                        write_tiff(path, w, ht, bits, rgb);
                else
                        write_png(path, w, ht, bits, rgb);
                err = NULL;
                assert_se(image_read(path, &img, &err) == 0);
                assert_se(img->width == w && img->height == ht && img->bits == bits && !img->icc);
                size_t i = ((size_t) 150 * w + 200) * 3;
                assert_se(bits == 16 ? img->rgb[i] == rgb[i] : img->rgb[i] == (rgb[i] >> 8) * 257u);

                ChartPlacement pl;
                PatchSample ps[24];
                assert_se(chart_find(img, c, lightness, NULL, &pl) == 0);
                assert_se(pl.found && pl.correlation > 0.95);
                for (size_t k = 0; k < 8; k++) {
                        double x, y;
                        homography_apply(h, c->corners[2 * (k / 2)], c->corners[2 * (k / 2) + 1], &x, &y);
                        assert_se(fabs(pl.corners[k] - (k % 2 ? y : x)) < 3.0);
                }
                assert_se(chart_sample(img, c, pl.h, ps) == 0);
                for (size_t p = 0; p < 24; p++)
                        for (size_t k = 0; k < 3; k++)
                                assert_se(fabs(ps[p].rgb[k] - colour[p][k]) < 0.005 && !ps[p].uneven);
                image_free(img);

                truncate_file(path);
                img = NULL;
                err = NULL;
                assert_se(image_read(path, &img, &err) == -EINVAL && !img && strstr(err, "truncated"));
                free(err);
                unlink(path);
        }
        /* glare on one patch: flagged uneven, the others not */
        free(rgb);
        rgb = synthetic_chart(c, (const double(*)[3]) colour, w, ht, h, 9);
        {
                Image *img = NULL;
                PatchSample ps[24];
                snprintf(path, sizeof path, "%s/glare.tif", dir);
                write_tiff(path, w, ht, 16, rgb);
                err = NULL;
                assert_se(image_read(path, &img, &err) == 0);
                assert_se(chart_sample(img, c, h, ps) == 0);
                for (size_t p = 0; p < 24; p++)
                        assert_se(ps[p].uneven == (p == 9) && !ps[p].clipped_high && !ps[p].clipped_low);
                image_free(img);
                unlink(path);
        }

        /* neither format; missing */
        snprintf(path, sizeof path, "%s/text.tif", dir);
        FILE *f = fopen(path, "we");
        fputs("hello, not an image\n", f);
        fclose(f);
        Image *img = NULL;
        err = NULL;
        assert_se(image_read(path, &img, &err) == -EINVAL && strstr(err, "neither"));
        free(err);
        unlink(path);
        err = NULL;
        assert_se(image_read("/nonexistent/x.tif", &img, &err) == -ENOENT);
        free(err);
        free(rgb);
        cht_free(c);
        assert_se(rmdir(dir) == 0);
}

/* --- fit and profile --- */

static void device(const double rgb[3], bool nonlinear, double xyz[3]) {
        static const double m[9] = { 0.60, 0.25, 0.10, 0.28, 0.68, 0.04, 0.02, 0.12, 0.70 };
        double t[3];
        for (size_t c = 0; c < 3; c++)
                t[c] = pow(rgb[c], 2.2);
        if (nonlinear) { /* crosstalk no matrix can follow */
                t[0] += 0.15 * t[1] * (1 - t[1]) * t[2];
                t[2] *= 1 - 0.2 * t[0] * t[1];
        }
        for (size_t k = 0; k < 3; k++)
                xyz[k] = (m[3 * k] * t[0] + m[3 * k + 1] * t[1] + m[3 * k + 2] * t[2]) * 0.95;
}

static void test_fit(void) {
        InputSample s[343];
        InputFit *f = calloc(1, sizeof *f);
        const char *reason = NULL;
        size_t n = 0;

        for (unsigned i = 0; i < 24; i++) {
                s[i].rgb[0] = 0.05 + 0.9 * ((i * 5) % 24) / 23.0;
                s[i].rgb[1] = 0.05 + 0.9 * ((i * 11) % 24) / 23.0;
                s[i].rgb[2] = 0.05 + 0.9 * ((i * 17) % 24) / 23.0;
                device(s[i].rgb, false, s[i].xyz);
        }
        assert_se(input_fit(s, 24, INPUT_MODEL_AUTO, f, &reason) == 0);
        printf("fit: exact 24 patches: self %.4f cv %.4f\n", f->self_mean, f->cv_mean);
        assert_se(f->model == INPUT_MODEL_MATRIX && f->lut_too_sparse && isnan(f->cv_lut_mean));
        assert_se(f->self_mean < 0.05 && f->cv_mean < 0.1);
        assert_se(input_fit(s, 24, INPUT_MODEL_LUT, f, &reason) == -EINVAL && strstr(reason, "sparse"));
        assert_se(input_fit(s, 11, INPUT_MODEL_AUTO, f, &reason) == -EINVAL);

        uint8_t *icc = NULL;
        size_t len = 0;
        double mean, max;
        InputIccOptions o = { .v2 = true, .chart = "test.cht", .reference = "test.cie" };
        assert_se(input_fit(s, 24, INPUT_MODEL_MATRIX, f, &reason) == 0);
        assert_se(input_icc_build(f, s, 24, &o, &icc, &len, &mean, &max, &reason) == 0);
        assert_se(icc[8] == 2 && memcmp(icc + 12, "scnr", 4) == 0 && fabs(mean - f->self_mean) < 0.02);
        free(icc);

        for (unsigned r = 0; r < 7; r++)
                for (unsigned g = 0; g < 7; g++)
                        for (unsigned b = 0; b < 7; b++, n++) {
                                double v[3] = { r / 6.0, g / 6.0, b / 6.0 };
                                for (size_t k = 0; k < 3; k++)
                                        s[n].rgb[k] = 0.02 + 0.96 * v[k];
                                device(s[n].rgb, true, s[n].xyz);
                        }
        assert_se(input_fit(s, n, INPUT_MODEL_AUTO, f, &reason) == 0);
        printf("fit: nonlinear 343 patches: matrix cv %.3f, LUT cv %.3f, self %.3f\n", f->cv_matrix_mean,
               f->cv_lut_mean, f->self_mean);
        assert_se(f->model == INPUT_MODEL_LUT && f->cv_lut_mean < 0.7 * f->cv_matrix_mean);
        o.v2 = false;
        assert_se(input_icc_build(f, s, n, &o, &icc, &len, &mean, &max, &reason) == 0);
        printf("fit: LUT profile through lcms2: self %.3f (model %.3f)\n", mean, f->self_mean);
        assert_se(icc[8] == 4 && fabs(mean - f->self_mean) < 0.05);
        o.v2 = true;
        uint8_t *v2 = NULL;
        assert_se(input_icc_build(f, s, n, &o, &v2, &len, &mean, &max, &reason) == -EINVAL && strstr(reason, "v4"));
        free(icc);
        free(f);
}

/* --- the whole pipeline (input-build.c) on files --- */

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");
        assert_se(f);
        fputs(text, f);
        assert_se(fclose(f) == 0);
}

/* A reference of the first n patches: XYZ = device(colour), as a chart's vendor measured it. */
static char *reference_text(const Cht *c, const double (*colour)[3], size_t n) {
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);

        assert_se(m);
        fprintf(m, "CTI3\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nSAMPLE_ID XYZ_X XYZ_Y XYZ_Z\nEND_DATA_FORMAT\n"
                   "NUMBER_OF_SETS %zu\nBEGIN_DATA\n", n);
        for (size_t i = 0; i < n; i++) {
                double xyz[3];
                device(colour[i], false, xyz);
                fprintf(m, "%s %.5f %.5f %.5f\n", c->patches[i].name, 100 * xyz[0], 100 * xyz[1], 100 * xyz[2]);
        }
        fputs("END_DATA\n", m);
        assert_se(fclose(m) == 0);
        return text;
}

static void test_input_build(void) {
        char dir[] = "/tmp/test-input-build-XXXXXX", chart[256], ref[256], short_ref[256], image[256], blank[256];
        double colour[24][3], h[9];
        const unsigned w = 400, ht = 300;
        InputBuildResult res;
        Cht *c = NULL;
        char *err = NULL, *text;

        assert_se(mkdtemp(dir));
        assert_se(cht_parse(cc_cht, strlen(cc_cht), &c, &err) == 0);
        for (size_t i = 0; i < 24; i++) {
                colour[i][0] = 0.05 + 0.9 * (double) ((i * 7) % 24) / 23.0;
                colour[i][1] = 0.05 + 0.9 * (double) ((i * 11) % 24) / 23.0;
                colour[i][2] = 0.05 + 0.9 * (double) ((i * 5) % 24) / 23.0;
        }
        snprintf(chart, sizeof chart, "%s/cc.cht", dir);
        snprintf(ref, sizeof ref, "%s/cc.cie", dir);
        snprintf(short_ref, sizeof short_ref, "%s/short.cie", dir);
        snprintf(image, sizeof image, "%s/cc.tif", dir);
        snprintf(blank, sizeof blank, "%s/blank.tif", dir);
        write_text(chart, cc_cht);
        text = reference_text(c, (const double(*)[3]) colour, 24);
        write_text(ref, text);
        free(text);
        text = reference_text(c, (const double(*)[3]) colour, 23);
        write_text(short_ref, text);
        free(text);
        uint16_t *rgb = synthetic_chart(c, (const double(*)[3]) colour, w, ht, h, -1);
        write_tiff(image, w, ht, 16, rgb);
        for (size_t i = 0; i < (size_t) w * ht * 3; i++)
                rgb[i] = 30000;
        write_tiff(blank, w, ht, 16, rgb);
        free(rgb);

        InputBuildRequest req = { .image = image, .chart = chart, .reference = ref, .cmf_binary = "test" };
        assert_se(input_build(&req, &res) == 0);
        assert_se(res.icc && res.icc_len > 128 && memcmp(res.icc + 12, "scnr", 4) == 0 && !res.error);
        assert_se(res.place.found && res.n_patches == 24 && res.n_used == 24 && strv_isempty(res.warnings));
        assert_se(res.fit.model == INPUT_MODEL_MATRIX && res.fit.lut_too_sparse && res.fit.cv_mean < 1.0);
        printf("input_build: cv %.3f self %.3f\n", res.fit.cv_mean, res.self_mean);
        input_build_result_done(&res);

        /* refusals: an errno, a sentence naming the file, no profile */
        req.model = INPUT_MODEL_LUT;
        req.v2 = true;
        assert_se(input_build(&req, &res) == -EINVAL && strstr(res.error, "needs ICC v4") && !res.icc);
        input_build_result_done(&res);
        req = (InputBuildRequest) { .image = image, .chart = chart, .reference = short_ref };
        assert_se(input_build(&req, &res) == -EINVAL && !res.icc);
        assert_se(strncmp(res.error, short_ref, strlen(short_ref)) == 0 && strstr(res.error, "not this chart's"));
        input_build_result_done(&res);
        req = (InputBuildRequest) { .image = blank, .chart = chart, .reference = ref };
        assert_se(input_build(&req, &res) == -ENOENT && !res.icc);
        assert_se(strncmp(res.error, blank, strlen(blank)) == 0 && strstr(res.error, "was not found"));
        input_build_result_done(&res);
        req = (InputBuildRequest) { .image = image, .chart = "/nonexistent/cc.cht", .reference = ref };
        assert_se(input_build(&req, &res) == -ENOENT && strstr(res.error, "/nonexistent/cc.cht: cannot read"));
        input_build_result_done(&res);

        unlink(chart);
        unlink(ref);
        unlink(short_ref);
        unlink(image);
        unlink(blank);
        cht_free(c);
        assert_se(rmdir(dir) == 0);
}

int main(void) {
        test_cht();
        test_reference();
        test_homography();
        test_images_and_finding();
        test_fit();
        test_input_build();
        return 0;
}
