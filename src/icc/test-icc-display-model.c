/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test of icc-display-model.c on corpus profiles: white has Y = 1, a matrix/shaper
 * display is additive (R + G + B = white), the primaries' chromaticities are those
 * icc_rgb_primaries() reads for a profile with 'chad', a v2 profile without 'chad' emits
 * its 'wtpt' white, black is dark, a LUT profile reads as well, and what is not an RGB
 * profile is refused. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fileio.h"
#include "icc-display-model.h"
#include "icc-primaries.h"
#include "tests.h"

#ifndef ICC_CORPUS_DIR
#error "ICC_CORPUS_DIR must point at corpus/icc"
#endif

static uint8_t *load(const char *name, size_t *ret_size) {
        char path[4096];
        uint8_t *buf = NULL;
        snprintf(path, sizeof path, "%s/%s", ICC_CORPUS_DIR, name);
        if (read_file_capped(path, 64u * 1024 * 1024, 0, &buf, ret_size, NULL) < 0 || *ret_size == 0) {
                fprintf(stderr, "cannot read %s\n", path);
                abort();
        }
        return buf;
}

static IccDisplayModel *model_of(const char *name, uint8_t **ret_data, size_t *ret_size) {
        IccDisplayModel *m = NULL;
        *ret_data = load(name, ret_size);
        assert_se(icc_display_model_new(*ret_data, *ret_size, &m, NULL) == 0);
        return m;
}

static void test_additive_white(const char *name) {
        uint8_t *data;
        size_t size;
        _cleanup_(icc_display_model_freep) IccDisplayModel *m = model_of(name, &data, &size);
        double w[3], sum[3] = { 0 }, k[3];
        icc_display_model_xyz(m, (double[3]) { 1, 1, 1 }, w);
        assert_se(fabs(w[1] - 1) < 1e-9);
        for (int i = 0; i < 3; i++) {
                double rgb[3] = { i == 0, i == 1, i == 2 }, v[3];
                icc_display_model_xyz(m, rgb, v);
                for (int c = 0; c < 3; c++)
                        sum[c] += v[c];
        }
        for (int c = 0; c < 3; c++)
                assert_se(fabs(sum[c] - w[c]) < 2e-3);
        icc_display_model_xyz(m, (double[3]) { 0, 0, 0 }, k);
        assert_se(k[1] < 0.01);
        /* out-of-range input is clamped */
        double c[3];
        icc_display_model_xyz(m, (double[3]) { 2, 7, NAN }, c);
        icc_display_model_xyz(m, (double[3]) { 1, 1, 0 }, k);
        for (int i = 0; i < 3; i++)
                assert_se(fabs(c[i] - k[i]) < 1e-12);
        fprintf(stderr, "%s: white %.4f %.4f %.4f\n", name, w[0], w[1], w[2]);
        free(data);
}

static void test_primaries_with_chad(const char *name) {
        uint8_t *data;
        size_t size;
        _cleanup_(icc_display_model_freep) IccDisplayModel *m = model_of(name, &data, &size);
        double xy[3][2];
        assert_se(icc_rgb_primaries(data, size, xy, NULL) == 0);
        for (int i = 0; i < 3; i++) {
                double rgb[3] = { i == 0, i == 1, i == 2 }, v[3];
                icc_display_model_xyz(m, rgb, v);
                double s = v[0] + v[1] + v[2];
                assert_se(fabs(v[0] / s - xy[i][0]) < 1e-6 && fabs(v[1] / s - xy[i][1]) < 1e-6);
        }
        free(data);
}

/* Argyll's v2 reference profiles have no 'chad': their white is the D65 of 'wtpt'. */
static void test_v2_white_point(void) {
        uint8_t *data;
        size_t size;
        _cleanup_(icc_display_model_freep) IccDisplayModel *m = model_of("argyll-ref--sRGB.icm", &data, &size);
        double w[3];
        icc_display_model_xyz(m, (double[3]) { 1, 1, 1 }, w);
        double s = w[0] + w[1] + w[2];
        fprintf(stderr, "sRGB white xy %.4f %.4f, lumi %.1f\n", w[0] / s, w[1] / s, icc_display_model_luminance(m));
        assert_se(fabs(w[0] / s - 0.3127) < 0.001 && fabs(w[1] / s - 0.3290) < 0.001);
        assert_se(icc_display_model_luminance(m) > 0);
        free(data);
}

/* A LUT profile (A2B tags) goes through lcms2 the same way: white Y = 1, greys increase. */
static void test_lut_profile(void) {
        uint8_t *data;
        size_t size;
        _cleanup_(icc_display_model_freep) IccDisplayModel *m =
                model_of("displaycal--SMPTE431_P3_D65_HLG1000_cLUT.icm", &data, &size);
        double prev = -1, v[3];
        for (int i = 0; i <= 10; i++) {
                double g = i / 10.0;
                icc_display_model_xyz(m, (double[3]) { g, g, g }, v);
                assert_se(v[1] > prev);
                prev = v[1];
        }
        assert_se(fabs(prev - 1) < 1e-9);
        fprintf(stderr, "cLUT profile: lumi %.1f\n", icc_display_model_luminance(m));
        assert_se(icc_display_model_luminance(m) > 0);
        free(data);
}

static void test_refused(void) {
        IccDisplayModel *m = NULL;
        static const uint8_t junk[200] = { 1, 2, 3 };
        assert_se(icc_display_model_new(junk, sizeof junk, &m, NULL) == -EBADMSG && !m);
        uint8_t *data;
        size_t size;
        data = load("argyll-ref--lab2lab.icm", &size);
        char *why = NULL;
        assert_se(icc_display_model_new(data, size, &m, &why) == -EMEDIUMTYPE && !m);
        assert_se(why);
        free(why);
        free(data);
}

int main(void) {
        test_additive_white("krita-data--sRGB-elle-V2-srgbtrc.icc");
        test_additive_white("argyll-ref--DisplayP3.icm");
        test_additive_white("colord-data--AdobeRGB1998.icc");
        test_primaries_with_chad("krita-data--sRGB-elle-V2-srgbtrc.icc");
        test_primaries_with_chad("krita-data--ClayRGB-elle-V2-g22.icc");
        test_v2_white_point();
        test_lut_profile();
        test_refused();
        return 0;
}
