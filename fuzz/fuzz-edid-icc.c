/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the EDID → ICC generator (src/edid-icc + src/icc/icc-create.c): any
 * bytes that parse as an EDID go through the same steps as the daemon's and `tinct
 * edid-profile`'s, then the profile is read back by src/icc. Checked: params_init succeeds
 * (only -ENOMEM may fail), colorimetry that passes the check is built (lcms2 may still refuse
 * a matrix: -EIO), the build is deterministic, and what was built reads back as a display
 * profile with our description and metadata. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edid-icc.h"
#include "edid.h"
#include "icc-create.h"
#include "icc-info.h"
#include "strv.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *meta_get(char **metadata, const char *key) {
        for (char **kv = metadata; kv && kv[0] && kv[1]; kv += 2)
                if (strcmp(kv[0], key) == 0)
                        return kv[1];
        return NULL;
}

static void check_profile(const EdidIccParams *p, const Edid *e, const void *icc, size_t icc_size) {
        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *error = NULL;

        if (icc_info_parse(icc, icc_size, &info, &error) < 0)
                abort(); /* we wrote it; our own reader must take it */
        if (strcmp(info->kind, "display-device") != 0 || strcmp(info->colorspace, "rgb") != 0)
                abort();
        /* Text that is UTF-8 must come back unchanged (other bytes may be replaced). */
        if (utf8_is_valid(p->description, strlen(p->description)) &&
            (!info->description || strcmp(info->description, p->description) != 0))
                abort();
        if (!streq_ptr(meta_get(info->metadata, "EDID_md5"), e->md5) ||
            !streq_ptr(meta_get(info->metadata, "DATA_source"), "edid"))
                abort();
        if (utf8_is_valid(p->device_id, strlen(p->device_id)) &&
            !streq_ptr(meta_get(info->metadata, "MAPPING_device_id"), p->device_id))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(edid_freep) Edid *e = NULL;
        EdidIccParams p;
        const char *reason = NULL;
        void *icc = NULL, *again = NULL;
        size_t icc_size = 0, again_size = 0;

        if (edid_parse(data, size, &e) < 0)
                return 0;
        if (edid_icc_params_init(&p, e, NULL, "fuzz-edid-icc") < 0)
                abort(); /* only -ENOMEM, which the fuzzer's inputs cannot cause */
        char *id = edid_icc_display_id(&p, "DP-1");
        if (!id || strncmp(id, "xrandr", 6) != 0)
                abort();
        free(id);

        if (icc_display_params_check(&p.params, &reason) == 0) {
                int r = icc_create_display_profile(&p.params, &icc, &icc_size, &reason);
                if (r < 0 && r != -EIO)
                        abort(); /* the check passed, so -EINVAL would contradict it */
                if (r == 0) {
                        if (icc_create_display_profile(&p.params, &again, &again_size, &reason) < 0 ||
                            again_size != icc_size || memcmp(again, icc, icc_size) != 0)
                                abort();
                        check_profile(&p, e, icc, icc_size);
                }
        } else if (!reason || icc_create_display_profile(&p.params, &icc, &icc_size, &reason) != -EINVAL)
                abort(); /* building must refuse what the check refuses */
        free(icc);
        free(again);
        edid_icc_params_done(&p);
        return 0;
}
