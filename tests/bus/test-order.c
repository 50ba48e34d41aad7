/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Each client's answers come in the order of its calls, as colord's single loop gives them
 * (src/daemon/registry/bus-order.h, docs/compatibility.md), while other clients are served meanwhile.
 * mutter 43 sends CreateProfileWithFd for each of the user's profiles and then CreateDevice
 * for its monitor without waiting for any reply, and expects the profiles (which carry
 * MAPPING_device_id) to be on the device when the device comes.
 *  - mutter's pattern: four large profiles (slow to parse, each in a parser process while the
 *    loop goes on), then CreateDevice, all pipelined on one connection. Every reply comes in
 *    call order, each profile's ProfileAdded before the next reply, DeviceAdded after the last
 *    profile's reply, and the device lists the four profiles.
 *  - Order against a parse that never ends by itself (development builds: tinct-parse loops on
 *    an input that starts with "TINCT-TEST:hang", docs/sandbox.md): client A pipelines a valid
 *    profile, the hanging one, another valid profile and CreateDevice. While the hanging parse
 *    runs, client B's calls are answered and A has the first answer only; once the test kills
 *    the looping parser, A gets FailedToRead for it, then the third profile, then the device,
 *    which lists both valid profiles. No timing: nothing of A's can come before the kill.
 *  - The calls waiting behind one are bounded: 256 of 300 made their devices. */
#include <fcntl.h>

#include "bus-test.h"
#include "parser-procs.h"

#define DEVICE_ID "xrandr-Order-Monitor-1"

/* What one connection received, in order: "reply <i>", "error <i> <name>", "<signal> <path>". */
typedef struct Events {
        char **lines;
        unsigned n_replies;
} Events;

typedef struct CallSlot {
        Events *events;
        unsigned index;
        char *path; /* the reply's object path, if any */
} CallSlot;

static int on_call_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        CallSlot *c = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        _cleanup_free_ char *line = e ? xasprintf("error %u %s", c->index, e->name) : xasprintf("reply %u", c->index);
        const char *path;
        if (!e && sd_bus_message_read(m, "o", &path) > 0)
                c->path = strdup(path);
        assert_se(strv_extend(&c->events->lines, line) >= 0);
        c->events->n_replies++;
        return 0;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Events *ev = userdata;
        const char *path;
        assert_se(sd_bus_message_read(m, "o", &path) > 0);
        _cleanup_free_ char *line = xasprintf("%s %s", sd_bus_message_get_member(m), path);
        assert_se(strv_extend(&ev->lines, line) >= 0);
        return 0;
}

static void watch_signals(sd_bus *bus, Events *ev) {
        assert_se(sd_bus_match_signal(bus, NULL, CM_NAME, CM_PATH, CM_IFACE, "ProfileAdded", on_signal, ev) >= 0);
        assert_se(sd_bus_match_signal(bus, NULL, CM_NAME, CM_PATH, CM_IFACE, "DeviceAdded", on_signal, ev) >= 0);
}

/* Sends CreateProfileWithFd(id, temp, fd of file, {MAPPING_device_id: DEVICE_ID when mapped}) without waiting. */
static void send_profile(sd_bus *bus, CallSlot *c, const char *id, int fd, bool mapped) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        assert_se(sd_bus_message_new_method_call(bus, &call, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd") >= 0);
        if (mapped)
                assert_se(sd_bus_message_append(call, "ssha{ss}", id, "temp", fd, 1, "MAPPING_device_id", DEVICE_ID) >= 0);
        else
                assert_se(sd_bus_message_append(call, "ssha{ss}", id, "temp", fd, 0) >= 0);
        assert_se(sd_bus_call_async(bus, NULL, call, on_call_reply, c, 3600ULL * 1000 * 1000) >= 0);
}

static void send_device(sd_bus *bus, CallSlot *c) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        assert_se(sd_bus_message_new_method_call(bus, &call, CM_NAME, CM_PATH, CM_IFACE, "CreateDevice") >= 0);
        assert_se(sd_bus_message_append(call, "ssa{ss}", DEVICE_ID, "temp", 2, "Kind", "display", "Connector",
                                        "Order-1") >= 0);
        assert_se(sd_bus_call_async(bus, NULL, call, on_call_reply, c, 3600ULL * 1000 * 1000) >= 0);
}

static int open_corpus(const char *name) {
        _cleanup_free_ char *path = harness_corpus_file(name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_se(fd >= 0);
        return fd;
}

static void wait_replies(sd_bus *bus, Events *ev, unsigned n) {
        for (;;) {
                drain(bus);
                if (ev->n_replies >= n)
                        return;
                assert_se(sd_bus_wait(bus, UINT64_MAX) >= 0);
        }
}

/* The index of the first line that starts with prefix; aborts when there is none. */
static size_t line_of(char **lines, const char *prefix) {
        for (size_t i = 0; lines && lines[i]; i++)
                if (strncmp(lines[i], prefix, strlen(prefix)) == 0)
                        return i;
        fprintf(stderr, "no event '%s' among:\n", prefix);
        STRV_FOREACH(l, lines)
                fprintf(stderr, "  %s\n", *l);
        abort();
}

static void print_events(const char *who, char **lines) {
        printf("%s received, in order:\n", who);
        STRV_FOREACH(l, lines)
                printf("  %s\n", *l);
}

static void assert_device_lists(sd_bus *bus, const char *device, char *const *profiles) {
        _cleanup_strv_free_ char **listed = harness_get_strv(bus, device, CM_DEVICE_IFACE, "Profiles", "ao");
        STRV_FOREACH(p, profiles)
                assert_se(strv_contains(listed, *p));
}

static const char *const big_profiles[] = {
        "scribus-data--ISOcoated_v2_300_bas.icc",
        "icc-profiles-free--ITULab.icc",
        "rawtherapee-data--Panasonic_DMC-GH2.icc",
        "rawtherapee-data--Canon_EOS_5D.icc",
};
#define N_BIG ELEMENTSOF(big_profiles)

static void test_mutter_pipeline(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "allow" });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *a = harness_connect(h);
        Events ev = { 0 };
        watch_signals(a, &ev);

        CallSlot calls[N_BIG + 1];
        for (unsigned i = 0; i <= N_BIG; i++)
                calls[i] = (CallSlot) { .events = &ev, .index = i };
        for (unsigned i = 0; i < N_BIG; i++) {
                _cleanup_close_ int fd = open_corpus(big_profiles[i]);
                _cleanup_free_ char *id = xasprintf("order-big-%u", i);
                send_profile(a, &calls[i], id, fd, true);
        }
        send_device(a, &calls[N_BIG]);
        wait_replies(a, &ev, N_BIG + 1);
        /* both signals of the last call have come once its reply has: one Ping round trip */
        assert_se(sd_bus_call_method(a, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, NULL) >= 0);
        drain(a);
        print_events("the pipelining client", ev.lines);

        size_t prev = 0;
        for (unsigned i = 0; i <= N_BIG; i++) {
                _cleanup_free_ char *want = xasprintf("reply %u", i);
                size_t at = line_of(ev.lines, want);
                assert_se(i == 0 || at > prev); /* in call order */
                prev = at;
        }
        _cleanup_strv_free_ char **paths = NULL;
        for (unsigned i = 0; i <= N_BIG; i++) {
                assert_se(calls[i].path);
                if (i < N_BIG) {
                        _cleanup_free_ char *added = xasprintf("ProfileAdded %s", calls[i].path);
                        size_t sig = line_of(ev.lines, added);
                        /* before the next call's reply */
                        _cleanup_free_ char *next = xasprintf("reply %u", i + 1);
                        assert_se(sig < line_of(ev.lines, next));
                        assert_se(strv_extend(&paths, calls[i].path) >= 0);
                }
        }
        _cleanup_free_ char *dev_added = xasprintf("DeviceAdded %s", calls[N_BIG].path);
        _cleanup_free_ char *last_profile = xasprintf("reply %u", (unsigned) N_BIG - 1);
        assert_se(line_of(ev.lines, dev_added) > line_of(ev.lines, last_profile));
        assert_device_lists(a, calls[N_BIG].path, paths);
        printf("every profile was answered and added before the device came, which lists them\n");
        for (unsigned i = 0; i <= N_BIG; i++)
                free(calls[i].path);
        strv_free(ev.lines);
}

#ifdef TINCT_PARSER_TEST_HOOKS
static void test_order_around_a_hang(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .extra_args = (const char *const[]) { "--parse-timeout", "3600", NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *a = harness_connect(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = harness_connect(h);
        Events ev = { 0 };
        watch_signals(a, &ev);

        uint8_t buf[256];
        hang_input(buf);
        _cleanup_close_ int hang_fd = memfd_with(buf, sizeof buf);
        _cleanup_close_ int bluish = open_corpus("colord-data--Bluish.icc");
        _cleanup_close_ int adobe = open_corpus("colord-data--AdobeRGB1998.icc");
        CallSlot calls[4];
        for (unsigned i = 0; i < 4; i++)
                calls[i] = (CallSlot) { .events = &ev, .index = i };
        send_profile(a, &calls[0], "order-first", bluish, true);
        send_profile(a, &calls[1], "order-hang", hang_fd, false);
        send_profile(a, &calls[2], "order-third", adobe, true);
        send_device(a, &calls[3]);

        /* B is answered while A's second call hangs in its parser (B's GetProfiles, asked until
         * the looping parser shows, then GetDevices) */
        pid_t spinning = wait_hung_parser(h, b, SIZE_MAX);
        _cleanup_strv_free_ char **devices = harness_call_strv(b, CM_PATH, CM_IFACE, "GetDevices", NULL);
        drain(a);
        print_events("A, while its second call's parse hangs", ev.lines);
        assert_se(ev.n_replies == 1 && line_of(ev.lines, "reply 0") < SIZE_MAX);
        printf("B was answered meanwhile\n");

        assert_se(kill(spinning, SIGKILL) == 0);
        wait_replies(a, &ev, 4);
        assert_se(sd_bus_call_method(a, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, NULL) >= 0);
        drain(a);
        print_events("A, once the looping parser was killed", ev.lines);
        size_t r0 = line_of(ev.lines, "reply 0"), r1 = line_of(ev.lines, "error 1 " CM_PROFILE_ERR "FailedToRead"),
               r2 = line_of(ev.lines, "reply 2"), r3 = line_of(ev.lines, "reply 3");
        assert_se(r0 < r1 && r1 < r2 && r2 < r3);
        _cleanup_free_ char *third = xasprintf("ProfileAdded %s", calls[2].path);
        _cleanup_free_ char *device = xasprintf("DeviceAdded %s", calls[3].path);
        assert_se(r1 < line_of(ev.lines, third) && line_of(ev.lines, third) < r3);
        assert_se(line_of(ev.lines, device) > r2);
        assert_device_lists(a, calls[3].path, (char *const[]) { calls[0].path, calls[2].path, NULL });
        for (unsigned i = 0; i < 4; i++)
                free(calls[i].path);
        strv_free(ev.lines);
        harness_assert_alive(h);
}

/* The calls one client has waiting behind its earlier call are bounded (LIMIT_HELD_CALLS,
 * 256): behind a hanging parse, 300 CreateDevice calls that expect no reply (the only ones the
 * bus lets past its bound on pending replies); once the parse ends, the first 256 have made
 * their devices and the rest were refused, as is a GetDevices sent after them. */
#define HELD_BOUND 256
static void test_held_calls_bounded(void) {
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) {
                .polkit = "allow", .extra_args = (const char *const[]) { "--parse-timeout", "3600", NULL } });
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *a = harness_connect(h);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *b = harness_connect(h);
        uint8_t buf[256];
        hang_input(buf);
        _cleanup_close_ int hang_fd = memfd_with(buf, sizeof buf);
        Events ev = { 0 };
        CallSlot hang = { .events = &ev };
        send_profile(a, &hang, "held-hang", hang_fd, false);
        for (int i = 0; i < HELD_BOUND + 44; i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
                _cleanup_free_ char *id = xasprintf("held-%d", i);
                assert_se(sd_bus_message_new_method_call(a, &call, CM_NAME, CM_PATH, CM_IFACE, "CreateDevice") >= 0);
                assert_se(sd_bus_message_set_expect_reply(call, 0) >= 0);
                assert_se(sd_bus_message_append(call, "ssa{ss}", id, "temp", 1, "Kind", "display") >= 0);
                assert_se(sd_bus_send(a, call, NULL) >= 0);
        }
        /* A call that expects a reply, behind the 300: refused at once, as the bound is full.
         * Its error shows the daemon has read all 300 (the bus keeps A's order) before the
         * parse is ended; else the ones still unread would come after and be dispatched. */
        Pending over = { 0 };
        assert_se(sd_bus_call_method_async(a, NULL, CM_NAME, CM_PATH, CM_IFACE, "GetDevices", on_reply, &over,
                                           NULL) >= 0);
        while (!over.done) {
                assert_se(sd_bus_wait(a, UINT64_MAX) >= 0);
                drain(a);
        }
        assert_se(over.error_name && streq(over.error_name, SD_BUS_ERROR_LIMITS_EXCEEDED));
        free(over.error_name);
        free(over.error_message);
        assert_se(kill(wait_hung_parser(h, b, SIZE_MAX), SIGKILL) == 0);
        wait_replies(a, &ev, 1);
        /* a Ping from A once its first call is answered: after the waiting ones, in order */
        Pending ping = { 0 };
        assert_se(sd_bus_call_method_async(a, NULL, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", on_reply,
                                           &ping, NULL) >= 0);
        while (!ping.done) {
                assert_se(sd_bus_wait(a, UINT64_MAX) >= 0);
                drain(a);
        }
        _cleanup_strv_free_ char **devices = harness_call_strv(b, CM_PATH, CM_IFACE, "GetDevices", NULL);
        size_t held = 0;
        STRV_FOREACH(d, devices)
                held += strstr(*d, "/held_") != NULL;
        printf("of %d calls waiting behind one, %zu were dispatched (the bound: %d)\n", HELD_BOUND + 44, held,
               HELD_BOUND);
        assert_se(held == HELD_BOUND);
        strv_free(ev.lines);
        harness_assert_alive(h);
}
#endif

int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        RUN(test_mutter_pipeline);
#ifdef TINCT_PARSER_TEST_HOOKS
        RUN(test_order_around_a_hang);
        RUN(test_held_calls_bounded);
#else
        printf("the hang test skipped: tinct-parse built without parser_test_hooks\n");
#endif
        printf("test-order: ok\n");
        return 0;
}
