/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of the parser sandbox (docs/sandbox.md): ICC bytes from clients and from the
 * profile directory are parsed in tinct-parse, so a parser that crashes, hangs, breaks out
 * of its allow-list or lies in its reply costs one rejected profile and never the daemon.
 * The misbehaviour is real (abort(), an endless loop, execv, fopen, a forged reply),
 * triggered by payloads that only development builds recognise (meson option
 * parser_test_hooks); without them the test is skipped.
 *  - Each of those, through CreateProfileWithFd: Profile.FailedToRead naming what happened,
 *    no object left, and the next valid profile loads (the process was replaced).
 *  - A profile directory holding a crashing file at start: the valid files beside it are
 *    all there and the daemon serves calls.
 *  - Hangs end at --parse-timeout (2 s here); a valid profile after that loads. */
#include <fcntl.h>
#include <sys/mman.h>

#include "bus-test.h"

#define SRGB "colord-data--sRGB.icc"
#define ADOBE "colord-data--AdobeRGB1998.icc"

static int memfd_with(const void *data, size_t len) {
        int fd = memfd_create("tinct-sandbox-test", MFD_CLOEXEC);
        assert_se(fd >= 0);
        assert_se(write(fd, data, len) == (ssize_t) len);
        return fd;
}

/* A file that looks like an ICC profile (size, "acsp") but starts with the hook word. */
static size_t hook_bytes(const char *word, uint8_t buf[256]) {
        memset(buf, 0, 256);
        snprintf((char *) buf, 36, "TINCT-TEST:%s", word);
        memcpy(buf + 36, "acsp", 4);
        return 256;
}

static void expect_rejected(sd_bus *bus, const char *word, const char *want_in_message) {
        uint8_t buf[256];
        size_t n = hook_bytes(word, buf);
        _cleanup_close_ int fd = memfd_with(buf, n);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *id = xasprintf("sandbox-%s", word);
        int r;
        _cleanup_free_ char *p = harness_create_profile_fd(bus, id, "temp", fd, NO_KV, &e, &r);
        if (r >= 0 || !streq_ptr(e.name, CM_PROFILE_ERR "FailedToRead") || !strstr(strempty(e.message), want_in_message)) {
                fprintf(stderr, "%s: expected FailedToRead mentioning \"%s\", got %s (%s)\n", word, want_in_message,
                        r >= 0 ? "success" : e.name, strempty(e.message));
                abort();
        }
        printf("%s: %s\n", word, e.message);
        assert_find_error(bus, "FindProfileById", id, CM_ERR "NotFound");
}

/* A valid profile still loads: the parser process was replaced. */
static void expect_valid_loads(Harness *h, sd_bus *bus, const char *name) {
        _cleanup_free_ char *file = harness_corpus_file(name);
        _cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *id = xasprintf("sandbox-valid-%s", name);
        _cleanup_free_ char *p = harness_create_profile_fd(bus, id, "temp", fd, NO_KV, &e, &r);
        assert_bus_ok(r, &e);
        _cleanup_free_ char *title = harness_get_string(bus, p, CM_PROFILE_IFACE, "Title");
        assert_se(title && title[0]);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
        harness_assert_alive(h);
}

static void test_misbehaving_parser(Harness *h, sd_bus *bus) {
        static const struct {
                const char *word, *message;
        } cases[] = {
                { "crash", "was killed by signal 6" },      /* SIGABRT */
                { "exec", "was killed by signal 31" },      /* SIGSYS: execve is not on the list */
                { "open", "open refused" },             /* no filesystem: EACCES, no crash */
                { "garbage", "invalid reply" },         /* a forged reply does not validate */
                { "hang", "took longer than 2.0 s" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                expect_rejected(bus, cases[i].word, cases[i].message);
                expect_valid_loads(h, bus, i % 2 ? SRGB : ADOBE);
        }
}

static void test_crashing_file_at_start(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB), *adobe = harness_corpus_file(ADOBE);
        char tmpl[] = "/tmp/tinct-sandbox-XXXXXX";
        assert_se(mkdtemp(tmpl));
        /* Named to sort first: the start-up batch pipelines a valid file behind it in the same
         * process, which must go to another process when this one dies. */
        _cleanup_free_ char *bad = xasprintf("%s/a-crash.icc", tmpl);
        uint8_t buf[256];
        size_t n = hook_bytes("crash", buf);
        _cleanup_close_ int fd = open(bad, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_se(fd >= 0 && write(fd, buf, n) == (ssize_t) n);

        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb, bad, adobe, NULL },
                .extra_args = (const char *const[]) { "--parse-timeout", "2", NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_strv_free_ char **profiles = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        size_t with_file = 0;
        for (char **p = profiles; p && *p; p++) {
                _cleanup_free_ char *f = harness_get_string(bus, *p, CM_PROFILE_IFACE, "Filename");
                assert_se(!strstr(strempty(f), "crash.icc"));
                if (f && (strstr(f, SRGB) || strstr(f, ADOBE)))
                        with_file++;
        }
        assert_se(with_file == 2);
        harness_assert_alive(h);
        unlink(bad);
        rmdir(tmpl);
}

int main(void) {
#ifndef TINCT_PARSER_TEST_HOOKS
        fprintf(stderr, "built without parser_test_hooks; skipping\n");
        return 77;
#endif
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord")) {
                fprintf(stderr, "colord parses in its own process; nothing to test\n");
                return 77;
        }
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .extra_args = (const char *const[]) { "--parse-timeout", "2", NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        RUN(test_misbehaving_parser, h, bus);
        h = harness_stop(h);
        RUN(test_crashing_file_at_start);
        return 0;
}
