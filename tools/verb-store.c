/* Placeholder until the verb lands. */
#include <stdio.h>
#include "verbs.h"
int verb_export(int argc, char **argv) { (void) argc; fprintf(stderr, "%s: not implemented yet\n", argv[0]); return 3; }
int verb_import(int argc, char **argv) { (void) argc; fprintf(stderr, "%s: not implemented yet\n", argv[0]); return 3; }
