/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 validation, strict (no overlong forms, no surrogates, nothing above U+10FFFF), for
 * strings that reach SQLite, JSON or the bus. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Length (1-4) of the valid UTF-8 sequence at s (with `left` bytes available), 0 if the
 * bytes there are not one. */
size_t utf8_sequence_length(const char *s, size_t left);

bool utf8_is_valid(const char *s, size_t len);

/* s shown on one line, as C escapes: newline, tab and carriage return as \n \t \r, other
 * control characters, DEL and every byte that is not part of valid UTF-8 as \xNN; valid
 * UTF-8 as it is. Truncated to fit size (at least 1), always terminated. */
void utf8_escape(const char *s, char *out, size_t size);
