/* Every verb of the tinct command line. Each returns an exit status (0 success). argv[0] is
 * the verb name. Verbs that talk to the daemon live in verb-bus*.c; offline ones beside. */
#pragma once

int verb_edid_info(int argc, char **argv);     /* verb-edid.c */
int verb_edid_profile(int argc, char **argv);  /* verb-edid.c */
int verb_icc_info(int argc, char **argv);      /* verb-icc.c */
int verb_export(int argc, char **argv);        /* verb-store.c */
int verb_import(int argc, char **argv);        /* verb-store.c */
