/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

void names_escape_path_element_in_place(char *s) {
        for (char *p = s; *p; p++)
                if (!(isascii((unsigned char) *p) && (isalnum((unsigned char) *p) || *p == '_')))
                        *p = '_';
}

char *names_escape_path_element(const char *id) {
        char *r = strdup(id);
        if (r)
                names_escape_path_element_in_place(r);
        return r;
}

static bool has_prefix(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool strip_suffix(char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        if (n < m || strcmp(s + n - m, suffix) != 0)
                return false;
        s[n - m] = 0;
        return true;
}

static void trim_trailing_space(char *s) {
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = 0;
}

/* Appendix A; order matters (first match wins, matching is case-sensitive). */
static const struct {
        const char *prefix, *name;
} vendor_table[] = {
        { "Acer, inc.", "Acer" },
        { "Acer Technologies", "Acer" },
        { "AOC Intl", "AOC" },
        { "Apple Computer Inc", "Apple" },
        { "Arnos Insturments & Computer Systems", "Arnos" },
        { "ASUSTeK Computer Inc.", "ASUSTeK" },
        { "ASUSTeK Computer INC", "ASUSTeK" },
        { "ASUSTeK COMPUTER INC.", "ASUSTeK" },
        { "BTC Korea Co., Ltd", "BTC" },
        { "CASIO COMPUTER CO.,LTD", "Casio" },
        { "CLEVO", "Clevo" },
        { "Delta Electronics", "Delta" },
        { "Eizo Nanao Corporation", "Eizo" },
        { "Envision Peripherals,", "Envision" },
        { "FUJITSU", "Fujitsu" },
        { "Fujitsu Siemens Computers GmbH", "Fujitsu Siemens" },
        { "Funai Electric Co., Ltd.", "Funai" },
        { "Gigabyte Technology Co., Ltd.", "Gigabyte" },
        { "Goldstar Company Ltd", "LG" },
        { "LG Electronics", "LG" },
        { "GOOGLE", "Google" },
        { "Hewlett-Packard", "Hewlett Packard" },
        { "HP", "Hewlett Packard" },
        { "HWP", "Hewlett Packard" },
        { "Hitachi America Ltd", "Hitachi" },
        { "IBM France", "IBM" },
        { "Lenovo Group Limited", "Lenovo" },
        { "LENOVO", "Lenovo" },
        { "Iiyama North America", "Iiyama" },
        { "MARANTZ JAPAN, INC.", "Marantz" },
        { "Mitsubishi Electric Corporation", "Mitsubishi" },
        { "Nexgen Mediatech Inc.,", "Nexgen Mediatech" },
        { "NIKON", "Nikon" },
        { "Panasonic Industry Company", "Panasonic" },
        { "Philips Consumer Electronics Company", "Philips" },
        { "RGB Systems, Inc. dba Extron Electronics", "Extron" },
        { "SAM", "Samsung" },
        { "Samsung Electric Company", "Samsung" },
        { "Samsung Electronics America", "Samsung" },
        { "samsung", "Samsung" },
        { "SAMSUNG", "Samsung" },
        { "Sanyo Electric Co.,Ltd.", "Sanyo" },
        { "Sonix Technology Co.", "Sonix" },
        { "System manufacturer", "Unknown" },
        { "To Be Filled By O.E.M.", "Unknown" },
        { "Unknown vendor", "Unknown" },
        { "Toshiba America Info Systems Inc", "Toshiba" },
        { "Toshiba Matsushita Display Technology Co.,", "Toshiba" },
        { "TOSHIBA", "Toshiba" },
        { "Westinghouse Digital Electronics", "Westinghouse Digital" },
        { "Zalman Tech Co., Ltd.", "Zalman" },
};

char *names_vendor_quirk(const char *vendor) {
        for (size_t i = 0; i < ELEMENTSOF(vendor_table); i++)
                if (has_prefix(vendor, vendor_table[i].prefix))
                        return strdup(vendor_table[i].name);

        static const char *const suffixes[] = {
                "Co.", "Co", "Inc.", "Inc", "Ltd.", "Ltd", "Corporation",
                "Incorporated", "Limited", "GmbH", "corp.",
        };
        char *r = strdup(vendor);
        if (!r)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                strip_suffix(r, suffixes[i]);
        trim_trailing_space(r);
        return r;
}

char *names_model_normalize(const char *model, const char *kind) {
        char *r = strdup(model);
        if (!r)
                return NULL;
        trim_trailing_space(r);
        if (streq_ptr(kind, "printer"))
                strip_suffix(r, "Printer");
        else if (streq_ptr(kind, "display")) {
                strip_suffix(r, "Monitor");
                strip_suffix(r, "Screen");
        }
        trim_trailing_space(r);
        return r;
}

char *names_serial_normalize(const char *serial) {
        const char *p = strstr(serial, "?serial=");
        return strdup(p ? p + strlen("?serial=") : serial);
}

char *names_profile_title(const char *description) {
        const char *s = description;
        if (has_prefix(s, "Default, "))
                s += strlen("Default, ");
        char *r = strdup(s);
        if (!r)
                return NULL;
        char *cut = strstr(r, " (201");
        if (cut)
                *cut = 0;
        for (char *p = r; *p; p++)
                if (*p == '_')
                        *p = ' ';
        if (!strip_suffix(r, ".icc") && !strip_suffix(r, ".ICC") && !strip_suffix(r, ".icm"))
                strip_suffix(r, ".ICM");
        return r;
}

static const char *const device_kinds[] = { "unknown", "display", "scanner", "printer", "camera", "webcam" };
static const char *const profile_kinds[] = {
        "unknown", "input-device", "display-device", "output-device", "devicelink",
        "colorspace-conversion", "abstract", "named-color",
};
static const char *const colorspaces[] = {
        "unknown", "xyz", "lab", "luv", "ycbcr", "yxy", "rgb", "gray", "hsv", "cmyk", "cmy",
};

static const char *const sensor_caps[] = {
        "unknown", "lcd", "crt", "printer", "spot", "projector", "ambient", "calibration",
        "led", "plasma", "lcd-ccfl", "lcd-rgb-led", "lcd-white-led", "wide-gamut-lcd-ccfl",
        "wide-gamut-lcd-rgb-led", "spectral", "calibration-dark", "calibration-irradiance",
};

static const char *table_lookup(const char *const *table, size_t n, const char *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (streq(table[i], s))
                        return table[i];
        return NULL;
}

#define LOOKUP(table, s) table_lookup(table, ELEMENTSOF(table), s)

bool names_device_kind_is_valid(const char *kind) {
        return LOOKUP(device_kinds, kind);
}

bool names_profile_kind_is_valid(const char *kind) {
        return LOOKUP(profile_kinds, kind);
}

bool names_colorspace_is_valid(const char *cs) {
        return LOOKUP(colorspaces, cs);
}

const char *names_colorspace_parse(const char *cs) {
        const char *r = LOOKUP(colorspaces, cs);
        return r ? r : "unknown";
}

const char *names_device_kind_parse(const char *kind) {
        const char *r = LOOKUP(device_kinds, kind);
        return r ? r : "unknown";
}

const char *names_profile_kind_parse(const char *kind) {
        const char *r = LOOKUP(profile_kinds, kind);
        return r ? r : "unknown";
}

const char *names_sensor_cap(unsigned index) {
        return index < ELEMENTSOF(sensor_caps) ? sensor_caps[index] : NULL;
}

int names_sensor_cap_index(const char *cap) {
        for (size_t i = 0; cap && i < ELEMENTSOF(sensor_caps); i++)
                if (streq(sensor_caps[i], cap))
                        return (int) i;
        return -1;
}
