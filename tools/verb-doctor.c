/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct doctor [--json] [DEVICE]: for each device, which profile an application gets and
 * why, in plain sentences — what a support engineer asks first. Everything comes from the
 * daemon's public interface (the same calls applications make), plus a look at whether the
 * profile's file is there; nothing is changed. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-call.h"
#include "bus-print.h"
#include "display-verify.h"
#include "strv.h"
#include "verbs.h"

typedef struct Diagnosis {
        const char *id, *kind, *path;
        char *profile;     /* what GetProfileForQualifiers("*") answers, or NULL */
        char *filename;    /* that profile's file, or NULL */
        const char *relation;
        bool enabled, inhibited, ok;
        char **findings;   /* sentences */
} Diagnosis;

static void diagnosis_done(Diagnosis *d) {
        free(d->profile);
        free(d->filename);
        strv_free(d->findings);
}

static void say(Diagnosis *d, const char *fmt, ...) _printf_(2, 3);
static void say(Diagnosis *d, const char *fmt, ...) {
        va_list ap;
        char *s;
        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) >= 0 && strv_consume(&d->findings, s) < 0)
                free(s);
        va_end(ap);
}

static size_t count_of(char *const *l, const char *s) {
        size_t n = 0;
        STRV_FOREACH(i, l)
                n += streq(*i, s);
        return n;
}

static size_t array_len(const BusValue *v) {
        return v && v->type == BUS_VALUE_ARRAY ? v->n : 0;
}

/* The call applications make for "the profile of this device". Quiet on failure: "no
 * profile" is a finding, not an error. */
static int default_profile(sd_bus *bus, const char *device, char **ret, char **ret_error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *path;
        int r = sd_bus_message_new_method_call(bus, &m, CM_NAME, device, CM_DEVICE_IFACE, "GetProfileForQualifiers");
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char *[]) { (char *) "*", NULL });
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0) {
                *ret_error = strdup(error.name ? strrchr(error.name, '.') + 1 : strerror(-r));
                return r;
        }
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        *ret = strdup(path);
        return *ret ? 0 : -ENOMEM;
}

static const char *relation_of(sd_bus *bus, const char *device, const char *profile) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *rel;
        if (sd_bus_call_method(bus, CM_NAME, device, CM_DEVICE_IFACE, "GetProfileRelation", NULL, &reply, "o",
                               profile) < 0 || sd_bus_message_read(reply, "s", &rel) < 0)
                return "unknown";
        return streq(rel, "hard") ? "hard" : streq(rel, "soft") ? "soft" : "unknown";
}

static void check_profile(sd_bus *bus, Diagnosis *d) {
        _cleanup_(bus_object_freep) BusObject *p = NULL;
        if (bus_object_get(bus, BUS_OBJECT_PROFILE, d->profile, &p) < 0) {
                say(d, "its profile %s could not be read", d->profile);
                d->ok = false;
                return;
        }
        const char *pid = bus_value_get_string(p->properties, "ProfileId");
        const char *title = bus_value_get_string(p->properties, "Title");
        const char *file = bus_value_get_string(p->properties, "Filename");
        d->relation = relation_of(bus, d->path, d->profile);
        say(d, "applications get profile %s (\"%s\")%s", strempty(pid), strempty(title),
            streq(d->relation, "hard") ? ": the user chose it (hard), so no automatic choice replaces it" :
            streq(d->relation, "soft") ? ": assigned automatically (soft: from an EDID, a PPD or a file's mapping); a user's choice would win" : "");
        if (isempty(file)) {
                say(d, "the profile has no file (made in memory by its creator), so applications that need the ICC bytes get none");
                d->ok = false;
        } else {
                struct stat st;
                d->filename = strdup(file);
                if (stat(file, &st) < 0) {
                        say(d, "its file %s is missing (%m): applications will fail to open it", file);
                        d->ok = false;
                } else if (access(file, R_OK) < 0)
                        say(d, "its file %s exists but this user cannot read it (%m)", file);
                else
                        say(d, "its file is %s", file);
        }
        const BusValue *w = bus_value_get(p->properties, "Warnings");
        for (size_t i = 0; i < array_len(w); i++)
                if (w->items[i]->type == BUS_VALUE_STRING)
                        say(d, "the profile has a warning: %s", w->items[i]->string);
}

/* A verification's mean and date (the day of its ISO 8601 time) from the device's Metadata
 * under a prefix (display-verify.h); false when there is none or it is malformed. */
static bool verification_of(const BusValue *meta, const char *prefix, double *ret_mean, char ret_day[11]) {
        char key[64];
        const char *mean, *date;
        char *end;

        snprintf(key, sizeof key, "%sdE2000_mean", prefix);
        mean = bus_value_get_string(meta, key);
        snprintf(key, sizeof key, "%sdate", prefix);
        date = bus_value_get_string(meta, key);
        if (!mean || !date || strlen(date) < 10)
                return false;
        errno = 0;
        *ret_mean = strtod(mean, &end);
        if (errno != 0 || end == mean || *end != '\0' || !(*ret_mean >= 0.0))
                return false;
        for (size_t i = 0; i < 10; i++)
                if (i == 4 || i == 7 ? date[i] != '-' : !(date[i] >= '0' && date[i] <= '9'))
                        return false;
        memcpy(ret_day, date, 10);
        ret_day[10] = '\0';
        return true;
}

/* Drift: the latest `tinct verify` against the calibration helper's check when it profiled
 * the display (docs/verify.md). */
static void check_drift(Diagnosis *d, const BusValue *meta) {
        double last, then;
        char last_day[11], then_day[11];
        bool has_last = verification_of(meta, DISPLAY_VERIFY_LAST, &last, last_day);
        bool has_then = verification_of(meta, DISPLAY_VERIFY_PROFILED, &then, then_day);

        if (has_last && has_then)
                say(d, "measured ΔE %.1f mean on %s; %.1f when profiled on %s", last, last_day, then, then_day);
        else if (has_last)
                say(d, "measured ΔE %.1f mean on %s; no measurement from when it was profiled", last, last_day);
        else if (has_then)
                say(d, "ΔE %.1f mean when profiled on %s; not measured since (tinct verify %s)", then, then_day, d->id);
}

static void diagnose(sd_bus *bus, const BusObject *o, char *const *all_ids, Diagnosis *d) {
        const BusValue *props = o->properties, *v;
        d->path = o->path;
        d->id = strempty(bus_value_get_string(props, "DeviceId"));
        d->kind = strempty(bus_value_get_string(props, "Kind"));
        d->ok = true;
        v = bus_value_get(props, "Enabled");
        d->enabled = !v || v->boolean;
        v = bus_value_get(props, "ProfilingInhibitors");
        d->inhibited = array_len(v) > 0;
        size_t n_profiles = array_len(bus_value_get(props, "Profiles"));

        if (count_of(all_ids, d->id) > 1)
                say(d, "%zu devices have the id %s (one per owner: a session's and the system's); each caller is answered with its own first",
                    count_of(all_ids, d->id), d->id);
        if (!d->enabled) {
                say(d, "colour management is disabled for it (Enabled is false): applications should use no profile");
                d->ok = false;
        }
        if (d->inhibited) {
                say(d, "it is being profiled (%zu inhibitor%s): applications get no profile until that ends",
                    array_len(v), array_len(v) == 1 ? "" : "s");
                d->ok = false;
                return;
        }
        if (streq(d->kind, "display")) {
                const BusValue *meta = bus_value_get(props, "Metadata");
                if (!bus_value_get_string(meta, "OutputEdidMd5"))
                        say(d, "no EDID is known for it, so no profile can be made from the monitor's own data");
        }
        _cleanup_free_ char *why = NULL;
        if (default_profile(bus, d->path, &d->profile, &why) < 0) {
                say(d, n_profiles == 0 ? "it has no profile: applications assume sRGB (or do no colour management)" :
                                         "none of its %zu profiles matches a lookup (%s): applications assume sRGB",
                    n_profiles, strempty(why));
                d->ok = false;
                return;
        }
        check_profile(bus, d);
        if (streq(d->kind, "display"))
                check_drift(d, bus_value_get(props, "Metadata"));
        if (n_profiles > 1)
                say(d, "%zu profiles are assigned; the first is the default, the others answer lookups by qualifier", n_profiles);
        const char *format = bus_value_get_string(props, "Format");
        if (!isempty(format) && streq(d->kind, "printer"))
                say(d, "a print job asks for its %s qualifier, then the same with the resolution, then the media, then both replaced by '*', then '*' (tinct lookup DEVICE C.M.R shows which entry matches)",
                    format);
}

static void print_text(const Diagnosis *d) {
        printf("%s (%s)%s\n", d->id, d->kind, d->ok ? "" : "  — needs attention");
        STRV_FOREACH(s, d->findings)
                printf("  - %s\n", *s);
}

static void write_json(JsonWriter *w, const Diagnosis *d) {
        json_write_begin_object(w);
        json_write_member_text(w, "device_id", d->id);
        json_write_member_text(w, "object_path", d->path);
        json_write_member_text(w, "kind", d->kind);
        json_write_key(w, "ok");
        json_write_bool(w, d->ok);
        json_write_key(w, "enabled");
        json_write_bool(w, d->enabled);
        json_write_key(w, "inhibited");
        json_write_bool(w, d->inhibited);
        json_write_member_text(w, "profile", d->profile);
        json_write_member_text(w, "filename", d->filename);
        json_write_member_text(w, "relation", d->relation);
        json_write_key(w, "findings");
        json_write_begin_array(w);
        STRV_FOREACH(s, d->findings)
                json_write_string(w, *s);
        json_write_end_array(w);
        json_write_end_object(w);
}

int verb_doctor(Invocation *inv) {
        _cleanup_strv_free_ char **paths = NULL, **ids = NULL;
        sd_bus *bus = inv->bus;
        bool json = inv->opts.json;
        int r = 0;

        r = bus_call_paths(bus, CM_PATH, CM_IFACE, "GetDevices", &paths, NULL);
        if (r < 0)
                return bus_exit_status(r);
        BusObject **objects = calloc(strv_length(paths) + 1, sizeof *objects);
        size_t n = 0;
        if (!objects)
                return EXIT_FAILURE;
        STRV_FOREACH(p, paths)
                if (bus_object_get(bus, BUS_OBJECT_DEVICE, *p, &objects[n]) >= 0) {
                        if (strv_extend(&ids, strempty(bus_value_get_string(objects[n]->properties, "DeviceId"))) < 0)
                                r = -ENOMEM;
                        n++;
                }
        _cleanup_free_ char *only = NULL;
        if (inv->n_args == 1 && bus_resolve(bus, BUS_OBJECT_DEVICE, inv->args[0], &only) < 0)
                r = -ENOENT;

        JsonWriter w;
        if (json) {
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, "devices");
                json_write_begin_array(&w);
        }
        size_t shown = 0, attention = 0;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                if (only && !streq(objects[i]->path, only))
                        continue;
                Diagnosis d = {};
                diagnose(bus, objects[i], ids, &d);
                if (json)
                        write_json(&w, &d);
                else
                        print_text(&d);
                shown++;
                attention += !d.ok;
                diagnosis_done(&d);
        }
        if (json) {
                json_write_end_array(&w);
                json_write_end_object(&w);
                if (bus_json_finish(&w) < 0)
                        r = -EIO;
        } else if (r >= 0)
                printf("%zu device%s, %zu needing attention.\n", shown, shown == 1 ? "" : "s", attention);
        for (size_t i = 0; i < n; i++)
                bus_object_free(objects[i]);
        free(objects);
        return bus_exit_status(r);
}
