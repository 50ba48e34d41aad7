/* The mapping from a parsed EDID to the parameters of its ICC display profile, as colord and
 * GNOME make EDID profiles: description "Vendor Model", device manufacturer/model tags, and a
 * 'meta' dictionary with EDID_md5, EDID_manufacturer, EDID_model, EDID_serial, EDID_mnft,
 * DATA_source=edid, MAPPING_device_id (xrandr-<vendor>-<model>-<serial>, spec §9.4), EDID_gamma
 * and the primaries (spec §4.6). Used by `tinct edid-profile`, and by the daemon/session later.
 *
 * It is the one place that knows both src/edid and src/icc; keeping it here lets neither of
 * those libraries depend on the other. Header-only for now (it is small and has one caller);
 * when the second caller arrives, it becomes src/edid-icc/edid-icc.c plus a static library
 * declared after src/icc in the root meson.build.
 *
 * Choices, documented because other tools differ:
 *  - vendor: the PNP vendor name when the caller has a PNP table (hwdata's pnp.ids), else the
 *    3-letter PNP id; either goes through names_vendor_quirk() (spec Appendix A).
 *  - model: the product name descriptor, trailing spaces trimmed; empty without one.
 *  - serial: the serial number descriptor, trimmed; else the numeric serial (bytes 12-15) in
 *    decimal when non-zero; else empty.
 *  - gamma: the EDID's; when byte 23 says "defined in an extension block" (which we do not
 *    decode) 2.2 is used and EDID_gamma is not written, so nobody mistakes it for measured.
 *  - luminance: EDIDs do not state an SDR white luminance (CTA HDR values describe desired
 *    content, not the white), so no 'lumi' tag is written.
 * Not here: parsing, profile building, files. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edid.h"
#include "icc-create.h"
#include "macro.h"
#include "names.h"

#define EDID_ICC_FALLBACK_GAMMA 2.2
#define EDID_ICC_COPYRIGHT "This profile is free of known copyright restrictions."

/* Every key edid_icc_params_init() may write. */
#define EDID_ICC_MAX_METADATA 19

typedef struct EdidIccParams {
        IccDisplayParams params;        /* points into the fields below */
        char *vendor, *model, *serial, *description, *device_id;
        char numbers[9][32];            /* EDID_gamma, EDID_red_x .. EDID_white_y */
        const char *metadata[2 * EDID_ICC_MAX_METADATA + 1];
} EdidIccParams;

static inline void edid_icc_params_done(EdidIccParams *p) {
        free(p->vendor);
        free(p->model);
        free(p->serial);
        free(p->description);
        free(p->device_id);
        *p = (EdidIccParams) {};
}

static inline char *edid_icc_strdup_trimmed(const char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                n--;
        return strndup(s, n);
}

/* Fills *p from e. vendor_name is the PNP table's name for e->manufacturer, or NULL.
 * cmf_binary names the program writing the profile (CMF_binary). Returns 0 or -ENOMEM; the
 * plausibility of the colorimetry is icc_display_params_check()'s business. Call
 * edid_icc_params_done() afterwards in either case. */
static inline int edid_icc_params_init(EdidIccParams *p, const Edid *e, const char *vendor_name,
                                       const char *cmf_binary) {
        size_t n = 0;

        *p = (EdidIccParams) {};
        p->vendor = names_vendor_quirk(!isempty(vendor_name) ? vendor_name : e->manufacturer);
        p->model = edid_icc_strdup_trimmed(e->has_model_name ? e->model_name : "");
        if (e->has_serial_string && !isempty(e->serial_string))
                p->serial = edid_icc_strdup_trimmed(e->serial_string);
        else if (e->serial_number == 0)
                p->serial = strdup("");
        else if (asprintf(&p->serial, "%u", e->serial_number) < 0)
                p->serial = NULL;
        if (!p->vendor || !p->model || !p->serial)
                return -ENOMEM;

        /* "Vendor Model", or whichever of the two exists. */
        if (asprintf(&p->description, "%s%s%s", p->vendor,
                     !isempty(p->vendor) && !isempty(p->model) ? " " : "", p->model) < 0) {
                p->description = NULL;
                return -ENOMEM;
        }

        /* Spec §9.4: xrandr[-{vendor}][-{model}][-{serial}], empty parts left out. */
        if (asprintf(&p->device_id, "xrandr%s%s%s%s%s%s",
                     isempty(p->vendor) ? "" : "-", p->vendor,
                     isempty(p->model) ? "" : "-", p->model,
                     isempty(p->serial) ? "" : "-", p->serial) < 0) {
                p->device_id = NULL;
                return -ENOMEM;
        }

        const EdidXY *xy[] = { &e->red, &e->green, &e->blue, &e->white };
        double gamma = e->gamma_in_extension ? EDID_ICC_FALLBACK_GAMMA : e->gamma;

        /* Numbers printed in the C locale (neither tinct nor the daemon calls setlocale()). */
        snprintf(p->numbers[0], sizeof p->numbers[0], "%.2f", gamma);
        for (size_t i = 0; i < 4; i++) {
                snprintf(p->numbers[1 + 2 * i], sizeof p->numbers[0], "%.6f", xy[i]->x);
                snprintf(p->numbers[2 + 2 * i], sizeof p->numbers[0], "%.6f", xy[i]->y);
        }

#define EDID_ICC_KV(k, v) do { p->metadata[n++] = (k); p->metadata[n++] = (v); } while (0)
        EDID_ICC_KV("DATA_source", "edid");
        EDID_ICC_KV("EDID_md5", e->md5);
        EDID_ICC_KV("EDID_mnft", e->manufacturer);
        EDID_ICC_KV("EDID_manufacturer", p->vendor);
        EDID_ICC_KV("EDID_model", p->model);     /* empty values are skipped by icc-create */
        EDID_ICC_KV("EDID_serial", p->serial);
        EDID_ICC_KV("MAPPING_device_id", p->device_id);
        if (!e->gamma_in_extension)
                EDID_ICC_KV("EDID_gamma", p->numbers[0]);
        EDID_ICC_KV("EDID_red_x", p->numbers[1]);
        EDID_ICC_KV("EDID_red_y", p->numbers[2]);
        EDID_ICC_KV("EDID_green_x", p->numbers[3]);
        EDID_ICC_KV("EDID_green_y", p->numbers[4]);
        EDID_ICC_KV("EDID_blue_x", p->numbers[5]);
        EDID_ICC_KV("EDID_blue_y", p->numbers[6]);
        EDID_ICC_KV("EDID_white_x", p->numbers[7]);
        EDID_ICC_KV("EDID_white_y", p->numbers[8]);
        EDID_ICC_KV("CMF_product", "tinct");
        EDID_ICC_KV("CMF_binary", !isempty(cmf_binary) ? cmf_binary : "tinct");
#ifdef TINCT_VERSION
        EDID_ICC_KV("CMF_version", TINCT_VERSION);
#endif
#undef EDID_ICC_KV
        p->metadata[n] = NULL;

        p->params = (IccDisplayParams) {
                .red = { e->red.x, e->red.y },
                .green = { e->green.x, e->green.y },
                .blue = { e->blue.x, e->blue.y },
                .white = { e->white.x, e->white.y },
                .gamma = gamma,
                .description = p->description,
                .manufacturer = p->vendor,
                .model = isempty(p->model) ? NULL : p->model,
                .copyright = EDID_ICC_COPYRIGHT,
                .metadata = p->metadata,
        };
        return 0;
}
