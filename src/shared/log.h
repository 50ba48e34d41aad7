/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging to stderr with a level threshold. Used by the daemon, store and tools; the
 * parsers (src/edid, src/icc) never log: they return errors to their callers. */
#pragma once

#include <stdbool.h>
#include <syslog.h>
#include "macro.h"

void log_set_max_level(int level);
/* The name each line starts with ("tinctd" unless set); the string must outlive the logger. */
void log_set_program_name(const char *name);
/* Whether lines name their level ("tinctd[error]: ..."; the default) or not ("tinct: ...",
 * as a command-line tool's messages read). Debug lines always do. */
void log_set_show_level(bool show);
int log_get_max_level(void);

/* Logs and returns -abs(error), so it can be used as `return log_error_errno(r, ...)`.
 * The format may use %m, which prints strerror(error). */
int log_internal(int level, int error, const char *file, int line, const char *fmt, ...) _printf_(5, 6);

#define log_full_errno(level, error, ...) \
        log_internal((level), (error), __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_full_errno(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_notice_errno(e, ...) log_full_errno(LOG_NOTICE, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)
#define log_oom() log_error_errno(-ENOMEM, "Out of memory.")
