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
 *  - Ordering (development builds, whose tinct-parse hangs on purpose on an input that starts
 *    with "TINCT-TEST:hang", docs/sandbox.md): while client A's CreateProfileWithFd hangs in
 *    the parser, client B's GetProfiles and GetDevices and B's CreateProfileWithFd of a valid
 *    profile (another parser process) are all answered, and A still has no answer, neither to
 *    that call nor to its next one; the test then kills the parser processes, and only then
 *    does A get FailedToRead, then the answer to its next call. No timing: A's answer cannot
 *    come before the kill.
 *  - One user's calls waiting for a parse are bounded: of nine, each on its own connection,
 *    one is refused at once.
 *  - A malformed file in the profile directory is parsed once ("Parsing PATH" in the daemon's
 *    --verbose log, one line per file handed to the parser): not again when another profile is
 *    removed (the rescan that once re-parsed every failed file), nor at the next start; once
 *    it changes, it is parsed again.
 *  - The same ordering for a rescan (development builds): while a watched directory's change
 *    waits for a hanging file, GetProfiles is answered and a second change is queued; after
 *    the spinning parser is killed, the valid files of both changes arrive, each once.
 *  - InstallSystemWide (development builds): while every parser process hangs on another
 *    caller's input, it and GetProfiles are answered; the installed copy arrives once the
 *    hung parsers are killed.
 *  - A hung parser ends when its daemon is killed (development builds), although it left
 *    root for nobody: the death signal survives the user drop. */
#include <dirent.h>
#include <fcntl.h>
#include <lcms2.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <wchar.h>

#include "bus-test.h"
#include "parser-procs.h"

#define SRGB "colord-data--sRGB.icc"
#define SPARSE_SIZE (60 * 1024 * 1024)

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

#ifdef TINCT_PARSER_TEST_HOOKS
/* A daemon with one valid profile whose parses only the test ends: the timeout must not
 * end them first. */
static Harness *start_for_hangs(const char *profile) {
        return harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { profile, NULL },
                .extra_args = (const char *const[]) { "--parse-timeout", "3600", NULL } });
}

static void test_slow_parse_delays_only_its_caller(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB);
        _cleanup_free_ char *bluish = harness_corpus_file("colord-data--Bluish.icc");
        _cleanup_harness_ Harness *h = start_for_hangs(srgb);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *a = harness_connect(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = harness_connect(h);

        /* A: a file on which the parser loops for ever */
        uint8_t buf[256];
        hang_input(buf);
        _cleanup_close_ int fd = memfd_with(buf, sizeof buf);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        assert_se(sd_bus_message_new_method_call(a, &call, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd") >= 0);
        assert_se(sd_bus_message_append(call, "ssha{ss}", "hostile-slow", "temp", fd, 0) >= 0);
        Pending pa = { 0 };
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        assert_se(sd_bus_call_async(a, &slot, call, on_reply, &pa, 3600ULL * 1000 * 1000) >= 0);

        /* A's next call waits for A's first (each client's answers come in the order of its
         * calls, src/daemon/registry/bus-order.h); the daemon went on with other clients. */
        Pending pg = { 0 };
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *gslot = NULL;
        assert_se(sd_bus_call_method_async(a, &gslot, CM_NAME, CM_PATH, CM_IFACE, "GetProfiles", on_reply, &pg,
                                           NULL) >= 0);

        /* B is served meanwhile: lookups, and a parse of its own in another process */
        _cleanup_strv_free_ char **profiles = harness_call_strv(b, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_se(strv_length(profiles) == 1);
        _cleanup_strv_free_ char **devices = harness_call_strv(b, CM_PATH, CM_IFACE, "GetDevices", NULL);
        _cleanup_close_ int valid_fd = open(bluish, O_RDONLY | O_CLOEXEC);
        assert_se(valid_fd >= 0);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *valid = harness_create_profile_fd(b, "b-valid", "temp", valid_fd, NO_KV, &e, &r);
        assert_bus_ok(r, &e);
        drain(a);
        assert_se(!pa.done && !pg.done); /* B had every answer before A had its own */
        printf("while A's parse hangs, B got GetProfiles, GetDevices and CreateProfileWithFd\n");

        /* C sends the same and leaves before any answer: its answer goes nowhere, no profile
         * stays behind. */
        {
                sd_bus *c = harness_connect(h);
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *cc = NULL;
                assert_se(sd_bus_message_new_method_call(c, &cc, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd") >= 0);
                assert_se(sd_bus_message_append(cc, "ssha{ss}", "c-gone", "temp", fd, 0) >= 0);
                assert_se(sd_bus_send(c, cc, NULL) >= 0);
                sd_bus_flush_close_unref(c);
        }

        /* Only now does A's parse end: A gets its error, the parser is replaced */
        /* Only the looping one: an idle parser killed too could take A's next request with it
         * before the daemon has seen it die. */
        assert_se(kill(wait_hung_parser(h, b, SIZE_MAX), SIGKILL) == 0);
        while (!pa.done) {
                assert_se(!pg.done); /* not before the call A made first */
                assert_se(sd_bus_wait(a, UINT64_MAX) >= 0);
                drain(a);
        }
        while (!pg.done) {
                assert_se(sd_bus_wait(a, UINT64_MAX) >= 0);
                drain(a);
        }
        assert_se(!pg.error_name);
        printf("A: %s: %s, then its GetProfiles\n", strempty(pa.error_name), strempty(pa.error_message));
        assert_se(streq_ptr(pa.error_name, CM_PROFILE_ERR "FailedToRead"));
        assert_se(strstr(strempty(pa.error_message), "killed by signal 9"));
        assert_find_error(b, "FindProfileById", "hostile-slow", CM_ERR "NotFound");
        assert_find_error(b, "FindProfileById", "c-gone", CM_ERR "NotFound");
        /* and A's next valid profile loads */
        _cleanup_free_ char *adobe = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_close_ int again_fd = open(adobe, O_RDONLY | O_CLOEXEC);
        assert_se(again_fd >= 0);
        sd_bus_error_free(&e);
        _cleanup_free_ char *again = harness_create_profile_fd(a, "a-valid", "temp", again_fd, NO_KV, &e, &r);
        assert_bus_ok(r, &e);
        free(pa.error_name);
        free(pa.error_message);
        harness_assert_alive(h);
}
/* One user's calls waiting for their parse are bounded (LIMIT_PENDING_LOADS_PER_UID, 8): of
 * nine such calls, each on a connection of its own (one connection's calls are answered one
 * after the other), whichever comes last is refused at once, the others are answered when
 * their parses end (the test ends them: each kill answers at least the ones being parsed, the
 * next queued start). */
static void test_pending_loads_bounded(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .extra_args = (const char *const[]) { "--parse-timeout", "3600", NULL } });
        uint8_t buf[256];
        hang_input(buf);
        _cleanup_close_ int fd = memfd_with(buf, sizeof buf);
        sd_bus *conns[9];
        Pending pending[9] = { 0 };
        sd_bus_slot *slots[9] = { 0 };
        for (int i = 0; i < 9; i++) {
                conns[i] = harness_connect(h);
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
                _cleanup_free_ char *id = xasprintf("hang-%d", i);
                assert_se(sd_bus_message_new_method_call(conns[i], &call, CM_NAME, CM_PATH, CM_IFACE,
                                                         "CreateProfileWithFd") >= 0);
                assert_se(sd_bus_message_append(call, "ssha{ss}", id, "temp", fd, 0) >= 0);
                assert_se(sd_bus_call_async(conns[i], &slots[i], call, on_reply, &pending[i], 3600ULL * 1000 * 1000) >= 0);
        }
        /* the first answer: the one refused, the others wait for the kills */
        assert_se(wait_answers(conns, pending, 9) == 1);
        int refused = -1;
        for (int i = 0; i < 9; i++)
                if (pending[i].done)
                        refused = i;
        printf("refused: %s: %s\n", strempty(pending[refused].error_name), strempty(pending[refused].error_message));
        assert_se(strstr(strempty(pending[refused].error_message), "too many profiles being loaded"));

        /* A client's request never shares a process, so each process killed answers exactly
         * one of them; the next ones start as those answers go out. */
        for (int answered = 1, killed = 0; answered < 9;) {
                int k = kill_parsers(harness_daemon_pid(h));
                assert_se(k >= 1);
                killed += k;
                while (answered < killed + 1)
                        answered = wait_answers(conns, pending, 9);
        }
        for (int i = 0; i < 9; i++) {
                if (i != refused)
                        assert_se(streq_ptr(pending[i].error_name, CM_PROFILE_ERR "FailedToRead"));
                free(pending[i].error_name);
                free(pending[i].error_message);
                sd_bus_slot_unref(slots[i]);
                sd_bus_flush_close_unref(conns[i]);
        }
        harness_assert_alive(h);
}

#endif

static void write_bytes(const char *path, const void *data, size_t n) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_se(fd >= 0 && write(fd, data, n) == (ssize_t) n);
}

/* A file that claims to be a profile ("acsp" at 36) and is not one. */
static void write_malformed(const char *path, size_t n) {
        uint8_t buf[512];
        assert_se(n <= sizeof buf);
        memset(buf, 0x5a, sizeof buf);
        memcpy(buf + 36, "acsp", 4);
        write_bytes(path, buf, n);
}

/* The daemon's output goes to its log in this test: a clean exit (0) is what says that
 * sanitizers and valgrind found nothing there; otherwise the log is shown. */
static void assert_clean_exit(Harness *h, int status) {
        if (status == 0)
                return;
        _cleanup_free_ char *path = xasprintf("%s/daemon.log", harness_tmp_dir(h));
        _cleanup_free_ char *cmd = xasprintf("cat '%s' >&2", path);
        fprintf(stderr, "tinctd exited with status %d; its log:\n", status);
        (void) system(cmd);
        abort();
}

static void test_failed_file_not_parsed_again(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB);
        _cleanup_free_ char *bluish = harness_corpus_file("colord-data--Bluish.icc");
        _cleanup_free_ char *adobe = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb, bluish, NULL }, .daemon_log = true });
        const char *dir = harness_profile_dir(h);
        _cleanup_free_ char *bad = xasprintf("%s/malformed.icc", dir);
        _cleanup_free_ char *needle = xasprintf("Parsing %s\n", bad);
        write_malformed(bad, 300);
        /* The running daemon's rescan may meet it first, or the start-up scan: either way it
         * is parsed once. */
        assert_clean_exit(h, harness_restart_daemon(h));
        assert_se(harness_daemon_log_count(h, needle) == 1);

        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                _cleanup_recorder_ Recorder *rec = recorder_new(bus);
                _cleanup_strv_free_ char **profiles = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
                assert_se(strv_length(profiles) == 2);
                /* Removing a profile once re-parsed every file that had failed. */
                _cleanup_free_ char *gone = xasprintf("%s/%s", dir, "colord-data--Bluish.icc");
                assert_se(unlink(gone) == 0);
                recorder_wait(rec, "ProfileRemoved", NULL);
                assert_se(harness_daemon_log_count(h, needle) == 1);
        }
        /* and across a restart */
        assert_clean_exit(h, harness_restart_daemon(h));
        assert_se(harness_daemon_log_count(h, needle) == 1);
        printf("malformed.icc: parsed once across a rescan and a restart\n");

        /* A change makes it a new file: parsed again. The valid profile installed after it
         * tells when the rescan that met the change is done. */
        {
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                _cleanup_recorder_ Recorder *rec = recorder_new(bus);
                write_malformed(bad, 400);
                harness_install_profile(h, adobe, "adobe.icc");
                recorder_wait(rec, "ProfileAdded", NULL);
                assert_se(harness_daemon_log_count(h, needle) == 2);
        }
        harness_assert_alive(h);
        assert_clean_exit(h, harness_stop_daemon(h));
}

#ifdef TINCT_PARSER_TEST_HOOKS
/* Asks b for the profiles until needle is in the daemon's log: each answer is one more
 * proof that the loop serves. Returns the profiles counted at the last answer. */
static size_t profiles_until_logged(Harness *h, sd_bus *b, const char *needle) {
        for (;;) {
                _cleanup_strv_free_ char **profiles = harness_call_strv(b, CM_PATH, CM_IFACE, "GetProfiles", NULL);
                if (harness_daemon_log_count(h, needle) > 0)
                        return strv_length(profiles);
        }
}

/* Issue 19 for rescans: a directory with a file that hangs the parser and two valid
 * profiles is moved into a watched directory (one change). While its parse hangs, another
 * client is served, and a second change (a third valid profile installed) is queued; no
 * ProfileAdded comes yet. Once the hung parser is killed, the valid files of the first change
 * arrive, then the queued one, each once; the hanging file does not. */
static void test_rescan_hang_serves_others(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB);
        _cleanup_free_ char *bluish = harness_corpus_file("colord-data--Bluish.icc");
        _cleanup_free_ char *adobe = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *apple = harness_corpus_file("colord-data--AppleRGB.icc");
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb, NULL }, .daemon_log = true,
                .extra_args = (const char *const[]) { "--parse-timeout", "3600", NULL } });
        const char *dir = harness_profile_dir(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *a = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(a);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = harness_connect(h);

        /* staged outside, then moved in whole: one change names the three files */
        _cleanup_free_ char *stage = xasprintf("%s/stage", harness_tmp_dir(h));
        assert_se(mkdir(stage, 0755) == 0);
        uint8_t buf[256];
        hang_input(buf);
        _cleanup_free_ char *hang = xasprintf("%s/a-hang.icc", stage);
        write_bytes(hang, buf, sizeof buf);
        _cleanup_free_ char *cmd = xasprintf("cp '%s' '%s/b-bluish.icc' && cp '%s' '%s/c-adobe.icc'", bluish, stage,
                                             adobe, stage);
        assert_se(system(cmd) == 0);
        _cleanup_free_ char *moved = xasprintf("%s/new", dir);
        assert_se(rename(stage, moved) == 0);

        _cleanup_free_ char *parsing = xasprintf("Parsing %s/a-hang.icc\n", moved);
        assert_se(profiles_until_logged(h, b, parsing) == 1);
        /* a second change while the first one's parse hangs: queued */
        harness_install_profile(h, apple, "d-apple.icc");
        assert_se(profiles_until_logged(h, b, "queued behind it") == 1);
        _cleanup_strv_free_ char **devices = harness_call_strv(b, CM_PATH, CM_IFACE, "GetDevices", NULL);
        recorder_reset(rec); /* dispatches what came: nothing was added */
        printf("while a rescan's parse hangs, B got GetProfiles and GetDevices, a second change was queued\n");

        assert_se(kill(wait_hung_parser(h, b, 1), SIGKILL) == 0);
        for (size_t added = 0, at = 0; added < 3; added++)
                at = recorder_wait_after(rec, at, "ProfileAdded", NULL) + 1;
        /* every one once, the hanging file not at all */
        _cleanup_strv_free_ char **profiles = harness_call_strv(b, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_se(strv_length(profiles) == 4);
        const char *want[] = { "new/b-bluish.icc", "new/c-adobe.icc", "d-apple.icc", SRGB };
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                size_t n = 0;
                for (char **p = profiles; *p; p++) {
                        _cleanup_free_ char *f = harness_get_string(b, *p, CM_PROFILE_IFACE, "Filename");
                        n += f && strstr(f, want[i]) != NULL;
                }
                assert_se(n == 1);
        }
        _cleanup_free_ char *apple_parsing = xasprintf("Parsing %s/d-apple.icc\n", dir);
        assert_se(harness_daemon_log_count(h, apple_parsing) == 1);
        printf("after the hung parser was killed: both valid files of its change, then the queued one\n");
        harness_assert_alive(h);
        assert_clean_exit(h, harness_stop_daemon(h));
}

/* The pool's size (MAX_PROCESSES in src/sandbox/parser-internal.h): this many callers'
 * hanging inputs occupy every parser process, and any further parse waits for one. */
#define PARSER_PROCESSES 4

/* Issue 19 for InstallSystemWide: the copy it writes into the daemon's profile directory is
 * parsed like any change the watcher finds, without waiting. While every parser process
 * hangs on another caller's input, InstallSystemWide is answered, GetProfiles is answered
 * and the copy is not registered yet (its parse cannot start: no process is free, and the
 * pool never queues it behind another caller's input); once the hung parsers are killed,
 * the copy arrives as a new system profile. (The daemon once parsed the copy while the loop
 * waited: with every process hung, no client got an answer until the parse timeout.) */
static void test_install_while_parsers_hang(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB);
        _cleanup_free_ char *bluish = harness_corpus_file("colord-data--Bluish.icc");
        _cleanup_harness_ Harness *h = start_for_hangs(srgb);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = harness_connect(h);
        _cleanup_recorder_ Recorder *rec = recorder_new(b);

        /* B's profile, parsed while the pool is free, to be installed later */
        _cleanup_free_ char *src = xasprintf("%s/to-install.icc", harness_tmp_dir(h));
        _cleanup_free_ char *cmd = xasprintf("cp '%s' '%s'", bluish, src);
        assert_se(system(cmd) == 0);
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;
        _cleanup_free_ char *prof = harness_create_profile(b, "to-install", "normal", KV("Filename", src), &e, &r);
        assert_bus_ok(r, &e);

        /* one hanging input per parser process, each a caller (connection) of its own */
        uint8_t buf[256];
        hang_input(buf);
        _cleanup_close_ int fd = memfd_with(buf, sizeof buf);
        sd_bus *conns[PARSER_PROCESSES];
        Pending pending[PARSER_PROCESSES] = { 0 };
        sd_bus_slot *slots[PARSER_PROCESSES] = { 0 };
        for (int i = 0; i < PARSER_PROCESSES; i++) {
                conns[i] = harness_connect(h);
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
                _cleanup_free_ char *id = xasprintf("hang-%d", i);
                assert_se(sd_bus_message_new_method_call(conns[i], &call, CM_NAME, CM_PATH, CM_IFACE,
                                                         "CreateProfileWithFd") >= 0);
                assert_se(sd_bus_message_append(call, "ssha{ss}", id, "temp", fd, 0) >= 0);
                assert_se(sd_bus_call_async(conns[i], &slots[i], call, on_reply, &pending[i], 3600ULL * 1000 * 1000) >= 0);
        }
        /* every process looping (each says so in the log) */
        pid_t spinning[PARSER_PROCESSES];
        while (hung_parsers(h, spinning, PARSER_PROCESSES) < PARSER_PROCESSES) {
                _cleanup_strv_free_ char **p = harness_call_strv(b, CM_PATH, CM_IFACE, "GetProfiles", NULL);
                assert_se(strv_length(p) == 2);
        }

        /* B installs: answered, and so are B's next calls; the copy waits for a process */
        r = harness_call(b, prof, CM_PROFILE_IFACE, "InstallSystemWide", &e, NULL, NULL);
        assert_bus_ok(r, &e);
        _cleanup_free_ char *installed = xasprintf("%s/icc/to-install.icc", harness_state_dir(h));
        assert_se(access(installed, R_OK) == 0);
        _cleanup_strv_free_ char **profiles = harness_call_strv(b, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_se(strv_length(profiles) == 2);
        assert_find_error(b, "FindProfileByFilename", installed, CM_ERR "NotFound");
        for (int i = 0; i < PARSER_PROCESSES; i++) {
                drain(conns[i]);
                assert_se(!pending[i].done);
        }
        printf("while every parser process hangs, InstallSystemWide and GetProfiles were answered\n");

        /* The hung parsers killed, each holding one of A's calls: A's calls fail, the copy
         * is parsed in a new process (left alone) and arrives. */
        recorder_reset(rec);
        for (int i = 0; i < PARSER_PROCESSES; i++)
                assert_se(kill(spinning[i], SIGKILL) == 0);
        for (int answered = 0; answered < PARSER_PROCESSES;)
                answered = wait_answers(conns, pending, PARSER_PROCESSES);
        size_t at = recorder_wait(rec, "ProfileAdded", NULL);
        const Recorded *added = recorder_get(rec, at);
        _cleanup_free_ char *filename = harness_get_string(b, added->arg0, CM_PROFILE_IFACE, "Filename");
        assert_streq(filename, installed);
        for (int i = 0; i < PARSER_PROCESSES; i++) {
                assert_se(streq_ptr(pending[i].error_name, CM_PROFILE_ERR "FailedToRead"));
                free(pending[i].error_name);
                free(pending[i].error_message);
                sd_bus_slot_unref(slots[i]);
                sd_bus_flush_close_unref(conns[i]);
        }
        printf("after the hung parsers were killed, the installed copy arrived\n");
        harness_assert_alive(h);
}

/* A parser whose daemon dies goes with it, whoever the daemon runs as: here root, which the
 * parser leaves for nobody (the death signal was set before that drop, which clears it, and
 * a hung parser outlived a killed tinctd). The daemon alone is killed, not its process
 * group; the wait is for the parser's exit (its pidfd), not for a time. */
static void test_parser_dies_with_daemon(void) {
        _cleanup_free_ char *srgb = harness_corpus_file(SRGB);
        _cleanup_harness_ Harness *h = start_for_hangs(srgb);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *a = harness_connect(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = harness_connect(h);
        uint8_t buf[256];
        hang_input(buf);
        _cleanup_close_ int fd = memfd_with(buf, sizeof buf);
        assert_se(sd_bus_call_method_async(a, NULL, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd", NULL, NULL,
                                           "ssha{ss}", "hostile-orphan", "temp", fd, 0) >= 0);
        assert_se(sd_bus_flush(a) >= 0);
        pid_t parser = wait_hung_parser(h, b, SIZE_MAX);
        _cleanup_close_ int pidfd = (int) syscall(SYS_pidfd_open, parser, 0);
        assert_se(pidfd >= 0);
        _cleanup_free_ char *status_path = xasprintf("/proc/%d/status", (int) parser);
        _cleanup_free_ char *status = read_proc(status_path);
        assert_se(status && !strstr(status, "\nUid:\t0\t")); /* it left root */

        assert_se(kill(harness_daemon_pid(h), SIGKILL) == 0);
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int n = poll(&p, 1, 60 * 1000); /* a deadline for the failure only */
        if (n == 0)
                fprintf(stderr, "the hung parser %d outlived its killed daemon by a minute\n", (int) parser);
        assert_se(n == 1);
        printf("the hung parser %d ended with its daemon\n", (int) parser);
}
#endif

int main(void) {
        char tmpl[] = "/tmp/tinct-hostile-XXXXXX";
        assert_se(mkdtemp(tmpl));
        {
                _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                test_hostile_fd(h, bus, tmpl);
        }
        test_hostile_dir_at_start();
        test_failed_file_not_parsed_again();
#ifdef TINCT_PARSER_TEST_HOOKS
        test_slow_parse_delays_only_its_caller();
        test_pending_loads_bounded();
        test_rescan_hang_serves_others();
        test_install_while_parsers_hang();
        test_parser_dies_with_daemon();
#else
        printf("ordering test skipped: tinct-parse built without parser_test_hooks\n");
#endif
        rmdir(tmpl);
        printf("test-hostile: ok\n");
        return 0;
}
