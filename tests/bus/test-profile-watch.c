/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of the profile directory watch (colord §8.4, issue 3): real ICC files written
 * into a watched --profile-dir the ways writers do (cp in place, atomic temp+rename, moved
 * in, renamed inside, rewritten with other bytes, deleted, new sub-directories, too-deep
 * directories, garbage, empty files, identical copies). Every step waits for the
 * ProfileAdded/ProfileRemoved signals (never sleeps) and then checks GetProfiles and
 * FindProfileByFilename. "Nothing happened" is proven with a sentinel: a further valid
 * file written after the one that must be ignored; once the sentinel's ProfileAdded has
 * arrived, the rescan that found it also saw the ignored file. The delay from the file
 * operation to its signal is printed (the issue asks for ≤ 1 s), never asserted. */

#include <sys/wait.h>

#include "bus-test.h"
#include "profile-files.h"

typedef struct Delay {
        const char *what;
        uint64_t usec;
} Delay;

static Delay delays[32];
static size_t n_delays;

static void note_delay(const char *what, uint64_t start) {
        uint64_t d = mono_usec() - start;
        fprintf(stderr, "    delay %-34s %7.1f ms\n", what, d / 1000.0);
        assert_se(n_delays < ELEMENTSOF(delays));
        delays[n_delays++] = (Delay) { what, d };
}

typedef struct Ctx {
        Harness *h;
        sd_bus *bus;
        Recorder *rec;
        const char *dir;
} Ctx;

static char *in_dir(Ctx *c, const char *name) {
        return pf_asprintf("%s/%s", c->dir, name);
}

static char *corpus_path_of(const char *name) {
        return harness_corpus_file(name);
}

static char *profile_path_of_id(sd_bus *bus, const char *id) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *p = find_by(bus, "FindProfileById", id, &e);
        if (!p) {
                fprintf(stderr, "FindProfileById(%s): %s\n", id, strempty(e.name));
                abort();
        }
        return p;
}

/* Waits for ProfileAdded at or after *pos; returns the added path, moves *pos past it. */
static const char *wait_added(Ctx *c, size_t *pos) {
        size_t i = recorder_wait_after(c->rec, *pos, "ProfileAdded", CM_PATH);
        *pos = i + 1;
        return recorder_get(c->rec, i)->arg0;
}

static const char *wait_removed(Ctx *c, size_t *pos) {
        size_t i = recorder_wait_after(c->rec, *pos, "ProfileRemoved", CM_PATH);
        *pos = i + 1;
        return recorder_get(c->rec, i)->arg0;
}

/* One round trip: everything the daemon emitted before it is now recorded. */
static void sync_rec(Ctx *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(recorder_call(c->rec, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", &e, NULL, NULL), &e);
}

static size_t count_member(Ctx *c, const char *member) {
        size_t n = 0;
        for (size_t i = 0; (i = recorder_find(c->rec, i, member, CM_PATH, NULL)) != (size_t) -1; i++)
                n++;
        return n;
}

static void assert_filename(Ctx *c, const char *file, const char *want_path) {
        assert_find_ok(c->bus, "FindProfileByFilename", file, want_path);
        _cleanup_free_ char *fn = harness_get_string(c->bus, want_path, CM_PROFILE_IFACE, "Filename");
        assert_streq(fn, file);
}

static void assert_profiles_exactly(Ctx *c, char **want) {
        _cleanup_strv_free_ char **all = harness_call_strv(c->bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        bool ok = strv_length(all) == strv_length(want);
        STRV_FOREACH(w, want)
                ok = ok && strv_count(all, *w) == 1;
        if (!ok) {
                fprintf(stderr, "GetProfiles mismatch\n");
                dump_strv("got", all);
                dump_strv("want", want);
                abort();
        }
}

/* Writes a sentinel (atomically) and waits for its ProfileAdded, then syncs: whatever the
 * daemon does about files written before the sentinel is recorded by now. */
static char *sentinel(Ctx *c, const char *corpus, const char *name) {
        _cleanup_free_ char *src = corpus_path_of(corpus);
        size_t n;
        _cleanup_free_ uint8_t *d = pf_read(src, &n);
        _cleanup_free_ char *id = pf_embedded_id(corpus);
        _cleanup_free_ char *file = in_dir(c, name);
        size_t pos = recorder_count(c->rec);

        pf_write_atomic(c->dir, name, d, n);
        for (;;) {
                const char *added = wait_added(c, &pos);
                _cleanup_free_ char *fn = harness_get_string(c->bus, added, CM_PROFILE_IFACE, "Filename");
                if (streq(fn, file))
                        break;
        }
        sync_rec(c);
        return profile_path_of_id(c->bus, id);
}

static void test_watch(Harness *h, sd_bus *bus) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        Ctx c = { .h = h, .bus = bus, .rec = rec, .dir = harness_profile_dir(h) };
        _cleanup_strv_free_ char **live = NULL;
        size_t pos;
        uint64_t t;

        _cleanup_free_ char *dev = harness_must_create_device(bus, "watch-display", "normal", "display", NO_KV);
        _cleanup_free_ char *dev2 = harness_must_create_device(bus, "watch-printer", "normal", "printer", NO_KV);

        /* nothing at start */
        _cleanup_strv_free_ char **none = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_strv_empty(none);

        /* 1. cp-style: open(O_TRUNC) + write + close, in place */
        fprintf(stderr, "  cp in place\n");
        _cleanup_free_ char *srgb_src = corpus_path_of("colord-data--sRGB.icc");
        _cleanup_free_ char *srgb_id = pf_embedded_id("colord-data--sRGB.icc");
        _cleanup_free_ char *srgb_file = in_dir(&c, "a-srgb.icc");
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_copy_in_place(srgb_src, srgb_file);
        _cleanup_free_ char *srgb = strdup(wait_added(&c, &pos));
        note_delay("cp (O_TRUNC+write+close)", t);
        assert_find_ok(bus, "FindProfileById", srgb_id, srgb);
        assert_filename(&c, srgb_file, srgb);
        assert_se(harness_get_bool(bus, srgb, CM_PROFILE_IFACE, "IsSystemWide"));
        assert_se(strv_extend(&live, srgb) >= 0);
        assert_profiles_exactly(&c, live);

        /* 2. atomic: hidden temp in the same dir, rename over the target */
        fprintf(stderr, "  atomic write\n");
        _cleanup_free_ char *adobe_src = corpus_path_of("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *adobe_id = pf_embedded_id("colord-data--AdobeRGB1998.icc");
        _cleanup_free_ char *adobe_file = in_dir(&c, "b-adobe.icc");
        size_t n;
        _cleanup_free_ uint8_t *adobe_bytes = pf_read(adobe_src, &n);
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_write_atomic(c.dir, "b-adobe.icc", adobe_bytes, n);
        _cleanup_free_ char *adobe = strdup(wait_added(&c, &pos));
        note_delay("atomic (temp + rename)", t);
        assert_find_ok(bus, "FindProfileById", adobe_id, adobe);
        assert_filename(&c, adobe_file, adobe);
        sync_rec(&c);
        assert_se(count_member(&c, "ProfileAdded") == 1);   /* the hidden temp never counted */
        assert_se(count_member(&c, "ProfileRemoved") == 0);
        assert_se(strv_extend(&live, adobe) >= 0);
        assert_profiles_exactly(&c, live);

        /* 3. moved in from outside the watched tree (same file system) */
        fprintf(stderr, "  moved in\n");
        _cleanup_free_ char *bluish_src = corpus_path_of("colord-data--Bluish.icc");
        _cleanup_free_ char *bluish_id = pf_embedded_id("colord-data--Bluish.icc");
        _cleanup_free_ char *outside = pf_asprintf("%s/outside-bluish.icc", harness_tmp_dir(h));
        _cleanup_free_ char *bluish_file = in_dir(&c, "c-bluish.icc");
        pf_copy_in_place(bluish_src, outside);
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_rename(outside, bluish_file);
        _cleanup_free_ char *bluish = strdup(wait_added(&c, &pos));
        note_delay("moved in (rename from outside)", t);
        assert_find_ok(bus, "FindProfileById", bluish_id, bluish);
        assert_filename(&c, bluish_file, bluish);
        assert_se(strv_extend(&live, bluish) >= 0);
        assert_profiles_exactly(&c, live);

        /* 4. renamed inside the directory: the object stays (only Filename changes, with
         * PropertiesChanged and ProfileChanged), and a device holding it keeps it */
        fprintf(stderr, "  renamed inside\n");
        must_add_profile(bus, dev, "hard", bluish);
        _cleanup_free_ char *bluish_file2 = in_dir(&c, "0-bluish-renamed.icc");
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_rename(bluish_file, bluish_file2);
        pos = recorder_wait_after(rec, 0, "ProfileChanged", CM_PATH);
        assert_streq(recorder_get(rec, pos)->arg0, bluish);
        note_delay("renamed inside (ProfileChanged)", t);
        sync_rec(&c);
        assert_se(recorder_find(rec, 0, "PropertiesChanged", bluish, "Filename") != (size_t) -1);
        assert_se(count_member(&c, "ProfileRemoved") == 0);
        assert_se(count_member(&c, "ProfileAdded") == 0);
        assert_filename(&c, bluish_file2, bluish);
        assert_find_error(bus, "FindProfileByFilename", bluish_file, CM_ERR "NotFound");
        _cleanup_strv_free_ char **kept = device_profiles(bus, dev);
        assert_strv(kept, bluish);
        assert_profiles_exactly(&c, live);

        /* 4b. rewritten atomically with the same bytes (a package reinstall): nothing changes
         * for clients; the device keeps it */
        fprintf(stderr, "  same bytes rewritten atomically\n");
        size_t bln;
        _cleanup_free_ uint8_t *bluish_bytes = pf_read(bluish_src, &bln);
        recorder_reset(rec);
        pf_write_atomic(c.dir, "0-bluish-renamed.icc", bluish_bytes, bln);
        _cleanup_free_ char *s0 = sentinel(&c, "colord-data--PAL-RGB.icc", "sentinel-0.icc");
        assert_se(count_member(&c, "ProfileRemoved") == 0);
        assert_se(count_member(&c, "ProfileAdded") == 1); /* the sentinel only */
        assert_se(recorder_find(rec, 0, "ProfileChanged", CM_PATH, NULL) == (size_t) -1);
        assert_filename(&c, bluish_file2, bluish);
        _cleanup_strv_free_ char **kept2 = device_profiles(bus, dev);
        assert_strv(kept2, bluish);
        assert_se(strv_extend(&live, s0) >= 0);
        assert_profiles_exactly(&c, live);

        /* 5. changed: b-adobe.icc rewritten in place with another profile's bytes */
        fprintf(stderr, "  changed in place\n");
        _cleanup_free_ char *cm_src = corpus_path_of("colord-data--ColorMatchRGB.icc");
        _cleanup_free_ char *cm_id = pf_embedded_id("colord-data--ColorMatchRGB.icc");
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_copy_in_place(cm_src, adobe_file);
        size_t p0 = 0;
        assert_streq(wait_removed(&c, &p0), adobe);
        _cleanup_free_ char *cm = strdup(wait_added(&c, &p0));
        note_delay("changed (rewritten in place)", t);
        assert_find_ok(bus, "FindProfileById", cm_id, cm);
        assert_find_error(bus, "FindProfileById", adobe_id, CM_ERR "NotFound");
        assert_se(object_gone(bus, adobe, CM_PROFILE_IFACE));
        assert_filename(&c, adobe_file, cm);
        assert_se(strv_remove(live, adobe));
        assert_se(strv_extend(&live, cm) >= 0);
        assert_profiles_exactly(&c, live);

        /* 6. deleted while a device holds it (hard) and another device (soft): the profile
         * goes, and leaves both devices' Profiles, with DeviceChanged */
        fprintf(stderr, "  deleted while attached\n");
        must_add_profile(bus, dev, "hard", srgb);
        must_add_profile(bus, dev, "hard", cm);
        must_add_profile(bus, dev2, "soft", srgb);
        _cleanup_strv_free_ char **before = device_profiles(bus, dev);
        assert_strv(before, cm, srgb, bluish);
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_unlink(srgb_file);
        assert_streq(wait_removed(&c, &pos), srgb);
        note_delay("deleted", t);
        sync_rec(&c);
        assert_se(recorder_find(rec, 0, "DeviceChanged", CM_PATH, NULL) != (size_t) -1);
        bool changed1 = false, changed2 = false;
        for (size_t i = 0; (i = recorder_find(rec, i, "DeviceChanged", CM_PATH, NULL)) != (size_t) -1; i++) {
                changed1 = changed1 || streq(recorder_get(rec, i)->arg0, dev);
                changed2 = changed2 || streq(recorder_get(rec, i)->arg0, dev2);
        }
        assert_se(changed1 && changed2);
        assert_se(recorder_find(rec, 0, "PropertiesChanged", dev, "Profiles") != (size_t) -1);
        _cleanup_strv_free_ char **after = device_profiles(bus, dev);
        assert_strv(after, cm, bluish);
        _cleanup_strv_free_ char **after2 = device_profiles(bus, dev2);
        assert_strv_empty(after2);
        assert_find_error(bus, "FindProfileByFilename", srgb_file, CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileById", srgb_id, CM_ERR "NotFound");
        assert_se(object_gone(bus, srgb, CM_PROFILE_IFACE));
        assert_se(strv_remove(live, srgb));
        assert_profiles_exactly(&c, live);

        /* 7. a new sub-directory with a profile inside, then one two levels down */
        fprintf(stderr, "  new sub-directories\n");
        _cleanup_free_ char *sub = in_dir(&c, "sub");
        _cleanup_free_ char *sub2 = in_dir(&c, "sub/deeper");
        _cleanup_free_ char *pp_src = corpus_path_of("colord-data--ProPhotoRGB.icc");
        _cleanup_free_ char *pp_id = pf_embedded_id("colord-data--ProPhotoRGB.icc");
        _cleanup_free_ char *pp_file = in_dir(&c, "sub/prophoto.icc");
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_mkdir(sub);
        pf_copy_in_place(pp_src, pp_file);
        _cleanup_free_ char *pp = strdup(wait_added(&c, &pos));
        note_delay("mkdir + cp into it", t);
        assert_find_ok(bus, "FindProfileById", pp_id, pp);
        assert_filename(&c, pp_file, pp);
        assert_se(strv_extend(&live, pp) >= 0);

        _cleanup_free_ char *wg_src = corpus_path_of("colord-data--WideGamutRGB.icc");
        _cleanup_free_ char *wg_id = pf_embedded_id("colord-data--WideGamutRGB.icc");
        _cleanup_free_ char *wg_file = in_dir(&c, "sub/deeper/widegamut.icc");
        size_t wn;
        _cleanup_free_ uint8_t *wg_bytes = pf_read(wg_src, &wn);
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_mkdir(sub2);
        pf_write_atomic(sub2, "widegamut.icc", wg_bytes, wn);
        _cleanup_free_ char *wg = strdup(wait_added(&c, &pos));
        note_delay("level-2 mkdir + atomic write", t);
        assert_find_ok(bus, "FindProfileById", wg_id, wg);
        assert_filename(&c, wg_file, wg);
        assert_se(strv_extend(&live, wg) >= 0);
        assert_profiles_exactly(&c, live);

        /* 8. three levels deep: ignored (colord aborts its whole walk here, colord §8.3) */
        fprintf(stderr, "  too deep\n");
        _cleanup_free_ char *sub3 = in_dir(&c, "sub/deeper/too-deep");
        _cleanup_free_ char *x11_src = corpus_path_of("colord-data--x11-colors.icc");
        _cleanup_free_ char *x11_id = pf_embedded_id("colord-data--x11-colors.icc");
        _cleanup_free_ char *x11_file = in_dir(&c, "sub/deeper/too-deep/x11.icc");
        recorder_reset(rec);
        pf_mkdir(sub3);
        pf_copy_in_place(x11_src, x11_file);
        _cleanup_free_ char *s1 = sentinel(&c, "colord-data--BestRGB.icc", "sentinel-1.icc");
        assert_se(count_member(&c, "ProfileAdded") == 1);
        assert_find_error(bus, "FindProfileById", x11_id, CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileByFilename", x11_file, CM_ERR "NotFound");
        assert_se(strv_extend(&live, s1) >= 0);
        assert_profiles_exactly(&c, live);

        /* 9. garbage, a 0-byte .icc and a truncated real profile: skipped, daemon stays up */
        fprintf(stderr, "  garbage, empty, truncated\n");
        _cleanup_free_ char *garbage_file = in_dir(&c, "aaa-garbage.icc");
        _cleanup_free_ char *empty_file = in_dir(&c, "empty.icc");
        _cleanup_free_ char *trunc_file = in_dir(&c, "truncated.icm");
        uint8_t garbage[400];
        uint32_t x = 0x12345678;
        for (size_t i = 0; i < sizeof garbage; i++) {
                x = x * 1103515245u + 12345u;
                garbage[i] = (uint8_t) (x >> 16);
        }
        _cleanup_free_ char *beta_src = corpus_path_of("colord-data--BetaRGB.icc");
        size_t bn;
        _cleanup_free_ uint8_t *beta = pf_read(beta_src, &bn);
        recorder_reset(rec);
        pf_write_in_place(garbage_file, garbage, sizeof garbage);
        pf_write_in_place(empty_file, "", 0);
        pf_write_in_place(trunc_file, beta, 300);
        _cleanup_free_ char *s2 = sentinel(&c, "colord-data--BruceRGB.icc", "sentinel-2.icc");
        assert_se(count_member(&c, "ProfileAdded") == 1);
        assert_se(count_member(&c, "ProfileRemoved") == 0);
        assert_find_error(bus, "FindProfileByFilename", garbage_file, CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileByFilename", empty_file, CM_ERR "NotFound");
        assert_find_error(bus, "FindProfileByFilename", trunc_file, CM_ERR "NotFound");
        harness_assert_alive(h);
        assert_se(strv_extend(&live, s2) >= 0);
        assert_profiles_exactly(&c, live);

        /* ... and a file that is garbage first and then gets real content is picked up */
        recorder_reset(rec);
        pos = 0;
        _cleanup_free_ char *ntsc_id = pf_embedded_id("colord-data--NTSC-RGB.icc");
        _cleanup_free_ char *ntsc_src = corpus_path_of("colord-data--NTSC-RGB.icc");
        t = mono_usec();
        pf_copy_in_place(ntsc_src, garbage_file);
        _cleanup_free_ char *ntsc = strdup(wait_added(&c, &pos));
        note_delay("garbage file rewritten valid", t);
        assert_find_ok(bus, "FindProfileById", ntsc_id, ntsc);
        assert_filename(&c, garbage_file, ntsc);
        assert_se(strv_extend(&live, ntsc) >= 0);

        /* 10. two identical files: one profile; deleting the first makes the second appear */
        fprintf(stderr, "  identical copies\n");
        _cleanup_free_ char *g_src = corpus_path_of("colord-data--Gamma5500K.icc");
        _cleanup_free_ char *g_id = pf_embedded_id("colord-data--Gamma5500K.icc");
        _cleanup_free_ char *dup1 = in_dir(&c, "dup-1.icc"), *dup2 = in_dir(&c, "dup-2.icc");
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_copy_in_place(g_src, dup1);
        _cleanup_free_ char *g = strdup(wait_added(&c, &pos));
        note_delay("first copy", t);
        assert_find_ok(bus, "FindProfileById", g_id, g);
        assert_se(strv_extend(&live, g) >= 0);
        recorder_reset(rec);
        pf_copy_in_place(g_src, dup2);
        _cleanup_free_ char *s3 = sentinel(&c, "colord-data--DonRGB4.icc", "sentinel-3.icc");
        assert_se(count_member(&c, "ProfileAdded") == 1); /* the sentinel only */
        assert_filename(&c, dup1, g);
        assert_se(strv_extend(&live, s3) >= 0);
        assert_profiles_exactly(&c, live);

        must_add_profile(bus, dev, "hard", g);
        recorder_reset(rec);
        t = mono_usec();
        pf_unlink(dup1);
        /* Either the object moves to the second copy (ProfileChanged) or it is removed and
         * made again from it (ProfileRemoved, ProfileAdded); both are fine for clients, as
         * long as the user's hard mapping holds afterwards. */
        for (pos = 0;;) {
                size_t i = recorder_wait_after(rec, pos, NULL, NULL);
                const Recorded *e = recorder_get(rec, i);
                pos = i + 1;
                if (streq(e->path, CM_PATH) && streq_ptr(e->arg0, g) &&
                    (streq(e->member, "ProfileAdded") || streq(e->member, "ProfileChanged")))
                        break;
        }
        note_delay("first copy deleted → second", t);
        assert_filename(&c, dup2, g);
        assert_find_error(bus, "FindProfileByFilename", dup1, CM_ERR "NotFound");
        _cleanup_strv_free_ char **held = device_profiles(bus, dev);
        if (strv_count(held, g) != 1) {
                fprintf(stderr, "device lost its hard-mapped profile when the first of two identical files went\n");
                dump_strv("Profiles", held);
                abort();
        }
        _cleanup_free_ char *grel = relation_of(bus, dev, g);
        assert_streq(grel, "hard");
        assert_profiles_exactly(&c, live);

        /* deleting the last copy: gone for good */
        recorder_reset(rec);
        pos = 0;
        pf_unlink(dup2);
        assert_streq(wait_removed(&c, &pos), g);
        assert_find_error(bus, "FindProfileById", g_id, CM_ERR "NotFound");
        assert_se(strv_remove(live, g));
        assert_profiles_exactly(&c, live);

        /* 11. a whole sub-directory removed: its profiles go */
        fprintf(stderr, "  sub-directory removed\n");
        recorder_reset(rec);
        pos = 0;
        pf_unlink(x11_file);
        assert_se(rmdir(sub3) == 0);
        pf_unlink(wg_file);
        assert_se(rmdir(sub2) == 0);
        t = mono_usec();
        pf_unlink(pp_file);
        assert_se(rmdir(sub) == 0);
        size_t seen = 0;
        bool got_pp = false, got_wg = false;
        while (!(got_pp && got_wg)) {
                const char *r = wait_removed(&c, &pos);
                got_pp = got_pp || streq(r, pp);
                got_wg = got_wg || streq(r, wg);
                assert_se(++seen <= 2);
        }
        note_delay("sub-directory tree removed", t);
        assert_se(strv_remove(live, pp) && strv_remove(live, wg));
        assert_profiles_exactly(&c, live);

        /* the watch still works for a re-created directory of the same name */
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_mkdir(sub);
        pf_copy_in_place(pp_src, pp_file);
        assert_streq(wait_added(&c, &pos), pp);
        note_delay("re-created sub-directory", t);
        assert_filename(&c, pp_file, pp);
        assert_se(strv_extend(&live, pp) >= 0);
        assert_profiles_exactly(&c, live);

        /* 12. the profile directory itself moved away: every profile goes; then removed, and
         * made again empty (another inode, so no watch of the old one can see it): the watch
         * waited on its parent, and what is copied in is found */
        fprintf(stderr, "  profile directory moved away, made again\n");
        _cleanup_free_ char *away = pf_asprintf("%s.away", c.dir);
        size_t n_live = strv_length(live);
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_rename(c.dir, away);
        for (size_t i = 0; i < n_live; i++)
                assert_se(strv_contains(live, wait_removed(&c, &pos)));
        note_delay("profile directory moved away", t);
        _cleanup_strv_free_ char **none2 = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        assert_strv_empty(none2);
        pid_t pid = fork();
        assert_se(pid >= 0);
        if (pid == 0) {
                execlp("rm", "rm", "-rf", away, (char *) NULL);
                _exit(127);
        }
        int status;
        assert_se(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        recorder_reset(rec);
        pos = 0;
        t = mono_usec();
        pf_mkdir(c.dir);
        pf_mkdir(sub);
        pf_copy_in_place(pp_src, pp_file);
        assert_streq(wait_added(&c, &pos), pp);
        note_delay("profile directory made again + cp", t);
        assert_filename(&c, pp_file, pp);
        char *only[] = { pp, NULL };
        assert_profiles_exactly(&c, only);

        /* and a sub-directory made there afterwards is still followed */
        recorder_reset(rec);
        pos = 0;
        pf_unlink(pp_file);
        assert_streq(wait_removed(&c, &pos), pp);
        pf_copy_in_place(pp_src, pp_file);
        assert_streq(wait_added(&c, &pos), pp);

        harness_assert_alive(h);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", dev);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", "o", dev2);
}

int main(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);

        if (harness_is_colord(h)) {
                /* colord misses cp-style writes and never signals removals (colord §8.4) */
                fprintf(stderr, "skipped on colord: tinct's watch semantics\n");
                return 77;
        }
        RUN(test_watch, h, bus);

        uint64_t max = 0;
        fprintf(stderr, "watch delays (file operation → signal):\n");
        for (size_t i = 0; i < n_delays; i++) {
                fprintf(stderr, "  %-36s %7.1f ms\n", delays[i].what, delays[i].usec / 1000.0);
                if (delays[i].usec > max)
                        max = delays[i].usec;
        }
        fprintf(stderr, "  max %.1f ms (the issue wants ≤ 1000 ms; not asserted)\n", max / 1000.0);
        return 0;
}
