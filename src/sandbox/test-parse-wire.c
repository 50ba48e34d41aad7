/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The parser's reply format: what the real parsers make of the corpus survives the round
 * trip unchanged, and replies a compromised parser could send are refused, never trusted. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse-wire.h"
#include "strv.h"
#include "tests.h"

/* --write-seeds DIR: real replies for the reply fuzzer's corpus (fuzz/corpus/parse-reply),
 * each prefixed with the byte that picks its decoder there. */
static const char *seeds_dir;
static unsigned n_seeds;

static void write_seed(uint8_t which, const ParseBuffer *b) {
        if (!seeds_dir || n_seeds >= 24)
                return;
        char path[4096];
        snprintf(path, sizeof path, "%s/reply-%u-%02u.bin", seeds_dir, which, n_seeds++);
        FILE *f = fopen(path, "we");
        assert_se(f);
        assert_se(fwrite(&which, 1, 1, f) == 1 && fwrite(b->data, 1, b->size, f) == b->size);
        assert_se(fclose(f) == 0);
}

static bool streq_null(const char *a, const char *b) {
        return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool strv_equal_null(char *const *a, char *const *b) {
        if (!a || !b)
                return !a && !b;
        for (; *a && *b; a++, b++)
                if (strcmp(*a, *b) != 0)
                        return false;
        return !*a && !*b;
}

static uint8_t *read_all(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "re");
        assert_se(f);
        size_t cap = 1 << 16, n = 0;
        uint8_t *buf = malloc(cap);
        assert_se(buf);
        for (size_t k; (k = fread(buf + n, 1, cap - n, f)) > 0;) {
                n += k;
                if (n == cap)
                        assert_se((buf = realloc(buf, cap *= 2)));
        }
        fclose(f);
        *ret_size = n;
        return buf;
}

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n > m && strcmp(s + n - m, suffix) == 0;
}

/* Every prefix of a valid reply, and every single-byte change of it, decodes to an error or
 * to something (the decoder never reads out of bounds: ASan checks that). */
static void check_mutations(const ParseBuffer *b, int (*decode)(const uint8_t *, size_t, void *),
                            void (*release)(void *)) {
        for (size_t cut = 0; cut < b->size; cut++) {
                void *out = NULL;
                assert_se(decode(b->data, cut, &out) == -EBADMSG);
        }
        uint8_t *copy = malloc(b->size);
        assert_se(copy);
        for (size_t i = 0; i < b->size; i += 1 + b->size / 512) {
                memcpy(copy, b->data, b->size);
                copy[i] ^= 0xff;
                void *out = NULL;
                int r = decode(copy, b->size, &out);
                assert_se(r == 0 || r == -EBADMSG || r == -ENOMEM);
                if (r == 0)
                        release(out);
        }
        free(copy);
}

static int decode_icc(const uint8_t *d, size_t n, void *ret) {
        return parse_decode_icc_info(d, n, (IccInfo **) ret);
}
static void release_icc(void *p) {
        icc_info_free(p);
}
static int decode_edid(const uint8_t *d, size_t n, void *ret) {
        return parse_decode_edid(d, n, (Edid **) ret);
}
static void release_edid(void *p) {
        edid_free(p);
}

static void test_icc_corpus(const char *dir) {
        DIR *d = opendir(dir);
        assert_se(d);
        unsigned n_ok = 0, n_mutated = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (!has_suffix(de->d_name, ".icc") && !has_suffix(de->d_name, ".icm"))
                        continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                size_t size;
                _cleanup_free_ uint8_t *data = read_all(path, &size);
                _cleanup_(icc_info_freep) IccInfo *a = NULL, *b = NULL;
                if (icc_info_parse(data, size, &a, NULL) < 0)
                        continue;
                ParseBuffer buf = {};
                assert_se(parse_encode_icc_info(&buf, a) == 0);
                assert_se(parse_decode_icc_info(buf.data, buf.size, &b) == 0);
                assert_streq(a->checksum, b->checksum);
                assert_se(streq_null(a->description, b->description));
                assert_se(streq_null(a->title, b->title));
                assert_se(streq_null(a->copyright, b->copyright));
                assert_se(streq_null(a->manufacturer, b->manufacturer));
                assert_se(streq_null(a->model, b->model));
                assert_se(a->kind == b->kind && a->colorspace == b->colorspace); /* the static names */
                assert_se(a->has_vcgt == b->has_vcgt && a->created == b->created);
                assert_se(a->tags_ignored == b->tags_ignored);
                assert_se(strv_equal_null(a->metadata, b->metadata));
                assert_se(strv_equal_null(a->warnings, b->warnings));

                ParseBuffer w = {};
                _cleanup_strv_free_ char **warnings = NULL;
                assert_se(parse_encode_warnings(&w, a->warnings) == 0);
                assert_se(parse_decode_warnings(w.data, w.size, &warnings) == 0);
                assert_se(strv_equal_null(warnings, a->warnings));

                if (n_ok++ % 40 == 0) {
                        write_seed(0, &buf);
                        write_seed(1, &w);
                        check_mutations(&buf, decode_icc, release_icc);
                        n_mutated++;
                }
                parse_buffer_done(&buf);
                parse_buffer_done(&w);
        }
        closedir(d);
        printf("icc: %u profiles round-tripped, %u mutated\n", n_ok, n_mutated);
        assert_se(n_ok > 100);
}

static void test_edid_corpus(const char *dir) {
        DIR *d = opendir(dir);
        assert_se(d);
        unsigned n_ok = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (!has_suffix(de->d_name, ".bin"))
                        continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                size_t size;
                _cleanup_free_ uint8_t *data = read_all(path, &size);
                _cleanup_(edid_freep) Edid *a = NULL, *b = NULL;
                if (edid_parse(data, size, &a) < 0)
                        continue;
                ParseBuffer buf = {};
                assert_se(parse_encode_edid(&buf, a) == 0);
                assert_se(parse_decode_edid(buf.data, buf.size, &b) == 0);
                /* Field by field through the flat parts, then the arrays. */
                Edid fa = *a, fb = *b;
                fa.blocks = fb.blocks = NULL;
                fa.cta.data_blocks = fb.cta.data_blocks = NULL;
                assert_se(memcmp(&fa, &fb, sizeof fa) == 0);
                assert_se(a->n_blocks == b->n_blocks &&
                          memcmp(a->blocks, b->blocks, a->n_blocks * sizeof(EdidBlock)) == 0);
                assert_se(a->cta.n_data_blocks == b->cta.n_data_blocks);
                if (a->cta.n_data_blocks > 0)
                        assert_se(memcmp(a->cta.data_blocks, b->cta.data_blocks,
                                         a->cta.n_data_blocks * sizeof(EdidCtaDataBlock)) == 0);
                if (n_ok++ % 100 == 0) {
                        write_seed(2, &buf);
                        check_mutations(&buf, decode_edid, release_edid);
                }
                parse_buffer_done(&buf);
        }
        closedir(d);
        printf("edid: %u EDIDs round-tripped\n", n_ok);
        assert_se(n_ok > 100);
}

static IccInfo *sample_info(void) {
        IccInfo *i = calloc(1, sizeof(IccInfo));
        assert_se(i);
        strcpy(i->checksum, "0123456789abcdef0123456789abcdef");
        i->description = strdup("Sample");
        i->kind = "display-device";
        i->colorspace = "rgb";
        assert_se(i->description);
        assert_se(strv_extend(&i->metadata, "DATA_source") == 0 && strv_extend(&i->metadata, "test") == 0);
        assert_se(strv_extend(&i->warnings, "scum-dot") == 0);
        return i;
}

static void expect_refused(IccInfo *i, const char *what) {
        ParseBuffer b = {};
        assert_se(parse_encode_icc_info(&b, i) == 0);
        IccInfo *out = NULL;
        int r = parse_decode_icc_info(b.data, b.size, &out);
        if (r != -EBADMSG) {
                fprintf(stderr, "accepted: %s\n", what);
                abort();
        }
        parse_buffer_done(&b);
        icc_info_free(i);
}

/* What a compromised parser might claim, each refused. */
static void test_hostile_icc_replies(void) {
        IccInfo *i;

        i = sample_info();
        ParseBuffer b = {};
        assert_se(parse_encode_icc_info(&b, i) == 0);
        _cleanup_(icc_info_freep) IccInfo *ok = NULL;
        assert_se(parse_decode_icc_info(b.data, b.size, &ok) == 0);
        assert_streq(ok->kind, "display-device");
        /* one byte more than the reply holds */
        assert_se((b.data = realloc(b.data, b.size + 1)));
        b.data[b.size] = 0;
        IccInfo *out = NULL;
        assert_se(parse_decode_icc_info(b.data, b.size + 1, &out) == -EBADMSG);
        parse_buffer_done(&b);
        icc_info_free(i);

        (i = sample_info())->kind = "root-shell";
        expect_refused(i, "a kind outside the set");
        (i = sample_info())->colorspace = "rgb; DROP TABLE";
        expect_refused(i, "a colorspace outside the set");
        i = sample_info();
        memcpy(i->checksum, "../../../../etc/passwd0000000000", 32);
        expect_refused(i, "a checksum that is not hex");
        i = sample_info();
        assert_se(strv_extend(&i->metadata, "odd") == 0);
        expect_refused(i, "an odd metadata list");
        i = sample_info();
        assert_se(strv_extend(&i->warnings, "rm -rf") == 0);
        expect_refused(i, "an unknown warning");
        i = sample_info();
        free(i->description);
        assert_se((i->description = strdup("bad \xff\xfe UTF-8")));
        expect_refused(i, "invalid UTF-8");

        /* A count far beyond the bytes that follow. */
        static const uint8_t huge_strv[] = { 0xff, 0xff, 0xff, 0x7f };
        char **w = NULL;
        assert_se(parse_decode_warnings(huge_strv, sizeof huge_strv, &w) == -EBADMSG);
        /* A reason the parser writes is made acceptable: cut, bad bytes replaced. */
        char big[6000];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = 0;
        big[10] = (char) 0xff;
        ParseBuffer eb = {};
        assert_se(parse_encode_error(&eb, big) == 0);
        _cleanup_free_ char *got = NULL;
        assert_se(parse_decode_error(eb.data, eb.size, &got) == 0);
        assert_se(strlen(got) == PARSE_MAX_REASON && got[10] == '?');
        parse_buffer_done(&eb);
        /* The error text is bounded too. */
        uint8_t long_reason[4 + 5000] = { 0x88, 0x13 }; /* 5000, little-endian */
        memset(long_reason + 4, 'a', 5000);
        char *why = NULL;
        assert_se(parse_decode_error(long_reason, sizeof long_reason, &why) == -EBADMSG);
}

static void test_hostile_edid_reply(const char *dir) {
        char path[4096];
        DIR *d = opendir(dir);
        assert_se(d);
        struct dirent *de;
        while ((de = readdir(d)) && !has_suffix(de->d_name, ".bin"))
                ;
        assert_se(de);
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        closedir(d);
        size_t size;
        _cleanup_free_ uint8_t *data = read_all(path, &size);
        _cleanup_(edid_freep) Edid *e = NULL;
        assert_se(edid_parse(data, size, &e) == 0);

        ParseBuffer b = {};
        e->red.raw_x = 2000; /* not a 10-bit value */
        assert_se(parse_encode_edid(&b, e) == 0);
        Edid *out = NULL;
        assert_se(parse_decode_edid(b.data, b.size, &out) == -EBADMSG);
        parse_buffer_done(&b);
        e->red.raw_x = 10;

        e->size += EDID_BLOCK_SIZE; /* more bytes than blocks */
        assert_se(parse_encode_edid(&b, e) == 0);
        assert_se(parse_decode_edid(b.data, b.size, &out) == -EBADMSG);
        parse_buffer_done(&b);
        e->size -= EDID_BLOCK_SIZE;

        strcpy(e->model_name, "evil\x1b[2J"); /* terminal escapes into logs */
        assert_se(parse_encode_edid(&b, e) == 0);
        assert_se(parse_decode_edid(b.data, b.size, &out) == -EBADMSG);
        parse_buffer_done(&b);
}

int main(int argc, char **argv) {
        if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
                seeds_dir = argv[2];
        test_icc_corpus(CORPUS_DIR "/icc");
        test_edid_corpus(CORPUS_DIR "/edid");
        test_hostile_icc_replies();
        test_hostile_edid_reply(CORPUS_DIR "/edid");
        if (seeds_dir) {
                ParseBuffer e = {};
                assert_se(parse_encode_error(&e, "not an ICC profile") == 0);
                write_seed(3, &e);
                parse_buffer_done(&e);
        }
        return 0;
}
