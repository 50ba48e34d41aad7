/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct's device verbs (colormgr's device-* verbs, colord §3, §5, §14.1) and our own `lookup`,
 * which builds the printing stack's qualifier fallback list (colord §5.4) and says which entry of
 * it matched. DEVICE and PROFILE arguments follow colormgr: an object path is used as it
 * is, anything else is an id (FindDeviceById / FindProfileById). Output conventions as in
 * verb-bus.c. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bus-call.h"
#include "bus-print.h"
#include "hold.h"
#include "log.h"
#include "qualifier.h"
#include "strv.h"
#include "verbs.h"

/* Device method with a profile argument (args[1]); AddProfile with its relation. */
static int device_profile_call(Invocation *inv, const char *member) {
        _cleanup_free_ char *device = NULL, *profile = NULL;
        int r;

        r = bus_resolve(inv->bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        r = bus_resolve(inv->bus, BUS_OBJECT_PROFILE, inv->args[1], &profile);
        if (r < 0)
                return bus_exit_status(r);
        if (streq(member, "AddProfile"))
                r = bus_call(inv->bus, device, CM_DEVICE_IFACE, member, NULL, "so", inv->opts.soft ? "soft" : "hard",
                             profile);
        else
                r = bus_call(inv->bus, device, CM_DEVICE_IFACE, member, NULL, "o", profile);
        return bus_exit_status(r);
}

int verb_device_add_profile(Invocation *inv) {
        return device_profile_call(inv, "AddProfile");
}

int verb_device_remove_profile(Invocation *inv) {
        return device_profile_call(inv, "RemoveProfile");
}

int verb_device_make_profile_default(Invocation *inv) {
        return device_profile_call(inv, "MakeProfileDefault");
}

static int get_device_profiles(sd_bus *bus, const char *device, char ***ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        char **paths = NULL;
        int r;

        r = bus_call(bus, device, "org.freedesktop.DBus.Properties", "Get", &reply, "ss",
                     CM_DEVICE_IFACE, "Profiles");
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, SD_BUS_TYPE_VARIANT, "ao");
        if (r < 0)
                return bus_log_parse_error(r);
        r = sd_bus_message_read_strv(reply, &paths);
        if (r < 0)
                return bus_log_parse_error(r);
        *ret = paths; /* NULL when empty */
        return 0;
}

int verb_device_get_default_profile(Invocation *inv) {
        _cleanup_free_ char *device = NULL;
        _cleanup_strv_free_ char **profiles = NULL;
        int r;

        r = bus_resolve(inv->bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        r = get_device_profiles(inv->bus, device, &profiles);
        if (r < 0)
                return bus_exit_status(r);
        if (strv_isempty(profiles)) {
                log_error("device %s has no profiles", device);
                return EXIT_FAILURE;
        }
        return bus_exit_status(bus_print_object(inv->bus, BUS_OBJECT_PROFILE, profiles[0], inv->opts.json));
}

/* One GetProfileForQualifiers call with every query in it. */
static int get_profile_for_qualifiers(sd_bus *bus, const char *device, char **qualifiers, char **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = bus_new_method_call(bus, device, CM_DEVICE_IFACE, "GetProfileForQualifiers", &m);
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(m, qualifiers);
        if (r < 0)
                return bus_log_create_error(r);
        return bus_call_message_path(bus, m, ret);
}

int verb_device_get_profile_for_qualifier(Invocation *inv) {
        _cleanup_free_ char *device = NULL, *profile = NULL;
        _cleanup_strv_free_ char **qualifiers = NULL;
        int r;

        for (unsigned i = 1; i < inv->n_args; i++)
                if (strv_extend(&qualifiers, inv->args[i]) < 0) {
                        bus_log_create_error(-ENOMEM);
                        return EXIT_FAILURE;
                }
        r = bus_resolve(inv->bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        r = get_profile_for_qualifiers(inv->bus, device, qualifiers, &profile);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_print_object(inv->bus, BUS_OBJECT_PROFILE, profile, inv->opts.json));
}

/* The list cups-filters sends for a job qualifier C.M.R (colord §5.4):
 * C.M.R, C.M.*, C.*.R, C.*.*, *. Split like the daemon splits: at most three parts, the
 * third keeping further dots. -EINVAL unless there are three parts. */
static int qualifier_fallbacks(const char *qualifier, char ***ret) {
        const char *dot1 = strchr(qualifier, '.');
        const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
        _cleanup_strv_free_ char **l = NULL;

        if (!dot2)
                return -EINVAL;
        int nc = (int) (dot1 - qualifier), nm = (int) (dot2 - dot1 - 1);
        const char *c = qualifier, *m = dot1 + 1, *res = dot2 + 1;
        char *s;

        if (asprintf(&s, "%s", qualifier) < 0 || strv_consume(&l, s) < 0)
                return -ENOMEM;
        if (asprintf(&s, "%.*s.%.*s.*", nc, c, nm, m) < 0 || strv_consume(&l, s) < 0)
                return -ENOMEM;
        if (asprintf(&s, "%.*s.*.%s", nc, c, res) < 0 || strv_consume(&l, s) < 0)
                return -ENOMEM;
        if (asprintf(&s, "%.*s.*.*", nc, c) < 0 || strv_consume(&l, s) < 0)
                return -ENOMEM;
        if (strv_extend(&l, "*") < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

/* tinct lookup DEVICE C.M.R: what a CUPS filter would get, and why. The daemon answers
 * only the profile; which query matched follows from its rule (colord §5.4): the hard pass tries
 * every query before the soft pass, and within a pass the queries go in order, so the
 * matching query is the first one in the list that the answer's Qualifier satisfies. */
int verb_lookup_check(const Invocation *inv) {
        const char *dot = strchr(inv->args[1], '.');
        if (!dot || !strchr(dot + 1, '.'))
                return verb_usage_error(inv, "qualifier '%s' is not of the form C.M.R", inv->args[1]);
        return 0;
}

int verb_lookup(Invocation *inv) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *device = NULL, *profile = NULL;
        _cleanup_strv_free_ char **queries = NULL;
        _cleanup_(bus_object_freep) BusObject *o = NULL;
        const char *relation, *matched = NULL;
        sd_bus *bus = inv->bus;
        int r;

        r = qualifier_fallbacks(inv->args[1], &queries); /* the form was checked: only -ENOMEM */
        if (r < 0) {
                bus_log_create_error(r);
                return EXIT_FAILURE;
        }
        r = bus_resolve(bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        r = get_profile_for_qualifiers(bus, device, queries, &profile);
        if (r < 0)
                return bus_exit_status(r);
        r = bus_object_get(bus, BUS_OBJECT_PROFILE, profile, &o);
        if (r < 0)
                return bus_exit_status(r);
        r = bus_call(bus, device, CM_DEVICE_IFACE, "GetProfileRelation", &reply, "o", profile);
        if (r < 0)
                return bus_exit_status(r);
        r = sd_bus_message_read(reply, "s", &relation);
        if (r < 0) {
                bus_log_parse_error(r);
                return EXIT_FAILURE;
        }
        STRV_FOREACH(q, queries)
                if (qualifier_match(*q, bus_value_get_string(o->properties, "Qualifier"))) {
                        matched = *q;
                        break;
                }

        if (inv->opts.json) {
                JsonWriter w;
                json_writer_init(&w, stdout);
                json_write_begin_object(&w);
                json_write_key(&w, "device");
                json_write_string(&w, device);
                json_write_key(&w, "qualifiers");
                json_write_begin_array(&w);
                STRV_FOREACH(q, queries)
                        json_write_string(&w, *q);
                json_write_end_array(&w);
                json_write_key(&w, "matched");
                if (matched)
                        json_write_string(&w, matched);
                else
                        json_write_null(&w);
                json_write_key(&w, "relation");
                json_write_string(&w, relation);
                json_write_key(&w, "profile");
                bus_object_write_json(o, &w);
                json_write_end_object(&w);
                return bus_exit_status(bus_json_finish(&w));
        }
        printf("Device: %s\nQualifiers:", device);
        STRV_FOREACH(q, queries)
                printf(" %s", *q);
        printf("\nMatched: %s\nRelation: %s\n", matched ?: "(none)", relation);
        bus_object_print_text(o, stdout);
        return EXIT_SUCCESS;
}

static int device_set_property(Invocation *inv, const char *property) {
        _cleanup_free_ char *device = NULL;
        int r;

        r = bus_resolve(inv->bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_call(inv->bus, device, CM_DEVICE_IFACE, "SetProperty", NULL, "ss", property,
                                        inv->args[1]));
}

int verb_device_set_model(Invocation *inv) {
        return device_set_property(inv, "Model");
}

int verb_device_set_vendor(Invocation *inv) {
        return device_set_property(inv, "Vendor");
}

int verb_device_set_serial(Invocation *inv) {
        return device_set_property(inv, "Serial");
}

int verb_device_set_kind(Invocation *inv) {
        return device_set_property(inv, "Kind");
}

/* true or false, in any case; -EINVAL otherwise. */
static int parse_enabled(const char *s) {
        return strcasecmp(s, "true") == 0 ? 1 : strcasecmp(s, "false") == 0 ? 0 : -EINVAL;
}

int verb_device_set_enabled_check(const Invocation *inv) {
        if (parse_enabled(inv->args[1]) < 0)
                return verb_usage_error(inv, "expected true or false, not '%s'", inv->args[1]);
        return 0;
}

int verb_device_set_enabled(Invocation *inv) {
        _cleanup_free_ char *device = NULL;
        int r;

        r = bus_resolve(inv->bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        return bus_exit_status(bus_call(inv->bus, device, CM_DEVICE_IFACE, "SetEnabled", NULL, "b",
                                        parse_enabled(inv->args[1])));
}

int verb_device_inhibit_check(const Invocation *inv) {
        unsigned long seconds;
        if (inv->n_args > 1 && parse_seconds(inv->args[1], &seconds) < 0)
                return verb_usage_error(inv, "'%s' is not a number of seconds", inv->args[1]);
        return 0;
}

/* Holds a profiling inhibition for SECONDS (0: until SIGINT or SIGTERM), then releases it.
 * The signals are blocked before the call so one arriving early is not lost. */
int verb_device_inhibit(Invocation *inv) {
        _cleanup_free_ char *device = NULL;
        unsigned long seconds = 0;
        sigset_t mask;
        int r;

        if (inv->n_args > 1)
                (void) parse_seconds(inv->args[1], &seconds); /* checked */
        r = block_interrupts(&mask);
        if (r < 0)
                return EXIT_FAILURE;
        r = bus_resolve(inv->bus, BUS_OBJECT_DEVICE, inv->args[0], &device);
        if (r < 0)
                return bus_exit_status(r);
        r = bus_call(inv->bus, device, CM_DEVICE_IFACE, "ProfilingInhibit", NULL, NULL);
        if (r < 0)
                return bus_exit_status(r);
        if (seconds > 0)
                printf("Profiling of %s inhibited for %lu s (Ctrl-C ends it early).\n", device, seconds);
        else
                printf("Profiling of %s inhibited until Ctrl-C.\n", device);
        fflush(stdout);

        (void) hold_until_signal(&mask, seconds);
        return bus_exit_status(bus_call(inv->bus, device, CM_DEVICE_IFACE, "ProfilingUninhibit", NULL, NULL));
}
