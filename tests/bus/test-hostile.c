/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of hostile ICC files (issue 19, "A file that freezes everyone"), built here at run
 * time: an sRGB profile whose 'meta' dict has 80 000 distinct keys (1.4 MB; its quadratic
 * duplicate-key check held the daemon for the whole parse timeout), and 60 MiB sparse files
 * (once read whole and sent to the parser).
 *  - As nobody, CreateProfileWithFd (temp, no polkit) with the 80 000-key file: refused with
 *    FailedToRead naming the 128-entry cap, nothing left behind; another client is served.
 *  - A 60 MiB sparse file through CreateProfileWithFd: refused from its size (FailedToRead,
 *    "larger than").
 *  - A start-up with three 80 000-key files and twenty sparse files in the profile directory:
 *    the valid profile beside them is there, none of them is, the daemon serves calls.
 * Not covered here (not done yet): that a slow parse no longer blocks other clients (the
 * parser is still called synchronously) and a cache of failed files. */
#include <fcntl.h>
#include <lcms2.h>
#include <sys/mman.h>
#include <wchar.h>

#include "bus-test.h"

#define SRGB "colord-data--sRGB.icc"
#define SPARSE_SIZE (60 * 1024 * 1024)

static int memfd_with(const void *data, size_t len) {
        int fd = memfd_create("tinct-hostile-test", MFD_CLOEXEC);
        assert_se(fd >= 0);
        assert_se(write(fd, data, len) == (ssize_t) len);
        return fd;
}

/* The hostile profile: sRGB with a description and n distinct meta keys. */
static uint8_t *many_keys_profile(size_t n, size_t *ret_size) {
        cmsHPROFILE h = cmsCreate_sRGBProfile();
        assert_se(h);
        cmsMLU *mlu = cmsMLUalloc(NULL, 1);
        assert_se(mlu && cmsMLUsetASCII(mlu, "en", "US", "hostile meta"));
        assert_se(cmsWriteTag(h, cmsSigProfileDescriptionTag, mlu));
        cmsMLUfree(mlu);
        cmsHANDLE dict = cmsDictAlloc(NULL);
        assert_se(dict);
        for (size_t i = 0; i < n; i++) {
                wchar_t k[32], v[32];
                swprintf(k, 32, L"key%zu", i);
                swprintf(v, 32, L"value%zu", i);
                assert_se(cmsDictAddEntry(dict, k, v, NULL, NULL));
        }
        assert_se(cmsWriteTag(h, cmsSigMetaTag, dict));
        cmsDictFree(dict);
        cmsUInt32Number size = 0;
        assert_se(cmsSaveProfileToMem(h, NULL, &size) && size > 1000000);
        uint8_t *data = malloc(size);
        assert_se(data && cmsSaveProfileToMem(h, data, &size));
        cmsCloseProfile(h);
        *ret_size = size;
        return data;
}

static int sparse_file(const char *path) {
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_se(fd >= 0);
        /* an ICC-looking head, then a hole to 60 MiB */
        uint8_t head[132] = { 0 };
        memcpy(head + 36, "acsp", 4);
        assert_se(write(fd, head, sizeof head) == (ssize_t) sizeof head);
        assert_se(ftruncate(fd, SPARSE_SIZE) == 0);
        return fd;
}

typedef struct Hostile {
        int many_keys_fd, sparse_fd;
} Hostile;

static void expect_failed_to_read(sd_bus *bus, const char *id, int fd, const char *want) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *p = harness_create_profile_fd(bus, id, "temp", fd, NO_KV, &e, &r);
        if (r >= 0 || !streq_ptr(e.name, CM_PROFILE_ERR "FailedToRead") || !strstr(strempty(e.message), want)) {
                fprintf(stderr, "%s: expected FailedToRead mentioning \"%s\", got %s (%s)\n", id, want,
                        r >= 0 ? "success" : e.name, strempty(e.message));
                abort();
        }
        printf("%s: %s\n", id, e.message);
        assert_find_error(bus, "FindProfileById", id, CM_ERR "NotFound");
}

static int as_nobody(sd_bus *bus, void *userdata) {
        Hostile *hf = userdata;
        expect_failed_to_read(bus, "hostile-many-keys", hf->many_keys_fd, "more than 128");
        expect_failed_to_read(bus, "hostile-sparse", hf->sparse_fd, "larger than");
        return 0;
}

static void test_hostile_fd(Harness *h, sd_bus *bus, const char *dir) {
        size_t size;
        _cleanup_free_ uint8_t *data = many_keys_profile(80000, &size);
        _cleanup_free_ char *sparse = xasprintf("%s/sparse.icc", dir);
        Hostile hf = { .many_keys_fd = memfd_with(data, size), .sparse_fd = sparse_file(sparse) };
        assert_se(harness_run_as_nobody(h, as_nobody, &hf) == 0);
        close(hf.many_keys_fd);
        close(hf.sparse_fd);
        unlink(sparse);
        /* another client is answered, and the daemon is whole */
        _cleanup_strv_free_ char **profiles = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_se(profiles);
        harness_assert_alive(h);
}

/* The files are written into the running daemon's profile directory (its rescan meets
 * them), then the daemon is restarted: its start-up scan meets them again. */
static void test_hostile_dir_at_start(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB);
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb, NULL } });
        const char *dir = harness_profile_dir(h);
        size_t size;
        _cleanup_free_ uint8_t *data = many_keys_profile(80000, &size);
        for (int i = 0; i < 3; i++) {
                _cleanup_free_ char *path = xasprintf("%s/many-keys-%d.icc", dir, i);
                _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                /* distinct bytes per file, so none is a duplicate of another */
                data[size - 1] = (uint8_t) i;
                assert_se(fd >= 0 && write(fd, data, size) == (ssize_t) size);
        }
        for (int i = 0; i < 20; i++) {
                _cleanup_free_ char *path = xasprintf("%s/sparse-%d.icc", dir, i);
                close(sparse_file(path));
        }
        assert_se(harness_restart_daemon(h) >= 0);

        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        _cleanup_strv_free_ char **profiles = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        size_t valid = 0;
        for (char **p = profiles; p && *p; p++) {
                _cleanup_free_ char *f = harness_get_string(bus, *p, CM_PROFILE_IFACE, "Filename");
                assert_se(!strstr(strempty(f), "many-keys") && !strstr(strempty(f), "sparse"));
                if (f && strstr(f, SRGB))
                        valid++;
        }
        assert_se(valid == 1);
        harness_assert_alive(h);
}

int main(void) {
        char tmpl[] = "/tmp/tinct-hostile-XXXXXX";
        assert_se(mkdtemp(tmpl));
        {
                _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                test_hostile_fd(h, bus, tmpl);
        }
        test_hostile_dir_at_start();
        rmdir(tmpl);
        printf("test-hostile: ok\n");
        return 0;
}
