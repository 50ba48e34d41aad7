/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verification records (docs/verify.md) cannot fill the store: uid 65534 ("nobody"), with
 * polkit denying everything, makes its own temp devices with long ids, records a result of
 * each source on each (the TINCT_verify_* and TINCT_profiled_* keys, which need no
 * authorization on one's own temp device) and deletes it, round after round. The store
 * keeps the results of the user's LIMIT_VERIFIED_DEVICES_PER_UID devices verified last, so
 * after many rounds it is no bigger than after the first few (the database file with its
 * write-ahead log, measured with the daemon stopped, so SQLite has checkpointed); the newest
 * devices' results come back on a device of their id, the oldest's do not.
 * Rounds: 300, or $TINCT_VERIFY_ROUNDS (the figure for 2 000 rounds in the note). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-test.h"
#include "tinct-limits.h"

#define ID_LEN 4000 /* below LIMIT_ID_LEN: as long as a client may make them */

static const char *const keys[] = { "dE2000_mean", "dE2000_max", "profile", "patches", "date" };
static const char *const values[] = { "1.000", "2.000", "icc-x", "27", "2026-12-05T00:00:00Z" };
static const char *const prefixes[] = { "TINCT_verify_", "TINCT_profiled_" };

static char *device_id(unsigned round) {
        char *id = xasprintf("temp-%06u-", round);
        size_t n = strlen(id);
        id = realloc(id, ID_LEN + 1);
        assert_se(id);
        memset(id + n, 'x', ID_LEN - n);
        id[ID_LEN] = 0;
        return id;
}

typedef struct Rounds {
        unsigned from, to;
} Rounds;

/* As nobody: CreateDevice, a whole result of each source, DeleteDevice, per round. */
static int nobody_rounds(sd_bus *bus, void *userdata) {
        const Rounds *rounds = userdata;
        for (unsigned i = rounds->from; i < rounds->to; i++) {
                _cleanup_free_ char *id = device_id(i);
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                int r;
                _cleanup_free_ char *path = harness_create_device(bus, id, "temp", "display", NO_KV, &error, &r);
                assert_bus_ok(r, &error);
                for (size_t p = 0; p < ELEMENTSOF(prefixes); p++)
                        for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                                _cleanup_free_ char *key = xasprintf("%s%s", prefixes[p], keys[k]);
                                r = harness_call(bus, path, CM_DEVICE_IFACE, "SetProperty", &error, NULL, "ss", key,
                                                 values[k]);
                                assert_bus_ok(r, &error);
                        }
                r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", path);
                assert_bus_ok(r, &error);
        }
        return 0;
}

/* As nobody: a device of round i's id has its results back (or not). */
typedef struct Expect {
        unsigned round;
        bool restored;
} Expect;

static int nobody_sees(sd_bus *bus, void *userdata) {
        const Expect *e = userdata;
        _cleanup_free_ char *id = device_id(e->round);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;
        _cleanup_free_ char *path = harness_create_device(bus, id, "temp", "display", NO_KV, &error, &r);
        assert_bus_ok(r, &error);
        r = sd_bus_get_property(bus, CM_NAME, path, CM_DEVICE_IFACE, "Metadata", &error, &reply, "a{ss}");
        assert_bus_ok(r, &error);
        bool has_date = false;
        const char *k, *v;
        assert_se(sd_bus_message_enter_container(reply, 'a', "{ss}") >= 0);
        while ((r = sd_bus_message_read(reply, "{ss}", &k, &v)) > 0)
                if (streq(k, "TINCT_verify_date"))
                        has_date = streq(v, "2026-12-05T00:00:00Z");
        assert_se(r >= 0);
        if (has_date != e->restored) {
                fprintf(stderr, "round %u's device: results %s, expected %s\n", e->round,
                        has_date ? "restored" : "gone", e->restored ? "restored" : "gone");
                return -EPROTO;
        }
        r = harness_call(bus, CM_PATH, CM_IFACE, "DeleteDevice", &error, NULL, "o", path);
        assert_bus_ok(r, &error);
        return 0;
}

static void restart(Harness *h) {
        assert_se(harness_restart_daemon(h) >= 0);
}

static void test_rounds(Harness *h, unsigned n) {
        /* Enough rounds to fill the cap twice over; the store is measured after them and
         * again after all. */
        const unsigned warm = 2 * LIMIT_VERIFIED_DEVICES_PER_UID;
        assert_se(n > warm + LIMIT_VERIFIED_DEVICES_PER_UID);

        off_t empty = store_size_stopped(h);
        restart(h);
        assert_se(harness_run_as_nobody(h, nobody_rounds, &(Rounds) { 0, warm }) == 0);
        off_t after_warm = store_size_stopped(h);
        restart(h);
        assert_se(harness_run_as_nobody(h, nobody_rounds, &(Rounds) { warm, n }) == 0);
        off_t after_all = store_size_stopped(h);
        fprintf(stderr, "store: %lld bytes at start, %lld after %u rounds, %lld after %u rounds\n",
                (long long) empty, (long long) after_warm, warm, (long long) after_all, n);
        /* Page reuse leaves some slack; growth with the rounds would be n/warm times. */
        assert_se(after_all <= 2 * after_warm);

        restart(h);
        assert_se(harness_run_as_nobody(h, nobody_sees, &(Expect) { n - 1, true }) == 0);
        assert_se(harness_run_as_nobody(h, nobody_sees, &(Expect) { n - LIMIT_VERIFIED_DEVICES_PER_UID, true }) == 0);
        assert_se(harness_run_as_nobody(h, nobody_sees, &(Expect) { 0, false }) == 0);
}

int main(void) {
        const char *env = getenv("TINCT_VERIFY_ROUNDS");
        unsigned n = env ? (unsigned) strtoul(env, NULL, 10) : 300;
        _cleanup_harness_ Harness *h = harness_start(&(HarnessOptions) { .polkit = "deny" });
        if (harness_is_colord(h)) {
                fprintf(stderr, "colord keeps no verification records: skipped\n");
                return 77;
        }
        RUN(test_rounds, h, n);
        return 0;
}
