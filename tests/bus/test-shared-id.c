/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bus tests of hard choices on devices that share an id (docs/compatibility.md, "Hard
 * choices on devices that share an id"): devices of one id made by root and by uid 65534
 * (and the account "daemon", a second user); AddProfile hard, MakeProfileDefault and RemoveProfile on one
 * reach the other at once, which emits PropertiesChanged(Profiles), Changed and the
 * manager's DeviceChanged before the reply; soft relations are not carried over, and a soft
 * relation elsewhere survives a RemoveProfile; another user's device is not reached by a
 * user's choice; a caller's own temp device needs polkit only when the choice would change
 * someone else's device, and a refusal changes nothing. tinct only (colord changes one
 * device). */

#include <fcntl.h>
#include <pwd.h>
#include <stdint.h>

#include "bus-test.h"

#define A(x) ACTION_PREFIX x

static Harness *H; /* for the callbacks running as another uid */

typedef struct Objects {
        char *root_dev, *user_dev, *other_dev;
        char *p[5];
} Objects;

static void objects_done(Objects *o) {
        free(o->root_dev);
        free(o->user_dev);
        free(o->other_dev);
        for (size_t i = 0; i < ELEMENTSOF(o->p); i++)
                free(o->p[i]);
}

/* The signals a changed device emits, all before the reply (the last entry). */
static void assert_device_signalled(Recorder *rec, const char *dev) {
        size_t reply = recorder_count(rec) - 1;
        size_t i = recorder_find(rec, 0, "PropertiesChanged", dev, "Profiles");
        size_t c = recorder_find(rec, 0, "Changed", dev, NULL);
        size_t m = (size_t) -1;
        for (size_t k = 0; k < reply; k++) {
                const Recorded *e = recorder_get(rec, k);
                if (streq_ptr(e->member, "DeviceChanged") && streq_ptr(e->arg0, dev))
                        m = k;
        }
        if (i == (size_t) -1 || c == (size_t) -1 || m == (size_t) -1 || i >= reply || c >= reply || m >= reply) {
                fprintf(stderr, "signals of %s missing:\n", dev);
                recorder_dump(rec);
                abort();
        }
}

static void assert_device_silent(Recorder *rec, const char *dev) {
        if (recorder_find(rec, 0, "PropertiesChanged", dev, NULL) != (size_t) -1 ||
            recorder_find(rec, 0, "Changed", dev, NULL) != (size_t) -1) {
                fprintf(stderr, "%s signalled a change:\n", dev);
                recorder_dump(rec);
                abort();
        }
}

static int choice(Recorder *rec, const char *dev, const char *member, const char *relation, const char *prof,
                  sd_bus_error *e) {
        recorder_reset(rec);
        if (relation)
                return recorder_call(rec, dev, CM_DEVICE_IFACE, member, e, NULL, "so", relation, prof);
        return recorder_call(rec, dev, CM_DEVICE_IFACE, member, e, NULL, "o", prof);
}

static void must_choose(Recorder *rec, const char *dev, const char *member, const char *relation, const char *prof) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_ok(choice(rec, dev, member, relation, prof, &e), &e);
}

/* In a child (another uid): the path is found again by the parent, see owned_device(). */
static int make_normal_device(sd_bus *bus, void *userdata) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "shared-a", "normal", "display", NO_KV);
        return 0;
}

/* The device of this id owned by uid (GetDevices, DeviceId, Owner). */
static char *owned_device(sd_bus *bus, const char *id, uid_t uid) {
        _cleanup_strv_free_ char **devs = harness_call_strv(bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        STRV_FOREACH(d, devs) {
                _cleanup_free_ char *did = harness_get_string(bus, *d, CM_DEVICE_IFACE, "DeviceId");
                if (streq(did, id) && harness_get_u32(bus, *d, CM_DEVICE_IFACE, "Owner") == uid)
                        return strdup(*d);
        }
        fprintf(stderr, "no device %s of uid %u\n", id, (unsigned) uid);
        abort();
}

/* ---- root acts on its device; the user's device of the same id follows --------------------- */

static void test_root_choices(Harness *h, sd_bus *bus, Objects *o) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        const char *dr = o->root_dev, *dn = o->user_dev;

        /* AddProfile hard: both */
        must_choose(rec, dr, "AddProfile", "hard", o->p[0]);
        assert_device_signalled(rec, dr);
        assert_device_signalled(rec, dn);
        _cleanup_strv_free_ char **l1 = device_profiles(bus, dn);
        assert_strv(l1, o->p[0]);
        _cleanup_free_ char *rel1 = relation_of(bus, dn, o->p[0]);
        assert_streq(rel1, "hard");

        /* AddProfile soft: only the device it was made on */
        must_choose(rec, dr, "AddProfile", "soft", o->p[1]);
        assert_device_signalled(rec, dr);
        assert_device_silent(rec, dn);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, dn);
        assert_strv(l2, o->p[0]);

        /* MakeProfileDefault: first and hard on both, also where it was missing */
        must_choose(rec, dr, "MakeProfileDefault", NULL, o->p[1]);
        assert_device_signalled(rec, dn);
        _cleanup_strv_free_ char **l3 = device_profiles(bus, dn);
        assert_strv(l3, o->p[1], o->p[0]);
        _cleanup_strv_free_ char **l3r = device_profiles(bus, dr);
        assert_strv(l3r, o->p[1], o->p[0]);
        _cleanup_free_ char *q = profile_for_qualifiers(bus, dn, KV("*"), NULL);
        assert_streq(q, o->p[1]);

        /* a soft relation on the other device becomes hard with AddProfile hard */
        must_add_profile(bus, dn, "soft", o->p[2]);
        _cleanup_free_ char *rel2 = relation_of(bus, dn, o->p[2]);
        assert_streq(rel2, "soft");
        must_choose(rec, dr, "AddProfile", "hard", o->p[2]);
        assert_device_signalled(rec, dn);
        _cleanup_free_ char *rel3 = relation_of(bus, dn, o->p[2]);
        assert_streq(rel3, "hard");

        /* RemoveProfile: the hard relation goes on both */
        must_choose(rec, dr, "RemoveProfile", NULL, o->p[1]);
        assert_device_signalled(rec, dn);
        _cleanup_strv_free_ char **l4 = device_profiles(bus, dn);
        assert_se(!strv_contains(l4, o->p[1]) && strv_contains(l4, o->p[0]));

        /* ... but a soft relation elsewhere is not a choice and stays */
        must_add_profile(bus, dn, "soft", o->p[3]);
        must_add_profile(bus, dr, "soft", o->p[3]);
        must_choose(rec, dr, "RemoveProfile", NULL, o->p[3]);
        assert_device_silent(rec, dn);
        _cleanup_free_ char *rel4 = relation_of(bus, dn, o->p[3]);
        assert_streq(rel4, "soft");
        harness_assert_alive(h);
}

/* ---- the user acts on theirs; root's device follows, another user's does not --------------- */

static int user_choices(sd_bus *bus, void *userdata) {
        Objects *o = userdata;
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        const char *me;
        assert_se(sd_bus_get_unique_name(bus, &me) >= 0);

        int n = harness_polkit_count(H, A("modify-device"), me);
        must_choose(rec, o->user_dev, "MakeProfileDefault", NULL, o->p[2]);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == n + 1); /* one check covers both */
        assert_device_signalled(rec, o->user_dev);
        assert_device_signalled(rec, o->root_dev);
        assert_device_silent(rec, o->other_dev);
        _cleanup_strv_free_ char **l = device_profiles(bus, o->root_dev);
        assert_se(l && l[0]);
        assert_streq(l[0], o->p[2]);

        must_choose(rec, o->user_dev, "AddProfile", "hard", o->p[4]);
        assert_device_signalled(rec, o->root_dev);
        assert_device_silent(rec, o->other_dev);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, o->root_dev);
        assert_streq(l2[0], o->p[4]);

        must_choose(rec, o->user_dev, "RemoveProfile", NULL, o->p[4]);
        assert_device_signalled(rec, o->root_dev);
        _cleanup_strv_free_ char **l3 = device_profiles(bus, o->root_dev);
        assert_se(!strv_contains(l3, o->p[4]));
        return 0;
}

static void test_user_choices(Harness *h, sd_bus *bus, Objects *o) {
        /* a second user the bus daemon can resolve, looked up by name */
        struct passwd *pw = getpwnam("daemon");
        assert_se(pw && pw->pw_uid != 0 && pw->pw_uid != NOBODY_UID);
        uid_t other = pw->pw_uid;
        assert_se(harness_run_as_uid(h, other, pw->pw_gid, make_normal_device, NULL) == 0);
        o->other_dev = owned_device(bus, "shared-a", other);
        assert_se(!streq(o->other_dev, o->user_dev));
        _cleanup_strv_free_ char **before = device_profiles(bus, o->other_dev);
        assert_se(harness_run_as_nobody(h, user_choices, o) == 0);
        _cleanup_strv_free_ char **after = device_profiles(bus, o->other_dev);
        assert_se(strv_equal_list(after, (const char *const *) (before ?: (char *[]) { NULL })));
        assert_se(!strv_contains(after, o->p[4]));

        /* root may change every device: its choice reaches the second user's too */
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        must_choose(rec, o->root_dev, "MakeProfileDefault", NULL, o->p[0]);
        assert_device_signalled(rec, o->other_dev);
        assert_device_signalled(rec, o->user_dev);
        _cleanup_strv_free_ char **l = device_profiles(bus, o->other_dev);
        assert_streq(l[0], o->p[0]);
}

/* ---- a profile that comes back: its stored mapping reaches both devices ---------------------- */

static void test_profile_returns(Harness *h, sd_bus *bus, Objects *o) {
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "shared-late", "normal", NO_KV);
        /* not on the device yet: refused, as before */
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_bus_error(choice(rec, o->root_dev, "MakeProfileDefault", NULL, p, &e), &e,
                         CM_DEVICE_ERR "ProfileDoesNotExist");
        sd_bus_error_free(&e);
        must_choose(rec, o->root_dev, "AddProfile", "hard", p);
        assert_device_signalled(rec, o->user_dev);
        must_call(bus, CM_PATH, CM_IFACE, "DeleteProfile", "o", p);
        _cleanup_strv_free_ char **gone = device_profiles(bus, o->user_dev);
        assert_se(!strv_contains(gone, p));

        recorder_reset(rec);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = recorder_call(rec, CM_PATH, CM_IFACE, "CreateProfile", &e, &reply, "ssa{ss}", "shared-late", "normal", 0);
        assert_bus_ok(r, &e);
        assert_device_signalled(rec, o->root_dev);
        assert_device_signalled(rec, o->user_dev);
        _cleanup_strv_free_ char **l1 = device_profiles(bus, o->root_dev);
        _cleanup_strv_free_ char **l2 = device_profiles(bus, o->user_dev);
        assert_streq(l1[0], p);
        assert_streq(l2[0], p);
        _cleanup_free_ char *rel = relation_of(bus, o->user_dev, p);
        assert_streq(rel, "hard");
        harness_assert_alive(h);
}

/* ---- a temp device of one's own: polkit only when the choice reaches further ---------------- */

static const char *shared_root_dev;
static const char *shared_prof;

static int temp_choices(sd_bus *bus, void *userdata) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_recorder_ Recorder *rec = recorder_new(bus);
        const char *me;
        assert_se(sd_bus_get_unique_name(bus, &me) >= 0);

        /* alone with its id: no polkit, as before (compatibility.md row 50) */
        _cleanup_free_ char *alone = harness_must_create_device(bus, "alone-c", "temp", "display", NO_KV);
        must_choose(rec, alone, "AddProfile", "hard", shared_prof);
        must_choose(rec, alone, "MakeProfileDefault", NULL, shared_prof);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == 0);

        /* the same id as root's device: a soft relation reaches nothing, so no polkit either */
        _cleanup_free_ char *dev = harness_must_create_device(bus, "shared-c", "temp", "display", NO_KV);
        must_choose(rec, dev, "AddProfile", "soft", shared_prof);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == 0);

        /* a hard choice would change root's device: polkit is asked, denies, nothing changes */
        int r = choice(rec, dev, "MakeProfileDefault", NULL, shared_prof, &e);
        assert_bus_error(r, &e, CM_DEVICE_ERR "FailedToAuthenticate");
        sd_bus_error_free(&e);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == 1);
        r = choice(rec, dev, "AddProfile", "hard", shared_prof, &e);
        assert_bus_error(r, &e, CM_DEVICE_ERR "FailedToAuthenticate");
        sd_bus_error_free(&e);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == 2);
        assert_device_silent(rec, shared_root_dev);
        assert_device_silent(rec, dev);
        _cleanup_free_ char *rel = relation_of(bus, dev, shared_prof);
        assert_streq(rel, "soft");
        _cleanup_strv_free_ char **l = device_profiles(bus, shared_root_dev);
        assert_strv_empty(l);

        /* RemoveProfile reaches nothing (root's device does not hold it hard): no polkit */
        must_choose(rec, dev, "RemoveProfile", NULL, shared_prof);
        assert_se(harness_polkit_count(H, A("modify-device"), me) == 2);
        return 0;
}

static void test_temp_polkit(Harness *h, sd_bus *bus) {
        _cleanup_free_ char *d = harness_must_create_device(bus, "shared-c", "normal", "display", NO_KV);
        _cleanup_free_ char *p = harness_must_create_profile(bus, "shared-c-prof", "normal", NO_KV);
        shared_root_dev = d;
        shared_prof = p;
        assert_se(harness_run_as_nobody(h, temp_choices, NULL) == 0);
        shared_root_dev = shared_prof = NULL;
}

int main(void) {
        if (streq_ptr(getenv("TINCT_TEST_DAEMON"), "colord"))
                return 77; /* colord applies a choice to one device */
        {
                _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                _cleanup_(objects_done) Objects o = { 0 };
                H = h;
                assert_se(harness_run_as_nobody(h, make_normal_device, NULL) == 0);
                o.user_dev = owned_device(bus, "shared-a", NOBODY_UID);
                o.root_dev = harness_must_create_device(bus, "shared-a", "normal", "display", NO_KV);
                assert_se(!streq(o.root_dev, o.user_dev));
                for (size_t i = 0; i < ELEMENTSOF(o.p); i++) {
                        _cleanup_free_ char *id = xasprintf("shared-prof-%zu", i);
                        o.p[i] = harness_must_create_profile(bus, id, "normal", NO_KV);
                }
                RUN(test_root_choices, h, bus, &o);
                RUN(test_user_choices, h, bus, &o);
                RUN(test_profile_returns, h, bus, &o);
                harness_assert_alive(h);
        }
        {
                static const char *const deny[] = { A("modify-device"), NULL };
                _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow", .polkit_deny = deny });
                _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
                H = h;
                RUN(test_temp_polkit, h, bus);
                harness_assert_alive(h);
        }
        return 0;
}
