/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsing spotread's output (see spotread-parse.h). The strings are the ones ArgyllCMS
 * prints and colord's argyll module reacts to. */
#include "spotread-parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

static bool startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool parse_result(const char *line, double xyz[3]) {
        const char *p = line + strlen(" Result is XYZ:");
        for (int i = 0; i < 3; i++) {
                char *end;
                xyz[i] = strtod(p, &end);
                if (end == p)
                        return false;
                p = end;
                p += strspn(p, " ,");
        }
        return true;
}

SpotreadEvent spotread_parse_line(const char *line, double ret_xyz[3]) {
        if (startswith(line, "Place instrument on spot to be measured"))
                return SPOTREAD_PROMPT;
        if (streq(line, "Calibration complete"))
                return SPOTREAD_CALIBRATED;
        if (startswith(line, " Result is XYZ:"))
                return parse_result(line, ret_xyz) ? SPOTREAD_RESULT : SPOTREAD_OTHER;
        if (startswith(line, "Instrument initialisation failed"))
                return SPOTREAD_INIT_FAILED;
        if (streq(line, "(Sensor should be in surface position)"))
                return SPOTREAD_NEEDS_SURFACE;
        if (startswith(line, "Set instrument sensor to calibration position,"))
                return SPOTREAD_NEEDS_CALIBRATION;
        return SPOTREAD_OTHER;
}

const char *spotread_display_type(const char *cap) {
        static const char *const table[][2] = {
                { "lcd", "-yl" }, { "led", "-yl" }, { "crt", "-yc" }, { "plasma", "-yc" },
                { "projector", "-yp" }, { "lcd-ccfl", "-yf" }, { "lcd-rgb-led", "-yb" },
                { "wide-gamut-lcd-ccfl", "-yL" }, { "wide-gamut-lcd-rgb-led", "-yB" }, { "lcd-white-led", "-ye" },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (streq(table[i][0], cap))
                        return table[i][1];
        return NULL;
}

const char *spotread_instrument_name(const char *kind) {
        static const char *const table[][2] = {
                { "dtp20", "Xrite DTP20" }, { "dtp22", "Xrite DTP22" }, { "dtp41", "Xrite DTP41" },
                { "dtp51", "Xrite DTP51" }, { "dtp92", "Xrite DTP92" }, { "dtp94", "Xrite DTP94" },
                { "spectro-scan", "GretagMacbeth SpectroScan" }, { "i1-display1", "GretagMacbeth i1 Display 1" },
                { "i1-display2", "GretagMacbeth i1 Display 2" },
                { "i1-display3", "Xrite i1 DisplayPro, ColorMunki Display" },
                { "i1-monitor", "GretagMacbeth i1 Monitor" }, { "i1-pro", "GretagMacbeth i1 Pro" },
                { "color-munki-photo", "X-Rite ColorMunki" }, { "color-munki-smile", "ColorMunki Smile" },
                { "colorimtre-hcfr", "Colorimtre HCFR" }, { "spyder2", "ColorVision Spyder2" },
                { "spyder3", "Datacolor Spyder3" }, { "spyder4", "Datacolor Spyder4" },
                { "spyder5", "Datacolor Spyder5" }, { "spyderX", "Datacolor SpyderX" },
                { "huey", "GretagMacbeth Huey" }, { "colorhug", "Hughski ColorHug" },
                { "colorhug2", "Hughski ColorHug2" }, { "colorhug-plus", "Hughski ColorHug+" },
        };
        for (size_t i = 0; kind && i < ELEMENTSOF(table); i++)
                if (streq(table[i][0], kind))
                        return table[i][1];
        return NULL;
}

/* Whether the line [s, s+n) contains needle. */
static bool line_has(const char *s, size_t n, const char *needle) {
        size_t k = strlen(needle);
        for (size_t i = 0; k && i + k <= n; i++)
                if (memcmp(s + i, needle, k) == 0)
                        return true;
        return false;
}

/* A port list entry, "    2 = '/dev/bus/usb/001/005 (Xrite ...)'": its number, or 0. */
static unsigned list_entry_number(const char *s, size_t n) {
        size_t i = strspn(s, " \t"), digits = strspn(s + i, "0123456789");
        if (digits == 0 || digits > 3 || i + digits + 3 > n || memcmp(s + i + digits, " = ", 3) != 0)
                return 0;
        return (unsigned) strtoul(s + i, NULL, 10);
}

int spotread_find_port(const char *usage, const char *devnode, const char *instrument, unsigned *ret) {
        unsigned by_name = 0;
        for (const char *p = usage; p && *p;) {
                size_t n = strcspn(p, "\n");
                unsigned listno = list_entry_number(p, n);
                if (listno > 0) {
                        if (devnode && line_has(p, n, devnode)) {
                                *ret = listno;
                                return 0;
                        }
                        if (!by_name && instrument && line_has(p, n, instrument))
                                by_name = listno;
                }
                p += n;
                p += *p == '\n';
        }
        if (!by_name)
                return -ENOENT;
        *ret = by_name;
        return 0;
}
