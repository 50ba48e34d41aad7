/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The inverse of a printer's forward model (output-fit.h): media-relative CIELAB → device
 * values, for the B2A tags. Colorimetric: the device values whose colour is nearest the
 * target (ΔE76; an out-of-gamut colour goes to its nearest printable colour). Perceptual: the
 * target first mapped into the printer's gamut (lightness scaled to the printer's black, chroma
 * compressed towards the gamut's boundary at constant hue and lightness), then inverted
 * colorimetrically. For CMYK the black is generated from lightness, and no result exceeds the
 * total ink limit (docs/printer-profiles.md).
 *
 * Pure numerics: no lcms2, no files, no logging. */
#pragma once

#include <stdbool.h>

#include "macro.h"
#include "output-fit.h"
#include "output-samples.h"

#define OUTPUT_DEFAULT_INK_LIMIT 3.0    /* 300%: the CMYK total a coated-paper press commonly allows */

typedef struct OutputInverter OutputInverter;

/* ink_limit: the CMYK total, 1..4 (4: none); ignored for RGB. */
int output_inverter_new(const OutputLut *lut, OutputSpace space, double ink_limit, OutputInverter **ret);
OutputInverter *output_inverter_free(OutputInverter *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(OutputInverter *, output_inverter_free);

/* Colorimetric: device values (n_channels) for lab; *ret_error: ΔE76 between lab and the
 * colour those values print (0 in gamut). */
void output_invert(const OutputInverter *inv, const double lab[3], double *ret_device, double *ret_error);

/* Perceptual: lab mapped into the gamut (then output_invert() it). */
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
