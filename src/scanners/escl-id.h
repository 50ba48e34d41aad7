/* SPDX-License-Identifier: GPL-2.0-or-later */
/* eSCL (AirScan) identity, pure: a network scanner's UUID as its ScannerCapabilities
 * document or its mDNS TXT record `UUID` gives it, made into the stable device id
 * `escl-<uuid>` (docs/scanners.md). Never the discovery order: sane-airscan's device names
 * (`airscan:e0:…`) shift when another scanner goes offline. No I/O, no logging: the
 * helper (tinct-sane-list.c) fetches the bytes, this file only reads them. */
#pragma once

#include <stddef.h>

/* The UUID in canonical form: lower case 8-4-4-4-12 hex digits, without `urn:uuid:`
 * (any case) and surrounding blanks. 32 hex digits without dashes are accepted and
 * dashed. -EINVAL for anything else, -ENOMEM. */
int escl_uuid_normalize(const char *text, char **ret);

/* "escl-" + escl_uuid_normalize(text). */
int escl_device_id(const char *uuid_text, char **ret);

typedef struct EsclCapabilities {
        char *uuid;           /* normalized; NULL when the document has none */
        char *make_and_model; /* pwg:MakeAndModel, blanks trimmed; NULL when absent */
} EsclCapabilities;

/* Reads a ScannerCapabilities document: its root element must be ScannerCapabilities (in
 * any namespace prefix) and the tags must nest; the UUID is the text of the first
 * element named UUID (scan:UUID in eSCL), MakeAndModel likewise. -EBADMSG for a document
 * that is not such XML (garbage, truncated, another root, a bad UUID), -ENOMEM. */
int escl_capabilities_parse(const char *xml, size_t len, EsclCapabilities *ret);
void escl_capabilities_done(EsclCapabilities *c);
