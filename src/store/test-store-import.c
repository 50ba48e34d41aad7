/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the store's imports and exports: colord's real databases (tests/data/colord-db,
 * written by Debian's colord 1.4.6) and older layouts, and the JSON export and its strict import. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "icc-info.h"
#include "json.h"
#include "log.h"
#include "names.h"
#include "store-internal.h"
#include "store-wal.h"
#include "strv.h"
#include "test-store-util.h"
#include "tests.h"

static void sha_of(const char *path, char out[128]) {
        _cleanup_free_ char *cmd = NULL;
        assert_se(asprintf(&cmd, "sha256sum '%s'", path) >= 0);
        FILE *p = popen(cmd, "r");
        assert_se(p && fgets(out, 128, p));
        pclose(p);
}

static void test_colord_import(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *map = path_in(COLORD_FIXTURES, "mapping.db"),
                            *sto = path_in(COLORD_FIXTURES, "storage.db");
        char map_sum[128], sto_sum[128], after[128];
        sha_of(map, map_sum);
        sha_of(sto, sto_sum);

        Store *s = NULL;
        assert_se(store_open(dir, &s) == 0);
        /* Ours win over colord's. */
        assert_se(store_profile_title_set(s, "icc-a07f28226c40f0319868fa0890ccc8e4", 104, "ours") == 0);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 1);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 0); /* once only */

        static const char srgb[] = "icc-6209e0eee05d1da9df7b4e3c2da33f62", adobe[] = "icc-a07f28226c40f0319868fa0890ccc8e4",
                          bluish[] = "icc-a7c3b105758efd9fa9c99123d23237db";
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "xrandr-Fixture-Display", bluish, &ts) == 0 && ts == 0); /* removed */
        StoreMapping *m = NULL;
        size_t n = 0;
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "xrandr-Fixture-Display", &m, &n) == 0);
        assert_se(n == 2);
        assert_streq(m[0].id, adobe);
        assert_streq(m[1].id, srgb); /* MakeProfileDefault made it the newest */
        assert_se(m[0].timestamp > 1600000000000000ULL && m[1].timestamp > m[0].timestamp);
        store_mappings_free(m, n);
        assert_se(store_mapping_devices_for_profile(s, adobe, &m, &n) == 0);
        assert_se(n == 2);
        store_mappings_free(m, n);

        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0);
        assert_se(strv_length(ids) == 2);
        assert_streq(ids[0], "xrandr-Fixture-Display");
        assert_streq(ids[1], "cups-Fixture-Printer");

        _cleanup_strv_free_ char **props = NULL;
        assert_se(store_device_get_properties(s, "xrandr-Fixture-Display", &props) == 0);
        assert_se(strv_length(props) == 8); /* OwnerCmdline, Vendor, Model, Serial; no Enabled */
        assert_streq(props[0], "OwnerCmdline");
        assert_streq(props[2], "Vendor");
        assert_streq(props[3], "Fixture Vendor");
        assert_streq(props[7], "SN-0001");
        assert_se(!strv_contains(props, "Enabled"));
        props = strv_free(props);
        assert_se(store_device_get_properties(s, "cups-Fixture-Printer", &props) == 0);
        assert_se(strv_contains(props, "Kind") && strv_contains(props, "printer"));
        props = strv_free(props);
        assert_se(store_device_get_properties(s, "xrandr-Fixture-Gone", &props) == -ENOENT);
        assert_se(store_device_get_properties(s, "sane-Fixture-Scanner", &props) == -ENOENT);

        bool e = true;
        assert_se(store_device_get_enabled(s, "xrandr-Fixture-Display", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "sane-Fixture-Scanner", STORE_LAYER_SYSTEM, &e) == 0 && !e);
        assert_se(store_device_get_enabled(s, "cups-Fixture-Printer", STORE_LAYER_SYSTEM, &e) == -ENOENT);

        _cleanup_free_ char *t = NULL;
        assert_se(store_profile_title_get(s, srgb, 0, &t) == 0);
        assert_streq(t, "sRGB for root");
        t = mfree(t);
        assert_se(store_profile_title_get(s, srgb, 104, &t) == 0);
        assert_streq(t, "sRGB für colord");
        t = mfree(t);
        assert_se(store_profile_title_get(s, adobe, 104, &t) == 0);
        assert_streq(t, "ours");
        t = mfree(t);

        _cleanup_free_ char *note = NULL;
        assert_se(store_info_get(s, "colord-import", &note) == 0);
        assert_se(strstr(note, "4 mappings, 2 devices"));
        s = store_free(s);

        /* Recorded across a restart too, and colord's files were not touched. */
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 0);
        s = store_free(s);
        sha_of(map, after);
        assert_streq(after, map_sum);
        sha_of(sto, after);
        assert_streq(after, sto_sum);
        rm_rf(dir);

        /* No colord at all: recorded as done, nothing imported. */
        dir = mfree(dir);
        dir = make_temp_dir();
        assert_se(store_open(dir, &s) == 0);
        assert_se(store_import_colord(s, "/nonexistent/colord") == 1);
        assert_se(store_import_colord(s, "/nonexistent/colord") == 0);
        s = store_free(s);
        rm_rf(dir);
}

/* Files shaped like older colord versions: only the legacy mappings table, with and without
 * its timestamp column, and a damaged storage.db. */
static void test_colord_import_legacy(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *cdir = path_in(dir, "colord"), *state = path_in(dir, "state");
        assert_se(mkdir(cdir, 0755) == 0);
        _cleanup_free_ char *map = path_in(cdir, "mapping.db"), *sto = path_in(cdir, "storage.db");
        raw_exec(map,
                 "CREATE TABLE mappings (device TEXT, profile TEXT);"
                 "INSERT INTO mappings VALUES ('old-dev', 'old-icc');"
                 "INSERT INTO mappings VALUES ('old-dev', 'old-icc');"
                 "INSERT INTO mappings VALUES (NULL, 'x');"
                 "INSERT INTO mappings VALUES ('bad-utf8', CAST(X'ff' AS TEXT));");
        raw_exec(sto, "CREATE TABLE t (x);");
        damage_file(sto, DAMAGE_TEXT);

        Store *s = NULL;
        assert_se(store_open(state, &s) == 0);
        assert_se(store_import_colord(s, cdir) == 1);
        uint64_t ts;
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "old-dev", "old-icc", &ts) == 0 && ts == 1);
        StoreMapping *m = NULL;
        size_t n = 0;
        assert_se(store_mapping_profiles_for_device(s, STORE_LAYER_SYSTEM, "bad-utf8", &m, &n) == 0 && n == 0);
        _cleanup_free_ char *note = NULL;
        assert_se(store_info_get(s, "colord-import", &note) == 0);
        assert_se(strstr(note, "1 mappings") && strstr(note, "2 rows skipped"));
        s = store_free(s);
        rm_rf(state);

        unlink(map);
        unlink(sto);
        raw_exec(map,
                 "CREATE TABLE mappings (timestamp INTEGER DEFAULT 0, device TEXT, profile TEXT);"
                 "CREATE TABLE mappings_v2 (timestamp INTEGER DEFAULT 0, device TEXT, profile TEXT,"
                 "                          PRIMARY KEY (device, profile));"
                 "INSERT INTO mappings_v2 VALUES (500, 'd', 'p');"
                 "INSERT INTO mappings VALUES (900, 'd', 'p');"   /* v2 wins */
                 "INSERT INTO mappings VALUES (10, 'd', 'q');"
                 "INSERT INTO mappings VALUES (20, 'd', 'q');");  /* newest legacy wins */
        assert_se(store_open(state, &s) == 0);
        assert_se(store_import_colord(s, cdir) == 1);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "p", &ts) == 0 && ts == 500);
        assert_se(store_mapping_get(s, STORE_LAYER_SYSTEM, "d", "q", &ts) == 0 && ts == 20);
        s = store_free(s);
        rm_rf(dir);
}

static char *export_to_string(Store *s) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        assert_se(f);
        assert_se(store_export_json(s, f) == 0);
        fclose(f);
        return buf;
}

static void test_json_roundtrip(void) {
        _cleanup_free_ char *dir = make_temp_dir();
        _cleanup_free_ char *a = path_in(dir, "a"), *b = path_in(dir, "b");
        Store *s = NULL;
        assert_se(store_open(a, &s) == 0);
        populate(s);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 1);
        _cleanup_free_ char *first = export_to_string(s);
        s = store_free(s);

        assert_se(store_open(b, &s) == 0);
        _cleanup_free_ char *err = NULL;
        assert_se(store_import_json(s, first, strlen(first), &err) == 0);
        check_populated(s);
        _cleanup_free_ char *second = export_to_string(s);
        assert_streq(first, second);
        assert_se(store_import_colord(s, COLORD_FIXTURES) == 0); /* the record came along */

        /* Import replaces: a second import of the same document gives the same store. */
        assert_se(store_device_add(s, "extra") == 0);
        assert_se(store_import_json(s, first, strlen(first), &err) == 0);
        _cleanup_free_ char *third = export_to_string(s);
        assert_streq(first, third);

        /* Bad documents change nothing and say why. */
        static const char *const bad[] = {
                "",
                "{",
                "[]",
                "{\"format\": \"tinct-store\", \"version\": 1}",
                "{\"format\": \"other\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 3, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": \"abc\"}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": \"AB\"}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": 12}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": -1, \"properties\": {}, \"data\": null}]}",
                "{\"format\": \"tinct-store\", \"version\": 2, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"disk_profiles\": [{\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": null}, {\"id\": \"p\", \"owner\": 0, \"properties\": {}, \"data\": null}]}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [], \"x\": 1}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {}}, {\"id\": \"a\", \"properties\": {}}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {\"Enabled\": \"False\"}}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {}, \"owner\": -1}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [{\"id\": \"a\", \"properties\": {}, \"owner\": \"1000\"}], \"enabled\": [], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": -1}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1.5}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1}, {\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 2}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1, \"owner\": -1}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1, \"owner\": \"1000\"}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [{\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 1, \"owner\": 1000}, {\"device\": \"d\", \"profile\": \"p\", \"timestamp\": 2, \"owner\": 1000}], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": [{\"profile\": \"p\", \"uid\": 4294967295, \"title\": \"t\"}]}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [{\"device\": \"d\", \"enabled\": \"yes\"}], \"mappings\": [], \"titles\": []}",
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], \"mappings\": [], \"titles\": []} x",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                err = mfree(err);
                assert_se(store_import_json(s, bad[i], strlen(bad[i]), &err) == -EBADMSG);
                assert_se(err && *err);
                fprintf(stderr, "  rejected as expected: %s\n", err);
                _cleanup_free_ char *now = export_to_string(s);
                assert_streq(now, first);
        }
        /* The minimal valid document (version 1, older builds wrote it) empties the store. */
        static const char empty[] =
                "{\"format\": \"tinct-store\", \"version\": 1, \"info\": {}, \"devices\": [], \"enabled\": [], "
                "\"mappings\": [], \"titles\": []}";
        assert_se(store_import_json(s, empty, strlen(empty), &err) == 0);
        _cleanup_strv_free_ char **ids = NULL;
        assert_se(store_device_list(s, &ids) == 0 && !ids[0]);
        StoreDiskProfile *dp = NULL;
        size_t dn = 9;
        assert_se(store_disk_profile_list(s, &dp, &dn) == 0 && dn == 0);
        store_disk_profiles_free(dp, dn);
        s = store_free(s);
        rm_rf(dir);
}

static void test_json_parser(void) {
        static const char *const good[] = {
                "0", "-0", "1e5", "-1.25E-3", "true", "null", "\"\"", " [ ] ", "{}",
                "\"\\u00fc\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"ü😀\"", "[1, [2, {\"a\": [3]}]]",
        };
        static const char *const bad[] = {
                "", " ", "01", "1.", ".5", "-", "1e", "+1", "[1,]", "{\"a\":1,}", "{a:1}", "[1 2]",
                "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"",
                "\"a\tb\"", "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
                "\"unterminated", "{\"a\": 1, \"a\": 2}", "tru", "nul", "[1] [2]", "\xef\xbb\xbf{}",
                "// comment\n{}", "NaN", "Infinity",
        };
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                JsonValue *v = NULL;
                char *err = NULL;
                if (json_parse(good[i], strlen(good[i]), &v, &err) < 0) {
                        fprintf(stderr, "refused good JSON %s: %s\n", good[i], err);
                        abort();
                }
                json_value_free(v);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                JsonValue *v = NULL;
                char *err = NULL;
                if (json_parse(bad[i], strlen(bad[i]), &v, &err) != -EBADMSG) {
                        fprintf(stderr, "accepted bad JSON %s\n", bad[i]);
                        abort();
                }
                assert_se(err);
                free(err);
        }
        /* an embedded NUL byte in the input is not whitespace */
        JsonValue *v = NULL;
        char *err = NULL;
        assert_se(json_parse("[1]\0", 4, &v, &err) == -EBADMSG);
        free(err);

        /* depth bound */
        char deep[2 * JSON_MAX_DEPTH + 8];
        size_t k = 0;
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
                deep[k++] = '[';
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
                deep[k++] = ']';
        assert_se(json_parse(deep, k, &v, &err) == -EBADMSG);
        assert_se(strstr(err, "nested"));
        free(err);
        assert_se(json_parse(deep + 1, k - 2, &v, NULL) == 0);
        json_value_free(v);

        /* escapes decode to the right bytes */
        static const char esc[] = "\"\\u00fc\\ud83d\\ude00\"";
        assert_se(json_parse(esc, strlen(esc), &v, NULL) == 0);
        assert_streq(v->text, "ü😀");
        json_value_free(v);

        int64_t x;
        assert_se(json_parse("9223372036854775807", 19, &v, NULL) == 0);
        assert_se(json_value_get_int64(v, &x) == 0 && x == INT64_MAX);
        json_value_free(v);
        assert_se(json_parse("9223372036854775808", 19, &v, NULL) == 0);
        assert_se(json_value_get_int64(v, &x) == -ERANGE);
        json_value_free(v);

        /* writer: escaping */
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        JsonWriter w;
        json_writer_init(&w, f);
        json_write_begin_object(&w);
        json_write_key(&w, "k\"");
        json_write_string(&w, "a\x01\n\\ü");
        json_write_end_object(&w);
        assert_se(json_writer_finish(&w) == 0);
        fclose(f);
        assert_streq(buf, "{\n  \"k\\\"\": \"a\\u0001\\n\\\\ü\"\n}\n");
        free(buf);
        /* refusing invalid UTF-8: test-shared.c */
}

int main(void) {
        log_set_max_level(getenv("TEST_VERBOSE") ? LOG_DEBUG : LOG_INFO);
        test_colord_import();
        test_colord_import_legacy();
        test_json_parser();
        test_json_roundtrip();
        return 0;
}
