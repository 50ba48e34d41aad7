/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SANE device records as tinct names them (see sane-names.h). */
#include "sane-names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

int sane_device_id(const char *model, char **ret) {
        /* colord's helper uses SANE's model unchanged (colord §9.4: sane-Photosmart_B109a-m). */
        return asprintf(ret, "sane-%s", model) < 0 ? -ENOMEM : 0;
}

int sane_model_name(const char *model, char **ret) {
        char *s = strdup(model);
        if (!s)
                return -ENOMEM;
        for (char *p = s; *p; p++)
                if (*p == '_')
                        *p = ' ';
        size_t n = strlen(s);
        while (n > 0 && s[n - 1] == ' ')
                s[--n] = 0;
        *ret = s;
        return 0;
}

bool sane_vendor_is_test(const char *vendor) {
        return streq(vendor, "Noname");
}

bool sane_name_is_airscan_escl(const char *name, const char **ret_name) {
        if (strncmp(name, "airscan:e", 9) != 0)
                return false;
        const char *p = name + 9;
        if (*p < '0' || *p > '9')
                return false;
        while (*p >= '0' && *p <= '9')
                p++;
        if (*p != ':')
                return false;
        *ret_name = p + 1;
        return true;
}

static bool read_number(const char **p, unsigned *ret) {
        unsigned v = 0, digits = 0;
        while (**p >= '0' && **p <= '9' && digits < 4) {
                v = v * 10 + (unsigned) (**p - '0');
                (*p)++;
                digits++;
        }
        if (digits == 0 || digits > 3 || v == 0)
                return false;
        *ret = v;
        return true;
}

bool sane_usb_address(const char *name, unsigned *ret_bus, unsigned *ret_dev) {
        const char *p = strstr(name, ":libusb:");
        unsigned bus, dev;
        if (!p)
                return false;
        p += strlen(":libusb:");
        if (!read_number(&p, &bus) || *p++ != ':' || !read_number(&p, &dev) || *p)
                return false;
        *ret_bus = bus;
        *ret_dev = dev;
        return true;
}
