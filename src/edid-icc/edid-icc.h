/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mapping from a parsed EDID to the parameters of its ICC display profile, as colord and
 * GNOME make EDID profiles: description "Vendor Model", device manufacturer/model tags, and a
 * 'meta' dictionary with EDID_md5, EDID_manufacturer, EDID_model, EDID_serial, EDID_mnft,
 * DATA_source=edid, MAPPING_device_id (xrandr-<vendor>-<model>-<serial>, colord §9.4), EDID_gamma
 * and the primaries (colord §4.6). Also the display's device id and the PNP vendor-name lookup:
 * the daemon, the session helper and `tinct edid-profile` all name a monitor through
 * edid_icc_params_init_named(), so with the same PNP table they give it the same id.
 *
 * It is the one place that knows both src/edid and src/icc; keeping it here lets neither of
 * those libraries depend on the other. A static library (edid_icc_dep).
 *
 * Choices, documented because other tools differ:
 *  - vendor: the PNP vendor name when there is a PNP table that lists the id (hwdata's
 *    pnp.ids, see edid_icc_pnp_ids_path()), else the 3-letter PNP id; either goes through
 *    names_vendor_quirk() (colord Appendix A).
 *  - model: the product name descriptor, trailing spaces trimmed; empty without one.
 *  - serial: the serial number descriptor, trimmed; else the numeric serial (bytes 12-15) in
 *    decimal when non-zero; else empty.
 *  - gamma: the EDID's; when byte 23 says "defined in an extension block" (which we do not
 *    decode) 2.2 is used and EDID_gamma is not written, so nobody mistakes it for measured.
 *  - luminance: EDIDs do not state an SDR white luminance (CTA HDR values describe desired
 *    content, not the white), so no 'lumi' tag is written.
 * Not here: EDID parsing, profile building, writing files. The only I/O is reading the PNP
 * table a caller names. */
#pragma once

#include <stddef.h>

#include "edid.h"
#include "icc-create.h"
#include "macro.h"

#define EDID_ICC_FALLBACK_GAMMA 2.2
#define EDID_ICC_COPYRIGHT "This profile is free of known copyright restrictions."
/* Where Debian's hwdata package puts the PNP id table (also read by GNOME and colord). */
#define EDID_ICC_PNP_IDS_PATH "/usr/share/hwdata/pnp.ids"
/* Names another table instead, for every component alike (tests: the host's hwdata is not theirs). */
#define EDID_ICC_PNP_IDS_ENV "TINCT_PNP_IDS"

/* Every key edid_icc_params_init() may write. */
#define EDID_ICC_MAX_METADATA 19

typedef struct EdidIccParams {
        IccDisplayParams params;        /* points into the fields below */
        char *vendor, *model, *serial, *description, *device_id;
        char numbers[9][32];            /* EDID_gamma, EDID_red_x .. EDID_white_y */
        const char *metadata[2 * EDID_ICC_MAX_METADATA + 1];
} EdidIccParams;

/* Fills *p from e. vendor_name is the PNP table's name for e->manufacturer, or NULL.
 * cmf_binary names the program writing the profile (CMF_binary). Returns 0 or -ENOMEM; the
 * plausibility of the colorimetry is icc_display_params_check()'s business. Call
 * edid_icc_params_done() afterwards in either case. p->device_id is the id of colord §9.4
 * with empty parts left out; it is plain "xrandr" when vendor, model and serial are all
 * empty (see edid_icc_display_id() for the connector fallback). */
int edid_icc_params_init(EdidIccParams *p, const Edid *e, const char *vendor_name, const char *cmf_binary);
void edid_icc_params_done(EdidIccParams *p);

/* edid_icc_params_init() with the vendor name from the table of edid_icc_pnp_ids_path(): how
 * tinctd, tinct-session and tinct edid-profile all name a display (docs/compatibility.md,
 * "The id"). Without that table, or when it does not list the id, or cannot be read, the
 * vendor is the PNP id, for all three the same. Returns 0 or -ENOMEM; call
 * edid_icc_params_done() afterwards in either case. */
int edid_icc_params_init_named(EdidIccParams *p, const Edid *e, const char *cmf_binary);

/* The display's device id (colord §9.4): p->device_id, or "xrandr-<connector>" when the EDID
 * gave no vendor, model or serial text. Returns a new string or NULL (out of memory). */
char *edid_icc_display_id(const EdidIccParams *p, const char *connector);

/* The PNP table every component reads: $TINCT_PNP_IDS when set and not empty, else
 * EDID_ICC_PNP_IDS_PATH. One path for all, so that no component can name a monitor after
 * another table than the others (the test suite sets it for all of them). */
const char *edid_icc_pnp_ids_path(void);

/* Looks the 3-letter PNP id up in a pnp.ids table ("ABC<TAB>Name" lines, as hwdata ships
 * it). Returns 0 with a new string, -ENOENT when the id is not listed, or the error of
 * opening the file (-ENOENT too when it does not exist). */
int edid_icc_pnp_vendor_name(const char *pnp_ids_path, const char *pnp_id, char **ret);
