/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the bus-free helpers: hash table, list, strv, names, qualifier matching. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "chain-index.h"
#include "hashmap.h"
#include "json.h"
#include "list.h"
#include "mat3.h"
#include "md5.h"
#include "names.h"
#include "qualifier.h"
#include "socket-util.h"
#include "strv.h"
#include "tests.h"
#include "time-util.h"
#include "utf8.h"

static void test_hashmap(void) {
        _cleanup_(hashmap_freep) Hashmap *h = hashmap_new();
        static char keys[5000][16];
        assert_se(h);
        for (int i = 0; i < 5000; i++) {
                snprintf(keys[i], sizeof keys[i], "key-%d", i);
                assert_se(hashmap_put(h, keys[i], keys[i]) == 0);
        }
        assert_se(hashmap_put(h, keys[7], NULL) == -EEXIST);
        assert_se(hashmap_size(h) == 5000);
        for (int i = 0; i < 5000; i++)
                assert_se(hashmap_get(h, keys[i]) == keys[i]);
        assert_se(!hashmap_get(h, "missing"));
        assert_se(!hashmap_remove_value(h, keys[3], keys[4]));
        for (int i = 0; i < 5000; i += 2)
                assert_se(hashmap_remove(h, keys[i]) == keys[i]);
        assert_se(hashmap_size(h) == 2500);
        size_t n = 0;
        void *it = NULL, *v;
        const char *k;
        while (hashmap_iterate(h, &it, &k, &v)) {
                assert_se(k == v);
                n++;
        }
        assert_se(n == 2500);
}

typedef struct Owned {
        char *key;
        void *next;
} Owned;

static int chain_count(ChainIndex *ci, const char *key, Owned **want) {
        int n = 0;
        for (Owned *o = chain_index_first(ci, key); o; o = chain_index_next(ci, o))
                assert_se(o == want[n++]);
        assert_se(!want[n]);
        return n;
}

static void test_chain_index(void) {
        ChainIndex ci = CHAIN_INDEX_INIT(Owned, key, next);
        assert_se(chain_index_init(&ci) == 0);
        /* separate strings with equal contents, as separate objects' ids are */
        char k[4][8] = { "dev", "dev", "dev", "other" };
        Owned a = { k[0] }, b = { k[1] }, c = { k[2] }, x = { k[3] }, unkeyed = { NULL };
        assert_se(chain_index_add(&ci, &a) == 0 && chain_index_add(&ci, &b) == 0 &&
                  chain_index_add(&ci, &x) == 0 && chain_index_add(&ci, &c) == 0 &&
                  chain_index_add(&ci, &unkeyed) == 0);
        assert_se(chain_count(&ci, "dev", (Owned *[]) { &a, &b, &c, NULL }) == 3);
        assert_se(chain_count(&ci, "other", (Owned *[]) { &x, NULL }) == 1);
        assert_se(!chain_index_first(&ci, "missing") && !chain_index_first(&ci, NULL));
        chain_index_remove(&ci, &b); /* middle */
        assert_se(chain_count(&ci, "dev", (Owned *[]) { &a, &c, NULL }) == 2);
        chain_index_remove(&ci, &a); /* first: the map is re-keyed on c's string */
        memset(k[0], 0, sizeof k[0]); /* a's key may die now */
        assert_se(chain_count(&ci, "dev", (Owned *[]) { &c, NULL }) == 1);
        chain_index_remove(&ci, &c);
        chain_index_remove(&ci, &c); /* twice, and never added, are harmless */
        chain_index_remove(&ci, &unkeyed);
        assert_se(!chain_index_first(&ci, "dev") && hashmap_size(ci.map) == 1);
        chain_index_done(&ci);
}

static void test_json_writer(void) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        JsonWriter w;
        assert_se(f);
        json_writer_init(&w, f);
        json_write_begin_object(&w);
        json_write_member_text(&w, "lossy", "a\xff" "b\xc3\xa9\"");
        json_write_member_text(&w, "none", NULL);
        json_write_key(&w, "nums");
        json_write_begin_array(&w);
        json_write_literal(&w, "0.6396");
        json_write_double(&w, 0.1);
        json_write_double(&w, 1.0 / 3.0);
        json_write_double(&w, 0.0 / 0.0);
        json_write_fixed(&w, 2.2, 2);
        json_write_end_array(&w);
        json_write_end_object(&w);
        assert_se(json_writer_finish(&w) == 0);
        fclose(f);
        static const char want[] =
                "{\n  \"lossy\": \"a\\ufffdb\xc3\xa9\\\"\",\n  \"none\": null,\n  \"nums\": [\n"
                "    0.6396,\n    0.1,\n    0.33333333333333331,\n    null,\n    2.20\n  ]\n}\n";
        if (strcmp(buf, want) != 0)
                fprintf(stderr, "got:\n%s\nwant:\n%s\n", buf, want);
        assert_se(strcmp(buf, want) == 0);
        free(buf);

        /* the strict writer refuses what is not UTF-8, and says so at the end */
        f = open_memstream(&buf, &size);
        json_writer_init(&w, f);
        json_write_string(&w, "\xff");
        assert_se(json_writer_finish(&w) == -EILSEQ);
        fclose(f);
        free(buf);
}

typedef struct Item {
        int value;
        ListLink link;
} Item;

static void test_list(void) {
        List l;
        Item items[4];
        list_init(&l);
        for (int i = 0; i < 4; i++) {
                items[i] = (Item) { .value = i };
                list_append(&l, &items[i].link);
        }
        list_unlink(&l, &items[1].link);
        list_unlink(&l, &items[1].link); /* twice is harmless */
        int expect[] = { 0, 2, 3 }, n = 0;
        Item *it;
        LIST_FOREACH(&l, it, Item, link) {
                assert_se(it->value == expect[n++]);
                list_unlink(&l, &it->link);
        }
        assert_se(n == 3 && l.size == 0);
}

static void test_strv(void) {
        _cleanup_strv_free_ char **l = NULL;
        assert_se(strv_extend(&l, "a") == 0);
        assert_se(strv_extend(&l, "b") == 0);
        assert_se(strv_length(l) == 2);
        assert_se(strv_contains(l, "b") && !strv_contains(l, "c"));
        _cleanup_strv_free_ char **c = strv_copy(l);
        assert_streq(c[1], "b");
}

static void check(char *s, const char *expect) {
        assert_streq(s, expect);
        free(s);
}

static void test_names(void) {
        check(names_escape_path_element("cups-HP-LJ"), "cups_HP_LJ");
        check(names_escape_path_element("xrandr-Hewlett Packard-HP LP2480zx-3CM82200KV"),
              "xrandr_Hewlett_Packard_HP_LP2480zx_3CM82200KV");
        check(names_escape_path_element("HP-825C-RGB.."), "HP_825C_RGB__");
        check(names_escape_path_element("caf\xc3\xa9"), "caf__");

        check(names_vendor_quirk("Hewlett-Packard Ltd."), "Hewlett Packard");
        check(names_vendor_quirk("HP"), "Hewlett Packard");
        check(names_vendor_quirk("Fujitsu Siemens Computers GmbH"), "Fujitsu Siemens");
        check(names_vendor_quirk("Foo Co. Ltd."), "Foo Co.");
        check(names_vendor_quirk("Dell Inc."), "Dell");
        check(names_vendor_quirk("Acme  "), "Acme");

        check(names_model_normalize("LaserJet Printer", "printer"), "LaserJet");
        check(names_model_normalize("LaserJet Printer", "display"), "LaserJet Printer");
        check(names_model_normalize("U2713H Monitor  ", "display"), "U2713H");
        check(names_model_normalize("Big Screen", "display"), "Big");
        check(names_model_normalize("Big Screen", NULL), "Big Screen");

        check(names_serial_normalize("usb://HP/LJ?serial=XYZ123"), "XYZ123");
        check(names_serial_normalize("plain"), "plain");

        check(names_profile_title("Default, sRGB_v4.icc"), "sRGB v4");
        check(names_profile_title("Huey, LENOVO - 6464Y1H - 15\" (2009-12-23)"),
              "Huey, LENOVO - 6464Y1H - 15\" (2009-12-23)");
        check(names_profile_title("Thing (2012-01-01)"), "Thing");
        check(names_profile_title("Gamma.ICM"), "Gamma");

        assert_se(names_device_kind_is_valid("display"));
        assert_se(!names_device_kind_is_valid("Display"));
        assert_streq(names_colorspace_parse("cmyk"), "cmyk");
        assert_streq(names_colorspace_parse("CMYK"), "unknown");
        /* libcolord's CdSensorCap order: DeviceKind 1 is lcd, 5 projector, 17 the last */
        assert_streq(names_sensor_cap(1), "lcd");
        assert_streq(names_sensor_cap(5), "projector");
        assert_streq(names_sensor_cap(17), "calibration-irradiance");
        assert_se(!names_sensor_cap(18));
        assert_se(names_sensor_cap_index("wide-gamut-lcd-rgb-led") == 14 && names_sensor_cap_index("LCD") == -1);
        assert_streq(names_profile_kind_parse("whatever"), "unknown");
}

/* mat3: an inverse times the matrix is the identity; singular and non-finite are refused. */
static void test_mat3(void) {
        const double m[9] = { 0.4361, 0.3851, 0.1431, 0.2225, 0.7169, 0.0606, 0.0139, 0.0971, 0.7141 };
        double r[9], keep[9] = { 7, 7, 7, 7, 7, 7, 7, 7, 7 };
        assert_se(mat3_invert(m, r) == 0);
        for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                        double v = m[3 * i] * r[j] + m[3 * i + 1] * r[3 + j] + m[3 * i + 2] * r[6 + j];
                        assert_se(fabs(v - (i == j)) < 1e-12);
                }
        const double singular[9] = { 1, 2, 3, 2, 4, 6, 0, 1, 1 }, nan_m[9] = { NAN, 0, 0, 0, 1, 0, 0, 0, 1 };
        assert_se(mat3_invert(singular, keep) == -EDOM && keep[0] == 7);
        assert_se(mat3_invert(nan_m, keep) == -EDOM && keep[4] == 7);
        assert_se(fabs(mat3_det(singular)) < 1e-12);
}

static void test_md5(void) {
        char hex[33];
        md5_hex("", 0, hex);
        assert_streq(hex, "d41d8cd98f00b204e9800998ecf8427e");
        md5_hex("The quick brown fox jumps over the lazy dog", 43, hex);
        assert_streq(hex, "9e107d9d372bb6826bd81d3542a419d6");
        /* streaming across block boundaries gives the one-shot answer */
        char buf[1000];
        for (int i = 0; i < 1000; i++)
                buf[i] = (char) (i * 7);
        char one[33];
        md5_hex(buf, sizeof buf, one);
        Md5 m;
        uint8_t d[16];
        md5_init(&m);
        for (int i = 0; i < 1000; i += 37)
                md5_update(&m, buf + i, i + 37 <= 1000 ? 37 : 1000 - i);
        md5_final(&m, d);
        md5_digest_to_hex(d, hex);
        assert_streq(hex, one);
}

static void test_qualifier(void) {
        assert_se(qualifier_match("*", NULL));
        assert_se(qualifier_match("*", ""));
        assert_se(!qualifier_match("RGB.*.*", NULL));
        assert_se(qualifier_match("RGB.Glossy.600dpi", "RGB.Glossy.600dpi"));
        assert_se(!qualifier_match("RGB.Glossy.600dpi", "RGB.Plain.600dpi"));
        assert_se(qualifier_match("RGB.Glossy.*", "RGB.Glossy.300dpi"));
        assert_se(qualifier_match("RGB.*.600dpi", "RGB.Plain.600dpi"));
        assert_se(qualifier_match("RGB.*.*", "RGB.Plain.300dpi"));
        assert_se(qualifier_match("RGB.Glossy.600dpi", "RGB.*.*"));   /* profile-side wildcard */
        assert_se(!qualifier_match("CMYK.*.*", "RGB.Plain.300dpi"));
        /* both-missing parts are equal; one-sided missing is not (colord §5.4, §16.11) */
        assert_se(qualifier_match("RGB", "RGB"));
        assert_se(qualifier_match("", ""));
        assert_se(!qualifier_match("RGB", "RGB.Plain"));
        assert_se(!qualifier_match("RGB.Plain", "RGB"));
        assert_se(qualifier_match("Gray..", "Gray.."));
        assert_se(qualifier_match("Gray..*", "Gray.."));
        assert_se(qualifier_match("Gray.*.", "Gray.."));
        /* the third part keeps its dots */
        assert_se(qualifier_match("RGB.Plain.300.dpi", "RGB.Plain.300.dpi"));
        assert_se(!qualifier_match("RGB.Plain.300", "RGB.Plain.300.dpi"));
        /* '*' only counts as a whole part */
        assert_se(!qualifier_match("RGB*", "RGB.Plain.300dpi"));
        assert_se(!qualifier_match("R*.*.*", "RGB.Plain.300dpi"));
}

/* Found by fuzz-json's line check: each value's line was counted from the start of the
 * input, quadratic in its size (a 1 MB import took minutes). 400 000 values, one per line,
 * must parse within the test's timeout and keep their line numbers. */
static void test_json_lines(void) {
        const unsigned n = 400000;
        size_t size = 2 + (size_t) n * 3, at = 0;
        char *doc = malloc(size);
        assert_se(doc);
        doc[at++] = '[';
        for (unsigned i = 0; i < n; i++) {
                doc[at++] = '\n';
                doc[at++] = '7';
                doc[at++] = i + 1 < n ? ',' : '\n';
        }
        doc[at++] = ']';
        _cleanup_(json_value_freep) JsonValue *v = NULL;
        assert_se(json_parse(doc, at, &v, NULL) == 0);
        assert_se(v->line == 1 && v->n == n);
        assert_se(v->items[0]->line == 2 && v->items[n - 1]->line == n + 1);
        free(doc);
}

/* The escape the logger (and anything showing a name on one line) uses. */
static void test_utf8_escape(void) {
        char out[64];
        utf8_escape("plain \xc3\xa9t\xc3\xa9", out, sizeof out);
        assert_streq(out, "plain \xc3\xa9t\xc3\xa9");
        utf8_escape("new\nline\ttab\r\x01\x7f", out, sizeof out);
        assert_streq(out, "new\\nline\\ttab\\r\\x01\\x7f");
        utf8_escape("bad\xff\xfeutf8.icc", out, sizeof out);
        assert_streq(out, "bad\\xff\\xfeutf8.icc");
        /* a truncated sequence, an overlong form: byte by byte */
        utf8_escape("\xc3 \xc0\xaf", out, sizeof out);
        assert_streq(out, "\\xc3 \\xc0\\xaf");
        /* never a partial escape at the end */
        utf8_escape("ab\xff", out, 5);
        assert_streq(out, "ab");
        utf8_escape("x", out, 1);
        assert_streq(out, "");
}

/* The one wait with a deadline (socket-util.h): a deadline already past times out, data
 * waiting answers at once, a quiet fd until the deadline. */
static void test_fd_wait_until(void) {
        int p[2];
        assert_se(pipe(p) == 0);
        assert_se(fd_wait_until(p[0], POLLIN, 0) == -ETIMEDOUT);
        assert_se(fd_wait_until(p[0], POLLIN, now(CLOCK_MONOTONIC) + 10 * USEC_PER_MSEC) == -ETIMEDOUT);
        assert_se(write(p[1], "x", 1) == 1);
        assert_se(fd_wait_until(p[0], POLLIN, UINT64_MAX) == 0);
        assert_se(fd_wait_until(p[1], POLLOUT, UINT64_MAX) == 0);
        close(p[0]);
        close(p[1]);
}

int main(void) {
        test_utf8_escape();
        test_hashmap();
        test_list();
        test_chain_index();
        test_json_writer();
        test_json_lines();
        test_strv();
        test_names();
        test_mat3();
        test_fd_wait_until();
        test_md5();
        test_qualifier();
        printf("test-shared: ok\n");
        return 0;
}
