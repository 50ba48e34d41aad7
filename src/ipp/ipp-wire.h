/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IPP messages (RFC 8010, the encoding; RFC 8011, the operations): a request built into a
 * buffer, a response decoded from one into groups of attributes, collections included
 * (printer-icc-profiles is one). Pure: no I/O, no logging; every length is checked against
 * the buffer before it is read, and nesting and counts are capped, because the bytes come
 * from cupsd or from a printer on the network. HTTP around it is http-wire.h's job. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Delimiter tags (RFC 8010 §3.5.1). */
#define IPP_TAG_OPERATION 0x01
#define IPP_TAG_JOB 0x02
#define IPP_TAG_END 0x03
#define IPP_TAG_PRINTER 0x04
#define IPP_TAG_UNSUPPORTED_GROUP 0x05
#define IPP_TAG_SUBSCRIPTION 0x06
/* Value tags (RFC 8010 §3.5.2). */
#define IPP_TAG_INTEGER 0x21
#define IPP_TAG_BOOLEAN 0x22
#define IPP_TAG_ENUM 0x23
#define IPP_TAG_RESOLUTION 0x32
#define IPP_TAG_BEGIN_COLLECTION 0x34
#define IPP_TAG_TEXT_LANG 0x35
#define IPP_TAG_NAME_LANG 0x36
#define IPP_TAG_END_COLLECTION 0x37
#define IPP_TAG_TEXT 0x41
#define IPP_TAG_NAME 0x42
#define IPP_TAG_KEYWORD 0x44
#define IPP_TAG_URI 0x45
#define IPP_TAG_CHARSET 0x47
#define IPP_TAG_LANGUAGE 0x48
#define IPP_TAG_MIME_TYPE 0x49
#define IPP_TAG_MEMBER_NAME 0x4a

/* Operations (RFC 8011 §5.2.5, CUPS Implementation of IPP). */
#define IPP_OP_GET_PRINTER_ATTRIBUTES 0x000b
#define IPP_OP_CREATE_PRINTER_SUBSCRIPTIONS 0x0016 /* RFC 3995 §11.1.2 */
#define IPP_OP_GET_SUBSCRIPTIONS 0x0019
#define IPP_OP_RENEW_SUBSCRIPTION 0x001a
#define IPP_OP_CANCEL_SUBSCRIPTION 0x001b
#define IPP_OP_CUPS_GET_PRINTERS 0x4002

/* Caps on what a response may hold (a real one is a few hundred attributes per printer). */
#define IPP_MAX_RESPONSE (16u * 1024u * 1024u)
#define IPP_MAX_DEPTH 8
#define IPP_MAX_ATTRIBUTES 65536

typedef struct IppAttr IppAttr;

typedef struct IppValue {
        uint8_t tag;
        const uint8_t *data; /* into the message's own copy of the bytes */
        size_t len;
        IppAttr *members;    /* IPP_TAG_BEGIN_COLLECTION: the collection's members */
        size_t n_members;
} IppValue;

struct IppAttr {
        char *name;          /* NUL-terminated copy */
        IppValue *values;
        size_t n_values;
};

typedef struct IppGroup {
        uint8_t tag;
        IppAttr *attrs;
        size_t n_attrs;
} IppGroup;

typedef struct IppMessage {
        uint16_t status;     /* the status-code of a response */
        uint32_t request_id;
        IppGroup *groups;
        size_t n_groups;
        uint8_t *bytes;      /* the copy of the decoded buffer the values point into */
} IppMessage;

/* A request: version 2.0, charset utf-8, language en, then printer_uri (if not NULL) and
 * requested-attributes (if not NULL, a NULL-terminated list). *ret is malloc'd. */
int ipp_build_request(uint16_t operation, uint32_t request_id, const char *printer_uri,
                      const char *const *requested, uint8_t **ret, size_t *ret_len);

/* One more attribute of a request, after those above: in group (IPP_TAG_OPERATION first,
 * then IPP_TAG_SUBSCRIPTION), a string value with a string tag, or value_integer with
 * IPP_TAG_INTEGER (or IPP_TAG_BOOLEAN, non-zero for true); name NULL adds a further value to the attribute before it (1setOf). */
typedef struct IppRequestAttr {
        uint8_t group;
        uint8_t tag;
        const char *name;
        const char *value;
        int32_t value_integer;
} IppRequestAttr;

int ipp_build_request_with(uint16_t operation, uint32_t request_id, const char *printer_uri,
                           const char *const *requested, const IppRequestAttr *extra, size_t n_extra,
                           uint8_t **ret, size_t *ret_len);

/* -EBADMSG on anything malformed (truncated, a value outside its group, a member without a
 * name, unbalanced collections), -E2BIG over the caps, -ENOMEM. */
int ipp_decode(const uint8_t *buf, size_t len, IppMessage *ret);
void ipp_message_done(IppMessage *msg);

/* Lookups: NULL when absent. */
const IppAttr *ipp_group_find(const IppGroup *g, const char *name);
const IppAttr *ipp_attr_member(const IppValue *collection, const char *name);

/* Typed reads of value i: -ENOENT if absent, -EBADMSG if of another type or malformed.
 * ipp_value_string allocates a NUL-terminated copy (NUL bytes inside are refused) for the
 * string types (text, name, keyword, uri, charset, language, mime type; the *WithLanguage
 * forms give their text part). */
int ipp_attr_string(const IppAttr *a, size_t i, char **ret);
int ipp_attr_integer(const IppAttr *a, size_t i, int32_t *ret); /* integer or enum */
int ipp_attr_boolean(const IppAttr *a, size_t i, bool *ret);
int ipp_attr_resolution(const IppAttr *a, size_t i, int32_t *ret_x, int32_t *ret_y, uint8_t *ret_units);
