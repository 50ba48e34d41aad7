/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stand-ins for SANE backends, for tests/scan/test-scanners.py: no scanner is attached to a
 * test machine, and no real backend hangs on demand. Built twice as real SANE backends,
 * which libsane's dll backend loads from LD_LIBRARY_PATH when dll.conf names them:
 *  - `tincthang` (STAND_IN_HANG): sane_get_devices never returns, as a vendor's backend
 *    waiting for a USB device that never answers;
 *  - `tinctusb`: lists one device with a libusb name, as plustek, epson2 or genesys name
 *    theirs: `tinctusb:libusb:003:007`, the scanner the test's fake udev tree has at bus 3,
 *    device 7.
 * Neither can be opened. Not installed. */
#include <sane/sane.h>
#include <stddef.h>
#include <unistd.h>

#ifdef STAND_IN_HANG
#define OP(name) sane_tincthang_##name
#else
#define OP(name) sane_tinctusb_##name
#endif
#define EXPORT __attribute__((visibility("default")))

static const SANE_Device scanner = {
        .name = "libusb:003:007", /* libsane's dll backend puts "tinctusb:" before it */
        .vendor = "Epson",
        .model = "Perfection_V39",
        .type = "flatbed scanner",
};
static const SANE_Device *devices[] = { &scanner, NULL };

EXPORT SANE_Status OP(init)(SANE_Int *version, SANE_Auth_Callback auth) {
        if (version)
                *version = SANE_VERSION_CODE(SANE_CURRENT_MAJOR, 0, 0);
        return SANE_STATUS_GOOD;
}

EXPORT void OP(exit)(void) {
}

EXPORT SANE_Status OP(get_devices)(const SANE_Device ***list, SANE_Bool local_only) {
#ifdef STAND_IN_HANG
        for (;;)
                pause(); /* the hang: only SIGKILL (tinctd's timeout) ends it */
#endif
        *list = devices;
        return SANE_STATUS_GOOD;
}

EXPORT SANE_Status OP(open)(SANE_String_Const name, SANE_Handle *h) {
        return SANE_STATUS_INVAL;
}

EXPORT void OP(close)(SANE_Handle h) {
}

EXPORT const SANE_Option_Descriptor *OP(get_option_descriptor)(SANE_Handle h, SANE_Int n) {
        return NULL;
}

EXPORT SANE_Status OP(control_option)(SANE_Handle h, SANE_Int n, SANE_Action a, void *v, SANE_Int *i) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status OP(get_parameters)(SANE_Handle h, SANE_Parameters *p) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status OP(start)(SANE_Handle h) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status OP(read)(SANE_Handle h, SANE_Byte *buf, SANE_Int max, SANE_Int *len) {
        return SANE_STATUS_INVAL;
}

EXPORT void OP(cancel)(SANE_Handle h) {
}

EXPORT SANE_Status OP(set_io_mode)(SANE_Handle h, SANE_Bool m) {
        return SANE_STATUS_UNSUPPORTED;
}

EXPORT SANE_Status OP(get_select_fd)(SANE_Handle h, SANE_Int *fd) {
        return SANE_STATUS_UNSUPPORTED;
}
