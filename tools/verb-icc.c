/* Placeholder until the verb lands. */
#include <stdio.h>
#include "verbs.h"
int verb_icc_info(int argc, char **argv) { (void) argc; fprintf(stderr, "%s: not implemented yet\n", argv[0]); return 3; }
