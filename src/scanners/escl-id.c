/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eSCL identity (see escl-id.h). The XML reader is deliberately small: it follows tags
 * and their nesting, skips the prolog, comments, CDATA-free text and attributes, and
 * keeps the text of two elements. It is not a general XML parser and does not need to
 * be: a document it cannot follow is refused, and the scanner is reported, not added. */
#include "escl-id.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

#define XML_MAX_DEPTH 64
#define ELEMENT_TEXT_MAX 256

int escl_uuid_normalize(const char *text, char **ret) {
        char hex[33];
        size_t n = 0;
        while (isspace((unsigned char) *text))
                text++;
        if (strncasecmp(text, "urn:uuid:", 9) == 0)
                text += 9;
        size_t len = strlen(text);
        while (len > 0 && isspace((unsigned char) text[len - 1]))
                len--;
        /* 8-4-4-4-12 (RFC 4122's form) or the same 32 digits without dashes. */
        static const size_t dash_at[] = { 8, 13, 18, 23 };
        bool dashed = len == 36;
        if (!dashed && len != 32)
                return -EINVAL;
        for (size_t i = 0, d = 0; i < len; i++) {
                if (dashed && d < ELEMENTSOF(dash_at) && i == dash_at[d]) {
                        if (text[i] != '-')
                                return -EINVAL;
                        d++;
                        continue;
                }
                if (!isxdigit((unsigned char) text[i]))
                        return -EINVAL;
                hex[n++] = (char) tolower((unsigned char) text[i]);
        }
        hex[n] = 0;
        if (asprintf(ret, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20) < 0)
                return -ENOMEM;
        return 0;
}

int escl_device_id(const char *uuid_text, char **ret) {
        _cleanup_free_ char *uuid = NULL;
        int r = escl_uuid_normalize(uuid_text, &uuid);
        if (r < 0)
                return r;
        return asprintf(ret, "escl-%s", uuid) < 0 ? -ENOMEM : 0;
}

void escl_capabilities_done(EsclCapabilities *c) {
        free(c->uuid);
        free(c->make_and_model);
        *c = (EsclCapabilities) {};
}

/* The local name of a tag: what follows the namespace prefix. */
static bool local_name_is(const char *name, size_t len, const char *want) {
        const char *colon = memchr(name, ':', len);
        if (colon) {
                len -= (size_t) (colon + 1 - name);
                name = colon + 1;
        }
        return len == strlen(want) && memcmp(name, want, len) == 0;
}

typedef struct Reader {
        const char *p, *end;
        const char *stack[XML_MAX_DEPTH];
        size_t stack_len[XML_MAX_DEPTH];
        size_t depth;
        bool root_seen;
} Reader;

static const char *find(const char *p, const char *end, const char *needle) {
        size_t n = strlen(needle);
        for (; p + n <= end; p++)
                if (memcmp(p, needle, n) == 0)
                        return p;
        return NULL;
}

/* Copies the element's text (up to its next tag) when it is the one wanted. */
static int keep_text(const char *text, const char *end, char **ret) {
        const char *lt = memchr(text, '<', (size_t) (end - text));
        if (!lt)
                return -EBADMSG;
        while (text < lt && isspace((unsigned char) *text))
                text++;
        while (lt > text && isspace((unsigned char) lt[-1]))
                lt--;
        if (lt - text > ELEMENT_TEXT_MAX || memchr(text, 0, (size_t) (lt - text)))
                return -EBADMSG;
        if (*ret)
                return 0; /* the first one counts */
        *ret = strndup(text, (size_t) (lt - text));
        return *ret ? 0 : -ENOMEM;
}

int escl_capabilities_parse(const char *xml, size_t len, EsclCapabilities *ret) {
        Reader rd = { .p = xml, .end = xml + len };
        _cleanup_free_ char *uuid_text = NULL, *model = NULL;
        int r;

        while (rd.p < rd.end) {
                const char *lt = memchr(rd.p, '<', (size_t) (rd.end - rd.p));
                if (!lt) {
                        for (; rd.p < rd.end; rd.p++)
                                if (!isspace((unsigned char) *rd.p))
                                        return -EBADMSG; /* text after the root */
                        break;
                }
                if (rd.depth == 0)
                        for (const char *q = rd.p; q < lt; q++)
                                if (!isspace((unsigned char) *q))
                                        return -EBADMSG; /* text outside the root */
                if (memchr(rd.p, 0, (size_t) (lt - rd.p)))
                        return -EBADMSG;
                const char *q = lt + 1;
                if (q < rd.end && (*q == '?' || *q == '!')) {
                        /* Prolog, comment or doctype: skipped whole, only outside the root
                         * or as a comment inside it. */
                        const char *close = *q == '?' ? find(q, rd.end, "?>") :
                                            (rd.end - q >= 3 && memcmp(q, "!--", 3) == 0) ? find(q, rd.end, "-->") :
                                                                                            memchr(q, '>', (size_t) (rd.end - q));
                        if (!close)
                                return -EBADMSG;
                        rd.p = memchr(close, '>', (size_t) (rd.end - close)) + 1;
                        continue;
                }
                const char *gt = memchr(q, '>', (size_t) (rd.end - q));
                if (!gt)
                        return -EBADMSG;
                bool closing = *q == '/';
                if (closing)
                        q++;
                const char *name = q;
                while (q < gt && (isalnum((unsigned char) *q) || *q == ':' || *q == '_' || *q == '-' || *q == '.'))
                        q++;
                size_t name_len = (size_t) (q - name);
                if (name_len == 0)
                        return -EBADMSG;
                bool empty = gt[-1] == '/' && !closing;
                if (closing) {
                        if (rd.depth == 0 || rd.stack_len[rd.depth - 1] != name_len ||
                            memcmp(rd.stack[rd.depth - 1], name, name_len) != 0)
                                return -EBADMSG;
                        rd.depth--;
                } else {
                        if (rd.depth == 0) {
                                if (rd.root_seen || !local_name_is(name, name_len, "ScannerCapabilities"))
                                        return -EBADMSG;
                                rd.root_seen = true;
                        }
                        if (!empty) {
                                if (rd.depth == XML_MAX_DEPTH)
                                        return -EBADMSG;
                                rd.stack[rd.depth] = name;
                                rd.stack_len[rd.depth++] = name_len;
                                if (local_name_is(name, name_len, "UUID"))
                                        r = keep_text(gt + 1, rd.end, &uuid_text);
                                else if (local_name_is(name, name_len, "MakeAndModel"))
                                        r = keep_text(gt + 1, rd.end, &model);
                                else
                                        r = 0;
                                if (r < 0)
                                        return r;
                        }
                }
                rd.p = gt + 1;
        }
        if (!rd.root_seen || rd.depth != 0)
                return -EBADMSG;

        EsclCapabilities c = {};
        if (uuid_text) {
                r = escl_uuid_normalize(uuid_text, &c.uuid);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return -EBADMSG;
        }
        c.make_and_model = TAKE_PTR(model);
        *ret = c;
        return 0;
}
