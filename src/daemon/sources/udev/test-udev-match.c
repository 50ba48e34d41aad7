/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for udev-match.c: which udev devices become scanners, cameras and sensors,
 * and what they are called (docs/colord-behaviour.md, "Devices found through udev"). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strv.h"
#include "tests.h"
#include "udev-match.h"

/* A UdevInfo from key=value pairs; the keys syspath, subsystem, devnode, class,
 * manufacturer, product and removable fill the fields, anything else is a property. */
static UdevInfo info(const char *first, ...) {
        UdevInfo i = {};
        va_list ap;
        va_start(ap, first);
        for (const char *kv = first; kv; kv = va_arg(ap, const char *)) {
                const char *eq = strchr(kv, '=');
                assert_se(eq);
                char *key = strndup(kv, (size_t) (eq - kv));
                const char *v = eq + 1;
                char **field = streq(key, "syspath") ? &i.syspath : streq(key, "subsystem") ? &i.subsystem :
                               streq(key, "devnode") ? &i.devnode : streq(key, "class") ? &i.device_class :
                               streq(key, "manufacturer") ? &i.manufacturer : streq(key, "product") ? &i.product :
                               streq(key, "removable") ? &i.removable : NULL;
                if (field)
                        assert_se((*field = strdup(v)));
                else
                        assert_se(udev_info_add_property(&i, key, v) == 0);
                free(key);
        }
        va_end(ap);
        return i;
}

static UdevMatch match(UdevInfo i) {
        UdevMatch m;
        assert_se(udev_match(&i, &m) == 0);
        udev_info_done(&i);
        return m;
}

static void test_scanner(void) {
        UdevMatch m = match(info("syspath=/sys/devices/pci0000:00/usb1/1-2", "subsystem=usb",
                                 "devnode=/dev/bus/usb/001/004", "class=00", "libsane_matched=yes",
                                 "ID_VENDOR=Canon_Inc.", "ID_MODEL=CanoScan_LiDE_220 ", NULL));
        assert_se(m.type == UDEV_MATCH_DEVICE);
        assert_streq(m.kind, "scanner");
        /* The id keeps udev's raw names; the properties are cleaned up. */
        assert_streq(m.device_id, "sysfs-Canon_Inc.-CanoScan_LiDE_220 ");
        assert_streq(m.vendor, "Canon Inc.");
        assert_streq(m.model, "CanoScan LiDE 220");
        assert_streq(m.serial, "/sys/devices/pci0000:00/usb1/1-2");
        assert_streq(m.seat, "seat0");
        assert_se(!m.embedded);
        udev_match_done(&m);

        /* No names at all: the device node names it; ID_SEAT is used. */
        m = match(info("syspath=/sys/devices/x/1-3", "subsystem=usb", "devnode=/dev/bus/usb/001/005", "class=ff",
                       "libsane_matched=yes", "ID_SEAT=seat1", NULL));
        assert_se(m.type == UDEV_MATCH_DEVICE);
        assert_streq(m.device_id, "sysfs-/dev/bus/usb/001/005");
        assert_se(!m.vendor && !m.model);
        assert_streq(m.seat, "seat1");
        udev_match_done(&m);
}

static void test_not_scanners(void) {
        UdevMatch m = match(info("syspath=/sys/devices/x/1-1", "subsystem=usb", "class=09", "libsane_matched=yes", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        assert_streq(m.why_not, "a USB hub");
        m = match(info("syspath=/sys/devices/x/1-1:1.0", "subsystem=usb", "libsane_matched=yes", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        m = match(info("syspath=/sys/devices/x/1-1", "subsystem=usb", "class=00", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        /* Only usb and video4linux. */
        m = match(info("syspath=/sys/devices/x/sda", "subsystem=block", "class=00", "libsane_matched=yes", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        m = match(info("subsystem=usb", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
}

static void test_camera(void) {
        UdevMatch m = match(info("syspath=/sys/devices/x/1-4", "subsystem=usb", "class=00", "ID_GPHOTO2=1",
                                 "COLORD_DEVICE=1", "ID_VENDOR=Nikon_Corp.", "ID_MODEL=D3200", "removable=fixed", NULL));
        assert_se(m.type == UDEV_MATCH_DEVICE);
        assert_streq(m.kind, "camera");
        assert_streq(m.device_id, "sysfs-Nikon_Corp.-D3200");
        assert_se(m.embedded);
        udev_match_done(&m);

        m = match(info("syspath=/sys/devices/x/1-4", "subsystem=usb", "ID_GPHOTO2=1", "COLORD_DEVICE=1",
                       "ID_VENDOR=Nikon_Corp.", "removable=removable", NULL));
        assert_se(m.type == UDEV_MATCH_DEVICE && !m.embedded);
        assert_streq(m.device_id, "sysfs-Nikon_Corp.");
        udev_match_done(&m);

        /* A webcam is tagged by the rules but has no ID_GPHOTO2: colord does not add it. */
        m = match(info("syspath=/sys/devices/x/video0", "subsystem=video4linux", "COLORD_DEVICE=1",
                       "COLORD_KIND=camera", "ID_V4L_PRODUCT=Integrated Camera", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
}

static void test_sensor(void) {
        UdevMatch m = match(info("syspath=/sys/devices/x/1-5", "subsystem=usb", "devnode=/dev/bus/usb/001/007",
                                 "COLORD_SENSOR_KIND=i1-display3", "COLORD_SENSOR_CAPS=ambient lcd  crt projector bogus lcd",
                                 "ID_VENDOR=X-Rite", "ID_MODEL=i1Display", "ID_VENDOR_FROM_DATABASE=X-Rite,_Inc.",
                                 "ID_MODEL_FROM_DATABASE=i1Display_Pro", "ID_SERIAL_SHORT=A01", NULL));
        assert_se(m.type == UDEV_MATCH_SENSOR);
        assert_streq(m.kind, "i1-display3");
        assert_streq(m.vendor, "X-Rite, Inc.");
        assert_streq(m.model, "i1Display Pro");
        assert_streq(m.serial, "A01");
        assert_se(strv_length(m.caps) == 4);
        assert_streq(m.caps[0], "lcd");
        assert_streq(m.caps[1], "crt");
        assert_streq(m.caps[2], "projector");
        assert_streq(m.caps[3], "ambient");
        assert_se(!m.embedded && !m.device_id);
        udev_match_done(&m);

        /* Only one hwdb name: udev's own; then sysfs; the ColorMunki spelling. */
        m = match(info("syspath=/s/1", "subsystem=usb", "devnode=/dev/b", "COLORD_SENSOR_KIND=huey",
                       "COLORD_SENSOR_EMBEDDED=1", "ID_VENDOR_FROM_DATABASE=Pantone", "manufacturer=GretagMacbeth",
                       "ID_MODEL=colormunki", NULL));
        assert_se(m.type == UDEV_MATCH_SENSOR && m.embedded);
        assert_streq(m.vendor, "GretagMacbeth");
        assert_streq(m.model, "ColorMunki");
        assert_streq(m.serial, "");
        assert_se(m.caps && !m.caps[0]);
        udev_match_done(&m);

        m = match(info("syspath=/s/1", "subsystem=usb", "devnode=/dev/b", "COLORD_SENSOR_KIND=spyderX", NULL));
        assert_se(m.type == UDEV_MATCH_SENSOR);
        assert_streq(m.vendor, "unknown");
        assert_streq(m.model, "Unknown");
        udev_match_done(&m);
}

static void test_not_sensors(void) {
        UdevMatch m = match(info("syspath=/s/1", "subsystem=usb", "devnode=/dev/b", "COLORD_SENSOR_KIND=colorhug",
                                 "COLORD_IGNORE=1", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        m = match(info("syspath=/s/1", "subsystem=usb", "COLORD_SENSOR_KIND=colorhug", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        m = match(info("syspath=/s/1", "subsystem=usb", "devnode=/dev/b", "COLORD_SENSOR_KIND=unknown", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        m = match(info("syspath=/s/1", "subsystem=usb", "devnode=/dev/b", "COLORD_SENSOR_KIND=toaster", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
        /* A sensor is never also a scanner. */
        m = match(info("syspath=/s/1", "subsystem=usb", "class=00", "libsane_matched=yes", "COLORD_SENSOR_KIND=huey",
                       "COLORD_IGNORE=1", NULL));
        assert_se(m.type == UDEV_MATCH_NONE);
}

static void test_names(void) {
        char *s = udev_clean_name("A_B\r\nC_ \t");
        assert_streq(s, "A B  C");
        free(s);
        assert_se(udev_sensor_kind_valid("colorhug2"));
        assert_se(udev_sensor_kind_valid("spyderX"));
        assert_se(!udev_sensor_kind_valid("unknown"));
        assert_se(!udev_sensor_kind_valid(""));
}

/* Bytes that are not UTF-8 (a fake or broken database, a raw sysfs attribute) reach the bus
 * escaped, never as they are; valid names are untouched. */
static void test_not_utf8(void) {
        UdevMatch m = match(info("syspath=/sys/devices/x/1-\xff", "subsystem=usb", "devnode=/dev/bus/usb/001/007",
                                 "class=00", "libsane_matched=yes", "ID_VENDOR=Ven\xfe", "ID_MODEL=Mod\xc3",
                                 "ID_SEAT=seat\xff", NULL));
        assert_se(m.type == UDEV_MATCH_DEVICE);
        assert_streq(m.device_id, "sysfs-Ven\\xfe-Mod\\xc3");
        assert_streq(m.vendor, "Ven\\xfe");
        assert_streq(m.model, "Mod\\xc3");
        assert_streq(m.serial, "/sys/devices/x/1-\\xff");
        assert_streq(m.seat, "seat\\xff");
        udev_match_done(&m);

        m = match(info("syspath=/sys/devices/y/2-1", "subsystem=usb", "devnode=/dev/bus/usb/002/003",
                       "COLORD_SENSOR_KIND=colorhug2", "ID_VENDOR=Hughski\xff", "ID_MODEL=ColorHug2",
                       "ID_SERIAL_SHORT=\xfe" "1", NULL));
        assert_se(m.type == UDEV_MATCH_SENSOR);
        assert_streq(m.vendor, "Hughski\\xff");
        assert_streq(m.serial, "\\xfe1");
        udev_match_done(&m);
}

int main(void) {
        test_scanner();
        test_not_scanners();
        test_camera();
        test_sensor();
        test_not_sensors();
        test_names();
        test_not_utf8();
        return 0;
}
