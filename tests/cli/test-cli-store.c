/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CLI's offline store verbs against state made by a real daemon run (issue 3):
 * tinct export of that state → tinct import into an empty directory → tinct export again
 * is byte-identical (to a file and to stdout); malformed JSON in many shapes is refused
 * with a message naming the file and saying the store is unchanged, and it changes
 * nothing; an imported state dir serves the daemon: devices, mappings, Enabled and titles
 * come back over the bus. argv[1] is the tinct binary (meson passes it). */

#include <sys/stat.h>
#include <sys/wait.h>

#include "bus-test.h"
#include "profile-files.h"

static const char *tinct;

typedef struct Run {
        int status;
        char *out;
        char *err;
} Run;

static void run_clear(Run *r) {
        free(r->out);
        free(r->err);
}

static char *slurp_fd(int fd) {
        struct stat st;
        assert_se(fstat(fd, &st) == 0);
        char *s = calloc(1, (size_t) st.st_size + 1);
        assert_se(s);
        assert_se(pread(fd, s, (size_t) st.st_size, 0) == st.st_size);
        return s;
}

/* Runs tinct with the given arguments, stdout and stderr to temporary files. */
static Run run_tinct(const char *const *args) {
        char o[] = "/tmp/tinct-cli-out-XXXXXX", e[] = "/tmp/tinct-cli-err-XXXXXX";
        int ofd = mkstemp(o), efd = mkstemp(e);
        assert_se(ofd >= 0 && efd >= 0);
        assert_se(unlink(o) == 0 && unlink(e) == 0);
        const char *argv[16] = { tinct };
        size_t n = 1;
        for (; args[n - 1]; n++) {
                assert_se(n < ELEMENTSOF(argv) - 1);
                argv[n] = args[n - 1];
        }
        fprintf(stderr, "    $");
        for (size_t i = 0; i < n; i++)
                fprintf(stderr, " %s", argv[i]);
        fprintf(stderr, "\n");
        fflush(stderr);
        pid_t pid = fork();
        assert_se(pid >= 0);
        if (pid == 0) {
                signal(SIGABRT, SIG_DFL);
                signal(SIGALRM, SIG_DFL);
                dup2(ofd, STDOUT_FILENO);
                dup2(efd, STDERR_FILENO);
                execv(tinct, (char *const *) argv);
                _exit(127);
        }
        Run r = {};
        assert_se(waitpid(pid, &r.status, 0) == pid);
        r.out = slurp_fd(ofd);
        r.err = slurp_fd(efd);
        close(ofd);
        close(efd);
        if (*r.err)
                fprintf(stderr, "    stderr: %s", r.err);
        return r;
}

static void must_run(const char *const *args) {
        Run r = run_tinct(args);
        if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
                fprintf(stderr, "tinct failed (status 0x%x)\n", (unsigned) r.status);
                abort();
        }
        run_clear(&r);
}

static char *read_text(const char *path) {
        size_t n;
        char *s = (char *) pf_read(path, &n);
        assert_se(strlen(s) == n);
        return s;
}

static void write_text(const char *path, const char *text) {
        pf_write_in_place(path, text, strlen(text));
}

/* text with the first occurrence of `from` replaced by `to`; aborts if absent */
static char *replace_once(const char *text, const char *from, const char *to) {
        const char *at = strstr(text, from);
        if (!at) {
                fprintf(stderr, "mutation anchor \"%s\" not in the export\n", from);
                abort();
        }
        return pf_asprintf("%.*s%s%s", (int) (at - text), text, to, at + strlen(from));
}

static void assert_same_text(const char *what, const char *got, const char *want) {
        if (!streq(got, want)) {
                fprintf(stderr, "%s differs from the first export\n--- got:\n%s\n--- want:\n%s\n", what, got, want);
                abort();
        }
}

typedef struct Bad {
        const char *name;
        char *text;
} Bad;

static int set_nobody_title(sd_bus *bus, void *userdata) {
        const char *path = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(harness_call(bus, path, CM_PROFILE_IFACE, "SetProperty", &e, NULL, "ss", "Title", "nobody's \"title\" ✓"), &e);
        return 0;
}

static int check_nobody_title(sd_bus *bus, void *userdata) {
        const char *path = userdata;
        _cleanup_free_ char *t = harness_get_string(bus, path, CM_PROFILE_IFACE, "Title");
        if (!streq(t, "nobody's \"title\" ✓")) {
                fprintf(stderr, "nobody's title after import: %s\n", t);
                return -1;
        }
        return 0;
}

static void make_content(Harness *h, sd_bus *bus, const char *srgb, const char *adobe) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *dev = harness_must_create_device(
                bus, "cli-printer", "disk", "printer",
                KV("Vendor", "Cli Vendor", "Model", "Cli Model", "Serial", "CLI-1", "XRANDR_name", "tab\there \"quoted\""));
        _cleanup_free_ char *dev2 = harness_must_create_device(bus, "cli-display", "disk", "display", NO_KV);
        _cleanup_free_ char *normal = harness_must_create_device(bus, "cli-normal", "normal", "scanner", NO_KV);
        assert_bus_ok(harness_call(bus, dev, CM_DEVICE_IFACE, "SetEnabled", &e, NULL, "b", false), &e);
        assert_bus_ok(harness_call(bus, normal, CM_DEVICE_IFACE, "SetEnabled", &e, NULL, "b", false), &e);
        must_add_profile(bus, dev, "hard", srgb);
        must_add_profile(bus, dev, "hard", adobe);
        must_call(bus, dev, CM_DEVICE_IFACE, "MakeProfileDefault", "o", srgb);
        must_add_profile(bus, dev2, "hard", adobe);
        assert_bus_ok(harness_call(bus, dev2, CM_DEVICE_IFACE, "RemoveProfile", &e, NULL, "o", adobe), &e); /* marker */
        assert_bus_ok(harness_call(bus, srgb, CM_PROFILE_IFACE, "SetProperty", &e, NULL, "ss", "Title", "Root's sRGB"), &e);
        assert_se(harness_run_as_nobody(h, set_nobody_title, (void *) srgb) == 0);
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: %s PATH-TO-tinct\n", argv[0]);
                return 2;
        }
        tinct = argv[1];
        if (access(tinct, X_OK) < 0) {
                fprintf(stderr, "%s not executable: skipping\n", tinct);
                return 77;
        }
        if (getenv("TINCT_TEST_DAEMON") && streq(getenv("TINCT_TEST_DAEMON"), "colord"))
                return 77;

        _cleanup_free_ char *srgb_f = harness_corpus_file("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_f = harness_corpus_file("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *srgb_id = pf_embedded_id("colord-data--sRGB.icc");
        _cleanup_free_ char *adobe_id = pf_embedded_id("colord-data--AdobeRGB1998.icc");
        Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .profiles = (const char *const[]) { srgb_f, adobe_f, NULL } });
        sd_bus *bus = harness_connect(h);
        _cleanup_free_ char *srgb = find_by(bus, "FindProfileById", srgb_id, NULL);
        _cleanup_free_ char *adobe = find_by(bus, "FindProfileById", adobe_id, NULL);
        assert_se(srgb && adobe);

        fprintf(stderr, "=== state made by the daemon\n");
        make_content(h, bus, srgb, adobe);
        sd_bus_flush_close_unref(bus);
        int status = harness_stop_daemon(h);
        assert_se(WIFEXITED(status) && WEXITSTATUS(status) == 0);

        const char *state = harness_state_dir(h), *tmp = harness_tmp_dir(h);
        _cleanup_free_ char *out1 = pf_asprintf("%s/export-1.json", tmp);
        _cleanup_free_ char *out2 = pf_asprintf("%s/export-2.json", tmp);
        _cleanup_free_ char *out3 = pf_asprintf("%s/export-3.json", tmp);
        _cleanup_free_ char *empty = pf_asprintf("%s/fresh/state", tmp); /* does not exist yet */

        fprintf(stderr, "=== export → import into an empty dir → export: byte-identical\n");
        must_run(KV("export", "--state-dir", state, out1));
        _cleanup_free_ char *j1 = read_text(out1);
        const char *needles[] = { "\"cli-printer\"", "\"cli-display\"", "\"cli-normal\"", srgb_id, adobe_id,
                                  "Root's sRGB", "\"timestamp\": 0", "\"enabled\": false", "Cli Vendor", NULL };
        for (const char *const *n = needles; *n; n++)
                if (!strstr(j1, *n)) {
                        fprintf(stderr, "the export lacks %s:\n%s\n", *n, j1);
                        abort();
                }
        Run r = run_tinct(KV("export", "--state-dir", state));
        assert_se(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
        assert_same_text("export to stdout", r.out, j1);
        run_clear(&r);

        must_run(KV("import", "--state-dir", empty, out1));
        must_run(KV("export", "--state-dir", empty, out2));
        _cleanup_free_ char *j2 = read_text(out2);
        assert_same_text("export of the imported store", j2, j1);

        /* importing again over existing content replaces it, still identical */
        must_run(KV("import", "--state-dir", empty, out2));
        must_run(KV("export", "--state-dir", empty, out3));
        _cleanup_free_ char *j3 = read_text(out3);
        assert_same_text("export after a second import", j3, j1);

        fprintf(stderr, "=== malformed input is refused and changes nothing\n");
        size_t half = strlen(j1) / 2;
        Bad bad[] = {
                { "empty", strdup("") },
                { "not-json", strdup("this is not JSON\n") },
                { "truncated", pf_asprintf("%.*s", (int) half, j1) },
                { "trailing-garbage", pf_asprintf("%s}", j1) },
                { "other-format", replace_once(j1, "\"tinct-store\"", "\"colord-store\"") },
                { "newer-version", replace_once(j1, "\"version\": 2", "\"version\": 3") },
                { "unknown-key", replace_once(j1, "\"version\": 2,", "\"version\": 2, \"surprise\": 1,") },
                { "wrong-type", replace_once(j1, "\"enabled\": false", "\"enabled\": \"no\"") },
                { "negative-timestamp", replace_once(j1, "\"timestamp\": 0", "\"timestamp\": -5") },
                { "bad-utf8", replace_once(j1, "Cli Vendor", "Cli \xff\xfe Vendor") },
                { "nul-escape", replace_once(j1, "Cli Vendor", "Cli \\u0000 Vendor") },
                { "duplicate-key", replace_once(j1, "\"version\": 2,", "\"version\": 2, \"version\": 2,") },
                { "array-not-object", strdup("[]") },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *path = pf_asprintf("%s/bad-%s.json", tmp, bad[i].name);
                write_text(path, bad[i].text);
                fprintf(stderr, "  %s\n", bad[i].name);
                r = run_tinct(KV("import", "--state-dir", empty, path));
                if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 1) {
                        fprintf(stderr, "malformed input %s: exit status 0x%x, want exit 1\n", bad[i].name,
                                (unsigned) r.status);
                        abort();
                }
                if (!strstr(r.err, path) || !strstr(r.err, "the store is unchanged")) {
                        fprintf(stderr, "malformed input %s: the message does not name the file and say the "
                                "store is unchanged: %s\n", bad[i].name, r.err);
                        abort();
                }
                if (strlen(r.err) < strlen(path) + 40) {
                        fprintf(stderr, "malformed input %s: the message says nothing about the problem: %s\n",
                                bad[i].name, r.err);
                        abort();
                }
                run_clear(&r);
                must_run(KV("export", "--state-dir", empty, out3));
                free(j3);
                j3 = read_text(out3);
                assert_same_text("export after a refused import", j3, j1);
                free(bad[i].text);
        }
        /* usage errors */
        r = run_tinct(KV("import", "--state-dir", empty));
        assert_se(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2);
        run_clear(&r);
        _cleanup_free_ char *missing = pf_asprintf("%s/no-such-file.json", tmp);
        r = run_tinct(KV("import", "--state-dir", empty, missing));
        assert_se(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1 && strstr(r.err, "no-such-file.json"));
        run_clear(&r);
        _cleanup_free_ char *nostore = pf_asprintf("%s/no-store-here", tmp);
        r = run_tinct(KV("export", "--state-dir", nostore));
        assert_se(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1 && strstr(r.err, "no store"));
        assert_se(access(nostore, F_OK) < 0); /* export never creates a store */
        run_clear(&r);

        fprintf(stderr, "=== the daemon serves an imported state dir\n");
        _cleanup_free_ char *rm = pf_asprintf("rm -rf '%s'/*", state);
        assert_se(system(rm) == 0);
        must_run(KV("import", "--state-dir", state, out1));
        assert_se(harness_restart_daemon(h) >= 0);
        bus = harness_connect(h);
        _cleanup_free_ char *dev = find_by(bus, "FindDeviceById", "cli-printer", NULL);
        _cleanup_free_ char *dev2 = find_by(bus, "FindDeviceById", "cli-display", NULL);
        assert_se(dev && dev2);
        _cleanup_free_ char *vendor = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Vendor");
        assert_streq(vendor, "Cli Vendor");
        _cleanup_free_ char *kind = harness_get_string(bus, dev, CM_DEVICE_IFACE, "Kind");
        assert_streq(kind, "printer");
        assert_se(!harness_get_bool(bus, dev, CM_DEVICE_IFACE, "Enabled"));
        _cleanup_strv_free_ char **md = harness_get_dict(bus, dev, CM_DEVICE_IFACE, "Metadata");
        assert_streq(strempty(harness_dict_get(md, "XRANDR_name")), "tab\there \"quoted\"");
        _cleanup_strv_free_ char **l = device_profiles(bus, dev);
        assert_strv(l, srgb, adobe);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, dev2);
        assert_strv_empty(l2);
        _cleanup_free_ char *t = harness_get_string(bus, srgb, CM_PROFILE_IFACE, "Title");
        assert_streq(t, "Root's sRGB");
        assert_se(harness_run_as_nobody(h, check_nobody_title, srgb) == 0);
        _cleanup_free_ char *n = harness_must_create_device(bus, "cli-normal", "normal", "scanner", NO_KV);
        assert_se(!harness_get_bool(bus, n, CM_DEVICE_IFACE, "Enabled"));
        sd_bus_flush_close_unref(bus);
        harness_stop(h);
        fprintf(stderr, "ok\n");
        return 0;
}
