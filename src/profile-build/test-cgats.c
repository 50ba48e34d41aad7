/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CGATS reader and the .ti3 display reading on hand-made files: a .ti3 as Argyll's
 * dispread writes it (keywords, comments, a second CAL table), absolute and relative scale,
 * LUMINANCE_XYZ_CDM2; and every refusal with its line: missing fields, wrong counts,
 * non-numbers, bad strings, the size and count bounds. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgats.h"
#include "tests.h"

static const char ti3[] =
        "CTI3   \n"
        "\n"
        "DESCRIPTOR \"Argyll Calibration Target chart information 3\"\n"
        "ORIGINATOR \"Argyll dispread\" # a comment\n"
        "CREATED \"Fri Dec  4 20:48:21 2026\"\n"
        "KEYWORD \"DEVICE_CLASS\"\n"
        "DEVICE_CLASS \"DISPLAY\"\n"
        "KEYWORD \"LUMINANCE_XYZ_CDM2\"\n"
        "LUMINANCE_XYZ_CDM2 \"114.5 120.0 130.1\"\n"
        "TARGET_INSTRUMENT \"X-Rite i1 DisplayPro, ColorMunki Display\"\n"
        "COLOR_REP \"RGB_XYZ\"\n"
        "\n"
        "NUMBER_OF_FIELDS 7\n"
        "BEGIN_DATA_FORMAT\n"
        "SAMPLE_ID RGB_R RGB_G RGB_B XYZ_X XYZ_Y XYZ_Z \n"
        "END_DATA_FORMAT\n"
        "\n"
        "NUMBER_OF_SETS 3\n"
        "BEGIN_DATA\n"
        "1 100 100 100 95.1 100 108.8\n"
        "2 0.00000 0.00000 0.00000 0.13 0.13 0.28 \n"
        "3 50 25.5 1e1 10.5 9.25 -0.01\n"
        "END_DATA\n"
        "\n"
        "CAL    \n"
        "\n"
        "DESCRIPTOR \"Argyll Device Calibration State\"\n"
        "COLOR_REP \"RGB\"\n"
        "NUMBER_OF_FIELDS 4\n"
        "BEGIN_DATA_FORMAT\n"
        "RGB_I RGB_R RGB_G RGB_B\n"
        "END_DATA_FORMAT\n"
        "NUMBER_OF_SETS 2\n"
        "BEGIN_DATA\n"
        "0 0 0 0\n"
        "1 1 1 1\n"
        "END_DATA\n";

static void test_parse(void) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        _cleanup_free_ char *error = NULL;

        assert_se(cgats_parse(ti3, strlen(ti3), &c, &error) == 0);
        assert_se(!error);
        assert_se(c->n_tables == 2);
        const CgatsTable *t = &c->tables[0];
        assert_streq(t->type, "CTI3");
        assert_streq(cgats_table_keyword(t, "ORIGINATOR"), "Argyll dispread");
        assert_streq(cgats_table_keyword(t, "DEVICE_CLASS"), "DISPLAY");
        assert_se(!cgats_table_keyword(t, "KEYWORD"));
        assert_se(!cgats_table_keyword(t, "NUMBER_OF_SETS"));
        assert_se(t->n_fields == 7 && t->n_sets == 3);
        assert_se(cgats_table_field(t, "XYZ_Y") == 5);
        assert_se(cgats_table_field(t, "LAB_L") == -ENOENT);
        assert_streq(t->values[2 * 7 + 3], "1e1");
        assert_se(t->set_lines[0] == 20 && t->set_lines[2] == 22);
        assert_streq(c->tables[1].type, "CAL");
        assert_se(c->tables[1].n_sets == 2 && c->tables[1].n_fields == 4);
}

static void test_numbers(void) {
        double v;

        assert_se(cgats_parse_number("100", &v) == 0 && v == 100.0);
        assert_se(cgats_parse_number("-0.5e-2", &v) == 0 && fabs(v + 0.005) < 1e-15);
        assert_se(cgats_parse_number(".25", &v) == 0 && v == 0.25);
        assert_se(cgats_parse_number("", &v) == -EINVAL);
        assert_se(cgats_parse_number("abc", &v) == -EINVAL);
        assert_se(cgats_parse_number("0x10", &v) == -EINVAL);
        assert_se(cgats_parse_number("nan", &v) == -EINVAL);
        assert_se(cgats_parse_number("inf", &v) == -EINVAL);
        assert_se(cgats_parse_number("1e999", &v) == -EINVAL);
        assert_se(cgats_parse_number("1.0.0", &v) == -EINVAL);
        assert_se(cgats_parse_number(" 1", &v) == -EINVAL);
        assert_se(cgats_parse_number("1 ", &v) == -EINVAL);
}

static void test_display(void) {
        _cleanup_(display_samples_freep) DisplaySamples *s = NULL;
        _cleanup_free_ char *error = NULL;

        assert_se(display_samples_parse(ti3, strlen(ti3), &s, &error) == 0);
        assert_se(s->n_samples == 3 && !s->absolute);
        assert_se(s->has_luminance && s->luminance[1] == 120.0 && s->luminance[2] == 130.1);
        assert_streq(s->instrument, "X-Rite i1 DisplayPro, ColorMunki Display");
        assert_se(s->samples[0].rgb[0] == 1.0 && fabs(s->samples[0].xyz[2] - 1.088) < 1e-12);
        assert_se(fabs(s->samples[2].rgb[1] - 0.255) < 1e-12 && fabs(s->samples[2].rgb[2] - 0.1) < 1e-12);
        assert_se(fabs(s->samples[2].xyz[2] + 0.0001) < 1e-12);

        /* absolute (cd/m²) files keep their scale */
        _cleanup_free_ char *abs_text = NULL;
        _cleanup_(display_samples_freep) DisplaySamples *a = NULL;
        _cleanup_free_ char *error2 = NULL;
        const char *at = strstr(ti3, "COLOR_REP");
        assert_se(asprintf(&abs_text, "%.*sNORMALIZED_TO_Y_100 \"NO\"\n%s", (int) (at - ti3), ti3, at) > 0);
        assert_se(display_samples_parse(abs_text, strlen(abs_text), &a, &error2) == 0);
        assert_se(a->absolute && a->samples[0].xyz[1] == 100.0);
}

/* The text with the first occurrence of from replaced by to. */
static char *replace(const char *text, const char *from, const char *to) {
        const char *at = strstr(text, from);
        char *out = NULL;

        assert_se(at);
        assert_se(asprintf(&out, "%.*s%s%s", (int) (at - text), text, to, at + strlen(from)) > 0);
        return out;
}

static unsigned failed;

static void expect_error(const char *text, int want, const char *message) {
        _cleanup_(display_samples_freep) DisplaySamples *s = NULL;
        _cleanup_free_ char *error = NULL;
        int r = display_samples_parse(text, strlen(text), &s, &error);

        if (r != want || s || !error || !strstr(error, message)) {
                fprintf(stderr, "want %d \"%s\", got %d \"%s\"\n", want, message, r, error ? error : "(null)");
                failed++;
        }
}

static void test_errors(void) {
        static const struct {
                const char *from, *to, *message;
        } cases[] = {
                { "XYZ_Z \n", "XYZ_Q\n", "no XYZ_Z field" },
                { "NUMBER_OF_FIELDS 7", "NUMBER_OF_FIELDS 8", "line 16: NUMBER_OF_FIELDS is 8, the data format has 7 fields" },
                { "NUMBER_OF_SETS 3", "NUMBER_OF_SETS 4", "line 23: 3 sets of data, NUMBER_OF_SETS is 4" },
                { "NUMBER_OF_SETS 3", "NUMBER_OF_SETS 2", "line 22: more data than NUMBER_OF_SETS (2) sets" },
                { "NUMBER_OF_SETS 3", "NUMBER_OF_SETS three", "line 18: NUMBER_OF_SETS needs a whole number" },
                { "NUMBER_OF_SETS 3\n", "", "line 18: BEGIN_DATA without NUMBER_OF_SETS" },
                { "3 50 25.5", "3 50 25,5", "line 22: RGB_G \"25,5\" is not a number" },
                { "3 50 25.5", "3 50 125.5", "line 22: RGB_G 125.5 is outside 0..100" },
                { "10.5 9.25", "10.5 9.25x", "line 22: XYZ_Y \"9.25x\" is not a number" },
                { "2 0.00000 0.00000 0.00000 0.13 0.13 0.28 \n", "2 0 0 0 0.13 0.13\n", "line 23: the last set has 6 values" },
                { "\"Argyll dispread\"", "\"Argyll dispread", "line 4: unterminated string" },
                { "\"Argyll dispread\"", "\"Argyll\"dispread", "line 4: text straight after a closing quote" },
                { "DESCRIPTOR \"Argyll Calibration", "DESC\"RIPTOR \"Argyll Calibration", "line 3: quote inside a word" },
                { "CREATED \"Fri", "CREATED \"Fri\" \"Sat", "line 5: more than one value for CREATED" },
                { "SAMPLE_ID RGB_R", "SAMPLE_ID RGB_G RGB_R", "line 15: field RGB_G twice" },
                { "END_DATA\n", "", "line 24: more data than NUMBER_OF_SETS (3) sets" },
                { "DEVICE_CLASS \"DISPLAY\"", "DEVICE_CLASS \"OUTPUT\"", "not display measurements" },
                { "COLOR_REP \"RGB_XYZ\"", "COLOR_REP \"CMYK_XYZ\"", "expected \"RGB_XYZ\"" },
                { "COLOR_REP \"RGB_XYZ\"\n", "", "no COLOR_REP" },
                { "\"114.5 120.0 130.1\"", "\"114.5 0 130.1\"", "LUMINANCE_XYZ_CDM2 \"114.5 0 130.1\" is not" },
                { "\"114.5 120.0 130.1\"", "\"114.5 120.0\"", "is not three numbers" },
                { "CTI3   \n", "", "line 2: expected a file identifier" },
                { "BEGIN_DATA_FORMAT\n", "", "line 14: more than one value for SAMPLE_ID" },
                { "END_DATA_FORMAT\n", "", "line 17: \"3\" is not a field name" },
                { "CAL    \n", "CAL more\n", "line 25: expected a file identifier such as CTI3 or the end of the file" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *text = replace(ti3, cases[i].from, cases[i].to);
                expect_error(text, -EINVAL, cases[i].message);
        }
        {
                _cleanup_free_ char *text = replace(ti3, "NUMBER_OF_SETS 3", "NUMBER_OF_SETS 99999999999");
                expect_error(text, -EFBIG, "line 18: NUMBER_OF_SETS 99999999999 is more than the 100000");
        }
        expect_error("", -EINVAL, "the file is empty");
        expect_error("# only a comment\n", -EINVAL, "line 1: no table in the file");
        expect_error("CTI3\nBEGIN_DATA\n", -EINVAL, "line 2: BEGIN_DATA before BEGIN_DATA_FORMAT");
        expect_error("CTI3\nNUMBER_OF_SETS 1\n", -EINVAL, "the file ends inside the table that starts on line 1");
        expect_error("CTI3\nBEGIN_DATA_FORMAT\nEND_DATA_FORMAT\n", -EINVAL, "line 3: an empty data format");
        expect_error("CTI3\nEND_DATA\n", -EINVAL, "line 2: END_DATA without its BEGIN");

        /* a NUL byte */
        {
                _cleanup_(cgats_freep) Cgats *c = NULL;
                _cleanup_free_ char *error = NULL;
                assert_se(cgats_parse("CTI3\n\nA\0B", 9, &c, &error) == -EINVAL && !c);
                assert_streq(error, "line 3: a NUL byte (not a text file)");
        }
        /* a NUMBER_OF_SETS 0 file parses but has no measurements */
        {
                _cleanup_free_ char *text = replace(ti3, "NUMBER_OF_SETS 3", "NUMBER_OF_SETS 0");
                _cleanup_free_ char *t2 = replace(text, "1 100 100 100 95.1 100 108.8\n"
                                                        "2 0.00000 0.00000 0.00000 0.13 0.13 0.28 \n"
                                                        "3 50 25.5 1e1 10.5 9.25 -0.01\n", "");
                expect_error(t2, -EINVAL, "no measurements");
        }
}

static void test_bounds(void) {
        _cleanup_(cgats_freep) Cgats *c = NULL;
        _cleanup_free_ char *error = NULL, *big = NULL, *tok = NULL;
        size_t len = CGATS_MAX_SIZE + 1;

        /* size: refused before anything is copied */
        big = malloc(len);
        assert_se(big);
        memset(big, ' ', len);
        assert_se(cgats_parse(big, len, &c, &error) == -EFBIG && !c);
        assert_se(strstr(error, "more than the 16777216 this reader accepts"));
        free(error);
        error = NULL;

        /* one token over the limit */
        tok = malloc(CGATS_MAX_TOKEN + 16);
        assert_se(tok);
        memcpy(tok, "CTI3\nX ", 7);
        memset(tok + 7, 'a', CGATS_MAX_TOKEN + 1);
        tok[7 + CGATS_MAX_TOKEN + 1] = '\0';
        assert_se(cgats_parse(tok, strlen(tok), &c, &error) == -EFBIG);
        assert_se(strstr(error, "line 2: a token longer than"));
        free(error);
        error = NULL;

        /* sets × fields */
        const char *many = "CTI3\nBEGIN_DATA_FORMAT\nA B C D E F G H I J K\nEND_DATA_FORMAT\n"
                           "NUMBER_OF_SETS 100000\nBEGIN_DATA\n";
        assert_se(cgats_parse(many, strlen(many), &c, &error) == -EFBIG);
        assert_se(strstr(error, "line 6: 100000 sets of 11 fields"));
        free(error);
        error = NULL;

        /* tables */
        _cleanup_free_ char *tables = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&tables, &n);
        assert_se(f);
        for (unsigned i = 0; i <= CGATS_MAX_TABLES; i++)
                fputs("T\nBEGIN_DATA_FORMAT\nA\nEND_DATA_FORMAT\nNUMBER_OF_SETS 0\nBEGIN_DATA\nEND_DATA\n", f);
        fclose(f);
        assert_se(cgats_parse(tables, n, &c, &error) == -EFBIG);
        assert_se(strstr(error, "more than 16 tables"));
}

int main(void) {
        test_parse();
        test_numbers();
        test_display();
        test_errors();
        test_bounds();
        return failed ? 1 : 0;
}
