/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli: the shape of a tinct verb, as systemd's tools have it. One table (tinct.c) names every
 * verb with its synopsis, argument counts, the options it takes, whether it needs the system
 * bus, a one-line summary, its help text and its function. One parser (tinct.c, a single
 * getopt_long over every option) turns the command line into an Invocation and checks it
 * against the verb's row; main then opens the system bus once for the verbs that need it and
 * calls the verb with the Invocation. A verb only does its own job.
 *
 * Adding an option: a bit in CliOption, a field in CliOptions, one row in tinct.c's option
 * table; then the bit in the rows of the verbs that take it (in .required too if it must be
 * given). E.g. `--description TEXT`: CLI_OPT_DESCRIPTION = 1 << 5, `const char *description;`
 * and { CLI_OPT_DESCRIPTION, "description", 0, "TEXT", offsetof(CliOptions, description),
 * "The profile's description" }; a switch such as --v2 has no metavar and a bool field. The
 * usage lines, --help, the "not an option of" errors and the completion follow from that.
 *
 * Not here: D-Bus calls (bus-call.h), reading and printing daemon objects (bus-properties.h,
 * bus-print.h). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "macro.h"

/* Exit statuses scripts can rely on (tinct(1), EXIT STATUS). */
#define EXIT_USAGE 2       /* wrong arguments: nothing was done */
#define EXIT_UNREACHABLE 3 /* no system bus, or no daemon on it */
#define EXIT_NOT_FOUND 4   /* the daemon has no such device, profile or sensor */
#define EXIT_DENIED 5      /* the daemon (polkit) refused the caller */

/* The options a verb may take, one bit each. */
typedef enum CliOption {
        CLI_OPT_JSON = 1 << 0,      /* --json, -j: a JSON document (docs/json.md) */
        CLI_OPT_SOFT = 1 << 1,      /* --soft: an automatic mapping, not the user's choice */
        CLI_OPT_STATE_DIR = 1 << 2, /* --state-dir DIR: the store's directory */
        CLI_OPT_OUTPUT = 1 << 3,    /* --output, -o OUT: the file to write */
        CLI_OPT_SVG = 1 << 4,       /* --svg OUT: a chromaticity diagram */
        CLI_OPT_V2 = 1 << 5,        /* --v2: an ICC v2.4 profile instead of v4.3 */
        CLI_OPT_DESCRIPTION = 1 << 6, /* --description TEXT: the profile's 'desc' */
        CLI_OPT_COPYRIGHT = 1 << 7, /* --copyright TEXT: the profile's 'cprt' */
        CLI_OPT_QUIET = 1 << 8,     /* --quiet, -q: no report */
        CLI_OPT_UV = 1 << 9,        /* --uv: the --svg diagram in CIE 1976 u'v' */
        CLI_OPT_CHART = 1 << 10,    /* --chart LAYOUT.cht: profile-build from an image of a chart */
        CLI_OPT_REFERENCE = 1 << 11, /* --reference REF.cie: the chart's reference values */
        CLI_OPT_CORNERS = 1 << 12,  /* --corners X,Y,...: the chart's outline, if not found */
        CLI_OPT_MODEL = 1 << 13,    /* --model auto|matrix|lut: the input profile's model */
        CLI_OPT_INK_LIMIT = 1 << 14,/* --ink-limit PERCENT: a CMYK printer profile's total ink */
        CLI_OPT_BLACK = 1 << 15,    /* --black none|light|medium|heavy|max: its black generation */
} CliOption;

/* The options' values; a value option not given is NULL. */
typedef struct CliOptions {
        bool json;
        bool soft;
        const char *state_dir;
        const char *output;
        const char *svg;
        bool v2;
        const char *description;
        const char *copyright;
        bool quiet;
        bool uv;
        const char *chart;
        const char *reference;
        const char *corners;
        const char *model;
        const char *ink_limit;
        const char *black;
} CliOptions;

typedef enum VerbFlags {
        VERB_BUS = 1 << 0, /* main connects to the system bus before calling the verb */
} VerbFlags;

#define VERB_ANY ((unsigned) -1) /* max_args: no upper bound */

typedef struct Verb Verb;

/* One run of one verb: what the parser found and the connection main opened. */
typedef struct Invocation {
        const Verb *verb;
        char **args; /* the positional arguments after the verb (pointers into argv) */
        unsigned n_args;
        CliOptions opts;
        sd_bus *bus; /* VERB_BUS verbs: the system bus; NULL for the others */
} Invocation;

struct Verb {
        const char *name;
        const char *synopsis;         /* the positional arguments: "DEVICE PROFILE", "[CAP]", "" */
        unsigned min_args, max_args;  /* positional argument counts (max VERB_ANY: no limit) */
        VerbFlags flags;
        CliOption options;            /* the options it takes */
        CliOption required;           /* the options among those it must be given */
        const char *summary;          /* one line, for `tinct --help` */
        const char *help;             /* the text of `tinct VERB --help` */
        /* Optional: checks the values of the arguments before anything is done (before the
         * bus is opened, so a usage error never needs a daemon); returns 0 or, after saying
         * why with verb_usage_error(), EXIT_USAGE. */
        int (*check)(const Invocation *inv);
        /* Does the verb's work; returns the exit status (0, EXIT_FAILURE, or one above). */
        int (*run)(Invocation *inv);
};

/* "tinct VERB: <message>" on stderr; returns EXIT_USAGE. */
int verb_usage_error(const Invocation *inv, const char *fmt, ...) _printf_(2, 3);
