/* tinct: the command-line client. A table of verbs, one function each (verbs.h). */
#include <stdio.h>
#include <string.h>

#include "verbs.h"

typedef struct Verb {
        const char *name;
        const char *args;
        const char *help;
        int (*run)(int argc, char **argv);
} Verb;

static const Verb verbs[] = {
        { "edid-info", "[--json] FILE", "Print the fields of an EDID blob", verb_edid_info },
        { "edid-profile", "FILE -o OUT.icc", "Generate an ICC display profile from an EDID", verb_edid_profile },
        { "icc-info", "[--json] FILE", "Print what the daemon reads from an ICC profile", verb_icc_info },
        { "export", "[--state-dir DIR] [FILE]", "Write the whole store as JSON", verb_export },
        { "import", "[--state-dir DIR] FILE", "Load a store written by export", verb_import },
};

static void usage(FILE *f) {
        fprintf(f, "Usage: tinct VERB [ARGS...]\n\nVerbs:\n");
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
                fprintf(f, "  %-14s %-28s %s\n", verbs[i].name, verbs[i].args, verbs[i].help);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                usage(stderr);
                return 2;
        }
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
                usage(stdout);
                return 0;
        }
        if (strcmp(argv[1], "--version") == 0) {
                printf("tinct %s\n", TINCT_VERSION);
                return 0;
        }
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
                if (strcmp(argv[1], verbs[i].name) == 0)
                        return verbs[i].run(argc - 1, argv + 1);
        fprintf(stderr, "tinct: unknown verb '%s'\n", argv[1]);
        usage(stderr);
        return 2;
}
