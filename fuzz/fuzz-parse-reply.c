/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the daemon's reading of the parser process's replies
 * (src/sandbox/parse-wire.c): the parser is assumed compromised, so any bytes must decode
 * to a validated object or to -EBADMSG, never read out of bounds or leak. The first byte
 * picks the decoder (ICC facts, warnings, EDID, error text), the rest is the reply. An
 * accepted reply is encoded again, which must succeed and decode again: what the daemon
 * accepts is something the parser could have sent. Seeds (fuzz/corpus/parse-reply) are
 * real replies for corpus files, written by test-parse-wire --write-seeds DIR. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "parse-wire.h"
#include "strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        const uint8_t *reply = data + 1;
        size_t n = size - 1;
        ParseBuffer again = {};
        int r;

        switch (data[0] % 4) {
        case 0: {
                IccInfo *info = NULL;
                if ((r = parse_decode_icc_info(reply, n, &info)) == 0) {
                        IccInfo *back = NULL;
                        if (parse_encode_icc_info(&again, info) != 0 ||
                            parse_decode_icc_info(again.data, again.size, &back) != 0)
                                abort();
                        icc_info_free(back);
                }
                icc_info_free(info);
                break;
        }
        case 1: {
                char **w = NULL, **back = NULL;
                if ((r = parse_decode_warnings(reply, n, &w)) == 0 &&
                    (parse_encode_warnings(&again, w) != 0 || parse_decode_warnings(again.data, again.size, &back) != 0))
                        abort();
                strv_free(w);
                strv_free(back);
                break;
        }
        case 2: {
                Edid *e = NULL;
                if ((r = parse_decode_edid(reply, n, &e)) == 0) {
                        Edid *back = NULL;
                        if (parse_encode_edid(&again, e) != 0 || parse_decode_edid(again.data, again.size, &back) != 0)
                                abort();
                        edid_free(back);
                }
                edid_free(e);
                break;
        }
        default: {
                char *why = NULL;
                r = parse_decode_error(reply, n, &why);
                free(why);
        }
        }
        if (r != 0 && r != -EBADMSG && r != -ENOMEM)
                abort();
        parse_buffer_done(&again);
        return 0;
}
