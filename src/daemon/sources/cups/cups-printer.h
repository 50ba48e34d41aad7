/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tinct takes from one of cupsd's queues (a printer-attributes group of CUPS-Get-
 * Printers), and the rules that turn it into a device (colord §9.5: what cupsd itself would
 * register) and into a printer identity (docs/printers.md, "Identity"). Pure: no bus, no
 * store, no logging; a malformed attribute is a problem string for the caller to log once. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "ipp-wire.h"

typedef struct CupsPrinter {
        char *name;             /* printer-name: the queue */
        char *make_model;       /* printer-make-and-model */
        char *device_uri;       /* device-uri */
        char *device_id;        /* printer-device-id (IEEE 1284), when cupsd knows it */
        bool color;             /* color-supported */
        bool temporary;         /* printer-is-temporary */
        char *color_mode;       /* print-color-mode-default */
        char *media_type;       /* media-type of media-col-default */
        int32_t res_x, res_y;   /* printer-resolution-default in dpi, 0 when absent */
} CupsPrinter;

void cups_printer_done(CupsPrinter *p);

/* 0, or -EBADMSG with *ret_problem (malloc'd, says which attribute) when the group has no
 * usable printer-name; optional attributes that are malformed are left out and named in
 * *ret_problem too (return 0). */
int cups_printer_from_ipp(const IppGroup *g, CupsPrinter *ret, char **ret_problem);

/* "cups-<queue>" (colord §9.5). */
char *cups_device_id(const char *queue);

/* The device URI without a password (cupsd's Serial: colord §9.5). */
char *cups_sanitize_uri(const char *uri);

/* Vendor and model from printer-make-and-model: the first word, and the whole string
 * (cupsd sends the PPD's Manufacturer and ModelName, which includes the maker). */
int cups_vendor_model(const char *make_model, char **ret_vendor, char **ret_model);

/* A printer's identity key (docs/printers.md): "uuid:<uuid>" from the printer's own
 * printer-uuid (urn:uuid: removed, lower case), else "1284:<MFG>|<MDL>|<SN>" from its
 * IEEE 1284 device id when all three are there; -ENOENT when neither. */
int cups_identity(const char *printer_uuid, const char *device_id, char **ret);

/* The uuid=… of a dnssd:// device URI (cupsd's temporary and discovered queues), lower
 * case; -ENOENT without one. */
int cups_uri_uuid(const char *uri, char **ret);

/* One field (MFG, MDL, SN, with their long spellings) of an IEEE 1284 device id. */
int cups_device_id_field(const char *device_id, const char *key, char **ret);

/* The id of a printer's vendor profile (docs/printers.md): "printer-<12 hex>-<profile-name>",
 * the hex of md5 of the printer's identity key, or of "queue:<queue>" for a printer without
 * one. By identity, so that a choice of it survives the queue. NULL when out of memory. */
char *cups_vendor_profile_id(const char *identity, const char *queue, const char *profile_name);

/* Whether id has that form ("printer-", 12 lower-case hex digits, "-"): such ids are the
 * daemon's own, never a client's (docs/printers.md, "Vendor profiles are the daemon's"). */
bool cups_vendor_profile_id_reserved(const char *id);
