/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CGATS.17 text files as ArgyllCMS writes them (.ti1, .ti3, .cal): bytes in, tables of
 * keywords, field names and value strings out; and, on top of that, the reading of a display
 * measurement file (.ti3, DEVICE_CLASS "DISPLAY", COLOR_REP "RGB_XYZ") into plain samples.
 *
 * Every limit is checked while reading (input size, tables, keywords, fields, sets, token
 * length), every error names the line. Deliberately not here: files, logging, lcms2, any
 * fitting (profile-build.c); writing CGATS. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* Bounds: far above any real measurement file (Argyll's largest charts have a few thousand
 * patches), low enough that a hostile file cannot make us allocate much. */
#define CGATS_MAX_SIZE (16u * 1024u * 1024u)
#define CGATS_MAX_TABLES 16u
#define CGATS_MAX_KEYWORDS 1024u
#define CGATS_MAX_FIELDS 1024u
#define CGATS_MAX_SETS 100000u
#define CGATS_MAX_VALUES (1024u * 1024u) /* sets × fields of one table */
#define CGATS_MAX_TOKEN 4096u

typedef struct CgatsTable {
        char *type;             /* the identifier line: "CTI3", "CTI1", "CAL", ... */
        size_t n_keywords;
        char **keywords;        /* name, value, name, value, ... (2 × n_keywords) */
        size_t n_fields;
        char **fields;          /* BEGIN_DATA_FORMAT ... END_DATA_FORMAT */
        size_t n_sets;
        char **values;          /* n_sets × n_fields, set by set */
        unsigned *set_lines;    /* the line each set starts on, for messages */
} CgatsTable;

typedef struct Cgats {
        char *text;             /* the file's copy every string above points into */
        size_t n_tables;
        CgatsTable *tables;
} Cgats;

/* Parses a whole file. Returns 0 with *ret, or a negative errno with *ret_error (caller
 * frees; "line N: ..."): -EINVAL for malformed input, -EFBIG past a bound, -ENOMEM. */
int cgats_parse(const char *buf, size_t len, Cgats **ret, char **ret_error);
Cgats *cgats_free(Cgats *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Cgats *, cgats_free);

/* The value of a header keyword, or NULL. */
const char *cgats_table_keyword(const CgatsTable *t, const char *name);
/* The index of a field, or -ENOENT. */
int cgats_table_field(const CgatsTable *t, const char *name);
/* A number as CGATS writes it (decimal, optional exponent): 0 or -EINVAL (not a number,
 * trailing text, not finite). */
int cgats_parse_number(const char *s, double *ret);

/* Sets *ret_error to the formatted message (NULL when out of memory) and returns -EINVAL:
 * the refusals of the readings built on these tables (display and printer files). */
int cgats_fail(char **ret_error, const char *fmt, ...) _printf_(2, 3);

/* --- Display measurements (.ti3) --- */

typedef struct DisplaySample {
        double rgb[3];          /* device values, 0..1 */
        double xyz[3];          /* relative (white Y ≈ 1) or, if absolute, cd/m² */
} DisplaySample;

typedef struct DisplaySamples {
        size_t n_samples;
        DisplaySample *samples;
        bool absolute;          /* NORMALIZED_TO_Y_100 "NO": XYZ in cd/m² */
        bool has_luminance;
        double luminance[3];    /* LUMINANCE_XYZ_CDM2: the white's XYZ in cd/m² */
        char *instrument;       /* TARGET_INSTRUMENT, or NULL */
} DisplaySamples;

/* Reads the first table of a .ti3: DEVICE_CLASS "DISPLAY" (if given), COLOR_REP "RGB_XYZ",
 * fields RGB_R RGB_G RGB_B XYZ_X XYZ_Y XYZ_Z (others ignored), RGB in 0..100, XYZ finite;
 * scale 0..100 unless NORMALIZED_TO_Y_100 is "NO". Errors as cgats_parse(). */
int display_samples_from_cgats(const Cgats *c, DisplaySamples **ret, char **ret_error);
/* Both steps on the bytes of a file. */
int display_samples_parse(const char *buf, size_t len, DisplaySamples **ret, char **ret_error);
DisplaySamples *display_samples_free(DisplaySamples *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(DisplaySamples *, display_samples_free);
