/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The argyll driver (see sensor-argyll.h). A reading runs in two steps, both child
 * processes watched from the event loop so that no client waits for another:
 *  1. once per sensor, `spotread -?` lists the instrument ports; the one naming our device
 *     node (or else our instrument) is the -c number;
 *  2. `spotread -d -c<port> -N [-y<type>|-a]` then stays running while the sensor is locked,
 *     and each GetSample presses a key at its prompt and waits for " Result is XYZ:".
 * What the lines mean is spotread-parse.c's. */
#include "sensor-argyll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-errors.h"
#include "child-process.h"
#include "log.h"
#include "spotread-parse.h"
#include "strv.h"

#define SPOTREAD "spotread"
/* The port list comes after spotread has probed the serial ports, which can take a while. */
#define PROBE_TIMEOUT_USEC (30 * 1000000ULL)
#define SAMPLE_TIMEOUT_USEC (60 * 1000000ULL) /* colord's too */
#define OUTPUT_MAX (64 * 1024)

extern char **environ;

typedef enum Phase {
        PHASE_PROBE,
        PHASE_MEASURE,
} Phase;

struct Spotread {
        Sensor *sensor;
        Phase phase;
        Child child;        /* its stdin (in_fd), its stdout and stderr (fd) */
        char *out;          /* output not yet consumed (the probe keeps all of it) */
        size_t out_len;
        char *cap;          /* what this spotread measures: its -y argument follows from it */
        bool at_prompt;     /* it waits for a key and no reading asked for one yet */
        bool keyed;         /* the pending reading has had its key */
        bool calibrating;   /* a key was sent at the calibration prompt */
};

static bool sensor_argyll_available(void) {
        const char *path = getenv("PATH");
        for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
                size_t n = strcspn(p, ":");
                _cleanup_free_ char *file = NULL;
                if (n > 0 && asprintf(&file, "%.*s/" SPOTREAD, (int) n, p) >= 0 && access(file, X_OK) == 0)
                        return true;
                p += n;
                p += *p == ':';
        }
        return false;
}

static void spotread_free(Spotread *sr) {
        if (!sr)
                return;
        /* Killed: it may sit in a USB read and would not look at SIGTERM soon. */
        child_end(&sr->child, CHILD_KILL, NULL);
        free(sr->out);
        free(sr->cap);
        free(sr);
}

static void sensor_argyll_stop(Sensor *s) {
        spotread_free(TAKE_PTR(s->spotread));
}

static void fail(Sensor *s, BusErrorCode code, const char *message) {
        log_info("Sensor %s: %s", s->id, message);
        sensor_argyll_stop(s);
        sensor_reply_error(s, bus_error_name(DOMAIN_SENSOR, code), message);
}

static int spawn(Spotread *sr, char **argv) {
        _cleanup_strv_free_ char **env = strv_copy(environ);
        if (!env || strv_extend(&env, "ARGYLL_NOT_INTERACTIVE=1") < 0)
                return -ENOMEM;
        ChildSpec spec = { .path = argv[0], .argv = argv, .envp = env, .search_path = true,
                           .channel = CHILD_STDIO_PIPES };
        return child_start(&sr->child, &spec);
}

static void press_key(Spotread *sr) {
        /* Any key but q or ESC takes a reading; a failed write shows up as EOF soon after. */
        if (write(sr->child.in_fd, "\n", 1) != 1)
                log_debug_errno(errno, "Sensor %s: cannot write to spotread: %m", sr->sensor->id);
        sr->at_prompt = false;
        sr->keyed = true;
}

static void on_result(Spotread *sr, const double xyz[3]) {
        Sensor *s = sr->sensor;
        sr->keyed = false;
        (void) sd_event_source_set_enabled(sr->child.timer, SD_EVENT_OFF); /* idle while locked: no limit */
        if (streq_ptr(s->pending_cap, "ambient"))
                /* colord's answer for ambient light: lux in X, the others -1. */
                sensor_reply_sample(s, (double[3]) { xyz[1], -1, -1 });
        else
                sensor_reply_sample(s, xyz);
}

/* One line of the measuring spotread; false when it ended (and is gone). */
static bool on_line(Spotread *sr, const char *line) {
        Sensor *s = sr->sensor;
        double xyz[3];
        log_debug("Sensor %s: spotread: %s", s->id, line);
        switch (spotread_parse_line(line, xyz)) {
        case SPOTREAD_PROMPT:
                sr->at_prompt = true;
                if (s->pending && !sr->keyed)
                        press_key(sr);
                return true;
        case SPOTREAD_CALIBRATED:
                sr->calibrating = false;
                return true;
        case SPOTREAD_RESULT:
                on_result(sr, xyz);
                return true;
        case SPOTREAD_INIT_FAILED:
                fail(s, BUS_ERR_INTERNAL, "failed to contact hardware (replug)");
                return false;
        case SPOTREAD_NEEDS_SURFACE:
                fail(s, BUS_ERR_REQUIRED_POSITION_SURFACE, "Move to surface position");
                return false;
        case SPOTREAD_NEEDS_CALIBRATION:
                /* spotread asks before it has looked at the dial: try once as colord does. */
                if (!sr->calibrating) {
                        sr->calibrating = true;
                        press_key(sr);
                        return true;
                }
                fail(s, BUS_ERR_REQUIRED_POSITION_CALIBRATE, "Move to calibration position");
                return false;
        case SPOTREAD_OTHER:
                return true;
        }
        return true;
}

static int start(Sensor *s, Phase phase);

static void on_probe_done(Spotread *sr) {
        Sensor *s = sr->sensor;
        const char *instrument = spotread_instrument_name(s->kind);
        unsigned port;
        sr->out[sr->out_len] = 0;
        if (spotread_find_port(sr->out, s->devnode, instrument, &port) < 0) {
                _cleanup_free_ char *msg = NULL;
                if (asprintf(&msg, "spotread lists neither %s nor %s", s->devnode, instrument ?: "this kind of instrument") < 0)
                        msg = NULL;
                fail(s, BUS_ERR_INTERNAL, msg ?: "spotread does not list the instrument");
                return;
        }
        s->argyll_port = port;
        sensor_argyll_stop(s);
        int r = start(s, PHASE_MEASURE);
        if (r < 0)
                fail(s, BUS_ERR_INTERNAL, "cannot start spotread");
}

static int on_output(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Spotread *sr = userdata;
        Sensor *s = sr->sensor;
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0) {
                if (errno != EAGAIN && errno != EINTR)
                        fail(s, BUS_ERR_INTERNAL, "cannot read from spotread");
                return 0;
        }
        if (n == 0) {
                if (sr->phase == PHASE_PROBE)
                        on_probe_done(sr);
                else
                        fail(s, BUS_ERR_INTERNAL, "spotread exited unexpectedly");
                return 0;
        }
        if (sr->out_len + (size_t) n > OUTPUT_MAX) {
                /* Nothing we wait for is that long: keep the tail, where a line may be starting. */
                sr->out_len = 0;
                if ((size_t) n > OUTPUT_MAX)
                        return 0;
        }
        memcpy(sr->out + sr->out_len, buf, (size_t) n);
        sr->out_len += (size_t) n;
        if (sr->phase == PHASE_PROBE)
                return 0;

        size_t start_of_line = 0;
        for (size_t i = 0; i < sr->out_len; i++) {
                if (sr->out[i] != '\n' && sr->out[i] != '\r')
                        continue;
                sr->out[i] = 0;
                if (!on_line(sr, sr->out + start_of_line))
                        return 0; /* sr is gone */
                start_of_line = i + 1;
        }
        memmove(sr->out, sr->out + start_of_line, sr->out_len - start_of_line);
        sr->out_len -= start_of_line;
        return 0;
}

static int on_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        Spotread *sr = userdata;
        fail(sr->sensor, BUS_ERR_INTERNAL, sr->phase == PHASE_PROBE ? "spotread did not list its ports in time" : "spotread timed out");
        return 0;
}

static uint64_t phase_timeout(const Spotread *sr) {
        return sr->phase == PHASE_PROBE ? PROBE_TIMEOUT_USEC : SAMPLE_TIMEOUT_USEC;
}

/* The mode argument for a capability: -a for ambient light, else the display type or none. */
static const char *mode_argument(const char *cap) {
        return streq(cap, "ambient") ? "-a" : spotread_display_type(cap);
}

static int start(Sensor *s, Phase phase) {
        char port[16], *probe[] = { SPOTREAD, "-?", NULL };
        const char *type = mode_argument(s->pending_cap);
        char *measure[] = { SPOTREAD, "-d", port, "-N", (char *) type, NULL };
        Spotread *sr = calloc(1, sizeof *sr);
        int r;
        if (!sr)
                return -ENOMEM;
        *sr = (Spotread) { .sensor = s, .phase = phase, .child = CHILD_NULL };
        snprintf(port, sizeof port, "-c%u", s->argyll_port);
        if (!(sr->cap = strdup(s->pending_cap)) || !(sr->out = malloc(OUTPUT_MAX + 1))) {
                spotread_free(sr);
                return -ENOMEM;
        }
        r = spawn(sr, phase == PHASE_PROBE ? probe : measure);
        if (r >= 0)
                r = child_watch(&sr->child, s->manager->event, phase_timeout(sr), on_output, on_timeout, sr);
        if (r < 0) {
                spotread_free(sr);
                return r;
        }
        log_debug("Sensor %s: started spotread (%s)", s->id, phase == PHASE_PROBE ? "port list" : port);
        s->spotread = sr;
        return 0;
}

static int sensor_argyll_sample(Sensor *s) {
        Spotread *sr = s->spotread;
        /* The display type is fixed when spotread starts: another one needs another spotread. */
        if (sr && sr->phase == PHASE_MEASURE && !streq_ptr(mode_argument(sr->cap), mode_argument(s->pending_cap)))
                sensor_argyll_stop(s);
        if (!s->spotread)
                return start(s, s->argyll_port ? PHASE_MEASURE : PHASE_PROBE);
        sr = s->spotread;
        int r = child_set_deadline(&sr->child, phase_timeout(sr));
        if (r < 0)
                return r;
        sr->keyed = false;
        if (sr->phase == PHASE_MEASURE && sr->at_prompt)
                press_key(sr);
        return 0;
}

const SensorDriver sensor_argyll_driver = {
        .name = "argyll",
        .available = sensor_argyll_available,
        .sample = sensor_argyll_sample,
        .stop = sensor_argyll_stop,
};
