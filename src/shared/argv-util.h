/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command-line options tinct's two long-running programs (tinctd, tinct-session) take
 * alike: -v/--verbose, --version, -h/--help, and no positional argument. Each program keeps
 * its own getopt loop and option table; only these shared cases are answered here. The tinct
 * CLI is not a user: its verbs parse through tools/cli.c. */
#pragma once

/* The getopt value of --version in both programs' option tables: above every short option. */
#define ARG_COMMON_VERSION 0x100

/* Answers getopt's value c when it is one of the shared options: 1 when the program goes
 * on (-v), 0 when it has printed what was asked and exits successfully (--version, --help),
 * -EINVAL for anything else (getopt has already said what was wrong). */
int argv_common_option(int c, const char *program, void (*help)(void));

/* -EINVAL, logged, when anything is left after the options (getopt's optind). */
int argv_no_positional(int argc, char **argv);
