/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SANE scanners through the helper (see scanner-source.h). One helper runs at a time, and
 * at most LIMIT_SCANNER_RESCANS_PER_MINUTE start in any minute, whoever asks: callers who
 * ask while one runs get its result, and so do those who ask once the minute's runs are
 * spent (unless udev saw a change since: they wait for the next run the bound allows). A
 * caller could otherwise start a helper, and its requests to every scanner, per call
 * (docs/scanners.md, "Rescan on demand"). The helper is a child (a pipe for
 * its output), or with --sane-socket a service of its own unit, reached on its socket
 * (docs/scanners.md): then it is not ours to kill, closing the connection is all, and it
 * ends itself after the time limit the request names. */
#include "scanner-source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child-process.h"
#include "debounce.h"
#include "device.h"
#include "escl-id.h"
#include "fileio.h"
#include "log.h"
#include "sane-names.h"
#include "scanner-wire.h"
#include "socket-util.h"
#include "strv.h"
#include "time-util.h"
#include "tinct-limits.h"
#include "utf8.h"

#define OUTPUT_MAX (1024 * 1024)
#define RESCAN_WINDOW_USEC (60 * USEC_PER_SEC)
#define HOTPLUG_DELAY_USEC (500 * 1000ULL) /* a plugged scanner's interfaces come in a burst */
#define HTTP_TIMEOUT_MAX_MS 5000

typedef struct Waiter {
        uint64_t generation; /* done once this rescan has finished */
        ScanDone done;
        void *userdata;
} Waiter;

struct ScannerSource {
        Manager *manager;
        const ScannerConfig *config;    /* tinctd's, for as long as the source runs */
        Hashmap *devices;        /* id → Device we made */
        Debounce *hotplug;
        sd_bus_slot *slot;

        uint64_t started;        /* rescans started so far; the running one's number */
        bool again;              /* udev saw a change while one ran: another after it */
        bool stale;              /* no listing yet, or udev saw a change since the last */
        uint64_t run_start[LIMIT_SCANNER_RESCANS_PER_MINUTE]; /* when the last ones started, a ring */
        size_t run_next;         /* the ring's oldest entry, overwritten by the next start */
        sd_event_source *deferred; /* a run wanted, waiting for the minute's bound */
        ScanResult last;         /* the last listing's result, for callers who come soon after */
        Child helper;            /* fd: its output (the pipe or the socket), >= 0 while one runs;
                                  * pid: a child helper's, or 0 */
        char *out;
        size_t out_len;

        Waiter waiters[LIMIT_SCANNER_RESCAN_WAITERS];
        size_t n_waiters;
};

/* What one listing asks for. */
typedef struct Wanted {
        char *id, *vendor, *model, *serial;
} Wanted;

static void wanted_free_all(Wanted *w, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(w[i].id);
                free(w[i].vendor);
                free(w[i].model);
                free(w[i].serial);
        }
        free(w);
}

static void helper_stop(ScannerSource *s) {
        /* Killed: a backend stuck in USB I/O would not look at SIGTERM soon. Its output is
         * complete or not wanted any more. */
        child_end(&s->helper, CHILD_KILL, NULL);
        free(s->out);
        s->out = NULL;
        s->out_len = 0;
}

static void last_result_clear(ScanResult *r) {
        free((char *) r->message);
        strv_free(r->unanswered);
        *r = (ScanResult) {};
}

ScannerSource *scanner_source_free(ScannerSource *s) {
        if (!s)
                return NULL;
        helper_stop(s);
        sd_event_source_disable_unref(s->deferred);
        last_result_clear(&s->last);
        /* Waiters get no answer: the daemon is going, and their bus with it. */
        for (size_t i = 0; i < s->n_waiters; i++)
                s->waiters[i].done(NULL, s->waiters[i].userdata);
        hashmap_free(s->devices); /* the manager frees the devices */
        debounce_free(s->hotplug);
        sd_bus_slot_unref(s->slot);
        free(s);
        return NULL;
}

Manager *scanner_source_manager(const ScannerSource *s) {
        return s->manager;
}

static void scanner_device_removed(void *userdata, Device *d) {
        ScannerSource *s = userdata;
        hashmap_remove_value(s->devices, d->id, d);
}

/* ---- applying a listing -------------------------------------------------------------- */

/* A USB scanner udev already made a device of (udev.c: Serial is its sysfs path). */
static bool udev_has_usb_scanner(Manager *m, unsigned bus, unsigned dev) {
        Device *d;
        LIST_FOREACH(&m->devices, d, Device, link) {
                if (d->owner != 0 || !streq_ptr(d->kind, "scanner") || strncmp(d->id, "sysfs", 5) != 0 || !d->serial)
                        continue;
                unsigned nums[2];
                const char *attrs[2] = { "busnum", "devnum" };
                bool ok = true;
                for (size_t i = 0; i < 2 && ok; i++) {
                        _cleanup_free_ char *path = NULL;
                        _cleanup_free_ uint8_t *text = NULL;
                        size_t len;
                        ok = asprintf(&path, "%s%s/%s", strempty(m->config.sysfs_root), d->serial, attrs[i]) >= 0 &&
                             read_file_capped(path, 64, 0, &text, &len, NULL) >= 0 &&
                             sscanf((const char *) text, "%u", &nums[i]) == 1;
                }
                if (ok && nums[0] == bus && nums[1] == dev)
                        return true;
        }
        return false;
}

static int want(Wanted **w, size_t *n, const char *id, const char *vendor, const char *model, const char *serial) {
        for (size_t i = 0; i < *n; i++)
                if (streq((*w)[i].id, id)) {
                        /* colord's ids name the model: two scanners of one model share one. */
                        log_notice("Scanner %s: another scanner already has the id %s; not added", serial, id);
                        return 0;
                }
        Wanted *a = realloc(*w, (*n + 1) * sizeof **w);
        if (!a)
                return -ENOMEM;
        *w = a;
        a[*n] = (Wanted) { strdup(id), strdup(vendor), strdup(model), strdup(serial) };
        if (!a[*n].id || !a[*n].vendor || !a[*n].model || !a[*n].serial) {
                wanted_free_all(a + *n, 1);
                return -ENOMEM; /* *w keeps its n entries; the freed slot is not counted */
        }
        (*n)++;
        return 0;
}

static int want_sane(ScannerSource *s, const ScannerRecord *rec, Wanted **w, size_t *n) {
        Manager *m = s->manager;
        const char *name = rec->field[0], *vendor = rec->field[1], *model = rec->field[2];
        _cleanup_free_ char *id = NULL, *model_name = NULL;
        unsigned bus, dev;
        int r;
        if (sane_vendor_is_test(vendor) && !s->config->test_devices) {
                log_debug("SANE: %s is a test device (vendor %s), skipped as colord does", name, vendor);
                return 0;
        }
        if (*model == 0) {
                log_notice("SANE: %s has no model name, so no id; skipped", name);
                return 0;
        }
        if (sane_usb_address(name, &bus, &dev) && udev_has_usb_scanner(m, bus, dev)) {
                log_debug("SANE: %s is a USB scanner udev already gave a device; that one is kept", name);
                return 0;
        }
        r = sane_device_id(model, &id);
        if (r < 0)
                return r;
        r = sane_model_name(model, &model_name);
        if (r < 0)
                return r;
        return want(w, n, id, vendor, model_name, name);
}

static int want_escl(const ScannerRecord *rec, Wanted **w, size_t *n) {
        const char *name = rec->field[0], *uuid = rec->field[1], *url = rec->field[2], *make = rec->field[3];
        _cleanup_free_ char *id = NULL, *vendor = NULL;
        int r = escl_device_id(uuid, &id);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_notice("SANE: %s (%s): the helper gave a UUID that is not one; skipped", name, url);
                return 0;
        }
        /* MakeAndModel starts with the maker's name (eSCL's pwg:MakeAndModel). */
        const char *model = *make ? make : name;
        if (!(vendor = strndup(model, strcspn(model, " "))))
                return -ENOMEM;
        return want(w, n, id, vendor, model, url);
}

static bool same_device(const Device *d, const Wanted *w) {
        return streq_ptr(d->vendor, w->vendor) && streq_ptr(d->model, w->model) && streq_ptr(d->serial, w->serial);
}

static int add_device(ScannerSource *s, const Wanted *w) {
        Manager *m = s->manager;
        _cleanup_(device_freep) Device *d = NULL;
        _cleanup_free_ char *path = manager_object_path(m, DEVICE_PATH_PREFIX, w->id, 0);
        int r;
        if (!path)
                return -ENOMEM;
        Device *other = manager_find_device_by_path(m, path);
        if (other) {
                log_notice("Scanner %s: device %s already exists (scope %s), not adding it", w->serial, w->id,
                           scope_to_string(other->scope));
                return 0;
        }
        r = device_new(m, w->id, 0, SCOPE_NORMAL, &d);
        if (r < 0)
                return r;
        const DeviceProperty props[] = {
                { "Kind", "scanner" },
                { "Mode", "physical" },
                { "Colorspace", "rgb" },
                { "Vendor", w->vendor },
                { "Model", w->model },
                { "Serial", w->serial },
                /* What a scan application's qualifier names, as a printer's Format does (docs/scanners.md). */
                { "Format", "Source.ColorMode.Resolution" },
        };
        r = device_set_properties(d, props, ELEMENTSOF(props));
        if (r < 0)
                return r;
        bool enabled;
        if (m->store && store_device_get_enabled(m->store, w->id, device_mapping_layer(d), &enabled) >= 0)
                d->enabled = enabled;
        r = hashmap_put(s->devices, d->id, d);
        if (r < 0)
                return r;
        r = manager_add_device(m, d);
        if (r < 0) {
                hashmap_remove_value(s->devices, d->id, d);
                return r;
        }
        log_info("Scanner %s: %s", w->serial, w->id);
        TAKE_PTR(d);
        return 0;
}

static void apply(ScannerSource *s, const Wanted *w, size_t n) {
        Manager *m = s->manager;
        /* Gone or changed first, so that a changed one is made again below. */
        for (;;) {
                void *it = NULL, *v;
                Device *gone = NULL;
                while (!gone && hashmap_iterate(s->devices, &it, NULL, &v)) {
                        size_t i = 0;
                        while (i < n && !streq(w[i].id, ((Device *) v)->id))
                                i++;
                        if (i == n || !same_device(v, &w[i]))
                                gone = v;
                }
                if (!gone)
                        break;
                log_info("Scanner %s: %s removed", strempty(gone->serial), gone->id);
                manager_remove_device(m, gone); /* scanner_device_removed() forgets it */
        }
        for (size_t i = 0; i < n; i++) {
                if (hashmap_get(s->devices, w[i].id))
                        continue;
                int r = add_device(s, &w[i]);
                if (r < 0)
                        log_warning_errno(r, "Scanner %s: cannot add %s: %m", w[i].serial, w[i].id);
        }
}

/* Reads the helper's complete output; 0 with the scanners that did not answer, or
 * -EBADMSG when it never said "end" (the caller keeps the devices as they are). A record
 * it cannot read costs that record only (one log line for all of them): what one scanner
 * sends must not keep the others from being found (docs/scanners.md, "Bad input"). */
static int read_listing(ScannerSource *s, char ***ret_unanswered) {
        _cleanup_strv_free_ char **unanswered = NULL;
        Wanted *w = NULL;
        size_t n = 0, n_bad = 0;
        char first_bad[128] = "";
        bool end = false;
        int r = 0;
        for (char *line = s->out, *next; line && line < s->out + s->out_len && r >= 0; line = next) {
                next = memchr(line, '\n', (size_t) (s->out + s->out_len - line));
                if (!next)
                        break; /* a last line without its newline: cut off */
                *next++ = 0;
                ScannerRecord rec;
                if (end) {
                        r = -EBADMSG;
                        break;
                }
                if (scanner_wire_parse_line(line, &rec) < 0) {
                        if (n_bad++ == 0)
                                utf8_escape(line, first_bad, sizeof first_bad);
                        continue;
                }
                switch (rec.kind) {
                case SCANNER_RECORD_SANE:
                        r = want_sane(s, &rec, &w, &n);
                        break;
                case SCANNER_RECORD_ESCL:
                        r = want_escl(&rec, &w, &n);
                        break;
                case SCANNER_RECORD_ESCL_ERROR:
                        log_notice("Scanner %s (%s) does not answer: %s", rec.field[0], rec.field[1], rec.field[2]);
                        if (strv_extend(&unanswered, rec.field[0]) < 0 || strv_extend(&unanswered, rec.field[2]) < 0)
                                r = -ENOMEM;
                        break;
                case SCANNER_RECORD_END:
                        end = true;
                        break;
                }
        }
        if (r >= 0 && !end)
                r = -EBADMSG;
        if (n_bad > 0)
                log_warning("Scanners: %zu record%s of the SANE helper unreadable, skipped (the first: \"%s\")", n_bad,
                            n_bad == 1 ? "" : "s", first_bad);
        if (r >= 0) {
                apply(s, w, n);
                *ret_unanswered = TAKE_PTR(unanswered);
        }
        wanted_free_all(w, n);
        return r;
}

/* ---- running the helper -------------------------------------------------------------- */

static int helper_spawn(ScannerSource *s);
static int helper_watch(ScannerSource *s);
static void want_run(ScannerSource *s);

/* Kept for the callers who ask soon after; a failed listing changed nothing, so it leaves
 * the devices as stale as they were. */
static void remember(ScannerSource *s, const ScanResult *result) {
        last_result_clear(&s->last);
        s->last = (ScanResult) { .error = result->error, .n_scanners = result->n_scanners };
        s->last.message = result->message ? strdup(result->message) : NULL;
        s->last.unanswered = result->unanswered ? strv_copy(result->unanswered) : NULL;
        if ((result->message && !s->last.message) || (result->unanswered && !s->last.unanswered)) {
                log_oom();
                last_result_clear(&s->last);
                s->stale = true; /* nothing to answer from: the next caller waits for a run */
                return;
        }
        if (result->error >= 0)
                s->stale = false;
}

static void finish(ScannerSource *s, int error, const char *message, char **unanswered) {
        ScanResult result = {
                .error = error,
                .message = message,
                .n_scanners = (unsigned) hashmap_size(s->devices),
                .unanswered = unanswered,
        };
        uint64_t done = s->started;
        helper_stop(s);
        remember(s, &result);
        if (s->again)
                s->stale = true; /* it may have listed before the change */
        /* Callers may add waiters from done(); take the finished ones out first. */
        Waiter finished[LIMIT_SCANNER_RESCAN_WAITERS];
        size_t n_finished = 0, kept = 0;
        for (size_t i = 0; i < s->n_waiters; i++)
                if (s->waiters[i].generation <= done)
                        finished[n_finished++] = s->waiters[i];
                else
                        s->waiters[kept++] = s->waiters[i];
        s->n_waiters = kept;
        for (size_t i = 0; i < n_finished; i++)
                finished[i].done(&result, finished[i].userdata);
        /* A change udev saw while it ran, or callers waiting for a run the bound held back. */
        if (s->again || (s->n_waiters > 0 && s->helper.fd < 0)) {
                s->again = false;
                want_run(s);
        }
}

static void on_helper_done(ScannerSource *s) {
        int status;
        pid_t pid = s->helper.pid;
        /* Its output is complete (EOF). One that lingers after closing it gains nothing by
         * being waited for: the loop must not block on a backend's exit handler. */
        (void) child_end(&s->helper, CHILD_KILL_IF_RUNNING, &status);
        _cleanup_strv_free_ char **unanswered = NULL;
        int r = read_listing(s, &unanswered);
        if (r == -ENOMEM) {
                log_oom();
                finish(s, r, "out of memory", NULL);
                return;
        }
        if (r < 0) {
                _cleanup_free_ char *why = NULL;
                if (pid <= 0)
                        /* Its exit status is systemd's: the unit's log has its reason. */
                        r = asprintf(&why, "the SANE helper closed its socket before the listing was complete");
                else if (WIFSIGNALED(status))
                        r = asprintf(&why, "the SANE helper was killed by signal %d", WTERMSIG(status));
                else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
                        r = asprintf(&why, "the SANE helper failed with status %d", WEXITSTATUS(status));
                else
                        r = asprintf(&why, "the SANE helper's output was malformed");
                log_warning("Scanners: %s; scanners kept as they were", r >= 0 ? why : "the SANE helper failed");
                finish(s, -EIO, r >= 0 ? why : "the SANE helper failed", NULL);
                return;
        }
        log_info("Scanners: %u from SANE, %zu not answering", (unsigned) hashmap_size(s->devices),
                 strv_length(unanswered) / 2);
        finish(s, 0, NULL, unanswered);
}

static int on_output(sd_event_source *es, int fd, uint32_t revents, void *userdata) {
        ScannerSource *s = userdata;
        for (;;) {
                if (s->out_len == OUTPUT_MAX) {
                        log_warning("Scanners: the SANE helper wrote more than %d bytes; killed, scanners kept",
                                    OUTPUT_MAX);
                        finish(s, -EFBIG, "the SANE helper wrote too much", NULL);
                        return 0;
                }
                ssize_t n = read(fd, s->out + s->out_len, OUTPUT_MAX - s->out_len);
                if (n > 0) {
                        s->out_len += (size_t) n;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return 0;
                on_helper_done(s); /* EOF, or a read error: what came is all there is */
                return 0;
        }
}

static int on_timeout(sd_event_source *es, uint64_t usec, void *userdata) {
        ScannerSource *s = userdata;
        _cleanup_free_ char *why = NULL;
        double sec = (double) s->config->timeout_usec / 1e6;
        int r = asprintf(&why, "the SANE helper did not finish in %g s (a backend hangs?); %s", sec,
                         s->helper.pid > 0 ? "killed" : "connection closed, it ends itself");
        log_warning("Scanners: %s; scanners kept as they were", r >= 0 ? why : "timeout");
        finish(s, -ETIMEDOUT, r >= 0 ? why : "the SANE helper timed out", NULL);
        return 0;
}

/* The helper's service on its socket: connected, and the request written (one short line
 * into an empty socket buffer, so it never blocks). The fd, or -errno. */
static int helper_connect(const char *path, unsigned http_ms, unsigned total_ms) {
        char request[SCANNER_REQUEST_MAX];
        int r = scanner_request_format(request, http_ms, total_ms);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = unix_connect(path);
        if (fd < 0)
                return fd;
        ssize_t n = send(fd, request, strlen(request), MSG_NOSIGNAL);
        if (n < 0)
                return -errno;
        if ((size_t) n != strlen(request))
                return -EIO;
        return TAKE_FD(fd);
}

static int helper_spawn(ScannerSource *s) {
        char timeout_arg[32];
        uint64_t http_ms = s->config->timeout_usec / 3000;
        int r;

        assert(s->helper.pid == 0 && s->helper.fd < 0);
        /* Each scanner's ScannerCapabilities must fit well inside the whole helper's time. */
        http_ms = http_ms > HTTP_TIMEOUT_MAX_MS ? HTTP_TIMEOUT_MAX_MS : http_ms ? http_ms : 1;
        snprintf(timeout_arg, sizeof timeout_arg, "%llu", (unsigned long long) http_ms);
        char *argv[] = { s->config->helper, (char *) "--http-timeout-ms", timeout_arg, NULL };
        if (!(s->out = malloc(OUTPUT_MAX)))
                return -ENOMEM;
        if (s->config->socket) {
                uint64_t total_ms = (s->config->timeout_usec + 999) / 1000;
                r = helper_connect(s->config->socket, (unsigned) http_ms, (unsigned) total_ms);
                if (r < 0)
                        return r;
                s->helper.fd = r;
                (void) fcntl(s->helper.fd, F_SETFL, O_NONBLOCK);
                return helper_watch(s);
        }
        ChildSpec spec = { .path = argv[0], .argv = argv, .channel = CHILD_STDOUT_PIPE, .close_other_fds = true };
        r = child_start(&s->helper, &spec);
        if (r < 0)
                return r;
        return helper_watch(s);
}

static int helper_watch(ScannerSource *s) {
        Manager *m = s->manager;
        int r = child_watch(&s->helper, m->event, s->config->timeout_usec, on_output, on_timeout, s);
        if (r < 0)
                return r;
        if (s->helper.pid > 0)
                log_debug("Scanners: rescan %llu, helper pid %d", (unsigned long long) s->started, (int) s->helper.pid);
        else
                log_debug("Scanners: rescan %llu on %s", (unsigned long long) s->started, s->config->socket);
        return 0;
}

/* When the bound lets the next run start: now, or a minute after the oldest of the last
 * LIMIT_SCANNER_RESCANS_PER_MINUTE starts. */
static uint64_t next_run_at(const ScannerSource *s) {
        uint64_t oldest = s->run_start[s->run_next];
        return oldest == 0 ? 0 : oldest + RESCAN_WINDOW_USEC;
}

/* Starts a rescan (counted against the bound whether the helper starts or not, so that a
 * helper that cannot start is not retried in a loop). */
static int start_run(ScannerSource *s) {
        s->run_start[s->run_next] = now(CLOCK_MONOTONIC);
        s->run_next = (s->run_next + 1) % LIMIT_SCANNER_RESCANS_PER_MINUTE;
        s->started++;
        int r = helper_spawn(s);
        if (r < 0) {
                log_warning_errno(r, "Scanners: cannot %s the SANE helper %s: %m",
                                  s->config->socket ? "reach" : "start",
                                  s->config->socket ?: s->config->helper);
                helper_stop(s);
        }
        return r;
}

static int on_deferred(sd_event_source *es, uint64_t usec, void *userdata) {
        ScannerSource *s = userdata;
        s->deferred = sd_event_source_disable_unref(s->deferred);
        want_run(s);
        return 0;
}

/* A run is wanted: now, or after the running one, or when the bound allows. Callers waiting
 * for it are answered when it ends (or at once with the error when it cannot start). */
static void want_run(ScannerSource *s) {
        if (s->helper.fd >= 0) {
                s->again = true;
                return;
        }
        if (s->deferred)
                return;
        uint64_t at = next_run_at(s);
        if (at > now(CLOCK_MONOTONIC)) {
                int r = sd_event_add_time(s->manager->event, &s->deferred, CLOCK_MONOTONIC, at, 0, on_deferred, s);
                if (r >= 0) {
                        log_debug("Scanners: %d rescans in the last minute; the next in %llu s",
                                  LIMIT_SCANNER_RESCANS_PER_MINUTE,
                                  (unsigned long long) ((at - now(CLOCK_MONOTONIC)) / USEC_PER_SEC + 1));
                        return;
                }
                log_warning_errno(r, "Scanners: cannot wait for the next rescan: %m");
                s->started++; /* as a run that failed: its waiters are answered */
                finish(s, r, "cannot schedule a rescan", NULL);
                return;
        }
        int r = start_run(s);
        if (r < 0)
                finish(s, r, "cannot start the SANE helper", NULL);
}

int scanner_source_rescan(ScannerSource *s, ScanDone done, void *userdata) {
        if (s->n_waiters == LIMIT_SCANNER_RESCAN_WAITERS)
                return -EBUSY;
        if (s->helper.fd >= 0) {
                /* The running listing answers it (docs/scanners.md). */
                s->waiters[s->n_waiters++] = (Waiter) { s->started, done, userdata };
                return 0;
        }
        if (!s->deferred && next_run_at(s) <= now(CLOCK_MONOTONIC)) {
                int r = start_run(s);
                if (r < 0)
                        return r;
                s->waiters[s->n_waiters++] = (Waiter) { s->started, done, userdata };
                return 0;
        }
        if (!s->stale) {
                /* The minute's runs are spent: the last listing answers, unless udev saw a change. */
                done(&s->last, userdata);
                return 0;
        }
        s->waiters[s->n_waiters++] = (Waiter) { s->started + 1, done, userdata };
        want_run(s);
        return 0;
}

static void on_hotplug(void *userdata) {
        ScannerSource *s = userdata;
        s->stale = true;
        want_run(s);
}

static void scanner_hotplug(void *userdata, const char *subsystem) {
        ScannerSource *s = userdata;
        debounce_schedule(s->hotplug);
}

static int scanner_start(Manager *m, const void *config, void **ret_state) {
        const ScannerConfig *c = config;
        if (!c->discovery) {
                log_debug("SANE discovery disabled");
                return 0;
        }
        ScannerSource *s = calloc(1, sizeof *s);
        if (!s)
                return log_oom();
        *s = (ScannerSource) { .manager = m, .config = c, .helper = CHILD_NULL, .devices = hashmap_new(), .stale = true };
        *ret_state = s;
        if (!s->devices)
                return log_oom();
        int r = debounce_new(m->event, HOTPLUG_DELAY_USEC, on_hotplug, s, &s->hotplug);
        if (r < 0)
                return log_error_errno(r, "Scanners: cannot set up the hotplug timer: %m");
        if (m->bus) {
                r = scanner_dbus_register(s, m->bus, &s->slot);
                if (r < 0)
                        return log_error_errno(r, "Scanners: cannot register %s: %m", TINCT_SCANNERS_PATH);
        }
        /* Not waited for: the bus name does not wait for SANE's backends. */
        on_hotplug(s);
        return 0;
}

void scanner_config_done(ScannerConfig *c) {
        c->helper = mfree(c->helper);
        c->socket = mfree(c->socket);
}

static void scanner_stop(void *userdata) {
        scanner_source_free(userdata);
}

const DeviceSourceVTable scanner_source = {
        .name = "SANE and eSCL scanners",
        .start = scanner_start,
        .stop = scanner_stop,
        .hotplug = scanner_hotplug,
        .device_removed = scanner_device_removed,
};
