/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the naming rules (src/shared/names.c). The input, cut at its first
 * NUL, is a string (an id, a vendor, a model...). Checked, as names.h promises:
 * escape_path_element gives a string of the same length made only of [A-Za-z0-9_] (a valid
 * D-Bus object-path element when non-empty), keeps those bytes, is idempotent, and the
 * in-place form agrees; the clean-ups are deterministic, leave no trailing whitespace where they
 * trim it, and only the vendor table's renames may make a string longer; the table parsers return
 * a valid entry and agree with *_is_valid. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool path_char(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static void check_escape(const char *s) {
        char *e = names_escape_path_element(s);
        if (!e || strlen(e) != strlen(s))
                abort();
        for (size_t i = 0; e[i]; i++)
                if (!path_char(e[i]) || (path_char(s[i]) && e[i] != s[i]))
                        abort();
        char *twice = names_escape_path_element(e);
        if (!twice || strcmp(twice, e) != 0)
                abort();
        char *copy = strdup(s);
        if (!copy)
                abort();
        names_escape_path_element_in_place(copy);
        if (strcmp(copy, e) != 0)
                abort();
        free(copy);
        free(twice);
        free(e);
}

static bool ends_in_space(const char *s) {
        size_t n = strlen(s);
        return n > 0 && isspace((unsigned char) s[n - 1]);
}

/* A clean-up result: not longer than its input, and the same on a second call. */
static void check_shrinks(char *r, char *again, const char *s, bool trims) {
        if (!r || !again || strlen(r) > strlen(s) || strcmp(r, again) != 0)
                abort();
        if (trims && ends_in_space(r))
                abort();
        free(r);
        free(again);
}

static void check_table(const char *s, bool (*valid)(const char *), const char *(*parse)(const char *)) {
        const char *p = parse(s);
        if (!p || !valid(p) || valid(s) != (strcmp(p, s) == 0))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = strndup((const char *) data, size);
        if (!s)
                abort();

        check_escape(s);
        /* The vendor table renames ("HP" becomes "Hewlett Packard"), so vendors may grow;
         * they are still deterministic and end without whitespace. */
        char *v = names_vendor_quirk(s), *v2 = names_vendor_quirk(s);
        if (!v || !v2 || strcmp(v, v2) != 0 || ends_in_space(v))
                abort();
        free(v);
        free(v2);
        check_shrinks(names_model_normalize(s, "display"), names_model_normalize(s, "display"), s, true);
        check_shrinks(names_model_normalize(s, "printer"), names_model_normalize(s, "printer"), s, true);
        check_shrinks(names_model_normalize(s, NULL), names_model_normalize(s, NULL), s, true);
        check_shrinks(names_serial_normalize(s), names_serial_normalize(s), s, false);
        check_shrinks(names_profile_title(s), names_profile_title(s), s, false);

        check_table(s, names_device_kind_is_valid, names_device_kind_parse);
        check_table(s, names_profile_kind_is_valid, names_profile_kind_parse);
        check_table(s, names_colorspace_is_valid, names_colorspace_parse);
        free(s);
        return 0;
}
