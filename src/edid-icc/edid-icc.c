/* SPDX-License-Identifier: GPL-2.0-or-later */
/* EDID → ICC profile parameters, the display device id and the PNP vendor lookup (see
 * edid-icc.h for the choices). No profile building and no file writing here: icc-create and
 * the callers do those. */
#include "edid-icc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

void edid_icc_params_done(EdidIccParams *p) {
        free(p->vendor);
        free(p->model);
        free(p->serial);
        free(p->description);
        free(p->device_id);
        *p = (EdidIccParams) {};
}

static char *strdup_trimmed(const char *s) {
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                n--;
        return strndup(s, n);
}

int edid_icc_params_init(EdidIccParams *p, const Edid *e, const char *vendor_name, const char *cmf_binary) {
        size_t n = 0;

        *p = (EdidIccParams) {};
        p->vendor = names_vendor_quirk(!isempty(vendor_name) ? vendor_name : e->manufacturer);
        p->model = strdup_trimmed(e->has_model_name ? e->model_name : "");
        if (e->has_serial_string && !isempty(e->serial_string))
                p->serial = strdup_trimmed(e->serial_string);
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

        /* colord §9.4: xrandr[-{vendor}][-{model}][-{serial}], empty parts left out. */
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

char *edid_icc_display_id(const EdidIccParams *p, const char *connector) {
        char *id = NULL;
        if (isempty(p->vendor) && isempty(p->model) && isempty(p->serial)) {
                if (asprintf(&id, "xrandr-%s", connector) < 0)
                        return NULL;
                return id;
        }
        return strdup(p->device_id);
}

const char *edid_icc_pnp_ids_path(void) {
        const char *env = getenv(EDID_ICC_PNP_IDS_ENV);
        return !isempty(env) ? env : EDID_ICC_PNP_IDS_PATH;
}

int edid_icc_params_init_named(EdidIccParams *p, const Edid *e, const char *cmf_binary) {
        _cleanup_free_ char *name = NULL;
        /* Any failure to read the table (missing, unreadable, id not listed) means the PNP id
         * for everyone; only running out of memory is an error. */
        int r = edid_icc_pnp_vendor_name(edid_icc_pnp_ids_path(), e->manufacturer, &name);
        if (r == -ENOMEM) {
                *p = (EdidIccParams) {};
                return r;
        }
        return edid_icc_params_init(p, e, name, cmf_binary);
}

int edid_icc_pnp_vendor_name(const char *pnp_ids_path, const char *pnp_id, char **ret) {
        _cleanup_free_ char *line = NULL;
        size_t cap = 0, idlen = strlen(pnp_id);
        FILE *f = fopen(pnp_ids_path, "re");
        if (!f)
                return -errno;
        int r = -ENOENT;
        while (getline(&line, &cap, f) > 0) {
                if (strncmp(line, pnp_id, idlen) != 0 || line[idlen] != '\t')
                        continue;
                char *name = line + idlen + 1;
                name[strcspn(name, "\r\n")] = 0;
                if (isempty(name))
                        break;
                *ret = strdup(name);
                r = *ret ? 0 : -ENOMEM;
                break;
        }
        fclose(f);
        return r;
}
