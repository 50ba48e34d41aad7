/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-bench-load: a D-Bus load generator for any daemon that speaks colord's API
 * (org.freedesktop.ColorManager) on the bus named by DBUS_SYSTEM_BUS_ADDRESS.
 *
 * What it measures, on a fixture it builds itself (N devices, each with P soft-added
 * profiles, everything scope "temp" so it disappears with this process):
 *  - latency (median, p99; CLOCK_MONOTONIC, after a warm-up) of one client calling, one
 *    call at a time: Peer.Ping to the daemon (the floor: bus round trip plus the daemon's
 *    dispatch, no method work), GetDevices, FindDeviceById, Device.GetProfileForQualifiers
 *    with the five-element CUPS fallback list, and Properties.GetAll of a device;
 *    the target device is drawn at random from the fixture for every call;
 *  - the same lookups at several fixture sizes (--devices 10,1000,10000; the fixture
 *    grows between sizes), to show whether latency depends on the object count;
 *  - throughput (calls per second) and latency with K parallel clients, each a thread
 *    with its own bus connection, in a closed loop (one call outstanding per client);
 *  - the cost of CreateDevice, DeleteDevice, CreateProfile, Device.AddProfile and
 *    DeleteProfile, each timed on its own, at every fixture size;
 *  - the daemon's VmRSS/VmHWM before and after many CreateDevice/DeleteDevice cycles
 *    (needs the daemon's pid: --pid or $TINCT_BENCH_DAEMON_PID).
 *
 * Deliberately not measured: polkit (the caller is expected to be uid 0, which both
 * daemons let through without asking), signal delivery to subscribers (no client here
 * adds match rules, so the bus drops the signals the daemon emits), profiles backed by
 * ICC files (fixture profiles have no file; file parsing is the startup benchmark's
 * business), and the bus daemon's own cost, which is part of every figure including the
 * Ping floor. Results are RESULT lines (bench-util.h) on stdout, progress on stderr. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "bench-util.h"
#include "cm-names.h"
#include "macro.h"
#include "strv.h"

#define CM_DEVICE_IFACE CM_IFACE ".Device"
#define CALL_TIMEOUT_USEC (120ULL * 1000 * 1000)
#define PIPELINE_WINDOW 64

/* The qualifiers of a device's profiles (CUPS style, ColorModel.OutputMode.Resolution)
 * and the fallback list cups-filters sends for a job "RGB.Photo.1200dpi". Only the fourth
 * entry, RGB.*.*, matches, so a daemon has to walk the whole list and both passes; the
 * newest matching soft profile (index 4) is the expected answer. */
static const char *const fixture_qualifiers[] = {
        "RGB.Plain.300dpi", "RGB.Plain.600dpi", "Gray.Plain.300dpi", "CMYK.Plain.300dpi", "RGB.Glossy.600dpi",
};
#define QUERY_EXPECTED_INDEX 4
static const char *const query[] = {
        "RGB.Photo.1200dpi", "RGB.Photo.*", "RGB.*.1200dpi", "RGB.*.*", "*",
};

typedef enum CallKind {
        CALL_PING,
        CALL_GET_DEVICES,
        CALL_FIND_DEVICE,
        CALL_GPFQ,
        CALL_GET_ALL,
        _CALL_MAX,
} CallKind;

static const char *const call_names[_CALL_MAX] = {
        [CALL_PING] = "ping",
        [CALL_GET_DEVICES] = "get-devices",
        [CALL_FIND_DEVICE] = "find-device",
        [CALL_GPFQ] = "gpfq",
        [CALL_GET_ALL] = "getall",
};

typedef struct Options {
        size_t *sizes;             /* fixture sizes, ascending */
        size_t n_sizes;
        size_t profiles_per_device;
        size_t *clients;
        size_t n_clients;
        bool calls[_CALL_MAX];
        double duration;           /* seconds per latency measurement */
        double throughput_duration;
        double warmup;
        size_t min_samples, max_samples;
        bool latency;
        bool mutations;
        size_t rss_cycles;
        pid_t pid;
} Options;

typedef struct Fixture {
        char tag[32];
        size_t n_devices, allocated;
        size_t ppd;
        char **device_ids;
        char **device_paths;
        char **profile_paths;      /* ppd per device, in the order they were added */
} Fixture;

static void fixture_done(Fixture *fx) {
        for (size_t i = 0; i < fx->n_devices; i++) {
                free(fx->device_ids[i]);
                free(fx->device_paths[i]);
        }
        for (size_t i = 0; i < fx->n_devices * fx->ppd; i++)
                free(fx->profile_paths[i]);
        free(fx->device_ids);
        free(fx->device_paths);
        free(fx->profile_paths);
}

static inline uint64_t xorshift64(uint64_t *s) {
        uint64_t x = *s;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return *s = x;
}

static void print_bus_error(const char *what, int r, const sd_bus_error *error) {
        if (sd_bus_error_is_set(error))
                fprintf(stderr, "%s: %s: %s\n", what, error->name, error->message);
        else
                fprintf(stderr, "%s: %s\n", what, strerror(-r));
}

/* ---- asynchronous pipelined calls, used only to build the fixture quickly ---------- */

typedef struct Pipeline {
        sd_bus *bus;
        unsigned in_flight;
        int error;
        char error_message[512];
} Pipeline;

typedef struct PendingCall {
        Pipeline *pipeline;
        char **ret_path;
} PendingCall;

static int pipeline_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        PendingCall *pc = userdata;
        Pipeline *pl = pc->pipeline;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        pl->in_flight--;
        if (e) {
                if (pl->error == 0) {
                        pl->error = -EIO;
                        snprintf(pl->error_message, sizeof pl->error_message, "%s: %s", e->name, e->message);
                }
        } else if (pc->ret_path) {
                const char *path;
                int r = sd_bus_message_read(m, "o", &path);
                if (r < 0 || !(*pc->ret_path = strdup(path))) {
                        if (pl->error == 0)
                                pl->error = r < 0 ? r : -ENOMEM;
                }
        }
        free(pc);
        return 0;
}

static int pipeline_drain(Pipeline *pl, unsigned limit) {
        while (pl->in_flight > limit) {
                int r = sd_bus_process(pl->bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                r = sd_bus_wait(pl->bus, UINT64_MAX);
                if (r < 0 && r != -EINTR)
                        return r;
        }
        return pl->error;
}

static PendingCall *pipeline_begin(Pipeline *pl, char **ret_path) {
        PendingCall *pc;

        if (pipeline_drain(pl, PIPELINE_WINDOW - 1) < 0)
                return NULL;
        pc = malloc(sizeof *pc);
        if (!pc) {
                pl->error = -ENOMEM;
                return NULL;
        }
        *pc = (PendingCall) { .pipeline = pl, .ret_path = ret_path };
        return pc;
}

static int pipeline_sent(Pipeline *pl, PendingCall *pc, int r) {
        if (r < 0) {
                free(pc);
                if (pl->error == 0)
                        pl->error = r;
                return r;
        }
        pl->in_flight++;
        return 0;
}

static int device_properties_append(sd_bus_message *m, size_t i) {
        char serial[64], model[64];

        /* What CUPS sends for a printer. */
        snprintf(serial, sizeof serial, "usb://Bench/P%zu?serial=SN%06zu", i, i);
        snprintf(model, sizeof model, "Bench Printer %zu", i);
        return sd_bus_message_append(m, "a{ss}", 6,
                                     "Kind", "printer",
                                     "Colorspace", "rgb",
                                     "Format", "ColorModel.OutputMode.OutputResolution",
                                     "Vendor", "Bench Inc.",
                                     "Model", model,
                                     "Serial", serial);
}

static int send_create_device(sd_bus *bus, const char *id, size_t i,
                              sd_bus_message_handler_t cb, void *userdata, sd_bus_message **ret_reply,
                              sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, CM_NAME, CM_PATH, CM_IFACE, "CreateDevice");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ss", id, "temp");
        if (r < 0)
                return r;
        r = device_properties_append(m, i);
        if (r < 0)
                return r;
        if (cb)
                return sd_bus_call_async(bus, NULL, m, cb, userdata, 0);
        return sd_bus_call(bus, m, CALL_TIMEOUT_USEC, error, ret_reply);
}

/* Grows the fixture to n devices: profiles first, then devices, then the soft links, each
 * phase pipelined and finished before the next starts. */
static int fixture_grow(sd_bus *bus, Fixture *fx, size_t n) {
        Pipeline pl = { .bus = bus };
        size_t old = fx->n_devices;
        int r;

        if (n <= old)
                return 0;
        if (n > fx->allocated) {
                char **ids = realloc(fx->device_ids, n * sizeof(char *));
                if (!ids)
                        return -ENOMEM;
                fx->device_ids = ids;
                char **paths = realloc(fx->device_paths, n * sizeof(char *));
                if (!paths)
                        return -ENOMEM;
                fx->device_paths = paths;
                char **pp = realloc(fx->profile_paths, n * fx->ppd * sizeof(char *));
                if (!pp)
                        return -ENOMEM;
                fx->profile_paths = pp;
                fx->allocated = n;
        }
        for (size_t i = old; i < n; i++) {
                fx->device_paths[i] = NULL;
                if (asprintf(&fx->device_ids[i], "bench-%s-d%zu", fx->tag, i) < 0)
                        return -ENOMEM;
                for (size_t j = 0; j < fx->ppd; j++)
                        fx->profile_paths[i * fx->ppd + j] = NULL;
        }
        /* Counted only once everything exists, so fixture_done() frees what was made. */

        for (size_t i = old; i < n; i++)
                for (size_t j = 0; j < fx->ppd; j++) {
                        char id[96];
                        PendingCall *pc = pipeline_begin(&pl, &fx->profile_paths[i * fx->ppd + j]);
                        if (!pc)
                                goto fail;
                        snprintf(id, sizeof id, "bench-%s-p%zu-%zu", fx->tag, i, j);
                        r = sd_bus_call_method_async(bus, NULL, CM_NAME, CM_PATH, CM_IFACE, "CreateProfile",
                                                     pipeline_reply, pc, "ssa{ss}", id, "temp", 3,
                                                     "Qualifier", fixture_qualifiers[j % ELEMENTSOF(fixture_qualifiers)],
                                                     "Format", "ColorModel.OutputMode.OutputResolution",
                                                     "Colorspace", "rgb");
                        if (pipeline_sent(&pl, pc, r) < 0)
                                goto fail;
                }
        if (pipeline_drain(&pl, 0) < 0)
                goto fail;

        for (size_t i = old; i < n; i++) {
                PendingCall *pc = pipeline_begin(&pl, &fx->device_paths[i]);
                if (!pc)
                        goto fail;
                r = send_create_device(bus, fx->device_ids[i], i, pipeline_reply, pc, NULL, NULL);
                if (pipeline_sent(&pl, pc, r) < 0)
                        goto fail;
        }
        if (pipeline_drain(&pl, 0) < 0)
                goto fail;

        for (size_t i = old; i < n; i++)
                for (size_t j = 0; j < fx->ppd; j++) {
                        PendingCall *pc = pipeline_begin(&pl, NULL);
                        if (!pc)
                                goto fail;
                        r = sd_bus_call_method_async(bus, NULL, CM_NAME, fx->device_paths[i], CM_DEVICE_IFACE,
                                                     "AddProfile", pipeline_reply, pc, "so", "soft",
                                                     fx->profile_paths[i * fx->ppd + j]);
                        if (pipeline_sent(&pl, pc, r) < 0)
                                goto fail;
                }
        if (pipeline_drain(&pl, 0) < 0)
                goto fail;

        fx->n_devices = n;
        return 0;

fail:
        (void) pipeline_drain(&pl, 0);
        fprintf(stderr, "building the fixture (%zu devices): %s\n", n,
                pl.error_message[0] ? pl.error_message : strerror(-pl.error));
        /* Free what this round made; the daemon drops the objects when we disconnect. */
        for (size_t i = old; i < n; i++) {
                fx->device_ids[i] = mfree(fx->device_ids[i]);
                fx->device_paths[i] = mfree(fx->device_paths[i]);
                for (size_t j = 0; j < fx->ppd; j++)
                        fx->profile_paths[i * fx->ppd + j] = mfree(fx->profile_paths[i * fx->ppd + j]);
        }
        return pl.error < 0 ? pl.error : -EIO;
}

/* ---- the lookups ------------------------------------------------------------------- */

/* One call of the given kind; the device is picked with rng. */
static int do_call(sd_bus *bus, const Fixture *fx, CallKind kind, uint64_t *rng, sd_bus_message **ret_reply) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        size_t i = fx->n_devices > 0 ? xorshift64(rng) % fx->n_devices : 0;
        int r;

        switch (kind) {
        case CALL_PING:
                r = sd_bus_call_method(bus, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping",
                                       &error, &reply, NULL);
                break;
        case CALL_GET_DEVICES:
                r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "GetDevices", &error, &reply, NULL);
                break;
        case CALL_FIND_DEVICE:
                r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "FindDeviceById", &error, &reply,
                                       "s", fx->device_ids[i]);
                break;
        case CALL_GPFQ:
                r = sd_bus_call_method(bus, CM_NAME, fx->device_paths[i], CM_DEVICE_IFACE,
                                       "GetProfileForQualifiers", &error, &reply, "as", 5,
                                       query[0], query[1], query[2], query[3], query[4]);
                break;
        case CALL_GET_ALL:
                r = sd_bus_call_method(bus, CM_NAME, fx->device_paths[i], "org.freedesktop.DBus.Properties",
                                       "GetAll", &error, &reply, "s", CM_DEVICE_IFACE);
                break;
        default:
                return -EINVAL;
        }
        if (r < 0) {
                print_bus_error(call_names[kind], r, &error);
                return r;
        }
        if (ret_reply)
                *ret_reply = TAKE_PTR(reply);
        return 0;
}

/* Checks once, before measuring, that each lookup gives the right answer, so a daemon
 * that answers quickly but wrongly cannot look good. Mismatches in which profile
 * GetProfileForQualifiers picks are reported, not fatal. */
static int verify_lookups(sd_bus *bus, const Fixture *fx) {
        uint64_t rng = 0x9e3779b97f4a7c15ULL;
        size_t i;
        int r;

        {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_strv_free_ char **paths = NULL;

                r = do_call(bus, fx, CALL_GET_DEVICES, &rng, &reply);
                if (r < 0)
                        return r;
                r = sd_bus_message_read_strv(reply, &paths);
                if (r < 0)
                        return r;
                if (strv_length(paths) < fx->n_devices) {
                        fprintf(stderr, "GetDevices returned %zu devices, expected at least %zu\n",
                                strv_length(paths), fx->n_devices);
                        return -EBADMSG;
                }
        }
        if (fx->n_devices == 0)
                return 0;

        for (unsigned k = 0; k < 8; k++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                const char *path;

                i = xorshift64(&rng) % fx->n_devices;
                r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "FindDeviceById", &error, &reply,
                                       "s", fx->device_ids[i]);
                if (r < 0) {
                        print_bus_error("FindDeviceById", r, &error);
                        return r;
                }
                r = sd_bus_message_read(reply, "o", &path);
                if (r < 0)
                        return r;
                if (!streq(path, fx->device_paths[i])) {
                        fprintf(stderr, "FindDeviceById(%s) = %s, expected %s\n", fx->device_ids[i], path,
                                fx->device_paths[i]);
                        return -EBADMSG;
                }

                sd_bus_message_unref(reply);
                reply = NULL;
                r = sd_bus_call_method(bus, CM_NAME, fx->device_paths[i], CM_DEVICE_IFACE,
                                       "GetProfileForQualifiers", &error, &reply, "as", 5,
                                       query[0], query[1], query[2], query[3], query[4]);
                if (r < 0) {
                        print_bus_error("GetProfileForQualifiers", r, &error);
                        return r;
                }
                r = sd_bus_message_read(reply, "o", &path);
                if (r < 0)
                        return r;
                if (fx->ppd > QUERY_EXPECTED_INDEX &&
                    !streq(path, fx->profile_paths[i * fx->ppd + QUERY_EXPECTED_INDEX]))
                        fprintf(stderr, "note: GetProfileForQualifiers on %s chose %s, expected %s\n",
                                fx->device_paths[i], path, fx->profile_paths[i * fx->ppd + QUERY_EXPECTED_INDEX]);

                sd_bus_message_unref(reply);
                reply = NULL;
                r = do_call(bus, fx, CALL_GET_ALL, &rng, &reply);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Each sample of a lookup is preceded by a Ping whose time is kept too: the ratio to the
 * floor then compares calls made under the same conditions, so load that comes and goes on
 * a shared machine during the run cancels out. ret_ping may be NULL (no pairing). */
static int measure_latency(sd_bus *bus, const Fixture *fx, CallKind kind, const Options *o, Stats *ret,
                           Stats *ret_ping) {
        Samples s = {}, ps = {};
        uint64_t rng = 0x2545f4914f6cdd1dULL ^ (uint64_t) kind;
        uint64_t t, warm_end, end, hard_end;
        int r;

        t = now_nsec();
        warm_end = t + (uint64_t) (o->warmup * NSEC_PER_SEC);
        while (now_nsec() < warm_end) {
                r = do_call(bus, fx, kind, &rng, NULL);
                if (r < 0)
                        return r;
        }
        t = now_nsec();
        end = t + (uint64_t) (o->duration * NSEC_PER_SEC);
        /* --min-samples may stretch the measurement, but never beyond 5 durations: a call
         * that takes milliseconds (GetDevices of 10 000 devices) gets fewer samples. */
        hard_end = t + (uint64_t) (5 * o->duration * NSEC_PER_SEC);
        for (;;) {
                uint64_t t0 = now_nsec();
                if (s.n >= o->max_samples || (t0 >= end && s.n >= o->min_samples) || t0 >= hard_end)
                        break;
                if (ret_ping) {
                        r = do_call(bus, fx, CALL_PING, &rng, NULL);
                        if (r < 0)
                                goto finish;
                        r = samples_add(&ps, now_nsec() - t0);
                        if (r < 0)
                                goto finish;
                        t0 = now_nsec();
                }
                r = do_call(bus, fx, kind, &rng, NULL);
                if (r < 0)
                        goto finish;
                r = samples_add(&s, now_nsec() - t0);
                if (r < 0)
                        goto finish;
        }
        *ret = samples_stats(&s);
        if (ret_ping)
                *ret_ping = samples_stats(&ps);
        r = 0;
finish:
        samples_done(&s);
        samples_done(&ps);
        return r;
}

/* ---- parallel clients -------------------------------------------------------------- */

typedef struct Client {
        pthread_t thread;
        size_t index;
        const Fixture *fx;
        CallKind kind;
        pthread_barrier_t *barrier;
        atomic_bool *stop;
        Samples samples;
        uint64_t calls;
        int r;
} Client;

static void *client_run(void *userdata) {
        Client *c = userdata;
        sd_bus *bus = NULL;
        uint64_t rng = 0x853c49e6748fea9bULL + c->index * 0x9e3779b97f4a7c15ULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0)
                fprintf(stderr, "client %zu: connecting: %s\n", c->index, strerror(-r));
        /* Warm-up: the connection's Hello and the first calls are not measured. */
        for (unsigned i = 0; r >= 0 && i < 50; i++)
                r = do_call(bus, c->fx, c->kind, &rng, NULL);
        /* Everyone meets at the barrier, even after a failure, or the others would hang. */
        (void) pthread_barrier_wait(c->barrier);
        while (r >= 0 && !atomic_load_explicit(c->stop, memory_order_relaxed)) {
                uint64_t t0 = now_nsec();
                r = do_call(bus, c->fx, c->kind, &rng, NULL);
                if (r < 0)
                        break;
                r = samples_add(&c->samples, now_nsec() - t0);
                c->calls++;
        }
        c->r = r < 0 ? r : 0;
        sd_bus_flush_close_unref(bus);
        return NULL;
}

static int measure_throughput(const Fixture *fx, CallKind kind, size_t k, double duration,
                              double *ret_cps, Stats *ret_stats) {
        _cleanup_free_ Client *clients = NULL;
        pthread_barrier_t barrier;
        atomic_bool stop = false;
        Samples all = {};
        uint64_t t0, t1, calls = 0;
        size_t started = 0;
        int r = 0;

        clients = calloc(k, sizeof(Client));
        if (!clients)
                return -ENOMEM;
        if (pthread_barrier_init(&barrier, NULL, (unsigned) k + 1) != 0)
                return -ENOMEM;
        for (size_t i = 0; i < k; i++) {
                clients[i] = (Client) { .index = i, .fx = fx, .kind = kind, .barrier = &barrier, .stop = &stop };
                r = -pthread_create(&clients[i].thread, NULL, client_run, &clients[i]);
                if (r < 0) {
                        fprintf(stderr, "pthread_create: %s\n", strerror(-r));
                        /* Threads already started wait at a barrier that can never fill. */
                        abort();
                }
                started++;
        }
        (void) pthread_barrier_wait(&barrier);
        t0 = now_nsec();
        usleep((useconds_t) (duration * 1e6));
        atomic_store(&stop, true);
        for (size_t i = 0; i < started; i++)
                (void) pthread_join(clients[i].thread, NULL);
        t1 = now_nsec();
        pthread_barrier_destroy(&barrier);

        for (size_t i = 0; i < started; i++) {
                if (clients[i].r < 0 && r == 0)
                        r = clients[i].r;
                calls += clients[i].calls;
                if (r == 0)
                        r = samples_merge(&all, &clients[i].samples);
                samples_done(&clients[i].samples);
        }
        if (r == 0) {
                /* The last round of calls overlaps the join; count the whole interval. */
                *ret_cps = (double) calls / ((double) (t1 - t0) / NSEC_PER_SEC);
                *ret_stats = samples_stats(&all);
        }
        samples_done(&all);
        return r;
}

/* ---- object creation costs --------------------------------------------------------- */

static int read_path(sd_bus_message *reply, char **ret) {
        const char *p;
        int r = sd_bus_message_read(reply, "o", &p);

        if (r < 0)
                return r;
        *ret = strdup(p);
        return *ret ? 0 : -ENOMEM;
}

static int create_device(sd_bus *bus, const char *id, size_t i, char **ret_path) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = send_create_device(bus, id, i, NULL, NULL, &reply, &error);
        if (r < 0) {
                print_bus_error("CreateDevice", r, &error);
                return r;
        }
        return read_path(reply, ret_path);
}

static int call_path(sd_bus *bus, const char *path, const char *iface, const char *member, const char *what,
                     const char *types, const char *a, const char *b) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (b)
                r = sd_bus_call_method(bus, CM_NAME, path, iface, member, &error, NULL, types, a, b);
        else
                r = sd_bus_call_method(bus, CM_NAME, path, iface, member, &error, NULL, types, a);
        if (r < 0)
                print_bus_error(what, r, &error);
        return r;
}

static int measure_mutations(sd_bus *bus, const Fixture *fx, const Options *o) {
        Samples create = {}, del = {}, pcreate = {}, padd = {}, pdel = {};
        size_t max = o->max_samples / 4 > 200 ? o->max_samples / 4 : 200;
        uint64_t end, hard_end;
        char key[64];
        int r = 0;

        fprintf(stderr, "  CreateDevice + DeleteDevice\n");
        end = now_nsec() + (uint64_t) (o->duration * NSEC_PER_SEC);
        hard_end = end + (uint64_t) (4 * o->duration * NSEC_PER_SEC);
        for (size_t i = 0; r >= 0; i++) {
                _cleanup_free_ char *path = NULL;
                char id[96];
                uint64_t t0 = now_nsec(), t1, t2;

                if (create.n >= max || (t0 >= end && create.n >= o->min_samples / 4) || t0 >= hard_end)
                        break;
                snprintf(id, sizeof id, "bench-%s-m%zu-%zu", fx->tag, fx->n_devices, i);
                r = create_device(bus, id, 1000000 + i, &path);
                if (r < 0)
                        break;
                t1 = now_nsec();
                r = call_path(bus, CM_PATH, CM_IFACE, "DeleteDevice", "DeleteDevice", "o", path, NULL);
                t2 = now_nsec();
                /* The first few include one-time growth; the warm-up is simply the first 5%. */
                if (r >= 0 && i >= 20) {
                        r = samples_add(&create, t1 - t0);
                        if (r >= 0)
                                r = samples_add(&del, t2 - t1);
                }
        }

        fprintf(stderr, "  CreateProfile + AddProfile + DeleteProfile\n");
        end = now_nsec() + (uint64_t) (o->duration * NSEC_PER_SEC);
        hard_end = end + (uint64_t) (4 * o->duration * NSEC_PER_SEC);
        for (size_t i = 0; r >= 0 && fx->n_devices > 0; i++) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
                _cleanup_free_ char *path = NULL;
                char id[96];
                uint64_t t0 = now_nsec(), t1, t2, t3;

                if (pcreate.n >= max || (t0 >= end && pcreate.n >= o->min_samples / 4) || t0 >= hard_end)
                        break;
                snprintf(id, sizeof id, "bench-%s-mp%zu-%zu", fx->tag, fx->n_devices, i);
                r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "CreateProfile", &error, &reply,
                                       "ssa{ss}", id, "temp", 3,
                                       "Qualifier", "RGB.Glossy.1200dpi",
                                       "Format", "ColorModel.OutputMode.OutputResolution",
                                       "Colorspace", "rgb");
                if (r < 0) {
                        print_bus_error("CreateProfile", r, &error);
                        break;
                }
                r = read_path(reply, &path);
                if (r < 0)
                        break;
                t1 = now_nsec();
                r = call_path(bus, fx->device_paths[0], CM_DEVICE_IFACE, "AddProfile", "AddProfile", "so",
                              "soft", path);
                if (r < 0)
                        break;
                t2 = now_nsec();
                r = call_path(bus, CM_PATH, CM_IFACE, "DeleteProfile", "DeleteProfile", "o", path, NULL);
                t3 = now_nsec();
                if (r >= 0 && i >= 20) {
                        r = samples_add(&pcreate, t1 - t0);
                        if (r >= 0)
                                r = samples_add(&padd, t2 - t1);
                        if (r >= 0)
                                r = samples_add(&pdel, t3 - t2);
                }
        }

        if (r >= 0) {
                Stats st;

                st = samples_stats(&create);
                snprintf(key, sizeof key, "mut.d%zu.create-device", fx->n_devices);
                result_stats(key, &st);
                st = samples_stats(&del);
                snprintf(key, sizeof key, "mut.d%zu.delete-device", fx->n_devices);
                result_stats(key, &st);
                st = samples_stats(&pcreate);
                snprintf(key, sizeof key, "mut.d%zu.create-profile", fx->n_devices);
                result_stats(key, &st);
                st = samples_stats(&padd);
                snprintf(key, sizeof key, "mut.d%zu.add-profile", fx->n_devices);
                result_stats(key, &st);
                st = samples_stats(&pdel);
                snprintf(key, sizeof key, "mut.d%zu.delete-profile", fx->n_devices);
                result_stats(key, &st);
        }
        samples_done(&create);
        samples_done(&del);
        samples_done(&pcreate);
        samples_done(&padd);
        samples_done(&pdel);
        return r < 0 ? r : 0;
}

/* ---- memory across create/delete cycles -------------------------------------------- */

static int cycles(sd_bus *bus, const Fixture *fx, size_t first, size_t n) {
        for (size_t i = first; i < first + n; i++) {
                _cleanup_free_ char *path = NULL;
                char id[96];
                int r;

                /* Fixed width: ids that grow a digit mid-round would ask the allocator for
                 * new sizes and show up as growth that no cycle leaks. */
                snprintf(id, sizeof id, "bench-%s-c%08zu", fx->tag, i);
                r = create_device(bus, id, 2000000 + i, &path);
                if (r < 0)
                        return r;
                r = call_path(bus, CM_PATH, CM_IFACE, "DeleteDevice", "DeleteDevice", "o", path, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int print_memory(pid_t pid, const char *key) {
        uint64_t rss, hwm;
        int r = proc_memory_kib(pid, &rss, &hwm);

        if (r < 0) {
                fprintf(stderr, "reading /proc/%d/status: %s\n", (int) pid, strerror(-r));
                return r;
        }
        result_printf((double) rss, "KiB", "%s.rss", key);
        result_printf((double) hwm, "KiB", "%s.hwm", key);
        uint64_t anon;
        if (proc_anon_kib(pid, &anon) >= 0)
                result_printf((double) anon, "KiB", "%s.anon", key);
        return 0;
}

static int measure_rss_cycles(sd_bus *bus, const Fixture *fx, const Options *o) {
        uint64_t t0;
        int r;

        /* Sync first: everything sent so far has been handled. */
        r = call_path(bus, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", "Ping", "", NULL, NULL);
        if (r < 0)
                return r;
        /* A short warm-up so one-time growth (first allocations of each size class, hash
         * tables reaching their working size) is not counted as per-cycle growth. */
        r = cycles(bus, fx, 0, 200);
        if (r < 0)
                return r;
        r = print_memory(o->pid, "rss.cycles.before");
        if (r < 0)
                return r;
        t0 = now_nsec();
        r = cycles(bus, fx, 200, o->rss_cycles);
        if (r < 0)
                return r;
        result_printf((double) (now_nsec() - t0) / NSEC_PER_USEC / (double) o->rss_cycles, "us",
                      "rss.cycles.cycle-time");
        r = print_memory(o->pid, "rss.cycles.after1");
        if (r < 0)
                return r;
        /* A second round tells one-time growth (allocator arenas) from a per-object leak. */
        r = cycles(bus, fx, 200 + o->rss_cycles, o->rss_cycles);
        if (r < 0)
                return r;
        r = print_memory(o->pid, "rss.cycles.after2");
        if (r < 0)
                return r;
        result_printf((double) o->rss_cycles, "cycles", "rss.cycles.per-round");
        return 0;
}

/* ---- command line ------------------------------------------------------------------ */

static int parse_size_list(const char *s, size_t **ret, size_t *ret_n) {
        _cleanup_free_ char *copy = strdup(s);
        _cleanup_free_ size_t *v = NULL;
        size_t n = 0;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                size_t x;
                size_t *nv;

                if (parse_size(t, &x) < 0)
                        return -EINVAL;
                nv = realloc(v, (n + 1) * sizeof(size_t));
                if (!nv)
                        return -ENOMEM;
                v = nv;
                v[n++] = x;
        }
        free(*ret);
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

static void help(void) {
        printf("tinct-bench-load [OPTIONS]: load generator for org.freedesktop.ColorManager on\n"
               "the bus in $DBUS_SYSTEM_BUS_ADDRESS (call as root: no polkit involved)\n\n"
               "  --devices LIST          fixture sizes to measure the lookups at (default 10)\n"
               "  --profiles-per-device N soft-added profiles per device (default 5)\n"
               "  --clients LIST          parallel clients for the throughput test, at the first\n"
               "                          size (default 1,2,4,8,16; \"\" skips it)\n"
               "  --calls LIST            lookups: ping,get-devices,find-device,gpfq,getall\n"
               "  --duration SEC          per latency measurement (default 2)\n"
               "  --throughput-duration SEC per throughput measurement (default 2)\n"
               "  --warmup SEC            unmeasured calls before each latency measurement (0.3)\n"
               "  --min-samples N         (default 2000)   --max-samples N  (default 50000)\n"
               "  --no-latency            skip the single-client latency measurements\n"
               "  --mutations             time Create/Delete Device, Create/Add/Delete Profile\n"
               "  --rss-cycles N          VmRSS before/after N CreateDevice+DeleteDevice cycles\n"
               "  --pid PID               the daemon's pid (default $TINCT_BENCH_DAEMON_PID)\n");
}

static int parse_argv(int argc, char **argv, Options *o) {
        enum { ARG_DEVICES = 0x100, ARG_PPD, ARG_CLIENTS, ARG_CALLS, ARG_DURATION, ARG_TDURATION,
               ARG_WARMUP, ARG_MIN, ARG_MAX, ARG_NO_LATENCY, ARG_MUTATIONS, ARG_RSS, ARG_PID };
        static const struct option options[] = {
                { "devices", required_argument, NULL, ARG_DEVICES },
                { "profiles-per-device", required_argument, NULL, ARG_PPD },
                { "clients", required_argument, NULL, ARG_CLIENTS },
                { "calls", required_argument, NULL, ARG_CALLS },
                { "duration", required_argument, NULL, ARG_DURATION },
                { "throughput-duration", required_argument, NULL, ARG_TDURATION },
                { "warmup", required_argument, NULL, ARG_WARMUP },
                { "min-samples", required_argument, NULL, ARG_MIN },
                { "max-samples", required_argument, NULL, ARG_MAX },
                { "no-latency", no_argument, NULL, ARG_NO_LATENCY },
                { "mutations", no_argument, NULL, ARG_MUTATIONS },
                { "rss-cycles", required_argument, NULL, ARG_RSS },
                { "pid", required_argument, NULL, ARG_PID },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        const char *pid_env = getenv("TINCT_BENCH_DAEMON_PID");
        size_t x;
        int c, r = 0;

        r = parse_size_list("10", &o->sizes, &o->n_sizes);
        if (r >= 0)
                r = parse_size_list("1,2,4,8,16", &o->clients, &o->n_clients);
        if (r < 0)
                return r;
        if (pid_env && parse_size(pid_env, &x) >= 0)
                o->pid = (pid_t) x;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case ARG_DEVICES:
                        r = parse_size_list(optarg, &o->sizes, &o->n_sizes);
                        for (size_t i = 1; r >= 0 && i < o->n_sizes; i++)
                                if (o->sizes[i] < o->sizes[i - 1])
                                        r = -EINVAL;
                        if (r >= 0 && o->n_sizes == 0)
                                r = -EINVAL;
                        break;
                case ARG_PPD:
                        r = parse_size(optarg, &o->profiles_per_device);
                        break;
                case ARG_CLIENTS:
                        r = parse_size_list(optarg, &o->clients, &o->n_clients);
                        for (size_t i = 0; r >= 0 && i < o->n_clients; i++)
                                if (o->clients[i] == 0 || o->clients[i] > 256)
                                        r = -EINVAL;
                        break;
                case ARG_CALLS: {
                        _cleanup_free_ char *copy = strdup(optarg);
                        char *save = NULL;

                        if (!copy)
                                return -ENOMEM;
                        memset(o->calls, 0, sizeof o->calls);
                        for (char *t = strtok_r(copy, ",", &save); t && r >= 0; t = strtok_r(NULL, ",", &save)) {
                                r = -EINVAL;
                                for (CallKind k = 0; k < _CALL_MAX; k++)
                                        if (streq(t, call_names[k])) {
                                                o->calls[k] = true;
                                                r = 0;
                                        }
                        }
                        break;
                }
                case ARG_DURATION:
                        r = parse_double(optarg, &o->duration);
                        break;
                case ARG_TDURATION:
                        r = parse_double(optarg, &o->throughput_duration);
                        break;
                case ARG_WARMUP:
                        r = parse_double(optarg, &o->warmup);
                        break;
                case ARG_MIN:
                        r = parse_size(optarg, &o->min_samples);
                        break;
                case ARG_MAX:
                        r = parse_size(optarg, &o->max_samples);
                        if (r >= 0 && o->max_samples == 0)
                                r = -EINVAL;
                        break;
                case ARG_NO_LATENCY:
                        o->latency = false;
                        break;
                case ARG_MUTATIONS:
                        o->mutations = true;
                        break;
                case ARG_RSS:
                        r = parse_size(optarg, &o->rss_cycles);
                        break;
                case ARG_PID:
                        r = parse_size(optarg, &x);
                        o->pid = (pid_t) x;
                        break;
                case 'h':
                        help();
                        exit(0);
                default:
                        return -EINVAL;
                }
                if (r < 0) {
                        fprintf(stderr, "invalid argument for option %s: %s\n", argv[optind - 1], optarg);
                        return r;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "unexpected argument: %s\n", argv[optind]);
                return -EINVAL;
        }
        if (o->rss_cycles > 0 && o->pid <= 0) {
                fprintf(stderr, "--rss-cycles needs the daemon's pid (--pid or $TINCT_BENCH_DAEMON_PID)\n");
                return -EINVAL;
        }
        return 0;
}

int main(int argc, char **argv) {
        Options o = {
                .profiles_per_device = 5,
                .duration = 2,
                .throughput_duration = 2,
                .warmup = 0.3,
                .min_samples = 2000,
                .max_samples = 50000,
                .latency = true,
                .calls = { true, true, true, true, true },
        };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        Fixture fx = {};
        int r;

        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return 2;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "connecting to the system bus (%s): %s\n",
                        strempty(getenv("DBUS_SYSTEM_BUS_ADDRESS")), strerror(-r));
                return 1;
        }
        snprintf(fx.tag, sizeof fx.tag, "%d", (int) getpid());
        fx.ppd = o.profiles_per_device;

        for (size_t si = 0; si < o.n_sizes; si++) {
                size_t n = o.sizes[si];
                uint64_t t0 = now_nsec();

                fprintf(stderr, "fixture: %zu devices x %zu profiles\n", n, fx.ppd);
                r = fixture_grow(bus, &fx, n);
                if (r < 0)
                        goto finish;
                /* Sync: the daemon has handled everything before timing starts. */
                r = call_path(bus, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", "Ping", "", NULL, NULL);
                if (r < 0)
                        goto finish;
                result_printf((double) (now_nsec() - t0) / NSEC_PER_SEC, "s", "fixture.d%zu.build-time", n);
                if (o.pid > 0) {
                        char key[64];
                        snprintf(key, sizeof key, "fixture.d%zu", n);
                        (void) print_memory(o.pid, key);
                }
                r = verify_lookups(bus, &fx);
                if (r < 0)
                        goto finish;

                for (CallKind k = 0; o.latency && k < _CALL_MAX; k++) {
                        Stats st = {}, ping = {};
                        char key[96];

                        if (!o.calls[k])
                                continue;
                        fprintf(stderr, "  latency %s\n", call_names[k]);
                        r = measure_latency(bus, &fx, k, &o, &st, k == CALL_PING ? NULL : &ping);
                        if (r < 0)
                                goto finish;
                        snprintf(key, sizeof key, "lat.d%zu.%s", n, call_names[k]);
                        result_stats(key, &st);
                        if (k != CALL_PING) {
                                snprintf(key, sizeof key, "lat.d%zu.%s.paired-ping", n, call_names[k]);
                                result_stats(key, &ping);
                        }
                }

                /* Creation costs at every size: they must not grow with the count either. */
                if (o.mutations) {
                        r = measure_mutations(bus, &fx, &o);
                        if (r < 0)
                                goto finish;
                }
                if (si > 0)
                        continue;
                for (size_t ci = 0; ci < o.n_clients; ci++)
                        for (CallKind k = 0; k < _CALL_MAX; k++) {
                                Stats st = {};
                                double cps = 0;
                                char key[64];

                                if (!o.calls[k])
                                        continue;
                                fprintf(stderr, "  throughput %s, %zu clients\n", call_names[k], o.clients[ci]);
                                r = measure_throughput(&fx, k, o.clients[ci], o.throughput_duration, &cps, &st);
                                if (r < 0)
                                        goto finish;
                                snprintf(key, sizeof key, "tput.d%zu.k%zu.%s", n, o.clients[ci], call_names[k]);
                                result_printf(cps, "calls/s", "%s.cps", key);
                                result_stats(key, &st);
                        }
                if (o.rss_cycles > 0) {
                        fprintf(stderr, "  %zu CreateDevice/DeleteDevice cycles, twice\n", o.rss_cycles);
                        r = measure_rss_cycles(bus, &fx, &o);
                        if (r < 0)
                                goto finish;
                }
        }
        r = 0;
finish:
        fixture_done(&fx);
        free(o.sizes);
        free(o.clients);
        return r < 0 ? 1 : 0;
}
