/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inverse of a printer's forward model (output-fit.h): media-relative CIELAB → device
 * values, for the B2A tags. Colorimetric: the device values whose colour is nearest the
 * target (ΔE76; an out-of-gamut colour goes to its nearest printable colour). Perceptual: the
 * target first mapped into the printer's gamut (lightness scaled to the printer's black, chroma
 * compressed towards the gamut's boundary at constant hue and lightness), then inverted
 * colorimetrically. For CMYK the black is generated from lightness (OutputBlack), and no result
 * exceeds the total ink limit (docs/printer-profiles.md).
 *
 * Pure numerics: no lcms2, no files, no logging. */
#pragma once

#include <stdbool.h>

#include "macro.h"
#include "output-fit.h"
#include "output-samples.h"

typedef struct OutputInverter OutputInverter;

/* Black generation for CMYK (docs/printer-profiles.md): how soon and how fast the black
 * target rises from the paper to the printer's black. NONE wants no black (a colour gets only
 * what CMY cannot reach), MAX all the black a colour allows (greys in black ink alone). */
typedef enum OutputBlack {
        OUTPUT_BLACK_NONE,
        OUTPUT_BLACK_LIGHT,
        OUTPUT_BLACK_MEDIUM,
        OUTPUT_BLACK_HEAVY,
        OUTPUT_BLACK_MAX,
        _OUTPUT_BLACK_N,
} OutputBlack;
#define OUTPUT_BLACK_DEFAULT OUTPUT_BLACK_MEDIUM

/* "none", "light", "medium", "heavy", "max"; -EINVAL for anything else. */
int output_black_from_string(const char *s, OutputBlack *ret);
const char *output_black_to_string(OutputBlack b);

/* ink_limit: the CMYK total, 1..4 (4: none); ignored for RGB, as is black. */
int output_inverter_new(const OutputLut *lut, OutputSpace space, double ink_limit, OutputBlack black,
                        OutputInverter **ret);
/* The gamut boundary output_max_chroma() and output_map_perceptual() need (most of the cost of
 * an inverter: some 44 000 inversions). -ENOMEM. */
int output_inverter_make_boundary(OutputInverter *inv);
OutputInverter *output_inverter_free(OutputInverter *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(OutputInverter *, output_inverter_free);

/* Colorimetric: device values (n_channels) for lab; *ret_error: ΔE76 between lab and the
 * colour those values print (0 in gamut). */
void output_invert(const OutputInverter *inv, const double lab[3], double *ret_device, double *ret_error);

/* Perceptual: lab mapped into the gamut (then output_invert() it). Needs the boundary. */
void output_map_perceptual(const OutputInverter *inv, const double lab[3], double ret_lab[3]);

/* Whether the printer reaches lab within ΔE76 OUTPUT_GAMUT_TOLERANCE. */
#define OUTPUT_GAMUT_TOLERANCE 1.0
bool output_in_gamut(const OutputInverter *inv, const double lab[3]);

/* The L* of the printer's darkest colour (its black) and its most chroma at a hue (degrees)
 * and lightness (the boundary table, interpolated). */
double output_black_lightness(const OutputInverter *inv);
double output_max_chroma(const OutputInverter *inv, double lightness, double hue);

/* The black a CMYK colour of this lightness gets (0..1), before the fit to the colour. */
double output_black_target(const OutputInverter *inv, double lightness);
