/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private interface between the EDID block walker (edid.c) and the per-extension decoders.
 * Not installed, not used outside src/edid. */
#pragma once

#include "edid.h"

/* Decodes one 128-byte CTA-861 extension block into e->cta. block points to exactly
 * EDID_BLOCK_SIZE readable bytes. Returns 0 or -ENOMEM. */
int edid_cta_parse_block(Edid *e, const uint8_t *block);
