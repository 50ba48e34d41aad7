/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A D-Bus fuzzer of our own: N random calls against tinctd on the private bus (tests/harness),
 * half as root and half as nobody (uid 65534). Each call picks a method of colord's interface
 * (or a wrong member), on the manager, a live object, or a made-up path; with the right
 * signature or a random one; with random values: short and 100 kB strings, UTF-8 and not,
 * ids from a small pool (so objects stay bounded and collide), real object paths, fds of
 * /dev/null, pipes, memfds holding corpus ICC bytes or noise. Calls are pipelined, 32 in flight.
 *
 * Asserts: the daemon answers every call (a reply or an error, never silence), is alive at
 * the end, and its database passes SQLite's integrity_check after a clean stop. Prints the
 * call count, the rate, error kinds and the daemon's RSS after the warm-up and at the end (a
 * leak shows as growth; figures, not a threshold). Usage: fuzz-bus [CALLS] (default 20000;
 * the suite runs the default, `fuzz/run-bus-fuzz.sh` a million). */

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "bus-test.h"
#include "time-util.h"

#define IN_FLIGHT 32
#define ID_POOL 48
/* sd_bus_wait() wakes at the latest after this to look at the counters again: a reply
 * dispatched during a synchronous call (refresh) leaves nothing on the socket to wake for.
 * Each call's own 30 s timeout is what catches a daemon that does not answer. */
#define WAKE_USEC (100 * 1000ULL)

typedef struct Method {
        const char *iface, *member, *signature;
        int target; /* 0 manager, 1 device, 2 profile, 3 sensor, 4 any */
} Method;

static const Method methods[] = {
        { CM_IFACE, "CreateDevice", "ssa{ss}", 0 }, { CM_IFACE, "CreateProfile", "ssa{ss}", 0 },
        { CM_IFACE, "CreateProfileWithFd", "ssha{ss}", 0 }, { CM_IFACE, "DeleteDevice", "o", 0 },
        { CM_IFACE, "DeleteProfile", "o", 0 }, { CM_IFACE, "FindDeviceById", "s", 0 },
        { CM_IFACE, "FindDeviceByProperty", "ss", 0 }, { CM_IFACE, "FindProfileById", "s", 0 },
        { CM_IFACE, "FindProfileByFilename", "s", 0 }, { CM_IFACE, "FindSensorById", "s", 0 },
        { CM_IFACE, "GetDevices", "", 0 }, { CM_IFACE, "GetDevicesByKind", "s", 0 },
        { CM_IFACE, "GetProfiles", "", 0 }, { CM_IFACE, "GetProfilesByKind", "s", 0 },
        { CM_IFACE, "GetSensors", "", 0 }, { CM_IFACE, "GetStandardSpace", "s", 0 },
        { CM_DEVICE_IFACE, "AddProfile", "so", 1 }, { CM_DEVICE_IFACE, "RemoveProfile", "o", 1 },
        { CM_DEVICE_IFACE, "MakeProfileDefault", "o", 1 }, { CM_DEVICE_IFACE, "GetProfileForQualifiers", "as", 1 },
        { CM_DEVICE_IFACE, "GetProfileRelation", "o", 1 }, { CM_DEVICE_IFACE, "SetProperty", "ss", 1 },
        { CM_DEVICE_IFACE, "SetEnabled", "b", 1 }, { CM_DEVICE_IFACE, "ProfilingInhibit", "", 1 },
        { CM_DEVICE_IFACE, "ProfilingUninhibit", "", 1 }, { CM_PROFILE_IFACE, "SetProperty", "ss", 2 },
        { CM_PROFILE_IFACE, "InstallSystemWide", "", 2 }, { CM_SENSOR_IFACE, "Lock", "", 3 },
        { CM_SENSOR_IFACE, "Unlock", "", 3 }, { CM_SENSOR_IFACE, "GetSample", "s", 3 },
        { CM_SENSOR_IFACE, "GetSpectrum", "s", 3 }, { CM_SENSOR_IFACE, "SetOptions", "a{sv}", 3 },
        { "org.freedesktop.DBus.Properties", "GetAll", "s", 4 }, { "org.freedesktop.DBus.Properties", "Get", "ss", 4 },
        { "org.freedesktop.DBus.Properties", "Set", "ssv", 4 }, { "org.freedesktop.DBus.Introspectable", "Introspect", "", 4 },
        { "org.freedesktop.DBus.Peer", "Ping", "", 4 }, { CM_IFACE, "NoSuchMethod", "s", 0 },
};

static const char *const words[] = {
        "Kind", "Colorspace", "Mode", "Qualifier", "Format", "Filename", "Model", "Vendor", "Serial", "Title",
        "Embedded", "Scope", "Seat", "XRANDR_name", "MAPPING_device_id", "STANDARD_space", "display", "printer",
        "scanner", "camera", "rgb", "cmyk", "gray", "temp", "normal", "disk", "hard", "soft", "physical", "virtual",
        "RGB.Glossy.600dpi", "RGB..", "*", "RGB.*.*", "srgb", "adobe-rgb", "lcd", "ambient", "spectral", "",
        "sample[red]", "true", "false", "/", "..", "a\xc3\xa9\xe2\x82\xac", "\xff\xfe", "with space",
};

typedef struct Fuzz {
        Harness *h;
        sd_bus *bus;
        unsigned seed;
        char **devices, **profiles, **sensors; /* live paths, refreshed now and then */
        uint8_t *icc;
        size_t icc_size;
        unsigned in_flight, sent, replies, errors, invalid;
        char *last_error;
} Fuzz;

static unsigned rnd(Fuzz *f, unsigned n) {
        return n ? (unsigned) (rand_r(&f->seed) % n) : 0;
}

static char *random_string(Fuzz *f) {
        unsigned kind = rnd(f, 20);
        if (kind < 10)
                return strdup(words[rnd(f, ELEMENTSOF(words))]);
        if (kind < 16) {
                char *s;
                assert_se(asprintf(&s, "fz-%u", rnd(f, ID_POOL)) >= 0);
                return s;
        }
        size_t n = kind < 19 ? rnd(f, 64) : 4096 + rnd(f, 100000);
        char *s = malloc(n + 1);
        assert_se(s);
        for (size_t i = 0; i < n; i++)
                s[i] = kind == 18 ? (char) (1 + rnd(f, 255)) : "abcXYZ019-_.*/ "[rnd(f, 15)];
        s[n] = 0;
        return s;
}

static const char *random_path(Fuzz *f, int target) {
        char **pools[] = { f->devices, f->profiles, f->sensors };
        unsigned r = rnd(f, 10);
        if (target == 0 || r == 0)
                return r == 0 ? CM_PATH "/devices/fz_nothing" : CM_PATH;
        char **pool = target >= 1 && target <= 3 ? pools[target - 1] : pools[rnd(f, 3)];
        size_t n = strv_length(pool);
        return n ? pool[rnd(f, (unsigned) n)] : CM_PATH;
}

static int memfd_with(Fuzz *f) {
        int fd = memfd_create("fuzz", MFD_CLOEXEC);
        assert_se(fd >= 0);
        if (rnd(f, 2) && f->icc) {
                size_t n = rnd(f, 4) == 0 ? rnd(f, (unsigned) f->icc_size) : f->icc_size; /* whole or truncated */
                assert_se(write(fd, f->icc, n) == (ssize_t) n);
        } else {
                char noise[512];
                for (size_t i = 0; i < sizeof noise; i++)
                        noise[i] = (char) rnd(f, 256);
                assert_se(write(fd, noise, rnd(f, sizeof noise)) >= 0);
        }
        return fd;
}

/* Appends one complete type from *sig, advancing it. Only the shapes the table uses. */
static void append_value(Fuzz *f, sd_bus_message *m, const char **sig) {
        char c = **sig;
        (*sig)++;
        int r = 0;
        switch (c) {
        case 's': {
                _cleanup_free_ char *s = random_string(f);
                r = sd_bus_message_append_basic(m, 's', s);
                if (r < 0) /* not UTF-8: sd-bus refuses to send it; send a word instead */
                        r = sd_bus_message_append_basic(m, 's', words[rnd(f, 40)]);
                break;
        }
        case 'o':
                r = sd_bus_message_append_basic(m, 'o', rnd(f, 8) ? random_path(f, 1 + (int) rnd(f, 3)) : "/fz/x");
                break;
        case 'b':
                r = sd_bus_message_append(m, "b", (int) rnd(f, 2));
                break;
        case 'u':
                r = sd_bus_message_append(m, "u", (uint32_t) rand_r(&f->seed));
                break;
        case 'h': {
                int fd = rnd(f, 3) == 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : memfd_with(f);
                assert_se(fd >= 0);
                r = sd_bus_message_append(m, "h", fd);
                close(fd);
                break;
        }
        case 'v':
                if (rnd(f, 2))
                        r = sd_bus_message_append(m, "v", "d", (double) rnd(f, 1000) / 100.0);
                else
                        r = sd_bus_message_append(m, "v", "s", words[rnd(f, 40)]);
                break;
        case 'a':
                if (strncmp(*sig, "{ss}", 4) == 0 || strncmp(*sig, "{sv}", 4) == 0) {
                        char vt = (*sig)[2];
                        *sig += 4;
                        r = sd_bus_message_open_container(m, 'a', vt == 's' ? "{ss}" : "{sv}");
                        for (unsigned i = 0, n = rnd(f, 6); r >= 0 && i < n; i++) {
                                const char *val = vt == 's' ? "ss" : "sv";
                                r = sd_bus_message_open_container(m, 'e', val);
                                const char *p = val;
                                while (r >= 0 && *p)
                                        append_value(f, m, &p);
                                if (r >= 0)
                                        r = sd_bus_message_close_container(m);
                        }
                        if (r >= 0)
                                r = sd_bus_message_close_container(m);
                } else if (**sig == 's') {
                        (*sig)++;
                        r = sd_bus_message_open_container(m, 'a', "s");
                        for (unsigned i = 0, n = rnd(f, 8); r >= 0 && i < n; i++) {
                                const char *p = "s";
                                append_value(f, m, &p);
                        }
                        if (r >= 0)
                                r = sd_bus_message_close_container(m);
                }
                break;
        }
        assert_se(r >= 0);
}

typedef struct Call {
        Fuzz *fuzz;
        const Method *method;
        char signature[16];
        uint64_t sent_us;
} Call;


static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Call *call = userdata;
        Fuzz *f = call->fuzz;
        f->in_flight--;
        f->replies++;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (e) {
                f->errors++;
                if (streq_ptr(e->name, SD_BUS_ERROR_NO_REPLY)) {
                        fprintf(stderr, "fuzz: %s.%s(%s) got no reply: %s\n", call->method->iface, call->method->member,
                                call->signature, e->message);
                        abort();
                }
                if (strstr(e->name, "InvalidArgs") || strstr(e->name, "UnknownMethod") || strstr(e->name, "InputInvalid"))
                        f->invalid++;
        }
        uint64_t took = now(CLOCK_MONOTONIC) - call->sent_us;
        if (took > 500000 && getenv("FUZZ_SLOW"))
                fprintf(stderr, "slow: %s.%s(%s) %.1f s -> %s\n", call->method->iface, call->method->member, call->signature,
                        took / 1e6, e ? e->name : "ok");
        free(call);
        return 0;
}

static void refresh(Fuzz *f) {
        strv_free(f->devices);
        strv_free(f->profiles);
        strv_free(f->sensors);
        f->devices = harness_call_strv(f->bus, CM_PATH, CM_IFACE, "GetDevices", NULL);
        f->profiles = harness_call_strv(f->bus, CM_PATH, CM_IFACE, "GetProfiles", NULL);
        f->sensors = harness_call_strv(f->bus, CM_PATH, CM_IFACE, "GetSensors", NULL);
}

static void send_one(Fuzz *f) {
        const Method *mt = &methods[rnd(f, ELEMENTSOF(methods))];
        static const char *const wrong[] = { "", "s", "i", "ss", "o", "as", "a{ss}", "u", "sss", "h", "b", "so" };
        const char *sig = rnd(f, 4) ? mt->signature : wrong[rnd(f, ELEMENTSOF(wrong))];
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        assert_se(sd_bus_message_new_method_call(f->bus, &m, CM_NAME, random_path(f, mt->target), mt->iface, mt->member) >= 0);
        for (const char *p = sig; *p;)
                append_value(f, m, &p);
        Call *call = calloc(1, sizeof *call);
        assert_se(call);
        *call = (Call) { .fuzz = f, .method = mt, .sent_us = now(CLOCK_MONOTONIC) };
        snprintf(call->signature, sizeof call->signature, "%s", sig);
        /* 30 s: far beyond any answer the daemon owes (polkit's own limit is 20 s). */
        assert_se(sd_bus_call_async(f->bus, NULL, m, on_reply, call, 30 * 1000000ULL) >= 0);
        f->in_flight++;
        f->sent++;
}

static int fuzz_loop(sd_bus *bus, void *userdata) {
        Fuzz *f = userdata;
        f->bus = bus;
        unsigned total = f->sent;
        f->sent = f->replies = f->errors = f->invalid = 0;
        refresh(f);
        while (f->sent < total || f->in_flight > 0) {
                while (f->sent < total && f->in_flight < IN_FLIGHT) {
                        send_one(f);
                        if (f->sent % 500 == 0) {
                                /* drain, then look at what exists now */
                                while (f->in_flight > 0)
                                        if (sd_bus_process(bus, NULL) == 0)
                                                assert_se(sd_bus_wait(bus, WAKE_USEC) >= 0);
                                refresh(f);
                        }
                }
                int r = sd_bus_process(bus, NULL);
                assert_se(r >= 0);
                if (r == 0)
                        assert_se(sd_bus_wait(bus, WAKE_USEC) >= 0);
        }
        fprintf(stderr, "  %u calls, %u errors (%u refused as invalid), at %.1f s\n", f->replies, f->errors, f->invalid, now(CLOCK_MONOTONIC) / 1e6);
        strv_free(f->devices);
        strv_free(f->profiles);
        strv_free(f->sensors);
        f->devices = f->profiles = f->sensors = NULL;
        return f->replies == total ? 0 : -1;
}

static long rss_kib(pid_t pid) {
        char path[64], line[256];
        long kib = -1;
        snprintf(path, sizeof path, "/proc/%d/status", (int) pid);
        FILE *fp = fopen(path, "re");
        if (!fp)
                return -1;
        while (fgets(line, sizeof line, fp))
                if (sscanf(line, "VmRSS: %ld", &kib) == 1)
                        break;
        fclose(fp);
        return kib;
}

int main(int argc, char **argv) {
        unsigned calls = argc > 1 ? (unsigned) strtoul(argv[1], NULL, 10) : 20000;
        const HarnessOptions opts = { .polkit = "allow", .dummy_sensor = true };
        _cleanup_harness_ Harness *h = harness_start(&opts);
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = harness_connect(h);
        Fuzz f = { .h = h, .seed = 20261204 };
        _cleanup_free_ char *icc_path = harness_corpus_file("colord-tests--ibm-t61.icc");
        int fd = open(icc_path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && (f.icc = malloc((size_t) st.st_size)) &&
            read(fd, f.icc, (size_t) st.st_size) == st.st_size)
                f.icc_size = (size_t) st.st_size;
        if (fd >= 0)
                close(fd);

        pid_t daemon = harness_daemon_pid(h);
        uint64_t t0 = now(CLOCK_MONOTONIC);
        /* warm-up: a tenth as root, so every pool id has had its objects */
        f.sent = calls / 10;
        assert_se(fuzz_loop(bus, &f) == 0);
        long rss_warm = rss_kib(daemon);
        f.sent = calls / 2 - calls / 10;
        fprintf(stderr, "root:\n");
        assert_se(fuzz_loop(bus, &f) == 0);
        fprintf(stderr, "nobody:\n");
        f.sent = calls - calls / 2;
        assert_se(harness_run_as_nobody(h, fuzz_loop, &f) == 0);
        uint64_t t1 = now(CLOCK_MONOTONIC);
        long rss_end = rss_kib(daemon);
        harness_assert_alive(h);
        fprintf(stderr, "fuzz: %u calls in %.1f s (%.0f calls/s); daemon RSS %ld KiB after warm-up, %ld KiB at the end\n",
                calls, (double) (t1 - t0) / 1e6, calls / ((double) (t1 - t0) / 1e6), rss_warm, rss_end);

        /* A clean stop, then SQLite's own check of the file. */
        assert_se(harness_stop_daemon(h) == 0);
        _cleanup_free_ char *cmd = NULL;
        assert_se(asprintf(&cmd, "python3 -c \"import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0]; print('integrity_check:', r); sys.exit(r != 'ok')\" '%s/tinct.db'",
                           harness_state_dir(h)) >= 0);
        assert_se(system(cmd) == 0);
        free(f.icc);
        return 0;
}
