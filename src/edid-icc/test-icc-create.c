/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for EDID → ICC profile creation (icc-create.c and the src/edid-icc glue): generated
 * profiles read back with lcms2 give the EDID's primaries (colorants adapted back from D50
 * through the 'chad' tag) within 0.001, two generations are byte-identical, the profile ID
 * is the ICC MD5, the metadata is there, and implausible input is refused. Runs over every
 * EDID of the shared corpus. The naming every component uses (edid_icc_params_init_named())
 * with a PNP table of the test's own and without one. */
#include <dirent.h>
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "edid-icc.h"
#include "edid.h"
#include "icc-create.h"
#include "md5.h"
#include "tests.h"

static uint8_t *load_file(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "rb");
        uint8_t *buf;
        long n;

        assert_se(f);
        assert_se(fseek(f, 0, SEEK_END) == 0);
        n = ftell(f);
        assert_se(n >= 0);
        rewind(f);
        buf = malloc((size_t) n + 1);
        assert_se(buf);
        assert_se(fread(buf, 1, (size_t) n, f) == (size_t) n);
        fclose(f);
        *ret_size = (size_t) n;
        return buf;
}

static bool mat3_inverse(const double m[3][3], double r[3][3]) {
        double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        if (fabs(det) < 1e-12)
                return false;
        for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                        int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, d = (i + 2) % 3;
                        r[i][j] = (m[a][c] * m[b][d] - m[a][d] * m[b][c]) / det;
                }
        return true;
}

/* xy of a colorant tag after undoing the chromatic adaptation to D50 (ICC.1 Annex G). */
static void colorant_xy(cmsHPROFILE h, cmsTagSignature sig, const double inv_chad[3][3], double *x, double *y) {
        const cmsCIEXYZ *c = cmsReadTag(h, sig);
        double v[3], s;

        assert_se(c);
        for (int i = 0; i < 3; i++)
                v[i] = inv_chad[i][0] * c->X + inv_chad[i][1] * c->Y + inv_chad[i][2] * c->Z;
        s = v[0] + v[1] + v[2];
        *x = v[0] / s;
        *y = v[1] / s;
}

static const char *dict_lookup(cmsHPROFILE h, const wchar_t *key, char *buf, size_t size) {
        cmsHANDLE dict = cmsReadTag(h, cmsSigMetaTag);
        if (!dict)
                return NULL;
        for (const cmsDICTentry *e = cmsDictGetEntryList(dict); e; e = cmsDictNextEntry(e))
                if (wcscmp(e->Name, key) == 0) {
                        snprintf(buf, size, "%ls", e->Value);
                        return buf;
                }
        return NULL;
}

/* Checks a generated profile against the EdidXY values it was made from. */
static void check_profile(const void *data, size_t size, const IccDisplayParams *p) {
        cmsHPROFILE h = cmsOpenProfileFromMem(data, (cmsUInt32Number) size);
        const uint8_t *b = data;
        double inv[3][3], m[3][3], x, y;
        char hex[33], buf[256];

        assert_se(h);
        /* v4 display profile, RGB, XYZ PCS. */
        assert_se(b[8] == 4);
        assert_se(cmsGetDeviceClass(h) == cmsSigDisplayClass);
        assert_se(cmsGetColorSpace(h) == cmsSigRgbData);
        assert_se(cmsIsMatrixShaper(h));

        /* Fixed date 2000-01-01 00:00:00 at bytes 24-35. */
        assert_se(b[24] == 0x07 && b[25] == 0xd0 && b[27] == 1 && b[29] == 1);
        assert_se(b[30] == 0 && b[31] == 0 && b[35] == 0);

        /* Profile ID (bytes 84-99) = MD5 with flags, intent and ID zeroed (ICC.1 §7.2.18). */
        uint8_t *copy = malloc(size);
        assert_se(copy);
        memcpy(copy, data, size);
        memset(copy + 44, 0, 4);
        memset(copy + 64, 0, 4);
        memset(copy + 84, 0, 16);
        md5_hex(copy, size, hex);
        free(copy);
        char id[33];
        for (int i = 0; i < 16; i++)
                snprintf(id + 2 * i, 3, "%02x", b[84 + i]);
        assert_streq(id, hex);

        /* Primaries and white back through the inverse of 'chad'. */
        /* lcms returns 'chad' as nine doubles, row-major (cmsMAT3). */
        const double *chad = cmsReadTag(h, cmsSigChromaticAdaptationTag);
        assert_se(chad);
        memcpy(m, chad, sizeof m);
        assert_se(mat3_inverse(m, inv));
        colorant_xy(h, cmsSigRedColorantTag, inv, &x, &y);
        assert_se(fabs(x - p->red.x) < 0.001 && fabs(y - p->red.y) < 0.001);
        colorant_xy(h, cmsSigGreenColorantTag, inv, &x, &y);
        assert_se(fabs(x - p->green.x) < 0.001 && fabs(y - p->green.y) < 0.001);
        colorant_xy(h, cmsSigBlueColorantTag, inv, &x, &y);
        assert_se(fabs(x - p->blue.x) < 0.001 && fabs(y - p->blue.y) < 0.001);
        colorant_xy(h, cmsSigMediaWhitePointTag, inv, &x, &y);
        assert_se(fabs(x - p->white.x) < 0.001 && fabs(y - p->white.y) < 0.001);

        /* TRC is the gamma. */
        const cmsToneCurve *trc = cmsReadTag(h, cmsSigRedTRCTag);
        assert_se(trc);
        assert_se(fabs(cmsEstimateGamma(trc, 0.01) - p->gamma) < 0.01);

        /* Description and metadata. */
        assert_se(cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", buf, sizeof buf) > 0);
        assert_streq(buf, p->description);
        if (p->metadata)
                for (const char *const *kv = p->metadata; kv[0]; kv += 2) {
                        wchar_t key[64];
                        if (isempty(kv[1]))
                                continue;
                        swprintf(key, ELEMENTSOF(key), L"%s", kv[0]);
                        assert_se(dict_lookup(h, key, buf, sizeof buf));
                        assert_streq(buf, kv[1]);
                }

        if (p->has_luminance) {
                const cmsCIEXYZ *lumi = cmsReadTag(h, cmsSigLuminanceTag);
                assert_se(lumi && fabs(lumi->Y - p->luminance) < 0.01);
        } else
                assert_se(!cmsIsTag(h, cmsSigLuminanceTag));

        cmsCloseProfile(h);
}

static void generate_twice(const IccDisplayParams *p, void **ret, size_t *ret_size) {
        void *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;
        const char *reason = NULL;

        assert_se(icc_create_display_profile(p, &a, &na, &reason) == 0);
        assert_se(icc_create_display_profile(p, &b, &nb, &reason) == 0);
        assert_se(na == nb && memcmp(a, b, na) == 0);
        free(b);
        *ret = a;
        *ret_size = na;
}

static void test_dell(const char *corpus) {
        char path[4096];
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_(edid_freep) Edid *e = NULL;
        _cleanup_free_ void *icc = NULL;
        EdidIccParams params;
        size_t size, icc_size;
        char value[256];

        snprintf(path, sizeof path, "%s/edid/colord-tests--DELL-U2713H.bin", corpus);
        buf = load_file(path, &size);
        assert_se(edid_parse(buf, size, &e) == 0);
        assert_se(edid_icc_params_init(&params, e, "Dell Inc.", "test") == 0);
        assert_streq(params.params.description, "Dell DELL U2713H");
        assert_streq(params.device_id, "xrandr-Dell-DELL U2713H-C6F0K34T1CWL");
        generate_twice(&params.params, &icc, &icc_size);
        check_profile(icc, icc_size, &params.params);

        cmsHPROFILE h = cmsOpenProfileFromMem(icc, (cmsUInt32Number) icc_size);
        assert_se(h);
        assert_streq(dict_lookup(h, L"EDID_md5", value, sizeof value), "ac6dab5272cfbd2e87dd9c635f4c0e9d");
        assert_streq(dict_lookup(h, L"DATA_source", value, sizeof value), "edid");
        assert_streq(dict_lookup(h, L"EDID_mnft", value, sizeof value), "DEL");
        assert_streq(dict_lookup(h, L"EDID_manufacturer", value, sizeof value), "Dell");
        assert_streq(dict_lookup(h, L"EDID_serial", value, sizeof value), "C6F0K34T1CWL");
        assert_streq(dict_lookup(h, L"EDID_gamma", value, sizeof value), "2.20");
        assert_streq(dict_lookup(h, L"EDID_red_x", value, sizeof value), "0.679688");
        assert_streq(dict_lookup(h, L"MAPPING_device_id", value, sizeof value),
                     "xrandr-Dell-DELL U2713H-C6F0K34T1CWL");
        assert_se(cmsGetProfileInfoASCII(h, cmsInfoModel, "en", "US", value, sizeof value) > 0);
        assert_streq(value, "DELL U2713H");
        cmsCloseProfile(h);
        edid_icc_params_done(&params);
}

static void test_laptop_no_name(const char *corpus) {
        char path[4096];
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_(edid_freep) Edid *e = NULL;
        EdidIccParams params;
        size_t size;

        /* No product name, no serial string, numeric serial zero: only the vendor is left. */
        snprintf(path, sizeof path, "%s/edid/colord-tests--Lenovo-T61-Internal.bin", corpus);
        buf = load_file(path, &size);
        assert_se(edid_parse(buf, size, &e) == 0);
        assert_se(edid_icc_params_init(&params, e, NULL, NULL) == 0);
        assert_streq(params.vendor, "IBM");
        assert_streq(params.model, "");
        assert_streq(params.description, "IBM");
        assert_se(strncmp(params.device_id, "xrandr-IBM", 10) == 0);
        edid_icc_params_done(&params);
}

static void test_luminance(void) {
        /* sRGB-like primaries with a 'lumi' tag. */
        IccDisplayParams p = {
                .red = { 0.64, 0.33 }, .green = { 0.30, 0.60 }, .blue = { 0.15, 0.06 },
                .white = { 0.3127, 0.3290 }, .gamma = 2.4,
                .has_luminance = true, .luminance = 250.0,
                .description = "Test Display",
                .metadata = (const char *const[]) { "DATA_source", "edid", "EDID_model", "", NULL },
        };
        _cleanup_free_ void *icc = NULL;
        size_t size;

        generate_twice(&p, &icc, &size);
        check_profile(icc, size, &p);
}

static void test_refused(void) {
        const IccDisplayParams good = {
                .red = { 0.64, 0.33 }, .green = { 0.30, 0.60 }, .blue = { 0.15, 0.06 },
                .white = { 0.3127, 0.3290 }, .gamma = 2.2, .description = "x",
        };
        const char *reason = NULL;
        IccDisplayParams p;
        void *data = NULL;
        size_t size = 0;

        assert_se(icc_display_params_check(&good, &reason) == 0);

#define REFUSE(...)                                                                    \
        do {                                                                            \
                p = good;                                                               \
                __VA_ARGS__;                                                            \
                reason = NULL;                                                          \
                assert_se(icc_create_display_profile(&p, &data, &size, &reason) == -EINVAL); \
                assert_se(reason && *reason);                                           \
                assert_se(!data);                                                       \
        } while (0)

        REFUSE(p.red = (IccXY) { 0, 0 }; p.green = p.red; p.blue = p.red; p.white = p.red);
        REFUSE(p.red.x = 1.2);
        REFUSE(p.blue.y = -0.1);
        REFUSE(p.green.x = NAN);
        REFUSE(p.white.y = 0);
        REFUSE(p.blue.y = 0);
        REFUSE(p.red = (IccXY) { 0.9, 0.9 });               /* x + y > 1 */
        REFUSE(p.green = p.red);                            /* coincident primaries */
        REFUSE(p.green = (IccXY) { 0.395, 0.195 });         /* on the red-blue line */
        REFUSE(p.gamma = 0.5);
        REFUSE(p.gamma = 5.5);
        REFUSE(p.gamma = INFINITY);
        REFUSE(p.has_luminance = true; p.luminance = -1);
        REFUSE(p.description = NULL);
#undef REFUSE
}

/* Every corpus EDID: a profile within 0.001 of its primaries, or a refusal with a reason
 * (junk colorimetry such as the all-zero chromaticity EDIDs). */
static void test_corpus(const char *corpus) {
        char dir[4096];
        struct dirent **ents = NULL;
        unsigned made = 0, refused = 0, unparsable = 0;
        int n;

        snprintf(dir, sizeof dir, "%s/edid", corpus);
        n = scandir(dir, &ents, NULL, alphasort);
        assert_se(n > 0);
        for (int i = 0; i < n; i++) {
                const char *name = ents[i]->d_name;
                size_t len = strlen(name);
                char path[8192];

                if (len < 4 || strcmp(name + len - 4, ".bin") != 0) {
                        free(ents[i]);
                        continue;
                }
                snprintf(path, sizeof path, "%s/%s", dir, name);
                _cleanup_free_ uint8_t *buf = NULL;
                _cleanup_(edid_freep) Edid *e = NULL;
                size_t size;
                buf = load_file(path, &size);
                if (edid_parse(buf, size, &e) < 0) {
                        unparsable++;
                        free(ents[i]);
                        continue;
                }

                EdidIccParams params;
                const char *reason = NULL;
                void *icc = NULL;
                size_t icc_size = 0;
                assert_se(edid_icc_params_init(&params, e, NULL, NULL) == 0);
                int r = icc_create_display_profile(&params.params, &icc, &icc_size, &reason);
                if (r == 0) {
                        check_profile(icc, icc_size, &params.params);
                        made++;
                } else {
                        assert_se(r == -EINVAL && reason);
                        refused++;
                }
                free(icc);
                edid_icc_params_done(&params);
                free(ents[i]);
        }
        free(ents);
        printf("corpus: %u profiles checked, %u EDIDs refused as implausible, %u not EDIDs\n",
               made, refused, unparsable);
        assert_se(made > 250);
}

/* edid_icc_params_init_named(): the table $TINCT_PNP_IDS names, or the PNP id without one. */
static void test_named(const char *corpus) {
        char path[4096], table[] = "/tmp/test-icc-create-pnp.XXXXXX";
        _cleanup_free_ uint8_t *buf = NULL;
        _cleanup_(edid_freep) Edid *e = NULL;
        EdidIccParams params;
        size_t size;

        snprintf(path, sizeof path, "%s/edid/colord-tests--DELL-U2713H.bin", corpus);
        buf = load_file(path, &size);
        assert_se(edid_parse(buf, size, &e) == 0);
        int fd = mkstemp(table);
        assert_se(fd >= 0);
        static const char ids[] = "DEA\tNot Dell\nDEL\tDell Inc.\r\n";
        assert_se(write(fd, ids, sizeof ids - 1) == (ssize_t) sizeof ids - 1 && close(fd) == 0);

        assert_se(setenv(EDID_ICC_PNP_IDS_ENV, table, 1) == 0);
        assert_streq(edid_icc_pnp_ids_path(), table);
        assert_se(edid_icc_params_init_named(&params, e, "test") == 0);
        assert_streq(params.device_id, "xrandr-Dell-DELL U2713H-C6F0K34T1CWL");
        edid_icc_params_done(&params);

        assert_se(unlink(table) == 0); /* no table: the PNP id */
        assert_se(edid_icc_params_init_named(&params, e, "test") == 0);
        assert_streq(params.device_id, "xrandr-DEL-DELL U2713H-C6F0K34T1CWL");
        assert_streq(params.params.description, "DEL DELL U2713H");
        edid_icc_params_done(&params);

        assert_se(setenv(EDID_ICC_PNP_IDS_ENV, "", 1) == 0); /* empty: hwdata's */
        assert_streq(edid_icc_pnp_ids_path(), EDID_ICC_PNP_IDS_PATH);
        assert_se(unsetenv(EDID_ICC_PNP_IDS_ENV) == 0);
        assert_streq(edid_icc_pnp_ids_path(), EDID_ICC_PNP_IDS_PATH);
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
                return 2;
        }
        test_refused();
        test_luminance();
        test_dell(argv[1]);
        test_laptop_no_name(argv[1]);
        test_named(argv[1]);
        test_corpus(argv[1]);
        return 0;
}
