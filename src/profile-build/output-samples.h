/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A printer's measurement file (.ti3, DEVICE_CLASS "OUTPUT", as ArgyllCMS's chartread or
 * fakeread writes it): RGB or CMYK device values with XYZ or Lab readings, read from the
 * tables cgats.c parses, and converted to media-relative CIELAB (docs/printer-profiles.md).
 *
 * Refused, with the line at fault: a device value or an XYZ value that is negative, an L*
 * below 0, a value that is not a finite number, no paper white (device values of no ink).
 * Not here: parsing CGATS (cgats.c), fitting (output-fit.c), lcms2. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cgats.h"
#include "macro.h"

#define OUTPUT_MAX_CHANNELS 4u

typedef enum OutputSpace {
        OUTPUT_SPACE_RGB,       /* 3 channels, 100 100 100 is the paper */
        OUTPUT_SPACE_CMYK,      /* 4 channels, 0 0 0 0 is the paper */
} OutputSpace;

typedef struct OutputSamples {
        OutputSpace space;
        unsigned n_channels;    /* 3 or 4 */
        size_t n_samples;
        double *device;         /* n_samples × n_channels, 0..1 (ink amount or RGB drive) */
        double *xyz;            /* n_samples × 3, absolute, Y = 1 for a perfect white */
        double *lab;            /* n_samples × 3, media-relative CIELAB (D50) */
        double white[3];        /* the paper's XYZ: the mean of the no-ink patches */
        size_t n_white;
        char *instrument;       /* TARGET_INSTRUMENT, or NULL */
} OutputSamples;

/* The first table's DEVICE_CLASS, or NULL when it has none (a display file then). */
const char *cgats_device_class(const Cgats *c);

/* Reads the first table: COLOR_REP RGB_XYZ, CMYK_XYZ, RGB_LAB or CMYK_LAB, the fields that
 * names (RGB_R.., CMYK_C.., XYZ_X.., LAB_L..), device values 0..100. Returns 0 with *ret, or
 * -EINVAL with *ret_error (caller frees; names the line), -ENOMEM. */
int output_samples_from_cgats(const Cgats *c, OutputSamples **ret, char **ret_error);
OutputSamples *output_samples_free(OutputSamples *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(OutputSamples *, output_samples_free);

/* CIELAB of XYZ relative to the given white, mapped to the D50 PCS white by per-component
 * scaling (ICC.1:2010 §6.3.2.2 media-relative colorimetry), and back. */
void output_xyz_to_relative_lab(const double xyz[3], const double white[3], double ret_lab[3]);
void output_lab_to_xyz_d50(const double lab[3], double ret_xyz[3]);
