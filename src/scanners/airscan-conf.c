/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sane-airscan's [devices] section (see airscan-conf.h). The syntax is sane-airscan's INI:
 * `[section]`, `key = value`, `;` or `#` comments, a key or value may be double-quoted. */
#include "airscan-conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

void airscan_devices_free(AirscanDevice *devices, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(devices[i].name);
                free(devices[i].url);
        }
        free(devices);
}

static char *trim(char *s) {
        while (isspace((unsigned char) *s))
                s++;
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = 0;
        return s;
}

static char *unquote(char *s) {
        size_t n = strlen(s);
        if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
                s[n - 1] = 0;
                return s + 1;
        }
        return s;
}

static int add(AirscanDevice **devices, size_t *n, const char *name, const char *url) {
        AirscanDevice *a = realloc(*devices, (*n + 1) * sizeof **devices);
        if (!a)
                return -ENOMEM;
        *devices = a;
        AirscanDevice *d = &a[*n];
        *d = (AirscanDevice) { .name = strdup(name), .url = strdup(url) };
        if (!d->name || !d->url) {
                free(d->name);
                free(d->url);
                return -ENOMEM;
        }
        size_t len = strlen(d->url);
        while (len > 0 && d->url[len - 1] == '/')
                d->url[--len] = 0;
        (*n)++;
        return 0;
}

int airscan_conf_parse(const char *text, AirscanDevice **devices, size_t *n_devices) {
        _cleanup_free_ char *copy = strdup(text);
        bool in_devices = false;
        if (!copy)
                return -ENOMEM;
        for (char *line = copy, *next; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                char *s = trim(line);
                if (*s == 0 || *s == ';' || *s == '#')
                        continue;
                if (*s == '[') {
                        char *close = strchr(s, ']');
                        in_devices = close && (size_t) (close - s - 1) == strlen("devices") &&
                                     strncasecmp(s + 1, "devices", strlen("devices")) == 0;
                        continue;
                }
                char *eq = strchr(s, '=');
                if (!in_devices || !eq)
                        continue;
                *eq = 0;
                char *name = unquote(trim(s));
                char *value = trim(eq + 1);
                /* URL[, protocol]: only eSCL has ScannerCapabilities. */
                char *comma = strchr(value, ',');
                if (comma) {
                        *comma = 0;
                        if (strcasecmp(trim(comma + 1), "escl") != 0)
                                continue;
                }
                char *url = unquote(trim(value));
                if (*name == 0 || strncasecmp(url, "http", 4) != 0)
                        continue; /* `disable`, or not a URL */
                int r = add(devices, n_devices, name, url);
                if (r < 0)
                        return r;
        }
        return 0;
}
