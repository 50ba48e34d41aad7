/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the chart-layout reader (src/profile-build/cht.c), which `tinct
 * profile-build --chart` feeds with user files. Any bytes are parsed or refused with a
 * message; an accepted layout has patches with positive boxes that BOX_SHRINK leaves room in,
 * NUL-terminated names each found again by name, and a finite outline. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cht.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(cht_freep) Cht *c = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        r = cht_parse((const char *) data, size, &c, &error);
        if (r < 0) {
                if (c || (r != -ENOMEM && !error))
                        abort();
                return 0;
        }
        if (!c || c->n_patches == 0 || c->n_patches > CHT_MAX_PATCHES)
                abort();
        for (size_t i = 0; i < 8; i++)
                if (!isfinite(c->corners[i]))
                        abort();
        for (size_t i = 0; i < c->n_patches; i++) {
                const ChtPatch *p = &c->patches[i];
                if (memchr(p->name, '\0', sizeof p->name) == NULL || !(p->w > 2 * c->shrink) ||
                    !(p->h > 2 * c->shrink) || !isfinite(p->x) || !isfinite(p->y))
                        abort();
                if (cht_find_patch(c, p->name) < 0)
                        abort();
        }
        return 0;
}
