/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for spotread-parse.c, on output as spotread prints it. */
#include <errno.h>
#include <math.h>

#include "macro.h"
#include "spotread-parse.h"
#include "tests.h"

static const char usage[] =
        "Read Print Spot values, Version 2.3.1\n"
        "usage: spotread [-options] [logfile]\n"
        " -v                   Verbose mode\n"
        " -c listno            Set communication port from the following list (default 1)\n"
        "    1 = '/dev/ttyS0'\n"
        "    2 = '/dev/bus/usb/001/009 (Datacolor Spyder4)'\n"
        "    3 = '/dev/bus/usb/001/007 (Xrite i1 DisplayPro, ColorMunki Display)'\n"
        "    4 = '/dev/bus/usb/002/003 (Xrite i1 DisplayPro, ColorMunki Display)'\n"
        " -X file.ccmx = apply a correction matrix\n";

static void test_ports(void) {
        unsigned port = 0;
        assert_se(spotread_find_port(usage, "/dev/bus/usb/002/003", "Xrite i1 DisplayPro, ColorMunki Display", &port) == 0);
        assert_se(port == 4);
        /* An unknown node: the first instrument of the kind. */
        assert_se(spotread_find_port(usage, "/dev/bus/usb/009/009", "Xrite i1 DisplayPro, ColorMunki Display", &port) == 0);
        assert_se(port == 3);
        assert_se(spotread_find_port(usage, NULL, "Datacolor Spyder4", &port) == 0);
        assert_se(port == 2);
        assert_se(spotread_find_port(usage, "/dev/bus/usb/009/009", "Hughski ColorHug", &port) == -ENOENT);
        assert_se(spotread_find_port(usage, NULL, NULL, &port) == -ENOENT);
        assert_se(spotread_find_port("", "/dev/x", "y", &port) == -ENOENT);
        /* Usage lines with " = " are not port entries. */
        assert_se(spotread_find_port(usage, NULL, "correction matrix", &port) == -ENOENT);
}

static void test_lines(void) {
        double xyz[3] = {};
        assert_se(spotread_parse_line(" Result is XYZ: 95.047000 100.000000 108.883000, D50 Lab: 100.000 0.000 0.000",
                                      xyz) == SPOTREAD_RESULT);
        assert_se(fabs(xyz[0] - 95.047) < 1e-9 && fabs(xyz[1] - 100) < 1e-9 && fabs(xyz[2] - 108.883) < 1e-9);
        assert_se(spotread_parse_line(" Result is XYZ: garbage", xyz) == SPOTREAD_OTHER);
        assert_se(spotread_parse_line("Place instrument on spot to be measured,", xyz) == SPOTREAD_PROMPT);
        assert_se(spotread_parse_line("Calibration complete", xyz) == SPOTREAD_CALIBRATED);
        assert_se(spotread_parse_line("Instrument initialisation failed with 'Communications failure'", xyz) ==
                  SPOTREAD_INIT_FAILED);
        assert_se(spotread_parse_line("(Sensor should be in surface position)", xyz) == SPOTREAD_NEEDS_SURFACE);
        assert_se(spotread_parse_line("Set instrument sensor to calibration position, and then hit any key", xyz) ==
                  SPOTREAD_NEEDS_CALIBRATION);
        assert_se(spotread_parse_line("", xyz) == SPOTREAD_OTHER);
}

static void test_tables(void) {
        assert_streq(spotread_display_type("lcd"), "-yl");
        assert_streq(spotread_display_type("plasma"), "-yc");
        assert_streq(spotread_display_type("lcd-white-led"), "-ye");
        assert_se(!spotread_display_type("printer"));
        assert_se(!spotread_display_type("ambient"));
        assert_streq(spotread_instrument_name("i1-display3"), "Xrite i1 DisplayPro, ColorMunki Display");
        assert_streq(spotread_instrument_name("spyderX"), "Datacolor SpyderX");
        assert_se(!spotread_instrument_name("dummy"));
        assert_se(!spotread_instrument_name(NULL));
}

int main(void) {
        test_ports();
        test_lines();
        test_tables();
        return 0;
}
