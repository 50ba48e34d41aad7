/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual display behind the dummy sensor (see sensor-sim.h).
 *
 * Why lcms2 runs in the daemon here, unlike every other parse (docs/sandbox.md): a reading
 * is a colour transform through the profile, done for each GetSample of a calibration run,
 * and the parser process answers facts, not transforms. The file is trusted as the daemon's
 * own configuration is: root names it on tinctd's command line, no client can choose or
 * change it. Even so it goes through the parser process first, so bytes that crash or
 * confuse a parse fail there, and lcms2 in the daemon only sees a profile the sandboxed
 * reader accepted as RGB. */
#include "sensor-sim.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "icc-info.h"
#include "manager.h"
#include "parser.h"

static int fail(char **ret_error, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char **ret_error, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        if (ret_error && vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return r;
}

int sensor_sim_load(Parser *parser, const char *path, SensorSim **ret, char **ret_error) {
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *why = NULL;
        size_t size = 0;
        int r = read_file_capped(path, ICC_MAX_FILE_SIZE, READ_REGULAR_ONLY, &data, &size, NULL);
        if (r < 0)
                return fail(ret_error, r, "cannot read %s: %s", path, strerror(-r));

        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        r = parser_icc_info(parser, data, size, ICC_INFO_SKIP_WARNINGS, &info, &why);
        if (r < 0)
                return fail(ret_error, r, "%s", why ?: "the parser refused it");
        if (!streq(info->colorspace, "rgb"))
                return fail(ret_error, -EMEDIUMTYPE, "not an RGB profile but %s", info->colorspace);

        SensorSim *sim = calloc(1, sizeof *sim);
        if (!sim)
                return -ENOMEM;
        if (!(sim->path = strdup(path))) {
                sensor_sim_free(sim);
                return -ENOMEM;
        }
        why = mfree(why);
        r = icc_display_model_new(data, size, &sim->model, &why);
        if (r < 0) {
                sensor_sim_free(sim);
                return fail(ret_error, r, "%s", why ?: "lcms2 cannot use it");
        }
        double lumi = icc_display_model_luminance(sim->model);
        sim->luminance = lumi > 0 && lumi <= SENSOR_SIM_MAX_LUMINANCE ? lumi : SENSOR_SIM_DEFAULT_LUMINANCE;
        sensor_sim_set_seed(sim, 0);
        *ret = sim;
        return 0;
}

SensorSim *sensor_sim_free(SensorSim *sim) {
        if (!sim)
                return NULL;
        icc_display_model_free(sim->model);
        free(sim->path);
        free(sim->x11_display);
        free(sim);
        return NULL;
}

void sensor_sim_set_seed(SensorSim *sim, uint64_t seed) {
        sim->seed = seed;
        sim->rng = seed;
}

/* splitmix64: one 64-bit state, the same sequence on every machine for a seed. */
static uint64_t next_u64(SensorSim *sim) {
        uint64_t z = (sim->rng += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double next_unit(SensorSim *sim) {
        return ((double) (next_u64(sim) >> 11) + 1.0) / 9007199254740992.0;
}

/* Standard normal, Box-Muller (one of the pair; readings are few). */
static double next_gauss(SensorSim *sim) {
        double u1 = next_unit(sim), u2 = next_unit(sim);
        return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void sensor_sim_reading(SensorSim *sim, const double rgb[3], double ret_xyz[3]) {
        double xyz[3];
        icc_display_model_xyz(sim->model, rgb, xyz);
        for (int i = 0; i < 3; i++) {
                double v = xyz[i] * sim->luminance;
                if (sim->noise > 0)
                        v *= 1.0 + sim->noise * next_gauss(sim);
                ret_xyz[i] = v;
        }
}
