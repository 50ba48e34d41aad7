/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which udev devices are ours and what they are called (see udev-match.h). The rules are
 * colord's (docs/colord-behaviour.md, "Devices found through udev"), with the differences listed in
 * docs/compatibility.md. */
#include "udev-match.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"
#include "utf8.h"

/* colord's sensor kinds (libcolord's string table), enum order; "unknown" is not a kind a sensor can have. */
static const char *const sensor_kinds[] = {
        "dummy", "huey", "color-munki-photo", "spyder", "dtp20", "dtp22", "dtp41", "dtp51", "dtp94",
        "spectro-scan", "i1-pro", "colorimtre-hcfr", "i1-display3", "colorhug", "spyder2", "spyder3",
        "colorhug-plus", "i1-display1", "i1-display2", "dtp92", "i1-monitor", "spyder4",
        "color-munki-smile", "colorhug2", "spyder5", "spark", "spyderX", NULL,
};

/* colord's sensor capabilities, enum order without "unknown". */
static const char *const sensor_caps[] = {
        "lcd", "crt", "printer", "spot", "projector", "ambient", "calibration", "led", "plasma",
        "lcd-ccfl", "lcd-rgb-led", "lcd-white-led", "wide-gamut-lcd-ccfl", "wide-gamut-lcd-rgb-led",
        "spectral", "calibration-dark", "calibration-irradiance", NULL,
};

void udev_info_done(UdevInfo *i) {
        free(i->syspath);
        free(i->subsystem);
        free(i->devnode);
        strv_free(i->properties);
        free(i->device_class);
        free(i->manufacturer);
        free(i->product);
        free(i->removable);
        *i = (UdevInfo) {};
}

const char *udev_info_property(const UdevInfo *i, const char *key) {
        for (size_t k = 0; i->properties && i->properties[k] && i->properties[k + 1]; k += 2)
                if (streq(i->properties[k], key))
                        return i->properties[k + 1];
        return NULL;
}

int udev_info_add_property(UdevInfo *i, const char *key, const char *value) {
        size_t n = strv_length(i->properties);
        if (strv_extend(&i->properties, key) < 0)
                return -ENOMEM;
        if (strv_extend(&i->properties, value) < 0) {
                free(i->properties[n]);
                i->properties[n] = NULL;
                return -ENOMEM;
        }
        return 0;
}

void udev_match_done(UdevMatch *m) {
        free(m->device_id);
        free(m->vendor);
        free(m->model);
        free(m->serial);
        free(m->seat);
        strv_free(m->caps);
        *m = (UdevMatch) {};
}

/* udev's database and sysfs attributes are bytes; what goes on the bus must be UTF-8. Valid
 * strings stay as they are (ids keep matching stored mappings); others are shown as C
 * escapes (utf8_escape), the same every time, so the device keeps its id. */
static char *utf8_dup(const char *s) {
        if (utf8_is_valid(s, strlen(s)))
                return strdup(s);
        size_t size = strlen(s) * 4 + 1;
        char *r = malloc(size);
        if (r)
                utf8_escape(s, r, size);
        return r;
}

char *udev_clean_name(const char *s) {
        char *r = utf8_dup(s);
        if (!r)
                return NULL;
        for (char *p = r; *p; p++)
                if (*p == '_' || *p == '\r' || *p == '\n')
                        *p = ' ';
        size_t n = strlen(r);
        while (n > 0 && (r[n - 1] == ' ' || r[n - 1] == '\t'))
                r[--n] = 0;
        return r;
}

static const char *sensor_kind_lookup(const char *kind) {
        for (const char *const *k = sensor_kinds; kind && *k; k++)
                if (streq(*k, kind))
                        return *k;
        return NULL;
}

bool udev_sensor_kind_valid(const char *kind) {
        return sensor_kind_lookup(kind) != NULL;
}

char **udev_sensor_caps_parse(const char *value) {
        bool seen[ELEMENTSOF(sensor_caps)] = {};
        char **caps = calloc(1, sizeof(char *));
        if (!caps)
                return NULL;
        for (const char *p = strempty(value); *p;) {
                size_t n = strcspn(p, " \t");
                for (size_t c = 0; sensor_caps[c]; c++)
                        if (strlen(sensor_caps[c]) == n && strncmp(sensor_caps[c], p, n) == 0)
                                seen[c] = true;
                p += n;
                p += strspn(p, " \t");
        }
        for (size_t c = 0; sensor_caps[c]; c++)
                if (seen[c] && strv_extend(&caps, sensor_caps[c]) < 0)
                        return strv_free(caps);
        return caps;
}

/* Vendor and model of a sensor (docs/colord-behaviour.md): the hwdb names only when both exist. */
static int sensor_names(const UdevInfo *i, UdevMatch *m) {
        const char *vdb = udev_info_property(i, "ID_VENDOR_FROM_DATABASE");
        const char *mdb = udev_info_property(i, "ID_MODEL_FROM_DATABASE");
        bool use_db = vdb && mdb;
        const char *vendor = use_db ? vdb : NULL, *model = use_db ? mdb : NULL;

        if (!vendor)
                vendor = udev_info_property(i, "ID_VENDOR");
        if (!vendor)
                vendor = i->manufacturer;
        if (!model)
                model = udev_info_property(i, "ID_MODEL");
        if (!model)
                model = i->product;
        if (streq_ptr(model, "colormunki"))
                model = "ColorMunki";
        m->vendor = udev_clean_name(vendor ?: "unknown");
        m->model = udev_clean_name(model ?: "Unknown");
        return m->vendor && m->model ? 0 : -ENOMEM;
}

static int match_sensor(const UdevInfo *i, UdevMatch *m) {
        const char *kind = udev_info_property(i, "COLORD_SENSOR_KIND");
        if (udev_info_property(i, "COLORD_IGNORE")) {
                m->why_not = "COLORD_IGNORE is set (e.g. a bootloader)";
                return 0;
        }
        if (!i->devnode) {
                m->why_not = "sensor without a device node";
                return 0;
        }
        m->kind = sensor_kind_lookup(kind);
        if (!m->kind) {
                m->why_not = "COLORD_SENSOR_KIND is not a sensor kind colord knows";
                return 0;
        }
        if (sensor_names(i, m) < 0 || !(m->caps = udev_sensor_caps_parse(udev_info_property(i, "COLORD_SENSOR_CAPS"))) ||
            !(m->serial = utf8_dup(udev_info_property(i, "ID_SERIAL_SHORT") ?: "")))
                return -ENOMEM;
        m->embedded = udev_info_property(i, "COLORD_SENSOR_EMBEDDED") != NULL;
        m->type = UDEV_MATCH_SENSOR;
        return 0;
}

/* sysfs[-ID_VENDOR][-ID_MODEL], raw (docs/colord-behaviour.md), or sysfs-<device node>. */
static char *device_id(const UdevInfo *i) {
        const char *vendor = udev_info_property(i, "ID_VENDOR"), *model = udev_info_property(i, "ID_MODEL");
        char *id = NULL;
        int r;
        if (vendor || model)
                r = asprintf(&id, "sysfs%s%s%s%s", vendor ? "-" : "", strempty(vendor), model ? "-" : "", strempty(model));
        else
                r = asprintf(&id, "sysfs-%s", i->devnode ?: i->syspath);
        if (r < 0)
                return NULL;
        char *valid = utf8_dup(id);
        free(id);
        return valid;
}

static int match_device(const UdevInfo *i, const char *kind, UdevMatch *m) {
        const char *vendor = udev_info_property(i, "ID_VENDOR"), *model = udev_info_property(i, "ID_MODEL");
        m->kind = kind;
        if (!(m->device_id = device_id(i)) || !(m->serial = utf8_dup(i->syspath)) ||
            !(m->seat = utf8_dup(udev_info_property(i, "ID_SEAT") ?: "seat0")) ||
            (vendor && !(m->vendor = udev_clean_name(vendor))) || (model && !(m->model = udev_clean_name(model))))
                return -ENOMEM;
        /* Only cameras say whether they are built in. */
        m->embedded = streq(kind, "camera") && streq_ptr(i->removable, "fixed");
        m->type = UDEV_MATCH_DEVICE;
        return 0;
}

int udev_match(const UdevInfo *i, UdevMatch *ret) {
        UdevMatch m = { .type = UDEV_MATCH_NONE, .why_not = "no colord property" };
        int r = 0;

        if (!i->syspath || !i->subsystem)
                m.why_not = "no sysfs path or subsystem";
        else if (!streq(i->subsystem, "usb") && !streq(i->subsystem, "video4linux"))
                m.why_not = "not a usb or video4linux device";
        else if (udev_info_property(i, "COLORD_SENSOR_KIND"))
                r = match_sensor(i, &m);
        else if (streq(i->subsystem, "usb") && udev_info_property(i, "libsane_matched")) {
                /* Hubs carry SANE's tag too when a scanner hangs off them. */
                if (!i->device_class)
                        m.why_not = "SANE device without bDeviceClass (a USB interface)";
                else if (streq(i->device_class, "09"))
                        m.why_not = "a USB hub";
                else
                        r = match_device(i, "scanner", &m);
        } else if (udev_info_property(i, "ID_GPHOTO2") && udev_info_property(i, "COLORD_DEVICE"))
                r = match_device(i, "camera", &m);

        if (r < 0) {
                udev_match_done(&m);
                return r;
        }
        *ret = m;
        return 0;
}
