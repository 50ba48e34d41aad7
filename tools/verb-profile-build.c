/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct profile-build: a matrix/shaper ICC display profile from a CGATS measurement file as
 * ArgyllCMS writes it (.ti3), without ArgyllCMS (src/profile-build, docs/profile-build.md).
 * Offline: reads one file, writes one file atomically, prints the fit's accuracy. Nothing
 * is written when the measurements are refused. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgats.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "profile-build.h"
#include "verbs.h"

int verb_profile_build(Invocation *inv) {
        _cleanup_(display_samples_freep) DisplaySamples *samples = NULL;
        _cleanup_free_ uint8_t *data = NULL, *icc = NULL;
        _cleanup_free_ char *error = NULL;
        ProfileBuildOptions o = {
                .v2 = inv->opts.v2,
                .description = inv->opts.description,
                .copyright = inv->opts.copyright,
                .cmf_binary = "tinct profile-build",
        };
        ProfileBuildReport rep = {};
        const char *output = inv->opts.output, *reason = NULL, *path = inv->args[0];
        size_t size = 0, icc_len = 0;
        int r;

        if (inv->opts.chart || inv->opts.reference)
                return verb_profile_build_chart(inv);
        r = read_file_capped(path, CGATS_MAX_SIZE, READ_REGULAR_ONLY, &data, &size, NULL);
        if (r == -EFBIG) {
                log_error("%s: larger than %u bytes: not a measurement file", path, CGATS_MAX_SIZE);
                return 1;
        }
        if (r < 0) {
                log_error("%s: cannot read: %s", path, strerror(-r));
                return 1;
        }
        r = display_samples_parse((const char *) data, size, &samples, &error);
        if (r < 0) {
                log_error("%s: %s", path, error ? error : strerror(-r));
                return 1;
        }
        r = profile_build(samples, &o, &icc, &icc_len, &rep, &reason);
        if (r < 0) {
                log_error("%s: cannot make a profile: %s", path, reason ? reason : strerror(-r));
                return 1;
        }
        r = write_file_atomic(output, icc, icc_len, 0644, 0);
        if (r < 0) {
                log_error("%s: cannot write: %s", output, strerror(-r));
                return 1;
        }
        if (!inv->opts.quiet) {
                const ProfileFit *f = &rep.fit;
                printf("%zu measurements, white x=%.4f y=%.4f", f->n_samples,
                       f->white[0] / (f->white[0] + f->white[1] + f->white[2]),
                       f->white[1] / (f->white[0] + f->white[1] + f->white[2]));
                if (rep.has_luminance)
                        printf(", %.1f cd/m²", rep.luminance[1]);
                printf(", black Y=%.4f%%\n", f->black[1] * 100.0);
                printf("gamma (power part): R %.3f G %.3f B %.3f; curve knots: %u %u %u\n", f->curve[0].gamma,
                       f->curve[1].gamma, f->curve[2].gamma, f->curve[0].n_intervals + 1,
                       f->curve[1].n_intervals + 1, f->curve[2].n_intervals + 1);
                printf("profile against its measurements: dE2000 mean %.3f max %.3f rms %.3f; "
                       "dE76 mean %.3f max %.3f\n",
                       rep.de2000_mean, rep.de2000_max, rep.de2000_rms, rep.de76_mean, rep.de76_max);
        }
        return 0;
}
