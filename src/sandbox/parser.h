/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's side of the parser process (docs/sandbox.md): the same answers as
 * icc_info_parse_flags(), icc_info_compute_warnings() and edid_parse(), computed in a
 * confined tinct-parse process that is started on first use, reused, and replaced after it
 * crashes, hangs past the timeout or sends a reply that does not validate. Each call blocks
 * until the answer or the timeout.
 *
 * Errors: the parser's own (-EBADMSG, -ENODATA, ... with its reason text), or, for the
 * sandbox: -ECHILD (the process died on this input), -ETIME (timeout), -EPROTO (invalid
 * reply), or the errno of starting it. *ret_error, when not NULL, gets a sentence. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "edid.h"
#include "icc-info.h"
#include "macro.h"

typedef struct Parser Parser;

int parser_new(const char *helper_path, uint64_t timeout_usec, Parser **ret);
Parser *parser_free(Parser *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Parser *, parser_free);

/* Starts the process now unless it runs: a daemon whose parser cannot start at all says so
 * once at start-up instead of failing every file. The start-up error is logged here. */
int parser_start(Parser *p);

int parser_icc_info(Parser *p, const void *data, size_t size, IccInfoFlags flags, IccInfo **ret,
                    char **ret_error);
int parser_icc_warnings(Parser *p, const void *data, size_t size, char ***ret, char **ret_error);
int parser_edid(Parser *p, const void *data, size_t size, Edid **ret, char **ret_error);

/* For tests and benchmarks: how many processes were started so far. */
unsigned parser_spawn_count(const Parser *p);
