/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A stand-in for a SANE backend that hangs (a vendor's backend waiting for a USB device
 * that never answers), for tests/scan/test-scanners.py: no such backend can be made to
 * hang on demand. It is a real SANE backend, loaded by libsane's dll backend from
 * LD_LIBRARY_PATH when dll.conf names `tincthang`; sane_get_devices never returns.
 * Not installed. */
#include <sane/sane.h>
#include <stddef.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT SANE_Status sane_tincthang_init(SANE_Int *version, SANE_Auth_Callback auth) {
        if (version)
                *version = SANE_VERSION_CODE(SANE_CURRENT_MAJOR, 0, 0);
        return SANE_STATUS_GOOD;
}

EXPORT void sane_tincthang_exit(void) {
}

EXPORT SANE_Status sane_tincthang_get_devices(const SANE_Device ***list, SANE_Bool local_only) {
        for (;;)
                pause(); /* the hang: only SIGKILL (tinctd's timeout) ends it */
        return SANE_STATUS_GOOD;
}

EXPORT SANE_Status sane_tincthang_open(SANE_String_Const name, SANE_Handle *h) {
        return SANE_STATUS_INVAL;
}

EXPORT void sane_tincthang_close(SANE_Handle h) {
}

EXPORT const SANE_Option_Descriptor *sane_tincthang_get_option_descriptor(SANE_Handle h, SANE_Int n) {
        return NULL;
}

EXPORT SANE_Status sane_tincthang_control_option(SANE_Handle h, SANE_Int n, SANE_Action a, void *v, SANE_Int *i) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status sane_tincthang_get_parameters(SANE_Handle h, SANE_Parameters *p) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status sane_tincthang_start(SANE_Handle h) {
        return SANE_STATUS_INVAL;
}

EXPORT SANE_Status sane_tincthang_read(SANE_Handle h, SANE_Byte *buf, SANE_Int max, SANE_Int *len) {
        return SANE_STATUS_INVAL;
}

EXPORT void sane_tincthang_cancel(SANE_Handle h) {
}

EXPORT SANE_Status sane_tincthang_set_io_mode(SANE_Handle h, SANE_Bool m) {
        return SANE_STATUS_UNSUPPORTED;
}

EXPORT SANE_Status sane_tincthang_get_select_fd(SANE_Handle h, SANE_Int *fd) {
        return SANE_STATUS_UNSUPPORTED;
}
