/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reference values of a chart (chart-ref.h). */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-ref.h"
#include "profile-fit.h"

static int fail(char **ret_error, int r, const char *msg) {
        *ret_error = strdup(msg);
        return r;
}

static void lab_to_xyz_d50(const double lab[3], double xyz[3]) {
        double fy = (lab[0] + 16.0) / 116.0, fx = fy + lab[1] / 500.0, fz = fy - lab[2] / 200.0;
        double f[3] = { fx, fy, fz };

        /* CIE 15: the inverse of f(t), linear below (6/29)³ */
        for (size_t k = 0; k < 3; k++) {
                double t = f[k] > 6.0 / 29.0 ? f[k] * f[k] * f[k] : 3.0 * (6.0 / 29.0) * (6.0 / 29.0) * (f[k] - 4.0 / 29.0);
                xyz[k] = t * profile_fit_d50[k];
        }
}

int chart_ref_parse(const char *buf, size_t len, ChartRef **ret, char **ret_error) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        _cleanup_(chart_ref_freep) ChartRef *ref = NULL;
        int name, f[3];
        bool lab;
        int r;

        *ret_error = NULL;
        r = cgats_parse(buf, len, &c, ret_error);
        if (r < 0)
                return r;
        if (c->n_tables == 0)
                return fail(ret_error, -EINVAL, "no table");
        const CgatsTable *t = &c->tables[0];
        name = cgats_table_field(t, "SAMPLE_LOC");
        if (name < 0)
                name = cgats_table_field(t, "SAMPLE_ID");
        if (name < 0)
                return fail(ret_error, -EINVAL, "no SAMPLE_ID field: not a chart reference");
        f[0] = cgats_table_field(t, "XYZ_X");
        f[1] = cgats_table_field(t, "XYZ_Y");
        f[2] = cgats_table_field(t, "XYZ_Z");
        lab = f[0] < 0 || f[1] < 0 || f[2] < 0;
        if (lab) {
                f[0] = cgats_table_field(t, "LAB_L");
                f[1] = cgats_table_field(t, "LAB_A");
                f[2] = cgats_table_field(t, "LAB_B");
                if (f[0] < 0 || f[1] < 0 || f[2] < 0)
                        return fail(ret_error, -EINVAL, "neither XYZ_X XYZ_Y XYZ_Z nor LAB_L LAB_A LAB_B fields");
        }
        if (t->n_sets == 0)
                return fail(ret_error, -EINVAL, "no patches");

        ref = calloc(1, sizeof *ref);
        if (!ref)
                return -ENOMEM;
        ref->names = calloc(t->n_sets, sizeof(char *));
        ref->xyz = calloc(t->n_sets, sizeof *ref->xyz);
        if (!ref->names || !ref->xyz)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_sets; i++) {
                const char *const *row = (const char *const *) &t->values[i * t->n_fields];
                double v[3];

                for (size_t k = 0; k < 3; k++)
                        if (cgats_parse_number(row[f[k]], &v[k]) < 0) {
                                if (asprintf(ret_error, "line %u: '%s' is not a number", t->set_lines[i],
                                             row[f[k]]) < 0)
                                        *ret_error = NULL;
                                return -EINVAL;
                        }
                if (lab ? (v[0] < 0 || v[0] > 101) : (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[1] > 101)) {
                        if (asprintf(ret_error, "line %u: %s values out of range", t->set_lines[i],
                                     lab ? "Lab" : "XYZ") < 0)
                                *ret_error = NULL;
                        return -EINVAL;
                }
                if (lab)
                        lab_to_xyz_d50(v, ref->xyz[i]);
                else
                        for (size_t k = 0; k < 3; k++)
                                ref->xyz[i][k] = v[k] / 100.0;
                ref->names[i] = strdup(row[name]);
                if (!ref->names[i])
                        return -ENOMEM;
                ref->n++;
        }
        *ret = TAKE_PTR(ref);
        return 0;
}

ChartRef *chart_ref_free(ChartRef *r) {
        if (r) {
                for (size_t i = 0; i < r->n; i++)
                        free(r->names[i]);
                free(r->names);
                free(r->xyz);
                free(r);
        }
        return NULL;
}

/* D50 Lab of the ColorChecker 24, dark skin to black. Before November 2014: the values
 * argyll-ref's ColorChecker.cie carries (GretagMacbeth). From November 2014: X-Rite's
 * published values for the chart made since (new pigments). */
static const double colorchecker[2][24][3] = {
        {
                { 37.99, 13.56, 14.06 }, { 65.71, 18.13, 17.81 }, { 49.93, -4.88, -21.93 },
                { 43.14, -13.10, 21.91 }, { 55.11, 8.84, -25.40 }, { 70.72, -33.40, -0.20 },
                { 62.66, 36.07, 57.10 }, { 40.02, 10.41, -45.96 }, { 51.12, 48.24, 16.25 },
                { 30.33, 22.98, -21.59 }, { 72.53, -23.71, 57.26 }, { 71.94, 19.36, 67.86 },
                { 28.78, 14.18, -50.30 }, { 55.26, -38.34, 31.37 }, { 42.10, 53.38, 28.19 },
                { 81.73, 4.04, 79.82 }, { 51.94, 49.99, -14.57 }, { 51.04, -28.63, -28.64 },
                { 96.54, -0.43, 1.19 }, { 81.26, -0.64, -0.34 }, { 66.77, -0.73, -0.50 },
                { 50.87, -0.15, -0.27 }, { 35.66, -0.42, -1.23 }, { 20.46, -0.08, -0.97 },
        },
        {
                { 37.54, 14.37, 14.92 }, { 64.66, 19.27, 17.50 }, { 49.32, -3.82, -22.54 },
                { 43.46, -12.74, 22.72 }, { 54.94, 9.61, -24.79 }, { 70.48, -32.26, -0.37 },
                { 62.73, 35.83, 56.50 }, { 39.43, 10.75, -45.17 }, { 50.57, 48.64, 16.67 },
                { 30.10, 22.54, -20.87 }, { 71.77, -24.13, 58.19 }, { 71.51, 18.24, 67.37 },
                { 28.37, 15.42, -49.80 }, { 54.38, -39.72, 32.27 }, { 42.43, 51.05, 28.62 },
                { 81.80, 2.67, 80.41 }, { 50.63, 51.28, -14.12 }, { 49.57, -29.71, -28.32 },
                { 95.19, -1.03, 2.93 }, { 81.29, -0.57, 0.44 }, { 66.89, -0.75, -0.06 },
                { 50.76, -0.13, 0.14 }, { 35.63, -0.46, -0.48 }, { 20.64, 0.07, -0.46 },
        },
};

ColorCheckerEdition colorchecker_edition(const double (*lab)[3], size_t n) {
        double d[2] = { 0.0, 0.0 };

        if (n != 24)
                return COLORCHECKER_NONE;
        for (size_t e = 0; e < 2; e++)
                for (size_t i = 0; i < 24; i++)
                        d[e] += ciede2000(lab[i], colorchecker[e][i]) / 24.0;
        if (fmin(d[0], d[1]) > 2.5)
                return COLORCHECKER_NONE;
        return d[0] <= d[1] ? COLORCHECKER_PRE_2014 : COLORCHECKER_POST_2014;
}

void colorchecker_xyz(ColorCheckerEdition e, size_t i, double ret[3]) {
        assert(e != COLORCHECKER_NONE && i < 24);
        lab_to_xyz_d50(colorchecker[e == COLORCHECKER_PRE_2014 ? 0 : 1][i], ret);
}

const char *colorchecker_edition_name(ColorCheckerEdition e) {
        return e == COLORCHECKER_PRE_2014  ? "the ColorChecker's values from before November 2014"
               : e == COLORCHECKER_POST_2014 ? "the ColorChecker's values from November 2014 on"
                                             : "not a ColorChecker";
}
