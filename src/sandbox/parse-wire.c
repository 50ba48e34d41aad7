/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "parse-wire.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "utf8.h"

#define NULL_MARK UINT32_MAX

void parse_buffer_done(ParseBuffer *b) {
        free(b->data);
        *b = (ParseBuffer) {};
}

/* ---- writing (the parser's side): errors stick in b->error, checked once at the end ---- */

static void put(ParseBuffer *b, const void *p, size_t n) {
        if (b->error)
                return;
        if (b->size + n > b->allocated) {
                size_t a = b->allocated ? b->allocated : 256;
                while (a < b->size + n)
                        a *= 2;
                uint8_t *d = realloc(b->data, a);
                if (!d) {
                        b->error = -ENOMEM;
                        return;
                }
                b->data = d;
                b->allocated = a;
        }
        if (n > 0)
                memcpy(b->data + b->size, p, n);
        b->size += n;
}

static void put_u8(ParseBuffer *b, uint8_t v) { put(b, &v, sizeof v); }
static void put_u32(ParseBuffer *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_u64(ParseBuffer *b, uint64_t v) { put(b, &v, sizeof v); }
static void put_f64(ParseBuffer *b, double v) { put(b, &v, sizeof v); }

static void put_str(ParseBuffer *b, const char *s) {
        if (!s) {
                put_u32(b, NULL_MARK);
                return;
        }
        size_t n = strlen(s);
        if (n > PARSE_MAX_STRING) {
                b->error = b->error ?: -E2BIG;
                return;
        }
        put_u32(b, (uint32_t) n);
        put(b, s, n);
}

static void put_strv(ParseBuffer *b, char *const *v) {
        if (!v) {
                put_u32(b, NULL_MARK);
                return;
        }
        size_t n = strv_length((char **) v);
        put_u32(b, (uint32_t) n);
        for (size_t i = 0; i < n; i++)
                put_str(b, v[i]);
}

static int finish(ParseBuffer *b) {
        if (!b->error && b->size > PARSE_MAX_REPLY)
                b->error = -E2BIG;
        return b->error;
}

int parse_encode_error(ParseBuffer *b, const char *reason) {
        if (!reason) {
                put_str(b, NULL);
                return finish(b);
        }
        /* What the decoder accepts: at most PARSE_MAX_REASON bytes of UTF-8. */
        char clean[PARSE_MAX_REASON + 1];
        size_t n = 0;
        for (const char *s = reason; *s && n < PARSE_MAX_REASON;) {
                size_t k = utf8_sequence_length(s, strlen(s));
                if (k == 0) {
                        clean[n++] = '?';
                        s++;
                        continue;
                }
                if (n + k > PARSE_MAX_REASON)
                        break;
                memcpy(clean + n, s, k);
                n += k;
                s += k;
        }
        clean[n] = 0;
        put_str(b, clean);
        return finish(b);
}

int parse_encode_icc_info(ParseBuffer *b, const IccInfo *info) {
        put_str(b, info->checksum);
        put_str(b, info->description);
        put_str(b, info->title);
        put_str(b, info->copyright);
        put_str(b, info->manufacturer);
        put_str(b, info->model);
        put_str(b, info->kind);
        put_str(b, info->colorspace);
        put_u8(b, info->has_vcgt);
        put_u64(b, (uint64_t) info->created);
        put_strv(b, info->metadata);
        put_strv(b, info->warnings);
        put_u32(b, info->tags_ignored);
        return finish(b);
}

int parse_encode_warnings(ParseBuffer *b, char *const *warnings) {
        put_strv(b, warnings);
        return finish(b);
}

static void put_xy(ParseBuffer *b, const EdidXY *xy) {
        put_u32(b, xy->raw_x);
        put_u32(b, xy->raw_y);
}

static void put_luminance(ParseBuffer *b, const EdidLuminance *l) {
        put_u8(b, l->present);
        put_u8(b, l->code);
        put_f64(b, l->cd_m2);
}

int parse_encode_edid(ParseBuffer *b, const Edid *e) {
        put_u64(b, e->size);
        put_str(b, e->md5);
        put_u8(b, e->version);
        put_u8(b, e->revision);
        put_str(b, e->manufacturer);
        put_u32(b, e->product_code);
        put_u32(b, e->serial_number);
        put_u8(b, e->has_serial_string);
        put_u8(b, e->has_model_name);
        put_str(b, e->serial_string);
        put_str(b, e->model_name);
        put_u32(b, e->n_alphanumeric);
        for (unsigned i = 0; i < e->n_alphanumeric && i < EDID_BASE_DESCRIPTORS; i++)
                put_str(b, e->alphanumeric[i]);
        put_u8(b, e->spwg);
        put_u8(b, e->week);
        put_u32(b, e->year);
        put_u8(b, e->digital);
        put_u8(b, e->gamma_in_extension);
        put_f64(b, e->gamma);
        put_xy(b, &e->red);
        put_xy(b, &e->green);
        put_xy(b, &e->blue);
        put_xy(b, &e->white);
        put_u8(b, e->extension_count);

        put_u64(b, e->n_blocks);
        for (size_t i = 0; i < e->n_blocks; i++) {
                put_u8(b, e->blocks[i].tag);
                put_u8(b, e->blocks[i].checksum);
                put_u8(b, e->blocks[i].checksum_valid);
        }

        const EdidCta *c = &e->cta;
        put_u32(b, c->n_blocks);
        put_u8(b, c->revision);
        put_u8(b, c->malformed);
        put_u64(b, c->n_data_blocks);
        for (size_t i = 0; i < c->n_data_blocks; i++) {
                const EdidCtaDataBlock *d = &c->data_blocks[i];
                put_u8(b, d->tag);
                put_u8(b, d->length);
                put_u8(b, d->extended);
                put_u8(b, d->extended_tag);
                put_u8(b, d->has_oui);
                put_u32(b, d->oui);
                put_u8(b, d->overruns);
        }
        put_u8(b, c->has_hdr_static_metadata);
        put_u8(b, c->eotfs);
        put_u8(b, c->static_metadata_descriptors);
        put_luminance(b, &c->max_luminance);
        put_luminance(b, &c->max_frame_avg_luminance);
        put_luminance(b, &c->min_luminance);
        put_u8(b, c->has_colorimetry);
        put_u32(b, c->colorimetry);
        put_u8(b, c->hdmi_vsdb);
        put_u8(b, c->hdmi_forum_vsdb);
        put_u8(b, c->hdr10plus_vsvdb);
        put_u8(b, c->dolby_vision_vsvdb);

        put_u64(b, e->n_displayid);
        put(b, e->displayid_versions, e->n_displayid <= EDID_MAX_BLOCKS ? e->n_displayid : 0);
        return finish(b);
}

/* ---- reading (the daemon's side): every getter fails closed on the first bad byte ---- */

typedef struct Reader {
        const uint8_t *p;
        size_t left;
        bool bad;
} Reader;

static bool get(Reader *r, void *out, size_t n) {
        if (r->bad || r->left < n) {
                r->bad = true;
                memset(out, 0, n);
                return false;
        }
        memcpy(out, r->p, n);
        r->p += n;
        r->left -= n;
        return true;
}

static uint8_t get_u8(Reader *r) { uint8_t v; get(r, &v, sizeof v); return v; }
static uint32_t get_u32(Reader *r) { uint32_t v; get(r, &v, sizeof v); return v; }
static uint64_t get_u64(Reader *r) { uint64_t v; get(r, &v, sizeof v); return v; }

static uint32_t get_u32_max(Reader *r, uint32_t max) {
        uint32_t v = get_u32(r);
        if (v > max)
                r->bad = true;
        return r->bad ? 0 : v;
}

static bool get_bool(Reader *r) {
        uint8_t v = get_u8(r);
        if (v > 1)
                r->bad = true;
        return v == 1;
}

static double get_finite(Reader *r) {
        double v;
        get(r, &v, sizeof v);
        if (!isfinite(v))
                r->bad = true;
        return r->bad ? 0 : v;
}

/* A new string, or NULL for the null mark (and when *ok turns false). */
static char *get_str(Reader *r, size_t max) {
        uint32_t n = get_u32(r);
        if (r->bad || n == NULL_MARK)
                return NULL;
        if (n > max || n > r->left || memchr(r->p, 0, n) || !utf8_is_valid((const char *) r->p, n)) {
                r->bad = true;
                return NULL;
        }
        char *s = strndup((const char *) r->p, n);
        if (!s) {
                r->bad = true;
                return NULL;
        }
        r->p += n;
        r->left -= n;
        return s;
}

/* Into a fixed buffer (always NUL-terminated); absent counts as empty. */
static void get_fixed_str(Reader *r, char *buf, size_t size) {
        _cleanup_free_ char *s = get_str(r, size - 1);
        buf[0] = 0;
        if (s)
                memcpy(buf, s, strlen(s) + 1);
}

static char **get_strv(Reader *r, bool *is_null) {
        uint32_t n = get_u32(r);
        *is_null = !r->bad && n == NULL_MARK;
        /* every string costs at least its 4-byte length: a count beyond that is a lie */
        if (r->bad || *is_null || n > PARSE_MAX_STRV || n > r->left / 4) {
                r->bad = r->bad || (!*is_null);
                return NULL;
        }
        _cleanup_strv_free_ char **v = calloc((size_t) n + 1, sizeof(char *));
        if (!v) {
                r->bad = true;
                return NULL;
        }
        for (uint32_t i = 0; i < n; i++) {
                v[i] = get_str(r, PARSE_MAX_STRING);
                if (!v[i]) {
                        r->bad = true; /* no NULL inside a strv */
                        return NULL;
                }
        }
        return TAKE_PTR(v);
}

static bool is_hex_checksum(const char *s) {
        if (!s || strlen(s) != 32)
                return false;
        for (const char *c = s; *c; c++)
                if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
                        return false;
        return true;
}

static int done(Reader *r) {
        return r->bad || r->left != 0 ? -EBADMSG : 0;
}

int parse_decode_error(const uint8_t *data, size_t size, char **ret) {
        Reader r = { data, size, false };
        _cleanup_free_ char *s = get_str(&r, PARSE_MAX_REASON);
        int k = done(&r);
        if (k < 0)
                return k;
        *ret = TAKE_PTR(s);
        return 0;
}

int parse_decode_icc_info(const uint8_t *data, size_t size, IccInfo **ret) {
        Reader r = { data, size, false };
        _cleanup_(icc_info_freep) IccInfo *info = calloc(1, sizeof(IccInfo));
        if (!info)
                return -ENOMEM;
        _cleanup_free_ char *checksum = get_str(&r, 32), *kind = NULL, *colorspace = NULL;
        info->description = get_str(&r, PARSE_MAX_STRING);
        info->title = get_str(&r, PARSE_MAX_STRING);
        info->copyright = get_str(&r, PARSE_MAX_STRING);
        info->manufacturer = get_str(&r, PARSE_MAX_STRING);
        info->model = get_str(&r, PARSE_MAX_STRING);
        kind = get_str(&r, 64);
        colorspace = get_str(&r, 64);
        info->has_vcgt = get_bool(&r);
        info->created = (int64_t) get_u64(&r);
        bool null_metadata, null_warnings;
        info->metadata = get_strv(&r, &null_metadata);
        info->warnings = get_strv(&r, &null_warnings);
        info->tags_ignored = get_u32(&r);
        if (done(&r) < 0 || !is_hex_checksum(checksum))
                return -EBADMSG;

        /* The names must be ones the parser can produce; the daemon keeps the static copies. */
        info->kind = icc_info_kind_name(kind);
        info->colorspace = icc_info_colorspace_name(colorspace);
        if (!info->kind || !info->colorspace)
                return -EBADMSG;
        memcpy(info->checksum, checksum, 33);
        if (null_metadata && !(info->metadata = calloc(1, sizeof(char *))))
                return -ENOMEM;
        if (strv_length(info->metadata) % 2 != 0)
                return -EBADMSG;
        STRV_FOREACH(w, info->warnings)
                if (!icc_info_warning_name(*w))
                        return -EBADMSG;
        *ret = TAKE_PTR(info);
        return 0;
}

int parse_decode_warnings(const uint8_t *data, size_t size, char ***ret) {
        Reader r = { data, size, false };
        bool is_null;
        _cleanup_strv_free_ char **w = get_strv(&r, &is_null);
        if (done(&r) < 0 || is_null)
                return -EBADMSG;
        STRV_FOREACH(s, w)
                if (!icc_info_warning_name(*s))
                        return -EBADMSG;
        *ret = TAKE_PTR(w);
        return 0;
}

static void get_xy(Reader *r, EdidXY *xy) {
        xy->raw_x = (uint16_t) get_u32_max(r, 1023);
        xy->raw_y = (uint16_t) get_u32_max(r, 1023);
        /* Recomputed, not trusted: the same rule as the parser (E-EDID 1.4 §3.7). */
        xy->x = xy->raw_x / 1024.0;
        xy->y = xy->raw_y / 1024.0;
}

static void get_luminance(Reader *r, EdidLuminance *l) {
        l->present = get_bool(r);
        l->code = get_u8(r);
        l->cd_m2 = get_finite(r);
}

static bool printable_ascii(const char *s) {
        for (; *s; s++)
                if (*s < 0x20 || *s > 0x7e)
                        return false;
        return true;
}

int parse_decode_edid(const uint8_t *data, size_t size, Edid **ret) {
        Reader r = { data, size, false };
        _cleanup_(edid_freep) Edid *e = calloc(1, sizeof(Edid));
        if (!e)
                return -ENOMEM;
        e->size = get_u64(&r);
        get_fixed_str(&r, e->md5, sizeof e->md5);
        e->version = get_u8(&r);
        e->revision = get_u8(&r);
        get_fixed_str(&r, e->manufacturer, sizeof e->manufacturer);
        e->product_code = (uint16_t) get_u32_max(&r, UINT16_MAX);
        e->serial_number = get_u32(&r);
        e->has_serial_string = get_bool(&r);
        e->has_model_name = get_bool(&r);
        get_fixed_str(&r, e->serial_string, sizeof e->serial_string);
        get_fixed_str(&r, e->model_name, sizeof e->model_name);
        e->n_alphanumeric = get_u32_max(&r, EDID_BASE_DESCRIPTORS);
        for (unsigned i = 0; i < e->n_alphanumeric; i++)
                get_fixed_str(&r, e->alphanumeric[i], sizeof e->alphanumeric[i]);
        e->spwg = get_bool(&r);
        e->week = get_u8(&r);
        e->year = get_u32_max(&r, 1990 + 255);
        e->digital = get_bool(&r);
        e->gamma_in_extension = get_bool(&r);
        e->gamma = get_finite(&r);
        get_xy(&r, &e->red);
        get_xy(&r, &e->green);
        get_xy(&r, &e->blue);
        get_xy(&r, &e->white);
        e->extension_count = get_u8(&r);

        uint64_t n = get_u64(&r);
        if (r.bad || n == 0 || n > EDID_MAX_BLOCKS || n * EDID_BLOCK_SIZE != e->size)
                return -EBADMSG;
        if (!(e->blocks = calloc(n, sizeof(EdidBlock))))
                return -ENOMEM;
        e->n_blocks = n;
        for (size_t i = 0; i < n; i++) {
                e->blocks[i].tag = get_u8(&r);
                e->blocks[i].checksum = get_u8(&r);
                e->blocks[i].checksum_valid = get_bool(&r);
        }

        EdidCta *c = &e->cta;
        c->n_blocks = get_u32_max(&r, EDID_MAX_BLOCKS);
        c->revision = get_u8(&r);
        c->malformed = get_bool(&r);
        n = get_u64(&r);
        /* each data block has a header byte: at most one per payload byte of every block */
        if (r.bad || n > EDID_MAX_BLOCKS * EDID_BLOCK_SIZE || n > r.left / 10)
                return -EBADMSG;
        if (n > 0 && !(c->data_blocks = calloc(n, sizeof(EdidCtaDataBlock))))
                return -ENOMEM;
        c->n_data_blocks = n;
        for (size_t i = 0; i < n; i++) {
                EdidCtaDataBlock *d = &c->data_blocks[i];
                d->tag = get_u8(&r);
                if (d->tag > 7)
                        r.bad = true;
                d->length = get_u8(&r);
                d->extended = get_bool(&r);
                d->extended_tag = get_u8(&r);
                d->has_oui = get_bool(&r);
                d->oui = get_u32_max(&r, 0xffffff);
                d->overruns = get_bool(&r);
        }
        c->has_hdr_static_metadata = get_bool(&r);
        c->eotfs = get_u8(&r);
        c->static_metadata_descriptors = get_u8(&r);
        get_luminance(&r, &c->max_luminance);
        get_luminance(&r, &c->max_frame_avg_luminance);
        get_luminance(&r, &c->min_luminance);
        c->has_colorimetry = get_bool(&r);
        c->colorimetry = (uint16_t) get_u32_max(&r, UINT16_MAX);
        c->hdmi_vsdb = get_bool(&r);
        c->hdmi_forum_vsdb = get_bool(&r);
        c->hdr10plus_vsvdb = get_bool(&r);
        c->dolby_vision_vsvdb = get_bool(&r);

        n = get_u64(&r);
        if (r.bad || n > EDID_MAX_BLOCKS)
                return -EBADMSG;
        e->n_displayid = n;
        get(&r, e->displayid_versions, n);

        if (done(&r) < 0 || !is_hex_checksum(e->md5) || strlen(e->manufacturer) != 3 ||
            !printable_ascii(e->manufacturer) || !printable_ascii(e->serial_string) ||
            !printable_ascii(e->model_name))
                return -EBADMSG;
        for (unsigned i = 0; i < e->n_alphanumeric; i++)
                if (!printable_ascii(e->alphanumeric[i]))
                        return -EBADMSG;
        *ret = TAKE_PTR(e);
        return 0;
}
