/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MD5 (RFC 1321), needed for colord-compatible ids: ICC file checksums and EDID md5s.
 * Not used for anything security-relevant. */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct Md5 {
        uint32_t state[4];
        uint64_t length;
        uint8_t buffer[64];
} Md5;

void md5_init(Md5 *m);
void md5_update(Md5 *m, const void *data, size_t size);
void md5_final(Md5 *m, uint8_t digest[16]);

/* One-shot, as 32 lower-case hex digits plus NUL. */
void md5_hex(const void *data, size_t size, char ret[33]);
void md5_digest_to_hex(const uint8_t digest[16], char ret[33]);
