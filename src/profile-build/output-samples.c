/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A printer's .ti3 → OutputSamples (output-samples.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output-samples.h"

/* The ICC PCS illuminant, D50 (ICC.1:2010 §7.2.16): the white of CGATS Lab values. */
static const double d50[3] = { 0.9642, 1.0, 0.8249 };

/* Far above any reflective reading (XYZ on the 0..100 scale); keeps sums finite. */
#define OUTPUT_MAX_XYZ 1e4

const char *cgats_device_class(const Cgats *c) {
        if (c->n_tables == 0)
                return NULL;
        return cgats_table_keyword(&c->tables[0], "DEVICE_CLASS");
}

OutputSamples *output_samples_free(OutputSamples *s) {
        if (!s)
                return NULL;
        free(s->device);
        free(s->xyz);
        free(s->lab);
        free(s->instrument);
        free(s);
        return NULL;
}

static double lab_f(double t) {
        const double e = 216.0 / 24389.0, k = 24389.0 / 27.0;
        return t > e ? cbrt(t) : (k * t + 16.0) / 116.0;
}

static double lab_f_inv(double f) {
        const double e = 6.0 / 29.0;
        return f > e ? f * f * f : 3.0 * e * e * (f - 4.0 / 29.0);
}

void output_xyz_to_relative_lab(const double xyz[3], const double white[3], double ret_lab[3]) {
        double fx = lab_f(xyz[0] / white[0]), fy = lab_f(xyz[1] / white[1]), fz = lab_f(xyz[2] / white[2]);

        ret_lab[0] = 116.0 * fy - 16.0;
        ret_lab[1] = 500.0 * (fx - fy);
        ret_lab[2] = 200.0 * (fy - fz);
}

void output_lab_to_xyz_d50(const double lab[3], double ret_xyz[3]) {
        double fy = (lab[0] + 16.0) / 116.0, fx = fy + lab[1] / 500.0, fz = fy - lab[2] / 200.0;

        ret_xyz[0] = d50[0] * lab_f_inv(fx);
        ret_xyz[1] = d50[1] * lab_f_inv(fy);
        ret_xyz[2] = d50[2] * lab_f_inv(fz);
}

static int parse_value(const CgatsTable *t, size_t set, int field, char **ret_error, double *ret) {
        const char *s = t->values[set * t->n_fields + (size_t) field];

        if (cgats_parse_number(s, ret) < 0)
                return cgats_fail(ret_error, "line %u: %s \"%s\" is not a finite number", t->set_lines[set],
                             t->fields[field], s);
        return 0;
}

int output_samples_from_cgats(const Cgats *c, OutputSamples **ret, char **ret_error) {
        static const char *const rgb_names[] = { "RGB_R", "RGB_G", "RGB_B" };
        static const char *const cmyk_names[] = { "CMYK_C", "CMYK_M", "CMYK_Y", "CMYK_K" };
        static const char *const xyz_names[] = { "XYZ_X", "XYZ_Y", "XYZ_Z" };
        static const char *const lab_names[] = { "LAB_L", "LAB_A", "LAB_B" };
        _cleanup_(output_samples_freep) OutputSamples *s = NULL;
        const char *const *dev_names, *const *pcs_names;
        int dev[OUTPUT_MAX_CHANNELS], pcs[3];
        const CgatsTable *t;
        const char *v;
        bool lab_in;
        int r;

        *ret = NULL;
        *ret_error = NULL;
        if (c->n_tables == 0)
                return cgats_fail(ret_error, "no table");
        t = &c->tables[0];
        s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;

        v = cgats_table_keyword(t, "COLOR_REP");
        if (!v)
                return cgats_fail(ret_error, "no COLOR_REP (expected \"CMYK_XYZ\", \"RGB_XYZ\", \"CMYK_LAB\" or \"RGB_LAB\")");
        if (streq(v, "RGB_XYZ") || streq(v, "RGB_LAB")) {
                s->space = OUTPUT_SPACE_RGB;
                s->n_channels = 3;
                dev_names = rgb_names;
        } else if (streq(v, "CMYK_XYZ") || streq(v, "CMYK_LAB")) {
                s->space = OUTPUT_SPACE_CMYK;
                s->n_channels = 4;
                dev_names = cmyk_names;
        } else
                return cgats_fail(ret_error,
                             "COLOR_REP is \"%s\": a printer profile needs RGB or CMYK device values with XYZ or "
                             "Lab (\"CMYK_XYZ\", \"RGB_XYZ\", \"CMYK_LAB\", \"RGB_LAB\")", v);
        lab_in = streq(v, "RGB_LAB") || streq(v, "CMYK_LAB");
        pcs_names = lab_in ? lab_names : xyz_names;
        for (size_t i = 0; i < s->n_channels; i++) {
                dev[i] = cgats_table_field(t, dev_names[i]);
                if (dev[i] < 0)
                        return cgats_fail(ret_error, "no %s field", dev_names[i]);
        }
        for (size_t i = 0; i < 3; i++) {
                pcs[i] = cgats_table_field(t, pcs_names[i]);
                if (pcs[i] < 0)
                        return cgats_fail(ret_error, "no %s field", pcs_names[i]);
        }
        if (t->n_sets == 0)
                return cgats_fail(ret_error, "no measurements (NUMBER_OF_SETS is 0)");
        v = cgats_table_keyword(t, "TARGET_INSTRUMENT");
        if (!isempty(v)) {
                s->instrument = strdup(v);
                if (!s->instrument)
                        return -ENOMEM;
        }

        s->n_samples = t->n_sets;
        s->device = calloc(t->n_sets * s->n_channels, sizeof(double));
        s->xyz = calloc(t->n_sets * 3, sizeof(double));
        s->lab = calloc(t->n_sets * 3, sizeof(double));
        if (!s->device || !s->xyz || !s->lab)
                return -ENOMEM;

        for (size_t i = 0; i < t->n_sets; i++) {
                double *d = s->device + i * s->n_channels, *xyz = s->xyz + 3 * i, p[3];
                bool paper = true;

                for (size_t k = 0; k < s->n_channels; k++) {
                        r = parse_value(t, i, dev[k], ret_error, &d[k]);
                        if (r < 0)
                                return r;
                        if (d[k] < -0.001)
                                return cgats_fail(ret_error, "line %u: %s %s is negative", t->set_lines[i], dev_names[k],
                                             t->values[i * t->n_fields + (size_t) dev[k]]);
                        if (d[k] > 100.001)
                                return cgats_fail(ret_error, "line %u: %s %s is above 100", t->set_lines[i],
                                             dev_names[k], t->values[i * t->n_fields + (size_t) dev[k]]);
                        d[k] = fmin(fmax(d[k] / 100.0, 0.0), 1.0);
                        if (fabs(d[k] - (s->space == OUTPUT_SPACE_RGB ? 1.0 : 0.0)) > 1e-9)
                                paper = false;
                }
                for (size_t k = 0; k < 3; k++) {
                        r = parse_value(t, i, pcs[k], ret_error, &p[k]);
                        if (r < 0)
                                return r;
                        if ((!lab_in || k == 0) && p[k] < 0.0)
                                return cgats_fail(ret_error, "line %u: %s %s is negative: not a reflective reading",
                                             t->set_lines[i], pcs_names[k],
                                             t->values[i * t->n_fields + (size_t) pcs[k]]);
                        if (fabs(p[k]) > OUTPUT_MAX_XYZ)
                                return cgats_fail(ret_error, "line %u: %s %s is out of range", t->set_lines[i],
                                             pcs_names[k], t->values[i * t->n_fields + (size_t) pcs[k]]);
                }
                if (lab_in)
                        output_lab_to_xyz_d50(p, xyz); /* CGATS Lab is D50 (ICC) */
                else
                        for (size_t k = 0; k < 3; k++)
                                xyz[k] = p[k] / 100.0;
                if (paper) {
                        for (size_t k = 0; k < 3; k++)
                                s->white[k] += xyz[k];
                        s->n_white++;
                }
        }
        if (s->n_white == 0)
                return cgats_fail(ret_error, "no paper white: no patch with device values %s", s->space == OUTPUT_SPACE_RGB ?
                             "RGB 100 100 100" : "CMYK 0 0 0 0");
        for (size_t k = 0; k < 3; k++)
                s->white[k] /= (double) s->n_white;
        if (!(s->white[1] > 0.0) || !(s->white[0] > 0.0) || !(s->white[2] > 0.0))
                return cgats_fail(ret_error, "the paper white reads X Y Z %g %g %g: not a white", s->white[0] * 100.0,
                             s->white[1] * 100.0, s->white[2] * 100.0);
        for (size_t i = 0; i < s->n_samples; i++)
                output_xyz_to_relative_lab(s->xyz + 3 * i, s->white, s->lab + 3 * i);
        *ret = TAKE_PTR(s);
        return 0;
}
