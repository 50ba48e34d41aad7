/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Qualifiers for driverless queues (docs/printers.md, "Qualifiers"): for an IPP Everywhere
 * queue cups-filters asks GetProfileForQualifiers for ColorModel.MediaType.Resolution in
 * the names of the PPD that CUPS generates from the printer's IPP attributes. These are the
 * rules that turn IPP keywords into those names, and a vendor profile's profile-name into
 * the qualifier it answers. Pure: strings in, strings out. */
#pragma once

#include <stdint.h>

/* print-color-mode → the PPD's ColorModel choice: color RGB, monochrome and
 * process-monochrome Gray, bi-level FastGray, adobe-rgb AdobeRGB, auto RGB; NULL otherwise. */
const char *cups_ppd_color_model(const char *print_color_mode);

/* A media-type keyword as the generated PPD names it: the first letter and each letter after
 * a '-' upper case, the dashes dropped (photographic-glossy → PhotographicGlossy). */
char *cups_ppd_media_type(const char *keyword);

/* printer-resolution in dpi → "600dpi", or "600x1200dpi" when they differ. */
char *cups_ppd_resolution(int32_t x, int32_t y);

/* The qualifier a vendor profile answers, from its profile-name: "<ColorModel>.<MediaType>.*"
 * where the colour model is named in the name (adobe-rgb, monochrome, gray) or else follows
 * the profile's colour space ("rgb" RGB, "gray" Gray, "cmyk" CMYK, else *), and the media
 * type is the longest keyword of media_types (the printer's media-type-supported, then PWG
 * 5101.1's common ones) that the name contains between word boundaries, else *. A
 * resolution in the name ("600dpi") takes the third part. */
char *cups_profile_qualifier(const char *profile_name, const char *colorspace, char *const *media_types);
