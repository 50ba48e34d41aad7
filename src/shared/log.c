/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stderr logger. Messages below the threshold are dropped before formatting. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "utf8.h"

static int max_level = LOG_INFO;
static const char *program_name = "tinctd";
static bool show_level = true;

void log_set_program_name(const char *name) {
        program_name = name;
}

void log_set_show_level(bool show) {
        show_level = show;
}

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_internal(int level, int error, const char *file, int line, const char *fmt, ...) {
        int saved_errno = errno;

        if (error < 0)
                error = -error;
        if (level > max_level)
                return -error;

        static const char *const prefix[] = {
                [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
                [LOG_ERR] = "error", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
                [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
        };
        char buf[2048];
        va_list ap;

        errno = error; /* so %m prints the error we were given */
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);

        /* One message, one line: a file name with a newline or bytes that are not UTF-8
         * cannot forge or break lines of the log. */
        char shown[sizeof buf * 4];
        utf8_escape(buf, shown, sizeof shown);
        if (max_level >= LOG_DEBUG)
                fprintf(stderr, "%s[%s] %s:%d: %s\n", program_name, prefix[level & 7], file, line, shown);
        else if (show_level)
                fprintf(stderr, "%s[%s]: %s\n", program_name, prefix[level & 7], shown);
        else
                fprintf(stderr, "%s: %s\n", program_name, shown);

        errno = saved_errno;
        return -error;
}
