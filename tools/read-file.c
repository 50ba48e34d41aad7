/* SPDX-License-Identifier: GPL-2.0-or-later */
/* read-file: see read-file.h. */
#include "read-file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"

int read_whole_file(const char *path, uint8_t **ret, size_t *ret_size) {
        _cleanup_free_ uint8_t *buf = NULL;
        size_t size = 0, allocated = 0;
        FILE *f = fopen(path, "re");

        if (!f)
                return -errno;
        for (;;) {
                if (size == allocated) {
                        size_t n = allocated ? allocated * 2 : 64 * 1024;
                        if (n > ICC_INFO_MAX_FILE + 1)
                                n = ICC_INFO_MAX_FILE + 1;
                        if (n <= allocated) {
                                fclose(f);
                                return -EFBIG;
                        }
                        uint8_t *t = realloc(buf, n);
                        if (!t) {
                                fclose(f);
                                return -ENOMEM;
                        }
                        buf = t;
                        allocated = n;
                }
                size_t k = fread(buf + size, 1, allocated - size, f);
                size += k;
                if (k == 0)
                        break;
        }
        bool failed = ferror(f);
        fclose(f);
        if (failed)
                return -EIO;
        *ret = TAKE_PTR(buf);
        *ret_size = size;
        return 0;
}
