/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct profile-build: a matrix/shaper ICC display profile from a CGATS measurement file as
 * ArgyllCMS writes it (.ti3), without ArgyllCMS (src/profile-build, docs/profile-build.md);
 * a printer's file (DEVICE_CLASS "OUTPUT") makes an output-class LUT profile instead
 * (docs/printer-profiles.md). Offline: reads one file, writes one file atomically, prints the
 * fit's accuracy. Nothing is written when the measurements are refused. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgats.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "output-build.h"
#include "profile-build.h"
#include "verbs.h"

/* What the command line says of the profile to write (--v2, --description, --copyright). */
static ProfileBuildOptions build_options(const Invocation *inv) {
        return (ProfileBuildOptions) {
                .v2 = inv->opts.v2,
                .description = inv->opts.description,
                .copyright = inv->opts.copyright,
                .cmf_binary = "tinct profile-build",
        };
}

/* A total ink limit in percent, 100..400, as a fraction (1..4). */
static int parse_ink_limit(const char *v, double *ret) {
        double x;

        if (cgats_parse_number(v, &x) < 0 || x < 100.0 || x > 400.0)
                return -EINVAL;
        *ret = x / 100.0;
        return 0;
}

#define INK_LIMIT_RANGE "a total ink limit is a percentage from 100 to 400"

/* --ink-limit PERCENT (checked by verb_profile_build_check), else the file's TOTAL_INK_LIMIT
 * (targen writes it), else none (0). */
static int ink_limit_of(const Invocation *inv, const Cgats *c, double *ret) {
        const char *v;

        *ret = 0.0;
        if (inv->opts.ink_limit)
                return parse_ink_limit(inv->opts.ink_limit, ret);
        v = cgats_table_keyword(&c->tables[0], "TOTAL_INK_LIMIT");
        if (!v)
                return 0;
        if (parse_ink_limit(v, ret) < 0) {
                log_error("TOTAL_INK_LIMIT \"%s\": " INK_LIMIT_RANGE, v);
                return -EINVAL;
        }
        return 0;
}

/* Chart options without --chart, printer options with it, values that cannot be: usage
 * errors, before any file is read. */
int verb_profile_build_check(const Invocation *inv) {
        OutputBlack black;
        double ink_limit;

        if (inv->opts.chart || inv->opts.reference)
                return verb_profile_build_chart_check(inv);
        if (inv->opts.corners || inv->opts.model)
                return verb_usage_error(inv, "--%s is for an input profile from an image of a chart (--chart, "
                                        "--reference)", inv->opts.corners ? "corners" : "model");
        if (inv->opts.ink_limit && parse_ink_limit(inv->opts.ink_limit, &ink_limit) < 0)
                return verb_usage_error(inv, "--ink-limit \"%s\": " INK_LIMIT_RANGE, inv->opts.ink_limit);
        if (inv->opts.black && output_black_from_string(inv->opts.black, &black) < 0)
                return verb_usage_error(inv, "--black \"%s\": the black generation is none, light, medium, heavy or "
                                        "max", inv->opts.black);
        return 0;
}

static int build_printer(Invocation *inv, const char *path, const Cgats *c) {
        _cleanup_(output_samples_freep) OutputSamples *samples = NULL;
        _cleanup_free_ uint8_t *icc = NULL;
        _cleanup_free_ char *error = NULL;
        ProfileBuildOptions o = build_options(inv);
        OutputBuildReport rep = {};
        const char *reason = NULL;
        size_t icc_len = 0;
        OutputBlack black;
        double ink_limit;
        int r;

        r = output_samples_from_cgats(c, &samples, &error);
        if (r < 0) {
                log_error("%s: %s", path, error ? error : strerror(-r));
                return 1;
        }
        /* An RGB printer has no total ink and no black to generate: those options do not apply. */
        if (samples->space != OUTPUT_SPACE_CMYK && (inv->opts.ink_limit || inv->opts.black))
                return verb_usage_error(inv, "%s: --%s is for CMYK printers; this file is RGB", path,
                                        inv->opts.ink_limit ? "ink-limit" : "black");
        if (ink_limit_of(inv, c, &ink_limit) < 0)
                return 1;
        if (ink_limit > 0.0 && samples->space != OUTPUT_SPACE_CMYK) {
                log_error("%s: TOTAL_INK_LIMIT is for CMYK printers; this file is RGB", path);
                return 1;
        }
        black = OUTPUT_BLACK_DEFAULT;
        if (inv->opts.black && output_black_from_string(inv->opts.black, &black) < 0)
                return 1; /* cannot happen: checked by verb_profile_build_check() */
        r = output_build(samples, &o, ink_limit, black, &icc, &icc_len, &rep, &reason);
        if (profile_build_save(inv, path, r, reason, icc, icc_len) < 0)
                return 1;
        if (!inv->opts.quiet) {
                printf("%zu measurements, %s, paper white X=%.4f Y=%.4f Z=%.4f, black L*=%.2f\n", samples->n_samples,
                       samples->space == OUTPUT_SPACE_CMYK ? "CMYK" : "RGB", samples->white[0], samples->white[1],
                       samples->white[2], rep.black_lightness);
                printf("A2B grid %u, smoothness %g (cross-validated dE2000 mean %.3f); B2A grid %u", rep.a2b_grid,
                       rep.smoothness, rep.cv_mean, rep.b2a_grid);
                if (samples->space == OUTPUT_SPACE_CMYK)
                        printf(", ink limit %.0f%% (largest total %.0f%%), black generation %s",
                               (ink_limit > 0.0 ? ink_limit : 4.0) * 100.0, rep.max_ink * 100.0,
                               output_black_to_string(black));
                printf("\nprofile against its measurements: dE2000 mean %.3f max %.3f; dE76 mean %.3f max %.3f\n",
                       rep.de2000_mean, rep.de2000_max, rep.de76_mean, rep.de76_max);
                printf("round trip Lab -> B2A1 -> A2B1: dE2000 mean %.3f max %.3f\n", rep.round_trip_mean,
                       rep.round_trip_max);
        }
        return 0;
}

int verb_profile_build(Invocation *inv) {
        _cleanup_(display_samples_freep) DisplaySamples *samples = NULL;
        _cleanup_(cgats_freep) Cgats *cgats = NULL;
        _cleanup_free_ uint8_t *data = NULL, *icc = NULL;
        _cleanup_free_ char *error = NULL;
        ProfileBuildOptions o = build_options(inv);
        ProfileBuildReport rep = {};
        const char *reason = NULL, *path = inv->args[0], *class;
        size_t size = 0, icc_len = 0;
        int r;

        if (inv->opts.chart)
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
        r = cgats_parse((const char *) data, size, &cgats, &error);
        if (r < 0) {
                log_error("%s: %s", path, error ? error : strerror(-r));
                return 1;
        }
        class = cgats_device_class(cgats);
        if (class && streq(class, "OUTPUT"))
                return build_printer(inv, path, cgats);
        if (inv->opts.ink_limit || inv->opts.black)
                return verb_usage_error(inv, "%s: --%s is for printers (DEVICE_CLASS \"OUTPUT\"); this file is a "
                                        "display's", path, inv->opts.ink_limit ? "ink-limit" : "black");
        r = display_samples_from_cgats(cgats, &samples, &error);
        if (r < 0) {
                log_error("%s: %s", path, error ? error : strerror(-r));
                return 1;
        }
        r = profile_build(samples, &o, &icc, &icc_len, &rep, &reason);
        if (profile_build_save(inv, path, r, reason, icc, icc_len) < 0)
                return 1;
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
