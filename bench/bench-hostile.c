/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cost of a hostile ICC file to everyone else (issue 19): one connection sends the file
 * with CreateProfileWithFd (scope temp) asynchronously while a second connection calls
 * GetProfiles back to back; the worst GetProfiles round trip while the hostile call is
 * pending is the longest any other client waited, and the hostile call's own round trip is
 * how long its sender waited for its answer (success or error alike).
 *
 *         tinct-bench-hostile FILE.icc [ROUNDS]
 *
 * against whatever owns org.freedesktop.ColorManager on $DBUS_SYSTEM_BUS_ADDRESS. Prints
 * RESULT lines (bench-util.h). Deliberately not here: starting a daemon or making the file
 * (bench/run-bench.sh, tinct-bench-icc). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-util.h"
#include "cm-names.h"


typedef struct Pending {
        bool done;
        uint64_t end;
} Pending;

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Pending *p = userdata;
        p->done = true;
        p->end = now_nsec();
        return 0;
}

static int one_round(sd_bus *hostile, sd_bus *other, int fd, unsigned round, uint64_t *ret_worst, uint64_t *ret_own,
                     unsigned *ret_calls) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        char id[64];
        snprintf(id, sizeof id, "bench-hostile-%u-%d", round, (int) getpid());
        int r = sd_bus_message_new_method_call(hostile, &call, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd");
        if (r >= 0)
                r = sd_bus_message_append(call, "ssha{ss}", id, "temp", fd, 0);
        if (r < 0)
                return r;
        Pending p = { 0 };
        uint64_t start = now_nsec(), worst = 0;
        unsigned calls = 0;
        r = sd_bus_call_async(hostile, NULL, call, on_reply, &p, 120 * 1000000ULL);
        if (r < 0)
                return r;
        while (!p.done) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                uint64_t t0 = now_nsec();
                r = sd_bus_call_method(other, CM_NAME, CM_PATH, CM_IFACE, "GetProfiles", NULL, &reply, "");
                if (r < 0)
                        return r;
                uint64_t dt = now_nsec() - t0;
                worst = dt > worst ? dt : worst;
                calls++;
                while ((r = sd_bus_process(hostile, NULL)) > 0)
                        ;
                if (r < 0)
                        return r;
                if (!p.done && sd_bus_wait(hostile, 0) < 0)
                        return -EIO;
        }
        *ret_worst = worst;
        *ret_own = p.end - start;
        *ret_calls = calls;
        return 0;
}

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: tinct-bench-hostile FILE.icc [ROUNDS]\n");
                return 2;
        }
        unsigned rounds = argc > 2 ? (unsigned) atoi(argv[2]) : 5;
        _cleanup_close_ int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "cannot open %s: %s\n", argv[1], strerror(errno));
                return 1;
        }
        sd_bus *hostile = NULL, *other = NULL;
        if (sd_bus_open_system(&hostile) < 0 || sd_bus_open_system(&other) < 0) {
                fprintf(stderr, "cannot connect to the system bus\n");
                return 1;
        }
        uint64_t worst_all = 0, own_all = 0;
        for (unsigned i = 0; i < rounds; i++) {
                uint64_t worst, own;
                unsigned calls;
                int r = one_round(hostile, other, fd, i, &worst, &own, &calls);
                if (r < 0) {
                        fprintf(stderr, "round %u: %s\n", i, strerror(-r));
                        return 1;
                }
                fprintf(stderr, "round %u: %u GetProfiles while pending, worst %.1f ms, own answer %.1f ms\n", i, calls,
                        worst / 1e6, own / 1e6);
                worst_all = worst > worst_all ? worst : worst_all;
                own_all = own > own_all ? own : own_all;
        }
        result_printf(worst_all / 1e6, "ms", "hostile_other_client_worst_wait");
        result_printf(own_all / 1e6, "ms", "hostile_caller_answer");
        sd_bus_flush_close_unref(hostile);
        sd_bus_flush_close_unref(other);
        return 0;
}
