/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of bad input (colord §1.4, §2.2, §3.3, §4.2, §16.5): wrong signatures sent by
 * hand (InvalidArgs), unknown methods, interfaces and properties, read-only properties,
 * over-long keys and values, a huge id, CreateProfile with a missing Filename, an fd
 * that is a pipe, fds of non-ICC or broken ICC data, and no ghost object after any of
 * them. The daemon must answer everything and stay alive. */

#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "bus-test.h"

/* Sends member with a hand-built body of the given signature. */
static int call_raw(sd_bus *bus, const char *path, const char *iface, const char *member, sd_bus_error *error,
                    const char *types, ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;

        assert_se(sd_bus_message_new_method_call(bus, &m, CM_NAME, path, iface, member) >= 0);
        if (types) {
                va_start(ap, types);
                assert_se(sd_bus_message_appendv(m, types, ap) >= 0);
                va_end(ap);
        }
        return sd_bus_call(bus, m, HARNESS_CALL_TIMEOUT_USEC, error, NULL);
}

#define INVALID_ARGS "org.freedesktop.DBus.Error.InvalidArgs"

static void test_wrong_signatures(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "err-dev", "temp", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "err-prof", "temp", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

#define EXPECT_INVALID(expr)                                  \
        do {                                                  \
                r = (expr);                                   \
                assert_bus_error(r, &e, INVALID_ARGS);        \
                sd_bus_error_free(&e);                        \
        } while (0)

        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "CreateDevice", &e, "s", "x"));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "CreateDevice", &e, "sss", "x", "temp", "Kind"));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "CreateDevice", &e, NULL));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", &e, "i", 3));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "GetDevicesByKind", &e, "ss", "display", "x"));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "FindDeviceById", &e, "o", "/x"));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "DeleteDevice", &e, "s", d));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "CreateProfile", &e, "ssa{sv}", "x", "temp", 0));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "CreateProfileWithFd", &e, "ssa{ss}", "x", "temp", 0));
        EXPECT_INVALID(call_raw(bus, CM_PATH, CM_IFACE, "GetDevices", &e, "s", "extra"));
        EXPECT_INVALID(call_raw(bus, d, CM_DEVICE_IFACE, "AddProfile", &e, "ss", "hard", p));
        EXPECT_INVALID(call_raw(bus, d, CM_DEVICE_IFACE, "SetEnabled", &e, "s", "true"));
        EXPECT_INVALID(call_raw(bus, d, CM_DEVICE_IFACE, "SetProperty", &e, "s", "Model"));
        EXPECT_INVALID(call_raw(bus, d, CM_DEVICE_IFACE, "GetProfileForQualifiers", &e, "s", "*"));
        EXPECT_INVALID(call_raw(bus, p, CM_PROFILE_IFACE, "SetProperty", &e, "su", "Title", 3));
        r = call_raw(bus, CM_PATH, "org.freedesktop.DBus.Properties", "Get", &e, "s", CM_IFACE);
        if (harness_is_colord(h))
                assert_se(r < 0); /* GDBus answers UnknownMethod here */
        else
                assert_bus_error(r, &e, INVALID_ARGS);
        sd_bus_error_free(&e);
        harness_assert_alive(h);

        /* unknown members, interfaces and properties */
        r = call_raw(bus, CM_PATH, CM_IFACE, "NoSuchMethod", &e, NULL);
        assert_bus_error(r, &e, "org.freedesktop.DBus.Error.UnknownMethod");
        sd_bus_error_free(&e);
        r = call_raw(bus, CM_PATH, "org.freedesktop.ColorManager.Nope", "GetDevices", &e, NULL);
        assert_se(r < 0);
        sd_bus_error_free(&e);
        r = call_raw(bus, d, CM_DEVICE_IFACE, "GetDevices", &e, NULL);  /* manager method on a device */
        assert_se(r < 0);
        sd_bus_error_free(&e);
        r = call_raw(bus, CM_PATH, "org.freedesktop.DBus.Properties", "Get", &e, "ss", CM_IFACE, "NoSuchProperty");
        assert_se(r < 0);
        sd_bus_error_free(&e);
        /* every property is read-only */
        r = call_raw(bus, d, "org.freedesktop.DBus.Properties", "Set", &e, "ssv", CM_DEVICE_IFACE, "Model", "s", "x");
        assert_se(r < 0);
        sd_bus_error_free(&e);
        r = call_raw(bus, CM_PATH, "org.freedesktop.DBus.Properties", "Set", &e, "ssv", CM_IFACE, "DaemonVersion", "s", "x");
        assert_se(r < 0);
        sd_bus_error_free(&e);
        _cleanup_free_ char *model = harness_get_string(bus, d, CM_DEVICE_IFACE, "Model");
        assert_streq(model, "");
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
}

static void test_lengths(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char key[258], value[4098];
        int r;

        memset(key, 'k', sizeof(key));
        memset(value, 'v', sizeof(value));
        key[257] = 0;      /* 257 bytes */
        value[4097] = 0;   /* 4097 bytes */

        _cleanup_free_ char *d1 = harness_create_device(bus, "len-dev1", "temp", "display", KV(key, "x"), &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        if (!harness_is_colord(h)) /* colord leaves a ghost (colord §16.5) */
                assert_find_error(bus, "FindDeviceById", "len-dev1", CM_ERR "NotFound");
        _cleanup_free_ char *d2 = harness_create_device(bus, "len-dev2", "temp", "display", KV("Model", value), &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        if (!harness_is_colord(h)) /* colord leaves a ghost (colord §16.5) */
                assert_find_error(bus, "FindDeviceById", "len-dev2", CM_ERR "NotFound");
        _cleanup_free_ char *d3 = harness_create_device(bus, "len-dev3", "disk", "display", KV("Meta", value), &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        if (!harness_is_colord(h)) /* colord leaves a ghost (colord §16.5) */
                assert_find_error(bus, "FindDeviceById", "len-dev3", CM_ERR "NotFound");

        _cleanup_free_ char *p1 = harness_create_profile(bus, "len-prof1", "temp", KV(key, "x"), &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        _cleanup_free_ char *p2 = harness_create_profile(bus, "len-prof2", "temp", KV("Qualifier", value), &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        if (!harness_is_colord(h)) { /* colord leaves these behind (colord §16.5) */
                assert_find_error(bus, "FindProfileById", "len-prof1", CM_ERR "NotFound");
                assert_find_error(bus, "FindProfileById", "len-prof2", CM_ERR "NotFound");
        }

        /* boundaries are accepted */
        key[256] = 0;
        value[4096] = 0;
        _cleanup_free_ char *ok = harness_must_create_device(bus, "len-ok", "temp", "display", KV(key, value));
        _cleanup_strv_free_ char **md = harness_get_dict(bus, ok, CM_DEVICE_IFACE, "Metadata");
        assert_streq(harness_dict_get(md, key), value);
        _cleanup_free_ char *okp = harness_must_create_profile(bus, "len-okp", "temp", KV(key, value));

        /* profile SetProperty limits and Title rules */
        key[256] = 'k';
        r = harness_call(bus, okp, CM_PROFILE_IFACE, "SetProperty", &e, NULL, "ss", key, "x");
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        value[4096] = 'v';
        r = harness_call(bus, okp, CM_PROFILE_IFACE, "SetProperty", &e, NULL, "ss", "License", value);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        r = harness_call(bus, okp, CM_PROFILE_IFACE, "SetProperty", &e, NULL, "ss", "Title", "ab");
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        _cleanup_free_ char *pt = harness_create_profile(bus, "len-title", "temp", KV("Title", "xy"), &e, &r);
        assert_bus_error(r, &e, CM_ERR "InputInvalid");
        sd_bus_error_free(&e);
        if (!harness_is_colord(h))
                assert_find_error(bus, "FindProfileById", "len-title", CM_ERR "NotFound");

        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", ok);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", okp);
}

static char *id_of_length(size_t n) {
        char *id = malloc(n + 1);
        assert_se(id);
        memset(id, 'x', n);
        id[n] = 0;
        return id;
}

/* Ids are bounded (LIMIT_ID_LEN, 4096 bytes, docs/compatibility.md row 22): the bound itself
 * is accepted, one byte more and a 200 kB id are refused with InputInvalid and leave nothing
 * behind. colord has no bound; against it only "answered, daemon alive" is checked. */
static void test_huge_id(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        if (harness_is_colord(h)) {
                _cleanup_free_ char *id = id_of_length(200000);
                _cleanup_free_ char *d = harness_create_device(bus, id, "temp", "display", NO_KV, &e, &r);
                sd_bus_error_free(&e);
                _cleanup_free_ char *p = harness_create_profile(bus, id, "temp", NO_KV, &e, &r);
                harness_assert_alive(h);
                return;
        }
        _cleanup_free_ char *at_limit = id_of_length(4096);
        _cleanup_free_ char *d = harness_must_create_device(bus, at_limit, "temp", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, at_limit, "temp", NO_KV);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);

        const size_t too_long[] = { 4097, 200000 };
        for (size_t i = 0; i < ELEMENTSOF(too_long); i++) {
                _cleanup_free_ char *id = id_of_length(too_long[i]);
                _cleanup_free_ char *d2 = harness_create_device(bus, id, "temp", "display", NO_KV, &e, &r);
                assert_bus_error(r, &e, CM_ERR "InputInvalid");
                sd_bus_error_free(&e);
                _cleanup_free_ char *p2 = harness_create_profile(bus, id, "temp", NO_KV, &e, &r);
                assert_bus_error(r, &e, CM_ERR "InputInvalid");
                sd_bus_error_free(&e);
                assert_find_error(bus, "FindDeviceById", id, CM_ERR "NotFound");
                assert_find_error(bus, "FindProfileById", id, CM_ERR "NotFound");
        }
        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        for (char **x = devs; x && *x; x++)
                assert_se(!strstr(*x, "xxxxxxxx"));
        harness_assert_alive(h);
}

static void expect_profile_fd_fails(Harness *h, sd_bus *bus, const char *id, int fd) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *p = harness_create_profile_fd(bus, id, "temp", fd, NO_KV, &e, &r);

        if (r >= 0 || !streq_ptr(e.name, CM_PROFILE_ERR "FailedToRead")) {
                fprintf(stderr, "CreateProfileWithFd(%s): expected FailedToRead, got %s (%s)\n", id,
                        r >= 0 ? "success" : e.name, strempty(e.message));
                abort();
        }
        if (!harness_is_colord(h)) {
                /* no ghost: the id is free */
                assert_find_error(bus, "FindProfileById", id, CM_ERR "NotFound");
                _cleanup_free_ char *again = harness_must_create_profile(bus, id, "temp", NO_KV);
                must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", again);
        }
}

static int memfd_with(const void *data, size_t len) {
        int fd = memfd_create("tinct-test", MFD_CLOEXEC);
        assert_se(fd >= 0);
        assert_se(write(fd, data, len) == (ssize_t) len);
        assert_se(lseek(fd, 0, SEEK_SET) == 0);
        return fd;
}

static void test_bad_files(Harness *h, sd_bus *bus) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        /* a Filename the daemon cannot open */
        _cleanup_free_ char *p = harness_create_profile(bus, "bad-nofile", "temp",
                                                        KV("Filename", "/nonexistent/dir/none.icc"), &e, &r);
        assert_bus_error(r, &e, CM_PROFILE_ERR "FailedToRead");
        sd_bus_error_free(&e);
        if (!harness_is_colord(h))
                assert_find_error(bus, "FindProfileById", "bad-nofile", CM_ERR "NotFound");

        /* text, empty, garbage of header size */
        static const char text[] = "This is not an ICC profile at all, just some text.\n";
        _cleanup_close_ int f1 = memfd_with(text, sizeof(text));
        expect_profile_fd_fails(h, bus, "bad-text", f1);
        _cleanup_close_ int f2 = memfd_with("", 0);
        expect_profile_fd_fails(h, bus, "bad-empty", f2);
        char junk[512];
        for (size_t i = 0; i < sizeof(junk); i++)
                junk[i] = (char) (i * 131 + 7);
        _cleanup_close_ int f3 = memfd_with(junk, sizeof(junk));
        expect_profile_fd_fails(h, bus, "bad-junk", f3);

        /* broken ICC files of the corpus */
        static const char *const broken[] = {
                "colord-tests--corrupt-dict.icc",
                "crafted-truncated-header-only-colord-AdobeRGB1998.icc",
                "crafted-bad-magic-iccfree-Gray.icc",
                NULL,
        };
        for (const char *const *b = broken; *b; b++) {
                char id[64];
                snprintf(id, sizeof(id), "bad-corpus-%zu", (size_t) (b - broken));
                _cleanup_free_ char *path = harness_corpus_file(*b);
                _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
                assert_se(fd >= 0);
                fprintf(stderr, "    %s\n", *b);
                expect_profile_fd_fails(h, bus, id, fd);
        }

        /* after all this, a good one still works */
        _cleanup_free_ char *good = harness_corpus_file("colord-tests--ibm-t61.icc");
        _cleanup_close_ int gfd = open(good, O_RDONLY | O_CLOEXEC);
        _cleanup_free_ char *gp = harness_create_profile_fd(bus, "icc-9ace8cce8baac8d492a93a2a232d7702", "temp", gfd,
                                                            KV("Filename", good), &e, &r);
        assert_bus_ok(r, &e);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", gp);

        /* a pipe is no regular file */
        int pipefd[2];
        assert_se(pipe2(pipefd, O_CLOEXEC) == 0);
        assert_se(write(pipefd[1], "acsp", 4) == 4);
        close(pipefd[1]);
        if (!harness_is_colord(h))  /* colord fails to mmap it: FailedToRead as well */
                expect_profile_fd_fails(h, bus, "bad-pipe", pipefd[0]);
        close(pipefd[0]);

        /* a directory as fd */
        _cleanup_close_ int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (!harness_is_colord(h))
                expect_profile_fd_fails(h, bus, "bad-dir", dfd);

        harness_assert_alive(h);
}

static void test_many_metadata(Harness *h, sd_bus *bus) {
        /* a bounded number of metadata entries: beyond the bound an error, never a crash */
        _cleanup_free_ char *d = harness_must_create_device(bus, "many-md", "temp", "display", NO_KV);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int refused = 0;

        for (int i = 0; i < 1000; i++) {
                char k[32];
                snprintf(k, sizeof(k), "key%d", i);
                int r = harness_call(bus, d, CM_DEVICE_IFACE, "SetProperty", &e, NULL, "ss", k, "value");
                if (r < 0) {
                        assert_se(sd_bus_error_is_set(&e));
                        refused++;
                        sd_bus_error_free(&e);
                }
        }
        fprintf(stderr, "    %d of 1000 metadata keys refused\n", refused);
        if (!harness_is_colord(h))
                assert_se(refused > 0); /* tinct bounds metadata entries (design.md) */
        harness_assert_alive(h);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", d);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        RUN(test_wrong_signatures, h, bus);
        RUN(test_lengths, h, bus);
        RUN(test_huge_id, h, bus);
        RUN(test_many_metadata, h, bus);
        RUN(test_bad_files, h, bus);
        harness_assert_alive(h);
        return 0;
}
