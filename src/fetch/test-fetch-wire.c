/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for fetch-wire.c, tinct-fetch's reply as the daemon reads it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "fetch-wire.h"
#include "macro.h"
#include "tests.h"

/* tinct-fetch's reply as the daemon reads it: what the writer makes reads back, and every
 * truncation, a wrong magic, trailing bytes and a NUL inside a string are refused. */
static void test_fetch_wire(void) {
        static const uint8_t icc[] = { 1, 2, 3, 4, 5 };
        FetchWriter w;
        fetch_writer_init(&w);
        fetch_write_string(&w, FETCH_UUID, "urn:uuid:0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
        fetch_write_string(&w, FETCH_PROBLEM, "profile x: HTTP 404");
        fetch_write_string(&w, FETCH_MEDIA_TYPE, "photographic-glossy");
        fetch_write_profile(&w, "photographic-glossy", "http://127.0.0.1/g.icc", icc, sizeof icc);
        assert_se(fetch_write_end(&w) == 0);
        FetchReply r;
        assert_se(fetch_reply_parse(w.buf, w.len, &r) == 0);
        assert_streq(r.uuid, "urn:uuid:0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
        assert_se(!r.device_id);
        assert_streq(r.problems[0], "profile x: HTTP 404");
        assert_se(!r.problems[1]);
        assert_streq(r.media_types[0], "photographic-glossy");
        assert_se(r.n_profiles == 1 && r.profiles[0].icc_len == sizeof icc);
        assert_se(memcmp(r.profiles[0].icc, icc, sizeof icc) == 0);
        assert_streq(r.profiles[0].url, "http://127.0.0.1/g.icc");
        fetch_reply_done(&r);
        for (size_t n = 0; n < w.len; n++)
                assert_se(fetch_reply_parse(w.buf, n, &r) == -EBADMSG);
        uint8_t *copy = malloc(w.len + 1);
        assert_se(copy);
        memcpy(copy, w.buf, w.len);
        copy[w.len] = 0;
        assert_se(fetch_reply_parse(copy, w.len + 1, &r) == -EBADMSG); /* after the end */
        copy[0] = 'X';
        assert_se(fetch_reply_parse(copy, w.len, &r) == -EBADMSG);
        copy[0] = 'T';
        copy[9] = 0; /* inside the uuid */
        assert_se(fetch_reply_parse(copy, w.len, &r) == -EBADMSG);
        free(copy);
        fetch_writer_done(&w);

        /* Two uuids, and an unknown record type. */
        fetch_writer_init(&w);
        fetch_write_string(&w, FETCH_UUID, "a");
        fetch_write_string(&w, FETCH_UUID, "b");
        assert_se(fetch_write_end(&w) == 0);
        assert_se(fetch_reply_parse(w.buf, w.len, &r) == -EBADMSG);
        fetch_writer_done(&w);
        fetch_writer_init(&w);
        fetch_write_string(&w, 77, "x");
        assert_se(fetch_write_end(&w) == 0);
        assert_se(fetch_reply_parse(w.buf, w.len, &r) == -EBADMSG);
        fetch_writer_done(&w);
}

int main(void) {
        test_fetch_wire();
        return 0;
}
