/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A build without X11 (-Dx11=disabled): no patch window (see patch-window.h). */
#include "patch-window.h"

#include <errno.h>
#include <stdio.h>

bool patch_window_supported(void) {
        return false;
}

int patch_window_open(const char *output, PatchWindow **ret, char **ret_error) {
        if (asprintf(ret_error, "this tinct is built without X11 (-Dx11=disabled)") < 0)
                *ret_error = NULL;
        return -EOPNOTSUPP;
}

int patch_window_show(PatchWindow *w, const double rgb[3]) {
        return -EOPNOTSUPP;
}

PatchWindow *patch_window_close(PatchWindow *w) {
        return NULL;
}
