/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The naming and normalisation rules colord applies to ids and device properties
 * (colord §1.1, §3.3, Appendix A) and the string tables libcolord parses (colord §14.2).
 * Pure functions: no I/O, no bus. Every returned string is newly allocated. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Object-path element: every byte outside [A-Za-z0-9_] becomes '_'. */
char *names_escape_path_element(const char *id);
void names_escape_path_element_in_place(char *s);

/* Vendor clean-up: the prefix table, then one pass of company suffixes, then trailing
 * whitespace trimmed. */
char *names_vendor_quirk(const char *vendor);

/* Model clean-up: trailing spaces, then a kind-specific suffix ("Printer" for printers,
 * "Monitor" then "Screen" for displays), then trailing spaces again. */
char *names_model_normalize(const char *model, const char *kind);

/* Serial: the text after "?serial=" when present (CUPS device URIs), else the value. */
char *names_serial_normalize(const char *serial);

/* ICC title clean-up (colord §4.4): leading "Default, ", cut at " (201", '_' to ' ',
 * trailing ".icc"/".icm" in either case dropped. */
char *names_profile_title(const char *description);

/* String tables. *_is_valid() is an exact, case-sensitive match against the table. */
bool names_device_kind_is_valid(const char *kind); /* includes "unknown" */
bool names_profile_kind_is_valid(const char *kind);
bool names_colorspace_is_valid(const char *cs);
/* Parses a colorspace leniently: unknown strings give "unknown". Returns a static string. */
const char *names_colorspace_parse(const char *cs);
const char *names_device_kind_parse(const char *kind);
const char *names_profile_kind_parse(const char *kind);
/* Sensor capabilities in libcolord's enum order (CdSensorCap: 0 unknown, 1 lcd, 2 crt, ...),
 * as Start's DeviceKind option numbers them; NULL past the end. */
const char *names_sensor_cap(unsigned index);
/* The index of a capability name, or -1. */
int names_sensor_cap_index(const char *cap);
