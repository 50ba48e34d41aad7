/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the CGATS reader and the .ti3 display reading
 * (src/profile-build/cgats.c), which `tinct profile-build` feeds with user files. Any bytes
 * are parsed or refused with a message; an accepted file has at least one table, every
 * string inside the parser's copy and NUL-terminated there, NUMBER_OF_SETS × fields values,
 * set lines that never go backwards, field lookups that agree with the field list. The
 * display reading then either refuses with a message or gives finite samples with device
 * values in 0..1; so does the printer reading (output-samples.c), whose Lab is finite and
 * whose paper is a positive XYZ. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgats.h"
#include "output-samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const Cgats *c, size_t text_len, const char *s) {
        if (!s || s < c->text || s > c->text + text_len || strlen(s) > (size_t) (c->text + text_len - s))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        _cleanup_(display_samples_freep) DisplaySamples *s = NULL;
        _cleanup_(output_samples_freep) OutputSamples *o = NULL;
        _cleanup_free_ char *error = NULL, *error2 = NULL, *error3 = NULL;
        int r;

        r = cgats_parse((const char *) data, size, &c, &error);
        if (r < 0) {
                if (c || !error || !*error)
                        abort();
                return 0;
        }
        if (!c || error || c->n_tables == 0)
                abort();
        for (size_t i = 0; i < c->n_tables; i++) {
                const CgatsTable *t = &c->tables[i];
                unsigned last = 0;

                check_string(c, size, t->type);
                for (size_t k = 0; k < 2 * t->n_keywords; k++)
                        check_string(c, size, t->keywords[k]);
                for (size_t k = 0; k < t->n_keywords; k++)
                        if (!cgats_table_keyword(t, t->keywords[2 * k]))
                                abort();
                for (size_t k = 0; k < t->n_fields; k++) {
                        check_string(c, size, t->fields[k]);
                        if (cgats_table_field(t, t->fields[k]) != (int) k) /* no duplicates */
                                abort();
                }
                for (size_t k = 0; k < t->n_sets * t->n_fields; k++)
                        check_string(c, size, t->values[k]);
                for (size_t k = 0; k < t->n_sets; k++) {
                        if (t->set_lines[k] < last || t->set_lines[k] == 0)
                                abort();
                        last = t->set_lines[k];
                }
        }

        r = output_samples_from_cgats(c, &o, &error3);
        if (r < 0) {
                if (o || (r == -EINVAL && !error3))
                        abort();
        } else {
                if (!o || o->n_samples == 0 || o->n_white == 0 || !(o->white[1] > 0.0))
                        abort();
                for (size_t i = 0; i < o->n_samples; i++) {
                        for (size_t k = 0; k < o->n_channels; k++)
                                if (!(o->device[i * o->n_channels + k] >= 0.0 && o->device[i * o->n_channels + k] <= 1.0))
                                        abort();
                        for (size_t k = 0; k < 3; k++)
                                if (!isfinite(o->lab[3 * i + k]))
                                        abort();
                }
        }

        r = display_samples_from_cgats(c, &s, &error2);
        if (r < 0) {
                if (s || !error2)
                        abort();
                return 0;
        }
        if (!s || s->n_samples == 0)
                abort();
        for (size_t i = 0; i < s->n_samples; i++)
                for (size_t k = 0; k < 3; k++)
                        if (!(s->samples[i].rgb[k] >= 0.0 && s->samples[i].rgb[k] <= 1.0) ||
                            !isfinite(s->samples[i].xyz[k]))
                                abort();
        return 0;
}
