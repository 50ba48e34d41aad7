/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After start-up the daemon parses nothing while its loop waits (docs/sandbox.md, "Who
 * waits"): every parse goes to the parser processes asynchronously. The daemon logs one
 * debug line, "The loop waits for the parser", for each parse its loop waits for
 * (src/sandbox/parser.c); the test counts them in its --verbose log.
 *  - Warnings, which the start-up scan leaves out: 64 profiles in the profile directory, each
 *    one's Warnings read over the bus right after start-up (the last ones first, before the
 *    background pass gets to them), and a GetAll. Every read is answered, with the right
 *    warnings for the profiles whose warnings are known (krita's PQ profile: scum-dot and
 *    whitepoint-invalid; Ghostscript's esRGB: scum-dot; Bluish: none), and the log has no new
 *    line: a read waited for its own parse, in a parser process, and the loop for none.
 *  - A Warnings read that starts the parse itself, of a profile whose file went (a symlink
 *    from a second profile directory, its target removed: no event in the watched
 *    directory), before the background pass got to it: the parse cannot start, and the call is
 *    answered once, as a monitor of the bus sees (it was dispatched a second time too, and its
 *    second reply refused by the bus). Should the pass get there first, the read finds the
 *    warnings known: the test then shows nothing, but never fails.
 * The vendor profiles of a printer are covered by tests/compat/test-cups-parse.py (a printer
 * whose profile hangs the parser delays no client). */
#include <dirent.h>
#include <strings.h>

#include "bus-test.h"
#include "profile-files.h"

#define WAITS "The loop waits for the parser"
#define N_PROFILES 64

static const char *const krita = "krita-data--ITUR_2100_PQ_FULL.ICC", *const esrgb = "libgs-common--esrgb.icc",
                         *const bluish = "colord-data--Bluish.icc";

static int by_name(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The three above and the first others of the corpus, by name: N_PROFILES files. */
static char **corpus_profiles(void) {
        _cleanup_free_ char *any = harness_corpus_file(bluish);
        *strrchr(any, '/') = 0;
        DIR *d = opendir(any);
        assert_se(d);
        char **names = NULL;
        for (struct dirent *de; (de = readdir(d));) {
                const char *ext = strrchr(de->d_name, '.');
                if (ext && (strcasecmp(ext, ".icc") == 0 || strcasecmp(ext, ".icm") == 0))
                        assert_se(strv_extend(&names, de->d_name) >= 0);
        }
        closedir(d);
        qsort(names, strv_length(names), sizeof *names, by_name);
        char **files = NULL;
        const char *const first[] = { krita, esrgb, bluish };
        for (size_t i = 0; i < ELEMENTSOF(first) + strv_length(names) && strv_length(files) < N_PROFILES; i++) {
                const char *name = i < ELEMENTSOF(first) ? first[i] : names[i - ELEMENTSOF(first)];
                if (i >= ELEMENTSOF(first) && (streq(name, krita) || streq(name, esrgb) || streq(name, bluish)))
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", any, name);
                assert_se(strv_extend(&files, path) >= 0);
        }
        strv_free(names);
        return files;
}

static void assert_warnings_of(sd_bus *bus, const char *basename, const char *const *want) {
        _cleanup_free_ char *path = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, CM_PATH, CM_IFACE, "FindProfileByFilename", &e, &reply, "s", basename);
        assert_bus_ok(r, &e);
        const char *p;
        assert_se(sd_bus_message_read(reply, "o", &p) > 0);
        _cleanup_strv_free_ char **got = harness_get_strv(bus, p, CM_PROFILE_IFACE, "Warnings", "as");
        assert_se(strv_length(got) == strv_length((char **) want));
        for (size_t i = 0; want[i]; i++)
                assert_streq(got[i], want[i]);
}

static void test_warnings_never_on_the_loop(void) {
        _cleanup_strv_free_ char **files = corpus_profiles();
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const *) files, .daemon_log = true });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        int at_start = harness_daemon_log_count(h, WAITS);

        _cleanup_strv_free_ char **profiles = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        size_t n = strv_length(profiles);
        printf("%zu profiles registered of %d files\n", n, N_PROFILES);
        assert_se(n >= N_PROFILES / 2); /* copies of one profile register once; a few are refused on purpose */
        for (size_t i = n; i-- > 0;) {
                _cleanup_strv_free_ char **w = harness_get_strv(bus, profiles[i], CM_PROFILE_IFACE, "Warnings", "as");
                (void) w;
        }
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *all = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_method(bus, CM_NAME, profiles[0], "org.freedesktop.DBus.Properties", "GetAll", &e, &all,
                                   "s", CM_PROFILE_IFACE);
        assert_bus_ok(r, &e);
        static const char *const krita_w[] = { "scum-dot", "whitepoint-invalid", NULL },
                                 *const esrgb_w[] = { "scum-dot", NULL }, *const none[] = { NULL };
        assert_warnings_of(bus, krita, krita_w);
        assert_warnings_of(bus, esrgb, esrgb_w);
        assert_warnings_of(bus, bluish, none);
        int after = harness_daemon_log_count(h, WAITS);
        printf("%zu profiles' Warnings read; parses the loop waited for: %d at start-up, %d after\n", n, at_start,
               after - at_start);
        assert_se(after == at_start);
        harness_assert_alive(h);
}

/* What a monitor of the bus sees the daemon send: replies to the call of cookie `cookie` (the
 * bus drops a second one, unasked for, before the caller: only a monitor sees it), until the
 * reply to the call of cookie `last`. */
typedef struct Replies {
        const char *to;
        uint64_t cookie, last;
        unsigned n;
        bool last_seen;
} Replies;

static int count_replies(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Replies *r = userdata;
        uint64_t c;
        if (sd_bus_message_get_reply_cookie(m, &c) >= 0 && streq_ptr(sd_bus_message_get_destination(m), r->to)) {
                r->n += c == r->cookie;
                r->last_seen |= c == r->last;
        }
        return 1; /* taken: a monitor must not answer the calls it sees */
}

static sd_bus *monitor(Harness *h) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *mon = harness_connect(h);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_method(mon, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                   "org.freedesktop.DBus.Monitoring", "BecomeMonitor", &e, NULL, "asu", 0, 0);
        assert_bus_ok(r, &e);
        return TAKE_PTR(mon);
}

static void test_warnings_of_a_vanished_file(void) {
        _cleanup_strv_free_ char **files = corpus_profiles();
        char dir[] = "/tmp/tinct-no-stall-XXXXXX";
        assert_se(mkdtemp(dir));
        _cleanup_free_ char *watched = xasprintf("%s/watched", dir), *target = xasprintf("%s/target.icc", dir),
                            *link = xasprintf("%s/zz-vanishing.icc", watched);
        assert_se(mkdir(watched, 0755) == 0);
        /* not among corpus_profiles(): a copy of one of those would register once, as that */
        _cleanup_free_ char *src = harness_corpus_file("scribus-data--ISOcoated_v2_300_bas.icc");
        size_t n;
        _cleanup_free_ uint8_t *data = pf_read(src, &n);
        pf_write_atomic(dir, "target.icc", data, n);
        assert_se(symlink(target, link) == 0);
        /* After the harness's directory: the last profile the background pass gets to. */
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const *) files,
                .extra_args = (const char *const[]) { "--profile-dir", watched, NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *mon = monitor(h);
        Replies replies = { 0 };
        assert_se(sd_bus_get_unique_name(bus, &replies.to) >= 0);
        assert_se(sd_bus_add_filter(mon, NULL, count_replies, &replies) >= 0);
        _cleanup_free_ char *path = find_by(bus, "FindProfileByFilename", "zz-vanishing.icc", NULL);
        assert_se(path);
        assert_se(unlink(target) == 0);

        _cleanup_(sd_bus_message_unrefp) sd_bus_message *get = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_se(sd_bus_message_new_method_call(bus, &get, CM_NAME, path, "org.freedesktop.DBus.Properties", "Get") >=
                  0);
        assert_se(sd_bus_message_append(get, "ss", CM_PROFILE_IFACE, "Warnings") >= 0);
        int r = sd_bus_call(bus, get, HARNESS_CALL_TIMEOUT_USEC, &e, &reply);
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_get_cookie(get, &replies.cookie) >= 0);
        _cleanup_strv_free_ char **w = NULL;
        assert_se(sd_bus_message_enter_container(reply, 'v', "as") > 0);
        assert_se(sd_bus_message_read_strv(reply, &w) >= 0); /* none, unless the pass read it first */
        /* A later call of the same client is answered after anything the daemon sent for the
         * first (its calls are dispatched in order, bus-order.h). */
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *ping = NULL;
        assert_se(sd_bus_message_new_method_call(bus, &ping, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping") >=
                  0);
        r = sd_bus_call(bus, ping, HARNESS_CALL_TIMEOUT_USEC, &e, NULL);
        assert_bus_ok(r, &e);
        assert_se(sd_bus_message_get_cookie(ping, &replies.last) >= 0);
        while (!replies.last_seen) {
                r = sd_bus_process(mon, NULL);
                assert_se(r >= 0);
                if (r == 0)
                        assert_se(sd_bus_wait(mon, UINT64_MAX) >= 0);
        }
        printf("replies the daemon sent to one Warnings read: %u\n", replies.n);
        assert_se(replies.n == 1);
        harness_assert_alive(h);
        assert_se(unlink(link) == 0 && rmdir(watched) == 0 && rmdir(dir) == 0);
}

int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        RUN(test_warnings_never_on_the_loop);
        RUN(test_warnings_of_a_vanished_file);
        printf("test-no-stall: ok\n");
        return 0;
}
