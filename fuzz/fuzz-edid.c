/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the EDID parser: any bytes must parse or be refused, never crash or
 * read outside the buffer. Besides edid_parse() it walks everything the tools print from the
 * result (names, data blocks), since those read the struct the input shaped. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "edid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(edid_freep) Edid *e = NULL;
        char name[128];
        size_t sum = 0;

        if (edid_parse(data, size, &e) < 0)
                return 0;

        sum += strlen(e->manufacturer) + strlen(e->model_name) + strlen(e->serial_string);
        for (unsigned i = 0; i < e->n_alphanumeric; i++)
                sum += strlen(e->alphanumeric[i]);
        for (size_t i = 0; i < e->n_blocks; i++)
                sum += strlen(edid_block_type_name(&e->blocks[i], i, name, sizeof name));
        for (size_t i = 0; i < e->cta.n_data_blocks; i++)
                sum += strlen(edid_cta_data_block_name(&e->cta.data_blocks[i], name, sizeof name));
        for (unsigned i = 0; i < 16; i++) {
                const char *n = edid_colorimetry_name(i);
                if (n && (e->cta.colorimetry & (1u << i)))
                        sum += strlen(n);
        }
        /* Keep the work observable so it is not optimised away. */
        __asm__ volatile("" : : "r"(sum));
        return 0;
}
