/* SPDX-License-Identifier: GPL-2.0-or-later */
/* TIFF and PNG into 16-bit RGB (image-read.h). libtiff's and libpng's messages go into the
 * error string, never to standard error. */
#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

#include "image-read.h"

static int fail(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(char **ret_error, int r, const char *fmt, ...) {
        va_list ap;

        if (*ret_error)
                return r; /* the library's message came first and says more */
        va_start(ap, fmt);
        if (vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return r;
}

static int check_size(unsigned w, unsigned h, char **ret_error) {
        if (w == 0 || h == 0)
                return fail(ret_error, -EINVAL, "an empty image");
        if (w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE || (uint64_t) w * h > IMAGE_MAX_PIXELS)
                return fail(ret_error, -EFBIG, "%ux%u pixels: larger than the cap of %u megapixels (%u per side); "
                            "scale the image down", w, h, IMAGE_MAX_PIXELS / 1000000u, IMAGE_MAX_SIDE);
        return 0;
}

static int image_new(unsigned w, unsigned h, unsigned bits, Image **ret) {
        Image *img = calloc(1, sizeof *img);

        if (!img)
                return -ENOMEM;
        img->rgb = malloc((size_t) w * h * 3 * sizeof(uint16_t));
        if (!img->rgb) {
                free(img);
                return -ENOMEM;
        }
        img->width = w;
        img->height = h;
        img->bits = bits;
        *ret = img;
        return 0;
}

Image *image_free(Image *img) {
        if (img) {
                free(img->rgb);
                free(img->icc);
                free(img);
        }
        return NULL;
}

/* --- TIFF --- */

static int tiff_message(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
        char **error = user, msg[512];

        (void) tif;
        if (*error)
                return 1;
        vsnprintf(msg, sizeof msg, fmt, ap);
        if (asprintf(error, "TIFF: %s%s%s", module ? module : "", module ? ": " : "", msg) < 0)
                *error = NULL;
        return 1;
}

static int tiff_ignore(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
        (void) tif, (void) user, (void) module, (void) fmt, (void) ap;
        return 1;
}

static void tiff_closep(TIFF **t) {
        if (*t)
                TIFFClose(*t);
}

static int read_tiff(const char *path, Image **ret, char **ret_error) {
        _cleanup_(tiff_closep) TIFF *tif = NULL;
        _cleanup_(image_freep) Image *img = NULL;
        _cleanup_free_ uint8_t *line = NULL;
        uint32_t w = 0, h = 0, icc_len = 0;
        uint16_t bits = 0, spp = 0, photometric = 0, planar = PLANARCONFIG_CONTIG, format = SAMPLEFORMAT_UINT;
        void *icc = NULL;
        int r;

        TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
        if (!opts)
                return -ENOMEM;
        TIFFOpenOptionsSetErrorHandlerExtR(opts, tiff_message, ret_error);
        TIFFOpenOptionsSetWarningHandlerExtR(opts, tiff_ignore, NULL);
        tif = TIFFOpenExt(path, "r", opts);
        TIFFOpenOptionsFree(opts);
        if (!tif) {
                _cleanup_free_ char *why = TAKE_PTR(*ret_error);
                return fail(ret_error, -EINVAL, "not a readable TIFF file: truncated or corrupt%s%s%s",
                            why ? " (" : "", why ? why : "", why ? ")" : "");
        }
        if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h))
                return fail(ret_error, -EINVAL, "TIFF without a size");
        TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
        TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
        if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
                return fail(ret_error, -EINVAL, "TIFF without a photometric interpretation");
        r = check_size(w, h, ret_error);
        if (r < 0)
                return r;
        if (photometric != PHOTOMETRIC_RGB || spp < 3)
                return fail(ret_error, -EINVAL, "not an RGB TIFF (photometric %u, %u samples a pixel): the chart "
                            "must be captured in the device's RGB", photometric, spp);
        if ((bits != 8 && bits != 16) || format != SAMPLEFORMAT_UINT)
                return fail(ret_error, -EINVAL, "%u-bit TIFF samples: only 8 and 16-bit integers are read", bits);

        r = image_new(w, h, bits, &img);
        if (r < 0)
                return r;
        line = malloc((size_t) TIFFScanlineSize(tif));
        if (!line)
                return -ENOMEM;
        for (unsigned p = 0; p < (planar == PLANARCONFIG_SEPARATE ? 3u : 1u); p++)
                for (uint32_t y = 0; y < h; y++) {
                        if (TIFFReadScanline(tif, line, y, (uint16_t) p) < 0) {
                                _cleanup_free_ char *why = TAKE_PTR(*ret_error);
                                return fail(ret_error, -EINVAL, "TIFF: cannot read row %u: truncated or corrupt%s%s%s",
                                            y, why ? " (" : "", why ? why : "", why ? ")" : "");
                        }
                        for (uint32_t x = 0; x < w; x++)
                                for (unsigned c = 0; c < 3; c++) {
                                        size_t i = planar == PLANARCONFIG_SEPARATE ? x : (size_t) x * spp + c;
                                        uint16_t v = bits == 8 ? (uint16_t) (line[i] * 257u) : ((uint16_t *) line)[i];
                                        if (planar == PLANARCONFIG_SEPARATE && c != p)
                                                continue;
                                        img->rgb[((size_t) y * w + x) * 3 + c] = v;
                                }
                }
        if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_len, &icc) && icc && icc_len > 0) {
                img->icc = malloc(icc_len);
                if (!img->icc)
                        return -ENOMEM;
                memcpy(img->icc, icc, icc_len);
                img->icc_len = icc_len;
        }
        *ret = TAKE_PTR(img);
        return 0;
}

/* --- PNG --- */

typedef struct PngRead {
        png_structp png;
        png_infop info;
        FILE *f;
        png_bytep *rows;
        char **error;
} PngRead;

static void png_read_done(PngRead *p) {
        if (p->png)
                png_destroy_read_struct(&p->png, &p->info, NULL);
        if (p->f)
                fclose(p->f);
        free(p->rows);
}

static void png_error_cb(png_structp png, png_const_charp msg) {
        PngRead *p = png_get_error_ptr(png);
        if (!*p->error && asprintf(p->error, "PNG: %s: truncated or corrupt", msg) < 0)
                *p->error = NULL;
        png_longjmp(png, 1);
}

static void png_warning_cb(png_structp png, png_const_charp msg) {
        (void) png, (void) msg;
}

/* Everything that libpng may longjmp out of is here, with no automatic cleanup inside. */
static int png_decode(PngRead *p, Image **img) {
        png_uint_32 w, h;
        int depth, type, r;

        if (setjmp(png_jmpbuf(p->png)))
                return -EINVAL;
        png_init_io(p->png, p->f);
        png_set_user_limits(p->png, IMAGE_MAX_SIDE, IMAGE_MAX_SIDE);
        png_read_info(p->png, p->info);
        png_get_IHDR(p->png, p->info, &w, &h, &depth, &type, NULL, NULL, NULL);
        r = check_size(w, h, p->error);
        if (r < 0)
                return r;
        if (!(type & PNG_COLOR_MASK_COLOR))
                return fail(p->error, -EINVAL, "a grey PNG: the chart must be captured in the device's RGB");
        if (type == PNG_COLOR_TYPE_PALETTE)
                png_set_palette_to_rgb(p->png);
        png_set_strip_alpha(p->png);
        if (depth < 8)
                png_set_packing(p->png);
        if (depth == 16)
                png_set_swap(p->png); /* PNG is big-endian; we keep host order */
        png_read_update_info(p->png, p->info);

        r = image_new(w, h, depth == 16 ? 16 : 8, img);
        if (r < 0)
                return r;
        p->rows = calloc(h, sizeof(png_bytep));
        if (!p->rows)
                return -ENOMEM;
        if (depth == 16)
                for (png_uint_32 y = 0; y < h; y++)
                        p->rows[y] = (png_bytep) &(*img)->rgb[(size_t) y * w * 3];
        else {
                /* 8-bit rows in the upper half of each 16-bit row, widened in place below */
                for (png_uint_32 y = 0; y < h; y++)
                        p->rows[y] = (png_bytep) &(*img)->rgb[(size_t) y * w * 3] + (size_t) w * 3;
        }
        png_read_image(p->png, p->rows);
        png_read_end(p->png, NULL);
        if (depth != 16)
                for (png_uint_32 y = 0; y < h; y++) {
                        uint16_t *row = &(*img)->rgb[(size_t) y * w * 3];
                        const uint8_t *b = p->rows[y];
                        for (size_t i = 0; i < (size_t) w * 3; i++)
                                row[i] = (uint16_t) (b[i] * 257u);
                }
        png_charp name;
        png_bytep icc;
        png_uint_32 icc_len;
        int compression, intent;
        if (png_get_iCCP(p->png, p->info, &name, &compression, &icc, &icc_len) && icc_len > 0) {
                (*img)->icc = malloc(icc_len);
                if (!(*img)->icc)
                        return -ENOMEM;
                memcpy((*img)->icc, icc, icc_len);
                (*img)->icc_len = icc_len;
        }
        (*img)->srgb_chunk = png_get_sRGB(p->png, p->info, &intent) != 0;
        return 0;
}

static int read_png(const char *path, Image **ret, char **ret_error) {
        _cleanup_(image_freep) Image *img = NULL;
        PngRead p = { .error = ret_error };
        int r;

        p.f = fopen(path, "rbe");
        if (!p.f)
                return fail(ret_error, -errno, "cannot open: %s", strerror(errno));
        p.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &p, png_error_cb, png_warning_cb);
        if (p.png)
                p.info = png_create_info_struct(p.png);
        if (!p.png || !p.info) {
                png_read_done(&p);
                return -ENOMEM;
        }
        r = png_decode(&p, &img);
        png_read_done(&p);
        if (r < 0)
                return fail(ret_error, r, "PNG: cannot read");
        *ret = TAKE_PTR(img);
        return 0;
}

int image_read(const char *path, Image **ret, char **ret_error) {
        uint8_t magic[8] = {};
        ssize_t n;
        int fd;

        *ret_error = NULL;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return fail(ret_error, -errno, "cannot open: %s", strerror(errno));
        n = read(fd, magic, sizeof magic);
        close(fd);
        if (n == (ssize_t) sizeof magic && png_sig_cmp(magic, 0, sizeof magic) == 0)
                return read_png(path, ret, ret_error);
        if (n >= 4 && (memcmp(magic, "II*\0", 4) == 0 || memcmp(magic, "MM\0*", 4) == 0))
                return read_tiff(path, ret, ret_error);
        return fail(ret_error, -EINVAL, "neither a TIFF nor a PNG image");
}
