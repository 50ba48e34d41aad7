/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IPP encoding and decoding (see ipp-wire.h). The decoder is a recursive descent over
 * RFC 8010 §3.1: groups of attributes, each a value-tag, a name (empty for an additional
 * value), a value; a collection (§3.1.6) a begCollection value followed by memberAttrName
 * values, each member's values, and an endCollection. */
#include "ipp-wire.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

typedef struct Cursor {
        const uint8_t *buf;
        size_t len, pos;
        unsigned count; /* attributes and values so far, against IPP_MAX_ATTRIBUTES */
} Cursor;

typedef struct Field {
        uint8_t tag;
        const uint8_t *name;
        size_t name_len;
        const uint8_t *value;
        size_t value_len;
} Field;

static uint16_t be16(const uint8_t *p) {
        return (uint16_t) (p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p) {
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static bool is_delimiter(uint8_t tag) {
        return tag < 0x10;
}

/* One attribute-with-one-value (RFC 8010 §3.1.4): tag, name-length, name, value-length,
 * value; every length checked against what is left. */
static int read_field(Cursor *c, Field *f) {
        if (c->len - c->pos < 3)
                return -EBADMSG;
        f->tag = c->buf[c->pos];
        f->name_len = be16(c->buf + c->pos + 1);
        c->pos += 3;
        if (c->len - c->pos < f->name_len + 2)
                return -EBADMSG;
        f->name = c->buf + c->pos;
        c->pos += f->name_len;
        f->value_len = be16(c->buf + c->pos);
        c->pos += 2;
        if (c->len - c->pos < f->value_len)
                return -EBADMSG;
        f->value = c->buf + c->pos;
        c->pos += f->value_len;
        if (++c->count > IPP_MAX_ATTRIBUTES)
                return -E2BIG;
        return 0;
}

static void attr_done(IppAttr *a);

static void value_done(IppValue *v) {
        for (size_t i = 0; i < v->n_members; i++)
                attr_done(&v->members[i]);
        free(v->members);
}

static void attr_done(IppAttr *a) {
        for (size_t i = 0; i < a->n_values; i++)
                value_done(&a->values[i]);
        free(a->values);
        free(a->name);
}

static int attrs_append(IppAttr **attrs, size_t *n, const uint8_t *name, size_t name_len) {
        IppAttr *grown = reallocarray(*attrs, *n + 1, sizeof **attrs);
        if (!grown)
                return -ENOMEM;
        *attrs = grown;
        IppAttr *a = &grown[*n];
        *a = (IppAttr) { 0 };
        if (!(a->name = strndup((const char *) name, name_len)))
                return -ENOMEM;
        if (strlen(a->name) != name_len) {
                free(a->name);
                return -EBADMSG; /* a NUL inside a name */
        }
        (*n)++;
        return 0;
}

static int read_collection(Cursor *c, IppValue *v, unsigned depth);

static int attr_add_value(Cursor *c, IppAttr *a, const Field *f, unsigned depth) {
        if (f->tag == 0x7f)
                return -EBADMSG; /* extension tags: nothing we ask for uses them */
        IppValue *grown = reallocarray(a->values, a->n_values + 1, sizeof *a->values);
        if (!grown)
                return -ENOMEM;
        a->values = grown;
        IppValue *v = &grown[a->n_values++];
        *v = (IppValue) { .tag = f->tag, .data = f->value, .len = f->value_len };
        if (f->tag == IPP_TAG_BEGIN_COLLECTION)
                return read_collection(c, v, depth + 1);
        return 0;
}

static int read_collection(Cursor *c, IppValue *v, unsigned depth) {
        if (depth > IPP_MAX_DEPTH)
                return -E2BIG;
        for (;;) {
                Field f;
                int r = read_field(c, &f);
                if (r < 0)
                        return r;
                if (f.name_len != 0 || is_delimiter(f.tag))
                        return -EBADMSG; /* members are named by memberAttrName values only */
                if (f.tag == IPP_TAG_END_COLLECTION)
                        return 0;
                if (f.tag == IPP_TAG_MEMBER_NAME) {
                        if (f.value_len == 0)
                                return -EBADMSG;
                        r = attrs_append(&v->members, &v->n_members, f.value, f.value_len);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (v->n_members == 0)
                        return -EBADMSG; /* a value before any member name */
                r = attr_add_value(c, &v->members[v->n_members - 1], &f, depth);
                if (r < 0)
                        return r;
        }
}

void ipp_message_done(IppMessage *msg) {
        for (size_t g = 0; g < msg->n_groups; g++) {
                for (size_t i = 0; i < msg->groups[g].n_attrs; i++)
                        attr_done(&msg->groups[g].attrs[i]);
                free(msg->groups[g].attrs);
        }
        free(msg->groups);
        free(msg->bytes);
        *msg = (IppMessage) { 0 };
}

int ipp_decode(const uint8_t *buf, size_t len, IppMessage *ret) {
        if (len > IPP_MAX_RESPONSE)
                return -E2BIG;
        if (len < 9)
                return -EBADMSG;
        _cleanup_(ipp_message_done) IppMessage msg = {
                .status = be16(buf + 2),
                .request_id = be32(buf + 4),
        };
        if (buf[0] < 1 || buf[0] > 2)
                return -EBADMSG; /* IPP/1.x and 2.x share this encoding */
        /* The message outlives the caller's buffer (a connection's, freed first). */
        if (!(msg.bytes = malloc(len)))
                return -ENOMEM;
        memcpy(msg.bytes, buf, len);
        Cursor c = { .buf = msg.bytes, .len = len, .pos = 8 };
        for (;;) {
                if (c.pos >= c.len)
                        return -EBADMSG; /* no end-of-attributes-tag */
                uint8_t tag = c.buf[c.pos];
                if (is_delimiter(tag)) {
                        c.pos++;
                        if (tag == IPP_TAG_END)
                                break;
                        if (tag == 0x00)
                                return -EBADMSG;
                        IppGroup *grown = reallocarray(msg.groups, msg.n_groups + 1, sizeof *msg.groups);
                        if (!grown)
                                return -ENOMEM;
                        msg.groups = grown;
                        msg.groups[msg.n_groups++] = (IppGroup) { .tag = tag };
                        continue;
                }
                if (msg.n_groups == 0)
                        return -EBADMSG; /* an attribute outside any group */
                IppGroup *g = &msg.groups[msg.n_groups - 1];
                Field f;
                int r = read_field(&c, &f);
                if (r < 0)
                        return r;
                if (f.tag == IPP_TAG_END_COLLECTION || f.tag == IPP_TAG_MEMBER_NAME)
                        return -EBADMSG;
                if (f.name_len > 0) {
                        r = attrs_append(&g->attrs, &g->n_attrs, f.name, f.name_len);
                        if (r < 0)
                                return r;
                } else if (g->n_attrs == 0) {
                        return -EBADMSG; /* an additional value of nothing */
                }
                r = attr_add_value(&c, &g->attrs[g->n_attrs - 1], &f, 0);
                if (r < 0)
                        return r;
        }
        *ret = msg;
        msg = (IppMessage) { 0 };
        return 0;
}

/* ---- building ----------------------------------------------------------------------- */

typedef struct Builder {
        uint8_t *buf;
        size_t len, size;
        int error;
} Builder;

static void put(Builder *b, const void *data, size_t n) {
        if (b->error < 0)
                return;
        if (b->len + n > b->size) {
                size_t size = (b->len + n) * 2;
                uint8_t *grown = realloc(b->buf, size);
                if (!grown) {
                        b->error = -ENOMEM;
                        return;
                }
                b->buf = grown;
                b->size = size;
        }
        memcpy(b->buf + b->len, data, n);
        b->len += n;
}

static void put_u8(Builder *b, uint8_t v) {
        put(b, &v, 1);
}

static void put_u16(Builder *b, uint16_t v) {
        uint8_t p[2] = { v >> 8, v & 0xff };
        put(b, p, 2);
}

/* One value (RFC 8010 §3.1.4): tag, name and value, each length-prefixed. */
static void put_value(Builder *b, uint8_t tag, const char *name, const void *value, size_t value_len) {
        size_t name_len = strlen(name);
        if (name_len > UINT16_MAX || value_len > UINT16_MAX) {
                b->error = -E2BIG;
                return;
        }
        put_u8(b, tag);
        put_u16(b, (uint16_t) name_len);
        put(b, name, name_len);
        put_u16(b, (uint16_t) value_len);
        put(b, value, value_len);
}

static void put_string(Builder *b, uint8_t tag, const char *name, const char *value) {
        put_value(b, tag, name, value, strlen(value));
}

static void put_integer(Builder *b, const char *name, int32_t value) {
        uint32_t v = (uint32_t) value;
        uint8_t p[4] = { v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff };
        put_value(b, IPP_TAG_INTEGER, name, p, sizeof p);
}

int ipp_build_request(uint16_t operation, uint32_t request_id, const char *printer_uri,
                      const char *const *requested, uint8_t **ret, size_t *ret_len) {
        return ipp_build_request_with(operation, request_id, printer_uri, requested, NULL, 0, ret, ret_len);
}

int ipp_build_request_with(uint16_t operation, uint32_t request_id, const char *printer_uri,
                           const char *const *requested, const IppRequestAttr *extra, size_t n_extra,
                           uint8_t **ret, size_t *ret_len) {
        Builder b = { 0 };
        uint8_t header[8] = { 2, 0, operation >> 8, operation & 0xff,
                              request_id >> 24, (request_id >> 16) & 0xff, (request_id >> 8) & 0xff, request_id & 0xff };
        uint8_t group = IPP_TAG_OPERATION;
        put(&b, header, sizeof header);
        put_u8(&b, IPP_TAG_OPERATION);
        /* RFC 8011 §4.1.4: these two come first, in this order. */
        put_string(&b, IPP_TAG_CHARSET, "attributes-charset", "utf-8");
        put_string(&b, IPP_TAG_LANGUAGE, "attributes-natural-language", "en");
        if (printer_uri)
                put_string(&b, IPP_TAG_URI, "printer-uri", printer_uri);
        for (size_t i = 0; requested && requested[i]; i++)
                put_string(&b, IPP_TAG_KEYWORD, i == 0 ? "requested-attributes" : "", requested[i]);
        for (size_t i = 0; i < n_extra; i++) {
                const IppRequestAttr *a = &extra[i];
                assert(a->group >= group && (a->name || i > 0));
                if (a->group != group)
                        put_u8(&b, group = a->group);
                if (a->tag == IPP_TAG_INTEGER)
                        put_integer(&b, a->name ?: "", a->value_integer);
                else if (a->tag == IPP_TAG_BOOLEAN)
                        put_value(&b, IPP_TAG_BOOLEAN, a->name ?: "", &(uint8_t) { a->value_integer != 0 }, 1);
                else
                        put_string(&b, a->tag, a->name ?: "", a->value);
        }
        put_u8(&b, IPP_TAG_END);
        if (b.error < 0) {
                free(b.buf);
                return b.error;
        }
        *ret = b.buf;
        *ret_len = b.len;
        return 0;
}

/* ---- reading values ------------------------------------------------------------------- */

const IppAttr *ipp_group_find(const IppGroup *g, const char *name) {
        for (size_t i = 0; i < g->n_attrs; i++)
                if (streq(g->attrs[i].name, name))
                        return &g->attrs[i];
        return NULL;
}

const IppAttr *ipp_attr_member(const IppValue *collection, const char *name) {
        if (collection->tag != IPP_TAG_BEGIN_COLLECTION)
                return NULL;
        for (size_t i = 0; i < collection->n_members; i++)
                if (streq(collection->members[i].name, name))
                        return &collection->members[i];
        return NULL;
}

static const IppValue *value_at(const IppAttr *a, size_t i) {
        return a && i < a->n_values ? &a->values[i] : NULL;
}

int ipp_attr_string(const IppAttr *a, size_t i, char **ret) {
        const IppValue *v = value_at(a, i);
        if (!v)
                return -ENOENT;
        const uint8_t *data = v->data;
        size_t len = v->len;
        if (v->tag == IPP_TAG_TEXT_LANG || v->tag == IPP_TAG_NAME_LANG) {
                /* RFC 8010 §3.9: language length, language, text length, text. */
                if (len < 2 || len - 2 < be16(data))
                        return -EBADMSG;
                size_t skip = 2 + be16(data);
                if (len - skip < 2 || len - skip - 2 != be16(data + skip))
                        return -EBADMSG;
                data += skip + 2;
                len -= skip + 2;
        } else if (v->tag < IPP_TAG_TEXT || v->tag > IPP_TAG_MIME_TYPE) {
                return -EBADMSG;
        }
        if (memchr(data, 0, len))
                return -EBADMSG;
        char *s = strndup((const char *) data, len);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int ipp_attr_integer(const IppAttr *a, size_t i, int32_t *ret) {
        const IppValue *v = value_at(a, i);
        if (!v)
                return -ENOENT;
        if ((v->tag != IPP_TAG_INTEGER && v->tag != IPP_TAG_ENUM) || v->len != 4)
                return -EBADMSG;
        *ret = (int32_t) be32(v->data);
        return 0;
}

int ipp_attr_boolean(const IppAttr *a, size_t i, bool *ret) {
        const IppValue *v = value_at(a, i);
        if (!v)
                return -ENOENT;
        if (v->tag != IPP_TAG_BOOLEAN || v->len != 1 || v->data[0] > 1)
                return -EBADMSG;
        *ret = v->data[0];
        return 0;
}

int ipp_attr_resolution(const IppAttr *a, size_t i, int32_t *ret_x, int32_t *ret_y, uint8_t *ret_units) {
        const IppValue *v = value_at(a, i);
        if (!v)
                return -ENOENT;
        if (v->tag != IPP_TAG_RESOLUTION || v->len != 9)
                return -EBADMSG;
        *ret_x = (int32_t) be32(v->data);
        *ret_y = (int32_t) be32(v->data + 4);
        *ret_units = v->data[8];
        return 0;
}
