/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ICC v4 display profile creation (ICC.1:2010) from primaries, white point and gamma, with
 * lcms2 doing the matrix/shaper maths (including the Bradford adaptation to the D50 PCS and
 * the 'chad' tag) and the serialisation.
 *
 * Determinism: lcms stamps the current time into the header when a profile is created, and
 * offers no setter. We save once, overwrite the date bytes with a fixed date, reopen, let
 * cmsMD5computeID() compute the profile ID over the final header, and save again; reopening
 * carries the fixed date through, so the result depends on the input only.
 *
 * Not here: reading profiles (icc-info.c), EDID knowledge, files. */
#include <errno.h>
#include <lcms2.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "icc-create.h"

static bool xy_in_unit_square(IccXY c) {
        return isfinite(c.x) && isfinite(c.y) && c.x >= 0.0 && c.x <= 1.0 && c.y >= 0.0 && c.y <= 1.0;
}

/* Twice the signed area of the triangle red-green-blue in the xy plane. */
static double gamut_area2(const IccDisplayParams *p) {
        return (p->green.x - p->red.x) * (p->blue.y - p->red.y) -
               (p->blue.x - p->red.x) * (p->green.y - p->red.y);
}

int icc_display_params_check(const IccDisplayParams *p, const char **ret_reason) {
        const IccXY all[] = { p->red, p->green, p->blue, p->white };
        bool all_zero = true;

        /* The same kind of sanity test mutter applies before trusting EDID colorimetry: an
         * EDID with zeroed or garbage chromaticity must not become a profile that makes
         * every colour wrong. */
        for (size_t i = 0; i < ELEMENTSOF(all); i++) {
                if (!xy_in_unit_square(all[i])) {
                        *ret_reason = "chromaticity coordinates outside [0, 1]";
                        return -EINVAL;
                }
                if (all[i].x != 0.0 || all[i].y != 0.0)
                        all_zero = false;
        }
        if (all_zero) {
                *ret_reason = "all chromaticity coordinates are zero";
                return -EINVAL;
        }
        /* z = 1 - x - y must not be negative, but real EDIDs put red a little past the
         * x + y = 1 line (10-bit rounding, sloppy data: 1.003 is in the corpus), so allow a
         * small tolerance and refuse only what no display can be. */
        for (size_t i = 0; i < ELEMENTSOF(all); i++)
                if (all[i].x + all[i].y > 1.0 + ICC_CREATE_XY_SUM_TOLERANCE) {
                        *ret_reason = "a chromaticity has x + y > 1 (outside the spectral locus)";
                        return -EINVAL;
                }
        /* XYZ = (x/y, 1, (1-x-y)/y): y == 0 has no XYZ. */
        if (p->white.y <= 0.0) {
                *ret_reason = "white point y is zero";
                return -EINVAL;
        }
        if (p->red.y <= 0.0 || p->green.y <= 0.0 || p->blue.y <= 0.0) {
                *ret_reason = "a primary has y = 0";
                return -EINVAL;
        }
        /* Collinear (or nearly) primaries give a singular RGB→XYZ matrix. 1e-4 is far below
         * any real display (sRGB: 0.22) and far above rounding noise. */
        if (fabs(gamut_area2(p)) < 1e-4) {
                *ret_reason = "primaries do not span a gamut (collinear or coincident)";
                return -EINVAL;
        }
        if (!isfinite(p->gamma) || p->gamma < ICC_CREATE_GAMMA_MIN || p->gamma > ICC_CREATE_GAMMA_MAX) {
                *ret_reason = "gamma outside [1.0, 5.0]";
                return -EINVAL;
        }
        if (p->has_luminance && (!isfinite(p->luminance) || p->luminance <= 0.0 || p->luminance > 100000.0)) {
                *ret_reason = "luminance outside (0, 100000] cd/m²";
                return -EINVAL;
        }
        if (isempty(p->description)) {
                *ret_reason = "no description";
                return -EINVAL;
        }
        return 0;
}

/* UTF-8 to wchar_t (UTF-32 on Linux) for lcms's wide-string APIs, without depending on the
 * process locale as mbstowcs() would. Invalid sequences become U+FFFD. */
static wchar_t *utf8_to_wide(const char *s) {
        size_t n = strlen(s), k = 0;
        wchar_t *w = calloc(n + 1, sizeof *w);
        const unsigned char *p = (const unsigned char *) s;

        if (!w)
                return NULL;
        while (*p) {
                uint32_t c = *p, min;
                size_t len;

                if (c < 0x80) { len = 1; min = 0; }
                else if ((c & 0xe0) == 0xc0) { len = 2; c &= 0x1f; min = 0x80; }
                else if ((c & 0xf0) == 0xe0) { len = 3; c &= 0x0f; min = 0x800; }
                else if ((c & 0xf8) == 0xf0) { len = 4; c &= 0x07; min = 0x10000; }
                else { w[k++] = 0xfffd; p++; continue; }

                size_t i = 1;
                for (; i < len && (p[i] & 0xc0) == 0x80; i++)
                        c = c << 6 | (p[i] & 0x3f);
                if (i < len || c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
                        w[k++] = 0xfffd;
                        p += i;
                        continue;
                }
                w[k++] = (wchar_t) c;
                p += len;
        }
        w[k] = 0;
        return w;
}

static void mlu_freep(cmsMLU **m) {
        if (*m)
                cmsMLUfree(*m);
}

static void profile_closep(cmsHPROFILE *h) {
        if (*h)
                cmsCloseProfile(*h);
}

static void tone_curve_freep(cmsToneCurve **t) {
        if (*t)
                cmsFreeToneCurve(*t);
}

static void dict_freep(cmsHANDLE *d) {
        if (*d)
                cmsDictFree(*d);
}

/* Writes a text tag as an en_US 'mluc' (the v4 text type, ICC.1 §10.15). */
static int write_text_tag(cmsHPROFILE h, cmsTagSignature sig, const char *text) {
        _cleanup_(mlu_freep) cmsMLU *mlu = NULL;
        _cleanup_free_ wchar_t *w = NULL;

        if (isempty(text))
                return 0;
        w = utf8_to_wide(text);
        mlu = cmsMLUalloc(NULL, 1);
        if (!w || !mlu)
                return -ENOMEM;
        if (!cmsMLUsetWide(mlu, "en", "US", w) || !cmsWriteTag(h, sig, mlu))
                return -EIO;
        return 0;
}

static int write_meta_tag(cmsHPROFILE h, const char *const *metadata) {
        _cleanup_(dict_freep) cmsHANDLE dict = NULL;

        if (!metadata || !metadata[0])
                return 0;
        dict = cmsDictAlloc(NULL);
        if (!dict)
                return -ENOMEM;
        for (const char *const *kv = metadata; kv[0] && kv[1]; kv += 2) {
                _cleanup_free_ wchar_t *k = NULL, *v = NULL;

                if (isempty(kv[0]) || isempty(kv[1]))
                        continue;
                k = utf8_to_wide(kv[0]);
                v = utf8_to_wide(kv[1]);
                if (!k || !v)
                        return -ENOMEM;
                if (!cmsDictAddEntry(dict, k, v, NULL, NULL))
                        return -ENOMEM;
        }
        if (!cmsWriteTag(h, cmsSigMetaTag, dict))
                return -EIO;
        return 0;
}

static int save_to_mem(cmsHPROFILE h, uint8_t **ret, size_t *ret_size) {
        cmsUInt32Number n = 0;
        _cleanup_free_ uint8_t *buf = NULL;

        if (!cmsSaveProfileToMem(h, NULL, &n) || n < 128)
                return -EIO;
        buf = malloc(n);
        if (!buf)
                return -ENOMEM;
        if (!cmsSaveProfileToMem(h, buf, &n))
                return -EIO;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

/* ICC.1 §4.2 dateTimeNumber at header bytes 24-35: six big-endian uint16 (y, m, d, h, m, s). */
static void set_fixed_date(uint8_t *header) {
        const uint16_t date[6] = { ICC_CREATE_DATE_YEAR, 1, 1, 0, 0, 0 };
        for (size_t i = 0; i < 6; i++) {
                header[24 + 2 * i] = (uint8_t) (date[i] >> 8);
                header[25 + 2 * i] = (uint8_t) (date[i] & 0xff);
        }
}

int icc_create_display_profile(const IccDisplayParams *p, void **ret_data, size_t *ret_size,
                               const char **ret_reason) {
        _cleanup_(profile_closep) cmsHPROFILE h = NULL, h2 = NULL;
        _cleanup_(tone_curve_freep) cmsToneCurve *trc = NULL;
        _cleanup_free_ uint8_t *first = NULL;
        uint8_t *out = NULL;
        size_t first_size = 0, out_size = 0;
        int r;

        r = icc_display_params_check(p, ret_reason);
        if (r < 0)
                return r;

        const cmsCIExyY white = { p->white.x, p->white.y, 1.0 };
        const cmsCIExyYTRIPLE primaries = {
                { p->red.x, p->red.y, 1.0 },
                { p->green.x, p->green.y, 1.0 },
                { p->blue.x, p->blue.y, 1.0 },
        };

        trc = cmsBuildGamma(NULL, p->gamma);
        if (!trc) {
                *ret_reason = "out of memory";
                return -ENOMEM;
        }
        cmsToneCurve *curves[3] = { trc, trc, trc };

        /* Writes rXYZ/gXYZ/bXYZ adapted to D50, 'chad', wtpt, the TRCs; display class. */
        h = cmsCreateRGBProfile(&white, &primaries, curves);
        if (!h) {
                *ret_reason = "lcms2 could not build a matrix from these primaries";
                return -EIO;
        }
        cmsSetProfileVersion(h, 4.3);
        cmsSetDeviceClass(h, cmsSigDisplayClass);
        cmsSetHeaderRenderingIntent(h, INTENT_PERCEPTUAL);

        r = write_text_tag(h, cmsSigProfileDescriptionTag, p->description);
        if (r >= 0)
                r = write_text_tag(h, cmsSigDeviceMfgDescTag, p->manufacturer);
        if (r >= 0)
                r = write_text_tag(h, cmsSigDeviceModelDescTag, p->model);
        if (r >= 0)
                r = write_text_tag(h, cmsSigCopyrightTag, p->copyright);
        if (r >= 0)
                r = write_meta_tag(h, p->metadata);
        if (r >= 0 && p->has_luminance) {
                /* ICC.1 §9.2.32: 'lumi' is XYZ with Y the absolute luminance of the white in
                 * cd/m²; X and Z follow the white's chromaticity. */
                cmsCIEXYZ lumi = {
                        p->white.x / p->white.y * p->luminance,
                        p->luminance,
                        (1.0 - p->white.x - p->white.y) / p->white.y * p->luminance,
                };
                if (!cmsWriteTag(h, cmsSigLuminanceTag, &lumi))
                        r = -EIO;
        }
        if (r < 0) {
                *ret_reason = r == -ENOMEM ? "out of memory" : "lcms2 could not write a tag";
                return r;
        }

        r = save_to_mem(h, &first, &first_size);
        if (r < 0) {
                *ret_reason = "lcms2 could not serialise the profile";
                return r;
        }
        set_fixed_date(first);

        h2 = cmsOpenProfileFromMem(first, (cmsUInt32Number) first_size);
        if (!h2) {
                *ret_reason = "lcms2 could not reread the profile it wrote";
                return -EIO;
        }
        /* ICC.1 §7.2.18: MD5 over the profile with flags, intent and ID zeroed. */
        if (!cmsMD5computeID(h2)) {
                *ret_reason = "lcms2 could not compute the profile ID";
                return -EIO;
        }
        r = save_to_mem(h2, &out, &out_size);
        if (r < 0) {
                *ret_reason = "lcms2 could not serialise the profile";
                return r;
        }

        *ret_data = out;
        *ret_size = out_size;
        return 0;
}
