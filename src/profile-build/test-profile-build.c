/* SPDX-License-Identifier: GPL-2.0-or-later */
/* profile-fit and profile-build without files: CIEDE2000's three terms against lcms2's
 * cmsCIE2000DeltaE and the published test pairs (Sharma, Wu, Dalal 2005), the Bradford
 * matrix, a synthetic display (known primaries, D65 white, curves with a black offset) fitted
 * back to within a small error, the profile read back by src/icc (class, colour space,
 * metadata, no warnings), v2, determinism, the caller's metadata, and refusals. */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icc-info.h"
#include "profile-build.h"
#include "strv.h"
#include "tests.h"

static void test_ciede2000(void) {
        /* Sharma, Wu, Dalal, "The CIEDE2000 color-difference formula" (2005), table 1. */
        static const double pairs[][7] = {
                { 50.0, 2.6772, -79.7751, 50.0, 0.0, -82.7485, 2.0425 },
                { 50.0, -1.3802, -84.2814, 50.0, 0.0, -82.7485, 1.0000 },
                { 50.0, 2.49, -0.001, 50.0, -2.49, 0.0011, 7.2195 },
                { 60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644 },
                { 22.7233, 20.0904, -46.694, 23.0331, 14.973, -42.5619, 2.0373 },
                { 90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381 },
                { 2.0776, 0.0795, -1.135, 0.9033, -0.0636, -0.5514, 0.9082 },
        };
        for (size_t i = 0; i < ELEMENTSOF(pairs); i++) {
                double e = ciede2000(pairs[i], pairs[i] + 3);
                if (fabs(e - pairs[i][6]) > 1e-4) {
                        fprintf(stderr, "pair %zu: %.6f, want %.4f\n", i, e, pairs[i][6]);
                        abort();
                }
        }
        /* and lcms2's implementation on pseudo-random pairs */
        unsigned seed = 1;
        for (unsigned i = 0; i < 20000; i++) {
                double a[3], b[3];
                for (size_t k = 0; k < 3; k++) {
                        seed = seed * 1103515245u + 12345u;
                        a[k] = (k == 0 ? 100.0 : 240.0) * ((seed >> 8) & 0xffff) / 65535.0 - (k == 0 ? 0 : 120.0);
                        seed = seed * 1103515245u + 12345u;
                        b[k] = a[k] + (i % 2 ? 10.0 : 1.0) * ((((seed >> 8) & 0xffff) / 65535.0) - 0.5);
                }
                cmsCIELab la = { a[0], a[1], a[2] }, lb = { b[0], b[1], b[2] };
                double want = cmsCIE2000DeltaE(&la, &lb, 1.0, 1.0, 1.0), got = ciede2000(a, b);
                if (fabs(want - got) > 1e-3 * fmax(1.0, want)) {
                        fprintf(stderr, "(%g %g %g) (%g %g %g): %.6f, lcms2 %.6f\n", a[0], a[1], a[2], b[0], b[1],
                                b[2], got, want);
                        abort();
                }
        }
}

static void test_bradford(void) {
        const double d65[3] = { 0.95047, 1.0, 1.08883 };
        double m[9], out[3];

        bradford_matrix(d65, profile_fit_d50, m);
        for (size_t i = 0; i < 3; i++)
                out[i] = m[3 * i] * d65[0] + m[3 * i + 1] * d65[1] + m[3 * i + 2] * d65[2];
        for (size_t i = 0; i < 3; i++)
                assert_se(fabs(out[i] - profile_fit_d50[i]) < 1e-9);
        /* the well-known D65 → D50 Bradford matrix (published for D50 Z = 0.82521, the ICC
         * PCS has 0.8249: hence 1e-3) */
        assert_se(fabs(m[0] - 1.0478) < 1e-3 && fabs(m[1] - 0.0229) < 1e-3 && fabs(m[2] + 0.0501) < 1e-3);
        assert_se(fabs(m[4] - 0.9905) < 1e-3 && fabs(m[8] - 0.7521) < 1e-3);
        bradford_matrix(profile_fit_d50, profile_fit_d50, m);
        for (size_t i = 0; i < 9; i++)
                assert_se(fabs(m[i] - (i % 4 == 0 ? 1.0 : 0.0)) < 1e-12);
}

/* A display: sRGB primaries, D65 white, per-channel curves with a black offset (flare). */
static void synthetic(const double rgb[3], double xyz[3]) {
        static const double m[9] = {
                0.4124, 0.3576, 0.1805,
                0.2126, 0.7152, 0.0722,
                0.0193, 0.1192, 0.9505,
        };
        const double gamma[3] = { 2.2, 2.25, 2.15 };
        double t[3];

        for (size_t k = 0; k < 3; k++)
                t[k] = 0.002 + 0.998 * pow(rgb[k], gamma[k]);
        for (size_t i = 0; i < 3; i++)
                xyz[i] = m[3 * i] * t[0] + m[3 * i + 1] * t[1] + m[3 * i + 2] * t[2];
}

static DisplaySamples *synthetic_samples(void) {
        DisplaySamples *s = calloc(1, sizeof *s);
        size_t n = 0;

        assert_se(s);
        s->samples = calloc(6 * 6 * 6 + 3 * 16 + 4, sizeof(DisplaySample));
        assert_se(s->samples);
        for (unsigned r = 0; r < 6; r++)
                for (unsigned g = 0; g < 6; g++)
                        for (unsigned b = 0; b < 6; b++)
                                s->samples[n++].rgb[0] = r / 5.0, s->samples[n - 1].rgb[1] = g / 5.0,
                                s->samples[n - 1].rgb[2] = b / 5.0;
        for (unsigned k = 0; k < 3; k++)
                for (unsigned j = 1; j <= 16; j++)
                        s->samples[n++].rgb[k] = j / 17.0;
        for (unsigned j = 0; j < 4; j++)
                s->samples[n].rgb[0] = s->samples[n].rgb[1] = s->samples[n].rgb[2] = 1.0, n++;
        for (size_t i = 0; i < n; i++) {
                synthetic(s->samples[i].rgb, s->samples[i].xyz);
                for (size_t k = 0; k < 3; k++)
                        s->samples[i].xyz[k] *= 1.0 / (0.002 + 0.998); /* white Y = 1 */
        }
        s->n_samples = n;
        return s;
}

static bool has_kv(char **metadata, const char *key, const char *value) {
        for (size_t i = 0; metadata && metadata[i] && metadata[i + 1]; i += 2)
                if (streq(metadata[i], key))
                        return !value || streq(metadata[i + 1], value);
        return false;
}

static void test_build(void) {
        _cleanup_(display_samples_freep) DisplaySamples *s = synthetic_samples();
        _cleanup_free_ uint8_t *icc = NULL, *again = NULL, *v2 = NULL;
        size_t len = 0, len2 = 0, len3 = 0;
        ProfileBuildReport rep = {};
        const char *reason = NULL;

        assert_se(profile_build(s, NULL, &icc, &len, &rep, &reason) == 0);
        printf("synthetic display: model dE2000 mean %.4f max %.4f; profile mean %.4f max %.4f; knots %u\n",
               rep.fit.de2000_mean, rep.fit.de2000_max, rep.de2000_mean, rep.de2000_max,
               rep.fit.curve[0].n_intervals + 1);
        assert_se(rep.fit.de2000_mean < 0.05 && rep.fit.de2000_max < 0.3);
        assert_se(rep.de2000_mean < 0.1 && rep.de2000_max < 0.5);
        assert_se(fabs(rep.fit.white[0] - 0.9505) < 1e-3 && fabs(rep.fit.white[2] - 1.089) < 1e-3);
        assert_se(rep.fit.black[1] > 0.001 && rep.fit.black[1] < 0.003); /* the flare: 0.2% */
        assert_se(!rep.has_luminance);

        /* read back by the daemon's reader */
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *error = NULL;
        assert_se(icc_info_parse(icc, len, &info, &error) == 0);
        assert_streq(info->kind, "display-device");
        assert_streq(info->colorspace, "rgb");
        assert_streq(info->description, PROFILE_BUILD_DEFAULT_DESCRIPTION);
        assert_streq(info->copyright, PROFILE_BUILD_DEFAULT_COPYRIGHT);
        assert_se(strv_length(info->warnings) == 0);
        assert_se(has_kv(info->metadata, "DATA_source", "calib"));
        assert_se(has_kv(info->metadata, "CMF_product", "tinct"));
        assert_se(has_kv(info->metadata, "CMF_binary", "tinct"));
        assert_se(has_kv(info->metadata, "ACCURACY_dE76_avg", NULL));
        assert_se(!has_kv(info->metadata, "MEASUREMENT_device", NULL));
        assert_se(icc[8] == 4 && icc[9] == 0x30 && memcmp(icc + 12, "mntr", 4) == 0);

        /* deterministic */
        assert_se(profile_build(s, NULL, &again, &len2, NULL, &reason) == 0);
        assert_se(len2 == len && memcmp(icc, again, len) == 0);

        /* v2, caller's metadata (replacing one of ours), luminance */
        const char *const md[] = { "MAPPING_device_id", "xrandr-test", "CMF_binary", "tinct-session", NULL };
        ProfileBuildOptions o = { .v2 = true, .description = "Test", .metadata = md };
        s->has_luminance = true;
        s->luminance[0] = 95.0, s->luminance[1] = 100.0, s->luminance[2] = 108.9;
        s->instrument = strdup("Test meter");
        assert_se(s->instrument);
        assert_se(profile_build(s, &o, &v2, &len3, &rep, &reason) == 0);
        assert_se(v2[8] == 2 && v2[9] == 0x40);
        assert_se(rep.has_luminance && rep.luminance[1] == 100.0);
        _cleanup_(icc_info_freep) IccInfo *info2 = NULL;
        _cleanup_free_ char *error2 = NULL;
        assert_se(icc_info_parse(v2, len3, &info2, &error2) == 0);
        assert_streq(info2->description, "Test");
        assert_se(has_kv(info2->metadata, "MAPPING_device_id", "xrandr-test"));
        assert_se(has_kv(info2->metadata, "CMF_binary", "tinct-session"));
        assert_se(has_kv(info2->metadata, "MEASUREMENT_device", "Test meter"));
        assert_se(strv_length(info2->warnings) == 0);
        size_t n_binary = 0;
        for (size_t i = 0; info2->metadata[i]; i += 2)
                n_binary += streq(info2->metadata[i], "CMF_binary");
        assert_se(n_binary == 1);
}

static void test_refusals(void) {
        _cleanup_(display_samples_freep) DisplaySamples *s = synthetic_samples();
        _cleanup_free_ uint8_t *icc = NULL;
        size_t len = 0;
        const char *reason = NULL;
        size_t n = s->n_samples;

        s->n_samples = 7;
        assert_se(profile_build(s, NULL, &icc, &len, NULL, &reason) == -EINVAL);
        assert_se(strstr(reason, "too few"));
        s->n_samples = n;
        for (size_t i = 0; i < n; i++)
                if (s->samples[i].rgb[0] == 1.0 && s->samples[i].rgb[1] == 1.0 && s->samples[i].rgb[2] == 1.0)
                        s->samples[i].rgb[0] = 0.98;
        assert_se(profile_build(s, NULL, &icc, &len, NULL, &reason) == -EINVAL);
        assert_se(strstr(reason, "no white patch"));
        /* only greys: the primaries are not determined */
        for (size_t i = 0; i < n; i++) {
                double v = s->samples[i].rgb[0];
                s->samples[i].rgb[1] = s->samples[i].rgb[2] = v;
                synthetic(s->samples[i].rgb, s->samples[i].xyz);
        }
        assert_se(profile_build(s, NULL, &icc, &len, NULL, &reason) == -EINVAL);
        assert_se(strstr(reason, "primaries"));
        assert_se(!icc);
}

int main(void) {
        test_ciede2000();
        test_bradford();
        test_build();
        test_refusals();
        return 0;
}
