/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The photograph or scan of a chart: TIFF (8 or 16 bits per sample, RGB, any compression
 * libtiff reads) and PNG (8 or 16 bits, RGB, palette or with alpha) through libtiff and
 * libpng, to 16-bit RGB in memory, untouched otherwise (no gamma, no colour conversion: the
 * profile describes exactly these numbers). The embedded ICC profile, if any, is returned
 * for the caller to judge.
 *
 * Not here: what the pixels show (chart-find.c), logging. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* The cap: 60 megapixels (a full-frame 60 MP camera, an A4 scan at 1200 dpi is 140: scan
 * a chart at 300-600 dpi), each side at most 30000; 6 bytes a pixel in memory. Checked from
 * the header, before any pixel is read. */
#define IMAGE_MAX_PIXELS (60u * 1000u * 1000u)
#define IMAGE_MAX_SIDE 30000u

typedef struct Image {
        unsigned width, height;
        unsigned bits;          /* per sample in the file: 8 or 16 */
        uint16_t *rgb;          /* width × height × 3, row by row, 0..65535 */
        uint8_t *icc;           /* the embedded ICC profile, or NULL */
        size_t icc_len;
        bool srgb_chunk;        /* PNG: an sRGB chunk says the pixels are sRGB */
} Image;

/* Reads a TIFF or PNG file (by its first bytes). Returns 0 with *ret, or a negative errno
 * with *ret_error (caller frees): -EFBIG past the cap, -EINVAL not a readable RGB image
 * (truncated, corrupt, grey, 32-bit float, ...), -ENOMEM, or the errno of opening it. */
int image_read(const char *path, Image **ret, char **ret_error);
Image *image_free(Image *img);
DEFINE_TRIVIAL_CLEANUP_FUNC(Image *, image_free);

/* A pixel's value in 0..1. */
static inline double image_at(const Image *img, unsigned x, unsigned y, unsigned c) {
        return img->rgb[((size_t) y * img->width + x) * 3 + c] / 65535.0;
}
