/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A cupsd queue as tinct sees it (see cups-printer.h). */
#include "cups-printer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "md5.h"
#include "utf8.h"

void cups_printer_done(CupsPrinter *p) {
        free(p->name);
        free(p->make_model);
        free(p->device_uri);
        free(p->device_id);
        free(p->color_mode);
        free(p->media_type);
        *p = (CupsPrinter) { 0 };
}

static void note_problem(char **problem, const char *what) {
        if (*problem)
                return; /* the first says enough for one log line */
        *problem = strdup(what);
}

/* A string attribute that must be UTF-8 (it goes on the bus); absent is fine. */
static int read_string(const IppGroup *g, const char *name, char **ret, char **problem) {
        const IppAttr *a = ipp_group_find(g, name);
        if (!a)
                return 0;
        char *s = NULL;
        int r = ipp_attr_string(a, 0, &s);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !utf8_is_valid(s, strlen(s))) {
                free(s);
                char what[128];
                snprintf(what, sizeof what, "%s is malformed", name);
                note_problem(problem, what);
                return 0;
        }
        free(*ret);
        *ret = s;
        return 0;
}

int cups_printer_from_ipp(const IppGroup *g, CupsPrinter *ret, char **ret_problem) {
        _cleanup_(cups_printer_done) CupsPrinter p = { 0 };
        char *problem = NULL;
        const struct {
                const char *attr;
                char **field;
        } strings[] = {
                { "printer-name", &p.name },
                { "printer-make-and-model", &p.make_model },
                { "device-uri", &p.device_uri },
                { "printer-device-id", &p.device_id },
                { "print-color-mode-default", &p.color_mode },
                { "media-type-default", &p.media_type },
        };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
                int r = read_string(g, strings[i].attr, strings[i].field, &problem);
                if (r < 0) {
                        free(problem);
                        return r;
                }
        }
        if (!p.media_type) {
                const IppAttr *col = ipp_group_find(g, "media-col-default");
                if (col && col->n_values > 0) {
                        const IppAttr *t = ipp_attr_member(&col->values[0], "media-type");
                        char *s = NULL;
                        if (t && ipp_attr_string(t, 0, &s) >= 0 && utf8_is_valid(s, strlen(s)))
                                p.media_type = s;
                        else
                                free(s);
                }
        }
        const IppAttr *a = ipp_group_find(g, "color-supported");
        if (a && ipp_attr_boolean(a, 0, &p.color) < 0)
                note_problem(&problem, "color-supported is not a boolean");
        a = ipp_group_find(g, "printer-is-temporary");
        if (a && ipp_attr_boolean(a, 0, &p.temporary) < 0)
                note_problem(&problem, "printer-is-temporary is not a boolean");
        a = ipp_group_find(g, "printer-resolution-default");
        if (a) {
                int32_t x, y;
                uint8_t units;
                /* RFC 8011 §5.1.16: units 3 = dots per inch, 4 = per centimetre. */
                if (ipp_attr_resolution(a, 0, &x, &y, &units) < 0 || x <= 0 || y <= 0 || (units != 3 && units != 4))
                        note_problem(&problem, "printer-resolution-default is malformed");
                else if (units == 3)
                        p.res_x = x, p.res_y = y;
                else
                        p.res_x = (int32_t) (x * 2.54 + 0.5), p.res_y = (int32_t) (y * 2.54 + 0.5);
        }
        if (!p.name || isempty(p.name)) {
                free(problem);
                *ret_problem = strdup("a printer without a usable printer-name");
                return -EBADMSG;
        }
        *ret_problem = problem;
        *ret = p;
        p = (CupsPrinter) { 0 };
        return 0;
}

char *cups_device_id(const char *queue) {
        char *id;
        return asprintf(&id, "cups-%s", queue) < 0 ? NULL : id;
}

char *cups_sanitize_uri(const char *uri) {
        /* scheme://user:password@host/… → scheme://user@host/… */
        const char *start = strstr(uri, "://");
        if (!start)
                return strdup(uri);
        start += 3;
        const char *slash = strchr(start, '/'), *at = NULL;
        for (const char *q = start; *q && (!slash || q < slash); q++)
                if (*q == '@')
                        at = q;
        const char *colon = at ? memchr(start, ':', (size_t) (at - start)) : NULL;
        if (!colon)
                return strdup(uri);
        char *s;
        return asprintf(&s, "%.*s%s", (int) (colon - uri), uri, at) < 0 ? NULL : s;
}

int cups_vendor_model(const char *make_model, char **ret_vendor, char **ret_model) {
        while (*make_model == ' ')
                make_model++;
        size_t n = strcspn(make_model, " ");
        if (n == 0)
                return -ENOENT;
        _cleanup_free_ char *vendor = strndup(make_model, n);
        char *model = strdup(make_model);
        if (!vendor || !model) {
                free(model);
                return -ENOMEM;
        }
        *ret_vendor = TAKE_PTR(vendor);
        *ret_model = model;
        return 0;
}

static char *lower_uuid(const char *s, size_t n) {
        if (n >= 9 && strncasecmp(s, "urn:uuid:", 9) == 0)
                s += 9, n -= 9;
        /* RFC 4122: 36 characters of hex digits and dashes. */
        if (n != 36)
                return NULL;
        char *out = strndup(s, n);
        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                bool dash = i == 8 || i == 13 || i == 18 || i == 23;
                if (dash ? out[i] != '-' : !isxdigit((unsigned char) out[i])) {
                        free(out);
                        return NULL;
                }
                out[i] = (char) tolower((unsigned char) out[i]);
        }
        return out;
}

int cups_device_id_field(const char *device_id, const char *key, char **ret) {
        /* IEEE 1284: "KEY:value;KEY:value;", keys case-insensitive. */
        static const struct { const char *short_key, *long_key; } spellings[] = {
                { "MFG", "MANUFACTURER" }, { "MDL", "MODEL" }, { "SN", "SERIALNUMBER" }, { "CMD", "COMMAND SET" },
        };
        const char *alt = NULL;
        for (size_t i = 0; i < ELEMENTSOF(spellings); i++)
                if (strcasecmp(key, spellings[i].short_key) == 0)
                        alt = spellings[i].long_key;
        for (const char *p = device_id; p && *p;) {
                while (*p == ' ')
                        p++;
                const char *colon = strchr(p, ':'), *semi = strchr(p, ';');
                if (!colon || (semi && semi < colon))
                        break;
                size_t klen = (size_t) (colon - p);
                bool match = (strlen(key) == klen && strncasecmp(p, key, klen) == 0) ||
                             (alt && strlen(alt) == klen && strncasecmp(p, alt, klen) == 0);
                const char *v = colon + 1;
                size_t vlen = semi ? (size_t) (semi - v) : strlen(v);
                while (vlen > 0 && v[vlen - 1] == ' ')
                        vlen--;
                if (match && vlen > 0) {
                        char *s = strndup(v, vlen);
                        if (!s)
                                return -ENOMEM;
                        *ret = s;
                        return 0;
                }
                p = semi ? semi + 1 : NULL;
        }
        return -ENOENT;
}

int cups_identity(const char *printer_uuid, const char *device_id, char **ret) {
        if (printer_uuid) {
                _cleanup_free_ char *u = lower_uuid(printer_uuid, strlen(printer_uuid));
                if (u) {
                        char *s;
                        if (asprintf(&s, "uuid:%s", u) < 0)
                                return -ENOMEM;
                        *ret = s;
                        return 0;
                }
        }
        if (!device_id)
                return -ENOENT;
        _cleanup_free_ char *mfg = NULL, *mdl = NULL, *sn = NULL;
        int r = cups_device_id_field(device_id, "MFG", &mfg);
        if (r >= 0)
                r = cups_device_id_field(device_id, "MDL", &mdl);
        if (r >= 0)
                r = cups_device_id_field(device_id, "SN", &sn);
        if (r < 0)
                return r; /* without a serial two printers of one model would share choices */
        char *s;
        if (asprintf(&s, "1284:%s|%s|%s", mfg, mdl, sn) < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int cups_uri_uuid(const char *uri, char **ret) {
        if (strncmp(uri, "dnssd://", 8) != 0)
                return -ENOENT;
        const char *q = strchr(uri, '?');
        for (const char *p = q ? q + 1 : NULL; p && *p;) {
                size_t n = strcspn(p, "&");
                if (n > 5 && strncmp(p, "uuid=", 5) == 0) {
                        char *u = lower_uuid(p + 5, n - 5);
                        if (!u)
                                return -ENOENT;
                        *ret = u;
                        return 0;
                }
                p = p[n] ? p + n + 1 : NULL;
        }
        return -ENOENT;
}

#define VENDOR_ID_PREFIX "printer-"
#define VENDOR_ID_HEX 12

char *cups_vendor_profile_id(const char *identity, const char *queue, const char *profile_name) {
        _cleanup_free_ char *key = NULL;
        char hex[33], *id;
        if (!identity && asprintf(&key, "queue:%s", queue) < 0)
                return NULL;
        const char *k = identity ?: key;
        md5_hex(k, strlen(k), hex);
        if (asprintf(&id, VENDOR_ID_PREFIX "%.*s-%s", VENDOR_ID_HEX, hex, profile_name) < 0)
                return NULL;
        return id;
}

bool cups_vendor_profile_id_reserved(const char *id) {
        if (strncmp(id, VENDOR_ID_PREFIX, strlen(VENDOR_ID_PREFIX)) != 0)
                return false;
        const char *h = id + strlen(VENDOR_ID_PREFIX);
        for (size_t i = 0; i < VENDOR_ID_HEX; i++)
                if (!isdigit((unsigned char) h[i]) && !(h[i] >= 'a' && h[i] <= 'f'))
                        return false;
        return h[VENDOR_ID_HEX] == '-';
}
