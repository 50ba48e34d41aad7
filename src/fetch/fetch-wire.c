/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-fetch's reply (see fetch-wire.h). */
#include "fetch-wire.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"
#include "utf8.h"

static const uint8_t magic[4] = { 'T', 'F', 'R', '1' };

void fetch_writer_init(FetchWriter *w) {
        *w = (FetchWriter) { 0 };
}

void fetch_writer_done(FetchWriter *w) {
        free(w->buf);
        *w = (FetchWriter) { 0 };
}

static void put(FetchWriter *w, const void *p, size_t n) {
        if (w->error < 0)
                return;
        if (w->len == 0 && p != magic) {
                put(w, magic, sizeof magic);
                if (w->error < 0)
                        return;
        }
        if (n > FETCH_MAX_TOTAL + 65536 - w->len) {
                w->error = -EFBIG;
                return;
        }
        if (w->len + n > w->size) {
                size_t size = (w->len + n) * 2;
                uint8_t *grown = realloc(w->buf, size);
                if (!grown) {
                        w->error = -ENOMEM;
                        return;
                }
                w->buf = grown;
                w->size = size;
        }
        memcpy(w->buf + w->len, p, n);
        w->len += n;
}

static void put_header(FetchWriter *w, uint8_t type, size_t len) {
        uint8_t h[5] = { type, (uint8_t) (len >> 24), (uint8_t) (len >> 16), (uint8_t) (len >> 8), (uint8_t) len };
        put(w, h, sizeof h);
}

static void put_u16_string(FetchWriter *w, const char *s) {
        size_t n = strlen(s);
        uint8_t h[2] = { (uint8_t) (n >> 8), (uint8_t) n };
        put(w, h, 2);
        put(w, s, n);
}

void fetch_write_string(FetchWriter *w, uint8_t type, const char *s) {
        size_t n = strnlen(s, FETCH_MAX_STRING);
        put_header(w, type, n);
        put(w, s, n);
}

void fetch_write_profile(FetchWriter *w, const char *name, const char *url, const uint8_t *icc, size_t len) {
        if (strlen(name) >= FETCH_MAX_STRING || strlen(url) >= FETCH_MAX_STRING) {
                w->error = w->error < 0 ? w->error : -E2BIG;
                return;
        }
        put_header(w, FETCH_PROFILE, 4 + strlen(name) + strlen(url) + len);
        put_u16_string(w, name);
        put_u16_string(w, url);
        put(w, icc, len);
}

int fetch_write_end(FetchWriter *w) {
        put_header(w, FETCH_END, 0);
        return w->error;
}

void fetch_reply_done(FetchReply *r) {
        free(r->uuid);
        free(r->device_id);
        strv_free(r->problems);
        strv_free(r->media_types);
        for (size_t i = 0; i < r->n_profiles; i++) {
                free(r->profiles[i].name);
                free(r->profiles[i].url);
        }
        *r = (FetchReply) { 0 };
}

static int take_string(const uint8_t *p, size_t n, char **ret) {
        if (n == 0 || n >= FETCH_MAX_STRING || memchr(p, 0, n) || !utf8_is_valid((const char *) p, n))
                return -EBADMSG;
        char *s = strndup((const char *) p, n);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int take_u16_string(const uint8_t **p, size_t *left, char **ret) {
        if (*left < 2)
                return -EBADMSG;
        size_t n = (size_t) ((*p)[0] << 8 | (*p)[1]);
        if (*left - 2 < n)
                return -EBADMSG;
        int r = take_string(*p + 2, n, ret);
        if (r < 0)
                return r;
        *p += 2 + n;
        *left -= 2 + n;
        return 0;
}

int fetch_reply_parse(const uint8_t *buf, size_t len, FetchReply *ret) {
        _cleanup_(fetch_reply_done) FetchReply r = { 0 };
        if (len < sizeof magic || memcmp(buf, magic, sizeof magic) != 0 || len > FETCH_MAX_TOTAL + 65536)
                return -EBADMSG;
        size_t pos = sizeof magic, total_icc = 0;
        for (;;) {
                if (len - pos < 5)
                        return -EBADMSG;
                uint8_t type = buf[pos];
                size_t n = (size_t) buf[pos + 1] << 24 | (size_t) buf[pos + 2] << 16 | (size_t) buf[pos + 3] << 8 |
                           buf[pos + 4];
                pos += 5;
                if (len - pos < n)
                        return -EBADMSG;
                const uint8_t *p = buf + pos;
                pos += n;
                int e;
                char *s = NULL;
                switch (type) {
                case FETCH_END:
                        if (n != 0 || pos != len)
                                return -EBADMSG; /* nothing after the end */
                        *ret = r;
                        r = (FetchReply) { 0 };
                        return 0;
                case FETCH_UUID:
                case FETCH_DEVICE_ID: {
                        char **field = type == FETCH_UUID ? &r.uuid : &r.device_id;
                        if (*field)
                                return -EBADMSG;
                        if ((e = take_string(p, n, field)) < 0)
                                return e;
                        break;
                }
                case FETCH_PROBLEM:
                case FETCH_MEDIA_TYPE:
                        if ((e = take_string(p, n, &s)) < 0)
                                return e;
                        if (strv_length(type == FETCH_PROBLEM ? r.problems : r.media_types) >= 64) {
                                free(s);
                                return -EBADMSG;
                        }
                        if ((e = strv_consume(type == FETCH_PROBLEM ? &r.problems : &r.media_types, s)) < 0) {
                                free(s);
                                return e;
                        }
                        break;
                case FETCH_PROFILE: {
                        if (r.n_profiles >= FETCH_MAX_PROFILES)
                                return -EBADMSG;
                        FetchProfile *f = &r.profiles[r.n_profiles];
                        size_t left = n;
                        if ((e = take_u16_string(&p, &left, &f->name)) < 0)
                                return e;
                        r.n_profiles++; /* from here on done() frees what it holds */
                        if ((e = take_u16_string(&p, &left, &f->url)) < 0)
                                return e;
                        if (left == 0 || left > FETCH_MAX_TOTAL - total_icc)
                                return -EBADMSG;
                        total_icc += left;
                        f->icc = p;
                        f->icc_len = left;
                        break;
                }
                default:
                        return -EBADMSG;
                }
        }
}
