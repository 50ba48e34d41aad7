/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct: the command-line client. The verb table and the option table, the one parser that
 * checks a command line against them, and main: parse, check, connect (VERB_BUS verbs only),
 * run (cli.h). The verbs themselves are in verb-*.c (verbs.h).
 *
 * Options may come anywhere (`tinct find-device ID --json`: GNU getopt permutes); `--` ends
 * them, so `tinct find-device -- -odd-id` passes an argument that starts with '-'. Errors in
 * the command line name the verb and exit EXIT_USAGE before anything is done. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-call.h"
#include "cli.h"
#include "log.h"
#include "main-func.h"
#include "store.h"
#include "verbs.h"

/* The long help of the daemon's object verbs. */
#define HELP_ID_OR_PATH "\nDEVICE and PROFILE are ids, or object paths used as they are (as colormgr)."

static const Verb verbs[] = {
        /* name, synopsis, min, max, flags, options, required, summary, help, .check, .run */
        { "edid-info", "FILE", 1, 1, 0, CLI_OPT_JSON, 0,
          "Print the fields of an EDID blob",
          "Prints what tinct reads from an EDID blob: identity, chromaticities, gamma, the\n"
          "extension blocks, CTA-861 HDR metadata and colorimetry, DisplayID versions.\n"
          "--json uses the key names of the EDID corpus references (schema edid-ref/1).",
          .run = verb_edid_info },
        { "edid-profile", "FILE", 1, 1, 0, CLI_OPT_OUTPUT, CLI_OPT_OUTPUT,
          "Generate an ICC display profile from an EDID",
          "Writes to OUT an ICC display profile made from the EDID's primaries, white\n"
          "point and gamma, as the daemon makes one for a display without a profile.",
          .run = verb_edid_profile },
        { "gamut", "FILE...", 1, VERB_ANY, 0, CLI_OPT_JSON | CLI_OPT_SVG | CLI_OPT_UV, 0,
          "Coverage of sRGB, P3, Adobe RGB, BT.2020",
          "For each RGB profile: how much of sRGB, Display P3, Adobe RGB and BT.2020 it\n"
          "covers and its size against each, as triangles of the primaries, in CIE 1931 xy\n"
          "and in CIE 1976 u'v'. --svg writes a CIE 1931 xy chromaticity diagram (with\n"
          "--uv: CIE 1976 u'v') with the spectral locus, the four references and every\n"
          "profile's gamut. A file that is not an RGB profile is an error (exit 1) that\n"
          "spares the others.",
          .check = verb_gamut_check, .run = verb_gamut },
        { "icc-info", "FILE", 1, 1, 0, CLI_OPT_JSON, 0,
          "What the daemon reads from an ICC profile",
          "Prints what the daemon reads from an ICC profile: checksum, description, title,\n"
          "copyright, manufacturer and model, kind, colorspace, vcgt, creation time,\n"
          "metadata and the warnings colord reports. Offline: the daemon is not asked.",
          .run = verb_icc_info },
        { "profile-build", "FILE.ti3|IMAGE", 1, 1, 0,
          CLI_OPT_OUTPUT | CLI_OPT_V2 | CLI_OPT_DESCRIPTION | CLI_OPT_COPYRIGHT | CLI_OPT_QUIET | CLI_OPT_CHART |
                  CLI_OPT_REFERENCE | CLI_OPT_CORNERS | CLI_OPT_MODEL | CLI_OPT_INK_LIMIT |
                  CLI_OPT_BLACK,
          CLI_OPT_OUTPUT,
          "Display or printer profile from .ti3, input profile from a chart",
          "Writes to OUT a matrix/shaper ICC display profile fitted to the measurements of\n"
          "a CGATS file as ArgyllCMS writes it (RGB_R RGB_G RGB_B XYZ_X XYZ_Y XYZ_Z), and\n"
          "reports its accuracy against them (docs/profile-build.md). A file with\n"
          "DEVICE_CLASS \"OUTPUT\" (RGB or CMYK with XYZ or Lab) makes a printer profile:\n"
          "A2B0, B2A0/1/2 and gamt LUTs; --ink-limit caps CMYK's total (default: the\n"
          "file's TOTAL_INK_LIMIT, else none), --black sets how much black CMYK's\n"
          "neutrals and shadows get (default medium; docs/printer-profiles.md). With\n"
          "--chart and --reference: an input (scanner, camera) profile from IMAGE, a TIFF\n"
          "or PNG of that chart. Nothing is written when the input is refused.",
          .check = verb_profile_build_check, .run = verb_profile_build },
        { "export", "[FILE|-]", 0, 1, 0, CLI_OPT_STATE_DIR, 0,
          "Write the whole store as JSON",
          "Writes the store in DIR (default " STORE_DEFAULT_STATE_DIR ") as JSON to FILE or standard\n"
          "output. It may run while tinctd runs (one consistent snapshot).",
          .run = verb_export },
        { "import", "FILE|-", 1, 1, 0, CLI_OPT_STATE_DIR, 0,
          "Load a store written by export",
          "Replaces the store in DIR (default " STORE_DEFAULT_STATE_DIR ") with a JSON export. Stop\n"
          "tinctd first. Malformed input is refused and leaves the store unchanged.",
          .run = verb_import },
        { "dump", "", 0, 0, 0, CLI_OPT_STATE_DIR, 0,
          "The store to tinct-SECONDS.json and stdout",
          "Writes the store in DIR (default " STORE_DEFAULT_STATE_DIR ") as JSON to tinct-SECONDS.json\n"
          "in the current directory and to standard output (for bug reports).",
          .run = verb_dump },

        /* the daemon's verbs (colormgr's, with the same arguments) */
        { "doctor", "[DEVICE]", 0, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Which profile applications get, and why",
          "Says, for each device (or one), which profile applications get and why.",
          .run = verb_doctor },
        { "status", "", 0, 0, VERB_BUS, CLI_OPT_JSON, 0,
          "Daemon version; devices, profiles, sensors",
          "Shows the daemon's version and system identity, and how many devices,\n"
          "profiles and sensors it has (devices as GetDevices shows them to you).",
          .run = verb_status },
        { "rescan-scanners", "", 0, 0, VERB_BUS, 0, 0,
          "List SANE's scanners again and wait for it",
          "Has the daemon list SANE's scanners again (local and sane-airscan's\n"
          "network scanners) and returns when that is done. Scanners that did not\n"
          "answer are reported; the exit status is still 0. Exit 1 when the listing\n"
          "itself failed (the devices are then kept as they were). Asked while a\n"
          "listing runs, or after six started in the last minute, it gives that\n"
          "listing's result.",
          .run = verb_rescan_scanners },
        { "get-devices", "", 0, 0, VERB_BUS, CLI_OPT_JSON, 0,
          "List the devices",
          "Lists every device with its properties.",
          .run = verb_get_devices },
        { "get-devices-by-kind", "KIND", 1, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "List the devices of one kind",
          "Lists the devices of one kind (display, scanner, printer, camera, webcam).",
          .run = verb_get_devices_by_kind },
        { "get-profiles", "", 0, 0, VERB_BUS, CLI_OPT_JSON, 0,
          "List the profiles",
          "Lists every profile with its properties.",
          .run = verb_get_profiles },
        { "get-sensors", "", 0, 0, VERB_BUS, CLI_OPT_JSON, 0,
          "List the sensors",
          "Lists the sensors with their properties.",
          .run = verb_get_sensors },
        { "verify", "DEVICE", 1, 1, VERB_BUS, CLI_OPT_JSON | CLI_OPT_SVG, 0,
          "Measure a display, compare with its profile",
          "Measures a patch set on the display through a sensor and compares each reading\n"
          "with what the device's default profile predicts (CIEDE2000: per patch, mean,\n"
          "max); stores the result and its date on the device, for tinct doctor. --svg\n"
          "draws expected and measured swatches with their dE. A real sensor reads the\n"
          "patches in a window on $DISPLAY (X11): hold it on the square. Exit 0 when it\n"
          "measured, whatever the figures; 1 when it could not (docs/verify.md).",
          .run = verb_verify },
        { "get-sensor-reading", "[CAP]", 0, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Lock each sensor, take a sample, unlock",
          "Locks each sensor, takes one sample for CAP (default lcd; e.g. crt, printer,\n"
          "ambient) and unlocks it. Prints X, Y, Z (for ambient: X is lux).",
          .check = verb_get_sensor_reading_check, .run = verb_get_sensor_reading },
        { "get-spectral-reading", "[CAP]", 0, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Lock each sensor, measure a spectrum, unlock",
          "Locks each sensor, measures one spectrum for CAP (default spectral; also\n"
          "calibration-dark, calibration-irradiance) and unlocks it.",
          .check = verb_get_spectral_reading_check, .run = verb_get_spectral_reading },
        { "sensor-lock", "[SECONDS]", 0, 1, VERB_BUS, 0, 0,
          "Hold every sensor's lock (0: until Ctrl-C)",
          "Locks every sensor and holds the locks for SECONDS, or until Ctrl-C when 0\n"
          "or omitted; then unlocks them.",
          .check = verb_sensor_lock_check, .run = verb_sensor_lock },
        { "sensor-set-options", "KEY VALUE", 2, 2, VERB_BUS, 0, 0,
          "Set a driver option on every sensor",
          "Sets a driver option on every sensor (the dummy sensor takes sample[red],\n"
          "sample[green], sample[blue]: the XYZ it returns). A VALUE that is a number is\n"
          "sent as a double, anything else as a string.",
          .run = verb_sensor_set_options },
        { "find-device", "ID", 1, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Show a device by id",
          "Shows the device with this id (FindDeviceById).",
          .run = verb_find_device },
        { "find-device-by-property", "KEY VALUE", 2, 2, VERB_BUS, CLI_OPT_JSON, 0,
          "Show a device by property or metadata",
          "Shows the first device whose Model, Vendor, Serial or metadata KEY is VALUE.",
          .run = verb_find_device_by_property },
        { "find-profile", "ID", 1, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Show a profile by id",
          "Shows the profile with this id (FindProfileById).",
          .run = verb_find_profile },
        { "find-profile-by-filename", "FILE", 1, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Show a profile by filename",
          "Shows the profile with this filename (a full path, or a basename).",
          .run = verb_find_profile_by_filename },
        { "get-standard-space", "SPACE", 1, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Show the profile of a standard space",
          "Shows the best profile of a standard space (srgb, adobe-rgb, prophoto-rgb).",
          .run = verb_get_standard_space },
        { "create-device", "ID SCOPE KIND", 3, 3, VERB_BUS, CLI_OPT_JSON, 0,
          "Create a device",
          "Creates a device with only its Kind set (SCOPE: normal, temp or disk),\n"
          "then shows it.",
          .run = verb_create_device },
        { "create-profile", "ID SCOPE", 2, 2, VERB_BUS, CLI_OPT_JSON, 0,
          "Create a profile without a file",
          "Creates a profile with no file and no properties (SCOPE: normal or temp),\n"
          "then shows it. Set its Qualifier and others with profile-set-property.",
          .run = verb_create_profile },
        { "import-profile", "FILE [SECONDS]", 1, 2, VERB_BUS, CLI_OPT_JSON, 0,
          "Copy to the user's ICC dir, wait for the agent",
          "Copies an ICC profile into your own ICC directory ($XDG_DATA_HOME/icc) and\n"
          "waits SECONDS (default 10) for the session agent (tinct-session) to register\n"
          "it with the daemon, then shows the profile.",
          .check = verb_import_profile_check, .run = verb_import_profile },
        { "create-virtual-device", "PROFILE [KIND]", 1, 2, VERB_BUS, CLI_OPT_JSON, 0,
          "A soft-proofing device, kept on disk",
          "Creates a virtual device (a soft-proofing target) for an ICC profile and\n"
          "assigns the profile to it (hard). PROFILE is an ICC file, or the id or object\n"
          "path of a profile the daemon has; a file the daemon does not know yet is\n"
          "imported as a disk profile. KIND: printer (default), display, scanner, camera\n"
          "or webcam. The device is kept across restarts (scope disk, Mode virtual);\n"
          "its id is virtual-<ProfileId>, and if that device exists already nothing is\n"
          "changed and the exit status is 1. Vendor and Model come from the profile's\n"
          "device manufacturer and model tags (Model else from its title), Colorspace\n"
          "from the profile.",
          .check = verb_create_virtual_device_check, .run = verb_create_virtual_device },
        { "delete-device", "DEVICE", 1, 1, VERB_BUS, 0, 0,
          "Delete a device",
          "Deletes a device. DEVICE is an id, or an object path used as it is (as\n"
          "colormgr).",
          .run = verb_delete_device },
        { "delete-profile", "PROFILE", 1, 1, VERB_BUS, 0, 0,
          "Delete a profile",
          "Deletes a profile. PROFILE is an id, or an object path used as it is (as\n"
          "colormgr).",
          .run = verb_delete_profile },
        { "profile-set-property", "PROFILE KEY VALUE", 3, 3, VERB_BUS, 0, 0,
          "Set a profile property",
          "Sets a profile property (Qualifier, Format, Colorspace, Title) or, for any\n"
          "other KEY, a metadata entry.",
          .run = verb_profile_set_property },
        { "profile-install-system-wide", "PROFILE", 1, 1, VERB_BUS, 0, 0,
          "Copy a profile into the system-wide directory",
          "Copies a profile's file into the daemon's system-wide directory, for every user.",
          .run = verb_profile_install_system_wide },
        { "device-add-profile", "DEVICE PROFILE", 2, 2, VERB_BUS, CLI_OPT_SOFT, 0,
          "Add a profile to a device (hard)",
          "Adds a profile to a device: hard (chosen by the user, as colormgr does),\n"
          "or soft (automatic) with --soft." HELP_ID_OR_PATH,
          .run = verb_device_add_profile },
        { "device-remove-profile", "DEVICE PROFILE", 2, 2, VERB_BUS, 0, 0,
          "Take a profile off a device",
          "Takes a profile off a device (the stored mapping is forgotten too).",
          .run = verb_device_remove_profile },
        { "device-make-profile-default", "DEVICE PROFILE", 2, 2, VERB_BUS, 0, 0,
          "Make a profile the device's default",
          "Makes a profile already on the device its default (it becomes hard).",
          .run = verb_device_make_profile_default },
        { "device-get-default-profile", "DEVICE", 1, 1, VERB_BUS, CLI_OPT_JSON, 0,
          "Show the device's default profile",
          "Shows the device's default profile (the first of its Profiles).",
          .run = verb_device_get_default_profile },
        { "device-get-profile-for-qualifier", "DEVICE QUALIFIER...", 2, VERB_ANY, VERB_BUS, CLI_OPT_JSON, 0,
          "Profile for qualifiers (one call)",
          "Shows the profile the daemon picks for the qualifiers, all sent in one call\n"
          "(hard profiles for any qualifier win over soft ones), e.g.\n"
          "  tinct device-get-profile-for-qualifier cups-HP RGB.Glossy.600dpi 'RGB.*.*' '*'",
          .run = verb_device_get_profile_for_qualifier },
        { "lookup", "DEVICE C.M.R", 2, 2, VERB_BUS, CLI_OPT_JSON, 0,
          "CUPS fallback lookup; says what matched",
          "Asks for the profile of a print job's qualifier with the fallback list the\n"
          "printing stack sends (C.M.R, C.M.*, C.*.R, C.*.*, *) and shows which entry\n"
          "matched, the profile's relation to the device and the profile.",
          .check = verb_lookup_check, .run = verb_lookup },
        { "device-set-model", "DEVICE VALUE", 2, 2, VERB_BUS, 0, 0,
          "Set the device's Model",
          "Sets the device's Model.",
          .run = verb_device_set_model },
        { "device-set-vendor", "DEVICE VALUE", 2, 2, VERB_BUS, 0, 0,
          "Set the device's Vendor",
          "Sets the device's Vendor.",
          .run = verb_device_set_vendor },
        { "device-set-serial", "DEVICE VALUE", 2, 2, VERB_BUS, 0, 0,
          "Set the device's Serial",
          "Sets the device's Serial.",
          .run = verb_device_set_serial },
        { "device-set-kind", "DEVICE VALUE", 2, 2, VERB_BUS, 0, 0,
          "Set the device's Kind",
          "Sets the device's Kind.",
          .run = verb_device_set_kind },
        { "device-set-enabled", "DEVICE true|false", 2, 2, VERB_BUS, 0, 0,
          "Enable or disable a device",
          "Enables or disables a device (advisory, colord §3.2).",
          .check = verb_device_set_enabled_check, .run = verb_device_set_enabled },
        { "device-inhibit", "DEVICE [SECONDS]", 1, 2, VERB_BUS, 0, 0,
          "Inhibit profiling (0: until Ctrl-C)",
          "Inhibits profiling of a device (GetProfileForQualifiers then fails with\n"
          "Device.Profiling) for SECONDS, or until Ctrl-C when 0 or omitted.",
          .check = verb_device_inhibit_check, .run = verb_device_inhibit },
};

/* ---- options ---------------------------------------------------------------------------- */

typedef struct OptionDef {
        CliOption bit;
        const char *name;    /* the long option */
        char short_name;     /* 0: none */
        const char *metavar; /* NULL: a switch (a bool in CliOptions), else a value (const char *) */
        size_t offset;       /* of its field in CliOptions */
        const char *help;
} OptionDef;

static const OptionDef option_defs[] = {
        { CLI_OPT_JSON, "json", 'j', NULL, offsetof(CliOptions, json),
          "Print one JSON document (docs/json.md) instead of text" },
        { CLI_OPT_SOFT, "soft", 0, NULL, offsetof(CliOptions, soft),
          "An automatic (soft) mapping instead of the user's choice (hard)" },
        { CLI_OPT_STATE_DIR, "state-dir", 0, "DIR", offsetof(CliOptions, state_dir),
          "The store's directory (default " STORE_DEFAULT_STATE_DIR ")" },
        { CLI_OPT_OUTPUT, "output", 'o', "OUT", offsetof(CliOptions, output),
          "The file to write" },
        { CLI_OPT_SVG, "svg", 0, "OUT", offsetof(CliOptions, svg),
          "Also write a picture (SVG) to OUT" },
        { CLI_OPT_V2, "v2", 0, NULL, offsetof(CliOptions, v2),
          "Write an ICC v2.4 profile (default v4.3)" },
        { CLI_OPT_DESCRIPTION, "description", 0, "TEXT", offsetof(CliOptions, description),
          "The profile's description" },
        { CLI_OPT_COPYRIGHT, "copyright", 0, "TEXT", offsetof(CliOptions, copyright),
          "The profile's copyright text" },
        { CLI_OPT_QUIET, "quiet", 'q', NULL, offsetof(CliOptions, quiet),
          "Print no report" },
        { CLI_OPT_UV, "uv", 0, NULL, offsetof(CliOptions, uv),
          "Draw the CIE 1976 u'v' diagram instead of CIE 1931 xy" },
        { CLI_OPT_CHART, "chart", 0, "LAYOUT", offsetof(CliOptions, chart),
          "The chart's layout (.cht), for an input profile" },
        { CLI_OPT_REFERENCE, "reference", 0, "REF", offsetof(CliOptions, reference),
          "The chart's reference values (.cie, IT8.7: XYZ or Lab)" },
        { CLI_OPT_CORNERS, "corners", 0, "X,Y,...", offsetof(CliOptions, corners),
          "The chart's 4 corners in the image (TL,TR,BR,BL)" },
        { CLI_OPT_MODEL, "model", 0, "KIND", offsetof(CliOptions, model),
          "auto (default), matrix or lut" },
        { CLI_OPT_INK_LIMIT, "ink-limit", 0, "PERCENT", offsetof(CliOptions, ink_limit),
          "CMYK printer profile: the total ink (e.g. 300)" },
        { CLI_OPT_BLACK, "black", 0, "GEN", offsetof(CliOptions, black),
          "CMYK printer profile: none, light, medium (default), heavy or max" },
};

enum {
        ARG_HELP = 'h',
        ARG_VERSION = 0x100,
        ARG_OPTION = 0x200, /* + index in option_defs */
};

/* "--json", "-o OUT" (a required option with a short name), "--state-dir DIR" */
static void format_option(const OptionDef *o, bool required, char *buf, size_t size) {
        if (required && o->short_name)
                snprintf(buf, size, "-%c %s", o->short_name, o->metavar ?: "");
        else
                snprintf(buf, size, "--%s%s%s", o->name, o->metavar ? " " : "", strempty(o->metavar));
}

static void append(char *buf, size_t size, const char *s) {
        size_t n = strlen(buf);
        if (n < size)
                snprintf(buf + n, size - n, "%s%s", n > 0 ? " " : "", s);
}

/* Help stays within HELP_COLUMNS, as systemd's tools' does: long usage lines and summaries
 * are wrapped at spaces, continuation lines indented under their first text. */
#define HELP_COLUMNS 80
/* The overview's first column ("  verb ARGS"): a longer one puts the summary on the next line. */
#define OVERVIEW_COLUMN 34

/* Prints text from column `col` (the cursor is there already), wrapping at spaces so that no
 * line passes HELP_COLUMNS; continuation lines start at column indent. A word longer than a
 * line is printed whole. */
static void print_wrapped(FILE *f, int col, int indent, const char *text) {
        const char *p = text;

        while (*p) {
                size_t word = strcspn(p, " ");
                if (col > indent && col + 1 + (int) word > HELP_COLUMNS) {
                        fprintf(f, "\n%*s", indent, "");
                        col = indent;
                } else if (col > indent) {
                        fputc(' ', f);
                        col++;
                }
                fprintf(f, "%.*s", (int) word, p);
                col += (int) word;
                p += word;
                p += strspn(p, " ");
        }
        fputc('\n', f);
}

/* A verb's arguments as a usage line shows them: its switches, its positional arguments,
 * then its options with values; optional ones in brackets. The overview shows the optional
 * options as one [OPTIONS...] (--json alone, which every verb that prints takes, as nothing)
 * so that its lines stay short; `tinct VERB --help` names them. */
static void format_verb_args(const Verb *v, bool overview, char *buf, size_t size) {
        char opt[64], item[80];

        buf[0] = 0;
        if (overview && (v->options & ~v->required & ~CLI_OPT_JSON))
                append(buf, size, "[OPTIONS...]");
        for (int pass = 0; pass < 3; pass++) {
                if (pass == 1) {
                        if (!isempty(v->synopsis))
                                append(buf, size, v->synopsis);
                        continue;
                }
                for (size_t i = 0; i < ELEMENTSOF(option_defs); i++) {
                        const OptionDef *o = &option_defs[i];
                        bool required = v->required & o->bit;
                        if (!(v->options & o->bit) || (pass == 0) != !o->metavar)
                                continue;
                        if (overview && !required)
                                continue;
                        format_option(o, required, opt, sizeof opt);
                        snprintf(item, sizeof item, required ? "%s" : "[%s]", opt);
                        append(buf, size, item);
                }
        }
}

static void print_usage_line(FILE *f, const Verb *v) {
        char args[256];
        int col;

        format_verb_args(v, false, args, sizeof args);
        if (!args[0]) {
                fprintf(f, "Usage: tinct %s\n", v->name);
                return;
        }
        col = fprintf(f, "Usage: tinct %s ", v->name);
        print_wrapped(f, col, col, args);
}

static void print_verb_help(const Verb *v) {
        char names[64], help[256];
        int width = (int) strlen("-h, --help");

        print_usage_line(stdout, v);
        printf("\n%s\n\nOptions:\n", v->help);
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < ELEMENTSOF(option_defs); i++) {
                        const OptionDef *o = &option_defs[i];
                        if (!(v->options & o->bit))
                                continue;
                        snprintf(names, sizeof names, "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
                                 o->short_name ?: ' ', o->short_name ? ", " : "  ", o->name, o->metavar ? " " : "",
                                 strempty(o->metavar));
                        if (pass == 0 && (int) strlen(names) > width)
                                width = (int) strlen(names);
                        if (pass == 1) {
                                snprintf(help, sizeof help, "%s%s", o->help,
                                         v->required & o->bit ? " (required)" : "");
                                printf("  %-*s  ", width, names);
                                print_wrapped(stdout, width + 4, width + 4, help);
                        }
                }
        printf("  %-*s  %s\n", width, "-h, --help", "Show this help");
}

static void usage(FILE *f) {
        char args[256];

        fprintf(f, "Usage: tinct VERB [ARGS...]\n\nVerbs:\n");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
                format_verb_args(&verbs[i], true, args, sizeof args);
                int col = fprintf(f, "  %s%s%s", verbs[i].name, args[0] ? " " : "", args);
                if (col + 2 > OVERVIEW_COLUMN) {
                        fputc('\n', f);
                        col = 0;
                }
                fprintf(f, "%*s", OVERVIEW_COLUMN - col, "");
                print_wrapped(f, OVERVIEW_COLUMN, OVERVIEW_COLUMN, verbs[i].summary);
        }
        fprintf(f, "\nEvery verb that prints takes --json (a JSON document; docs/json.md).\n"
                   "'tinct VERB --help' shows a verb's arguments and options,\n"
                   "'tinct --version' the version.\n");
}

static const Verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

/* What getopt refused, said once the verb is known (the option may come before it). */
static void describe_option_error(int c, char **argv, char *buf, size_t size) {
        const char *arg = argv[optind - 1];

        if (optopt >= ARG_OPTION && optopt < ARG_OPTION + (int) ELEMENTSOF(option_defs)) {
                const OptionDef *o = &option_defs[optopt - ARG_OPTION];
                snprintf(buf, size, c == ':' ? "option --%s needs a value (%s)" : "option --%s takes no value",
                         o->name, strempty(o->metavar));
        } else if (c == ':' && optopt > 0 && optopt < 0x80) {
                const OptionDef *o = NULL;
                for (size_t i = 0; i < ELEMENTSOF(option_defs); i++)
                        if (option_defs[i].short_name == optopt)
                                o = &option_defs[i];
                snprintf(buf, size, "option -%c needs a value (%s)", optopt, o ? strempty(o->metavar) : "");
        } else if (optopt == ARG_VERSION || optopt == ARG_HELP)
                snprintf(buf, size, "option %s takes no value", optopt == ARG_HELP ? "--help" : "--version");
        else if (optopt > 0 && optopt < 0x80)
                snprintf(buf, size, "unknown option '-%c'", optopt);
        else
                snprintf(buf, size, "unknown option '%.*s'", (int) strcspn(arg, "="), arg);
}

/* The verbs that take an option, when there are few (for "--soft is for device-add-profile"). */
static void takers_of(CliOption bit, char *buf, size_t size) {
        size_t n = 0;

        buf[0] = 0;
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                n += !!(verbs[i].options & bit);
        if (n == 0 || n > 3)
                return;
        snprintf(buf, size, " (only");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (verbs[i].options & bit) {
                        size_t k = strlen(buf);
                        snprintf(buf + k, size - k, " %s", verbs[i].name);
                }
        size_t k = strlen(buf);
        snprintf(buf + k, size - k, " takes it)");
}

/* Checks the options and the argument counts against the verb's row. */
static int check_invocation(const Invocation *inv, CliOption given) {
        const Verb *v = inv->verb;
        char opt[64], takers[256];

        CliOption extra = given & ~v->options, missing = v->required & ~given;
        for (size_t i = 0; i < ELEMENTSOF(option_defs); i++) {
                const OptionDef *o = &option_defs[i];
                if (!((extra | missing) & o->bit))
                        continue;
                if (extra & o->bit) {
                        takers_of(o->bit, takers, sizeof takers);
                        verb_usage_error(inv, "--%s is not an option of %s%s", o->name, v->name, takers);
                } else {
                        format_option(o, true, opt, sizeof opt);
                        verb_usage_error(inv, "%s is required", opt);
                }
                print_usage_line(stderr, v);
                return EXIT_USAGE;
        }
        if (inv->n_args < v->min_args || (v->max_args != VERB_ANY && inv->n_args > v->max_args)) {
                verb_usage_error(inv, inv->n_args < v->min_args ? "missing arguments" : "too many arguments");
                print_usage_line(stderr, v);
                return EXIT_USAGE;
        }
        return 0;
}

/* Returns an exit status of cli.h (0, EXIT_USAGE, a verb's own) or a negative errno. */
static int run(int argc, char **argv) {
        struct option longopts[ELEMENTSOF(option_defs) + 3] = {};
        char shortopts[3 * ELEMENTSOF(option_defs) + 4] = ":h";
        char error[256] = "";
        CliOptions opts = {};
        CliOption given = 0;
        bool help = false;
        size_t n = 0;
        int c, r;

        log_set_program_name("tinct");
        log_set_show_level(false);
        for (size_t i = 0; i < ELEMENTSOF(option_defs); i++) {
                const OptionDef *o = &option_defs[i];
                longopts[n++] = (struct option) { o->name, o->metavar ? required_argument : no_argument, NULL,
                                                  ARG_OPTION + (int) i };
                if (o->short_name) {
                        size_t k = strlen(shortopts);
                        shortopts[k++] = o->short_name;
                        if (o->metavar)
                                shortopts[k++] = ':';
                        shortopts[k] = 0;
                }
        }
        longopts[n++] = (struct option) { "help", no_argument, NULL, ARG_HELP };
        longopts[n++] = (struct option) { "version", no_argument, NULL, ARG_VERSION };

        opterr = 0; /* errors are reported below, naming the verb */
        while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) >= 0) {
                const OptionDef *o = NULL;
                if (c == ARG_HELP) {
                        help = true;
                        continue;
                }
                if (c == ARG_VERSION) {
                        printf("tinct %s\n", TINCT_VERSION);
                        return EXIT_SUCCESS;
                }
                if (c == '?' || c == ':') {
                        if (!error[0])
                                describe_option_error(c, argv, error, sizeof error);
                        continue;
                }
                if (c >= ARG_OPTION)
                        o = &option_defs[c - ARG_OPTION];
                else
                        for (size_t i = 0; i < ELEMENTSOF(option_defs); i++)
                                if (option_defs[i].short_name == c)
                                        o = &option_defs[i];
                if (!o) /* cannot happen: getopt returns only what it was given */
                        abort();
                given |= o->bit;
                if (o->metavar)
                        *(const char **) ((char *) &opts + o->offset) = optarg;
                else
                        *(bool *) ((char *) &opts + o->offset) = true;
        }

        if (optind >= argc) {
                if (help && !error[0]) {
                        usage(stdout);
                        return EXIT_SUCCESS;
                }
                if (error[0])
                        log_error("%s", error);
                usage(stderr);
                return EXIT_USAGE;
        }
        Invocation inv = {
                .verb = verb_find(argv[optind]),
                .args = argv + optind + 1,
                .n_args = (unsigned) (argc - optind - 1),
                .opts = opts,
        };
        if (!inv.verb) {
                log_error("unknown verb '%s'", argv[optind]);
                usage(stderr);
                return EXIT_USAGE;
        }
        if (error[0]) {
                verb_usage_error(&inv, "%s", error);
                print_usage_line(stderr, inv.verb);
                return EXIT_USAGE;
        }
        if (help) {
                print_verb_help(inv.verb);
                return EXIT_SUCCESS;
        }
        r = check_invocation(&inv, given);
        if (r == 0 && inv.verb->check) {
                r = inv.verb->check(&inv);
                if (r == EXIT_USAGE)
                        print_usage_line(stderr, inv.verb);
        }
        if (r != 0)
                return r;

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        if (inv.verb->flags & VERB_BUS) {
                r = bus_connect(&bus);
                if (r < 0)
                        return bus_exit_status(r);
                inv.bus = bus;
        }
        r = inv.verb->run(&inv);
        if (r == EXIT_USAGE) /* an option that the input showed does not apply (verb_usage_error) */
                print_usage_line(stderr, inv.verb);
        return r;
}

DEFINE_MAIN_FUNCTION(run)
