/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for the SANE backend of a USB scanner, for tests/scan/test-scanners.py: no
 * scanner is attached to a test machine. A real SANE backend (loaded by libsane's dll
 * backend from LD_LIBRARY_PATH when dll.conf names `tinctusb`) that lists one device with a
 * libusb name, as plustek, epson2 or genesys name theirs: `tinctusb:libusb:003:007`, the
 * scanner the test's fake udev tree has at bus 3, device 7. It cannot be opened. Not
 * installed. */
#include <sane/sane.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

static const SANE_Device scanner = {
        .name = "libusb:003:007", /* libsane's dll backend puts "tinctusb:" before it */
        .vendor = "Epson",
        .model = "Perfection_V39",
        .type = "flatbed scanner",
};
static const SANE_Device *devices[] = { &scanner, NULL };

EXPORT SANE_Status sane_tinctusb_init(SANE_Int *version, SANE_Auth_Callback auth) {
        if (version)
                *version = SANE_VERSION_CODE(SANE_CURRENT_MAJOR, 0, 0);
        return SANE_STATUS_GOOD;
}

EXPORT void sane_tinctusb_exit(void) {
}

EXPORT SANE_Status sane_tinctusb_get_devices(const SANE_Device ***list, SANE_Bool local_only) {
        *list = devices;
        return SANE_STATUS_GOOD;
}

EXPORT SANE_Status sane_tinctusb_open(SANE_String_Const name, SANE_Handle *h) {
        return SANE_STATUS_INVAL;
}

EXPORT void sane_tinctusb_close(SANE_Handle h) {
}

EXPORT const SANE_Option_Descriptor *sane_tinctusb_get_option_descriptor(SANE_Handle h, SANE_Int n) {
        return NULL;
}

EXPORT SANE_Status sane_tinctusb_control_option(SANE_Handle h, SANE_Int n, SANE_Action a, void *v, SANE_Int *i) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status sane_tinctusb_get_parameters(SANE_Handle h, SANE_Parameters *p) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status sane_tinctusb_start(SANE_Handle h) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status sane_tinctusb_read(SANE_Handle h, SANE_Byte *buf, SANE_Int max, SANE_Int *len) {
        return SANE_STATUS_INVAL;
}

EXPORT void sane_tinctusb_cancel(SANE_Handle h) {
}

EXPORT SANE_Status sane_tinctusb_set_io_mode(SANE_Handle h, SANE_Bool m) {
        return SANE_STATUS_UNSUPPORTED;
}

EXPORT SANE_Status sane_tinctusb_get_select_fd(SANE_Handle h, SANE_Int *fd) {
        return SANE_STATUS_UNSUPPORTED;
}
