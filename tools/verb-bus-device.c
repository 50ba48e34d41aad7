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

#include "bus-client.h"
#include "qualifier.h"
#include "strv.h"
#include "verbs.h"

/* Parses the arguments, connects and resolves args[0] as a device. Returns 1 to go on, or
 * 0 with *ret_status set to the exit status. */
static int open_device(int argc, char **argv, const char *synopsis, const char *help,
                       unsigned min_args, unsigned max_args, BusArgsFlags flags,
                       BusArgs *ret_args, sd_bus **ret_bus, char **ret_device, int *ret_status) {
        int r;

        r = bus_args_parse(argc, argv, synopsis, help, min_args, max_args, flags, ret_args);
        if (r <= 0) {
                *ret_status = bus_args_exit(r);
                return 0;
        }
        if (bus_connect(ret_bus) < 0 || bus_resolve(*ret_bus, BUS_OBJECT_DEVICE, ret_args->args[0], ret_device) < 0) {
                *ret_status = EXIT_FAILURE;
                return 0;
        }
        return 1;
}

/* Device method with a profile argument (args[1]) and an optional leading relation. */
static int device_profile_call(int argc, char **argv, const char *member, const char *help, BusArgsFlags flags) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *device = NULL, *profile = NULL;
        BusArgs a;
        int status, r;

        if (!open_device(argc, argv, "DEVICE PROFILE", help, 2, 2, flags, &a, &bus, &device, &status))
                return status;
        if (bus_resolve(bus, BUS_OBJECT_PROFILE, a.args[1], &profile) < 0)
                return EXIT_FAILURE;
        if (streq(member, "AddProfile"))
                r = bus_call(bus, device, CM_IFACE_DEVICE, member, NULL, "so", a.soft ? "soft" : "hard", profile);
        else
                r = bus_call(bus, device, CM_IFACE_DEVICE, member, NULL, "o", profile);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_device_add_profile(int argc, char **argv) {
        return device_profile_call(argc, argv, "AddProfile",
                                   "Adds a profile to a device: hard (chosen by the user, as colormgr does),\n"
                                   "or soft (automatic) with --soft.", BUS_ARGS_SOFT);
}

int verb_device_remove_profile(int argc, char **argv) {
        return device_profile_call(argc, argv, "RemoveProfile",
                                   "Takes a profile off a device (the stored mapping is forgotten too).", 0);
}

int verb_device_make_profile_default(int argc, char **argv) {
        return device_profile_call(argc, argv, "MakeProfileDefault",
                                   "Makes a profile already on the device its default (it becomes hard).", 0);
}

static int get_device_profiles(sd_bus *bus, const char *device, char ***ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        char **paths = NULL;
        int r;

        r = bus_call(bus, device, "org.freedesktop.DBus.Properties", "Get", &reply, "ss",
                     CM_IFACE_DEVICE, "Profiles");
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

int verb_device_get_default_profile(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *device = NULL;
        _cleanup_strv_free_ char **profiles = NULL;
        BusArgs a;
        int status;

        if (!open_device(argc, argv, "DEVICE", "Shows the device's default profile (the first of its Profiles).",
                         1, 1, 0, &a, &bus, &device, &status))
                return status;
        if (get_device_profiles(bus, device, &profiles) < 0)
                return EXIT_FAILURE;
        if (strv_isempty(profiles)) {
                fprintf(stderr, "tinct: device %s has no profiles\n", device);
                return EXIT_FAILURE;
        }
        return bus_print_object(bus, BUS_OBJECT_PROFILE, profiles[0], a.json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* One GetProfileForQualifiers call with every query in it. */
static int get_profile_for_qualifiers(sd_bus *bus, const char *device, char **qualifiers, char **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *p;
        int r;

        r = bus_new_method_call(bus, device, CM_IFACE_DEVICE, "GetProfileForQualifiers", &m);
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(m, qualifiers);
        if (r < 0)
                return bus_log_create_error(r);
        r = bus_call_message(bus, m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &p);
        if (r < 0)
                return bus_log_parse_error(r);
        *ret = strdup(p);
        return *ret ? 0 : bus_log_parse_error(-ENOMEM);
}

int verb_device_get_profile_for_qualifier(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *device = NULL, *profile = NULL;
        _cleanup_strv_free_ char **qualifiers = NULL;
        BusArgs a;
        int status;

        if (!open_device(argc, argv, "DEVICE QUALIFIER...",
                         "Shows the profile the daemon picks for the qualifiers, all sent in one call\n"
                         "(hard profiles for any qualifier win over soft ones), e.g.\n"
                         "  tinct device-get-profile-for-qualifier cups-HP RGB.Glossy.600dpi 'RGB.*.*' '*'",
                         2, UINT32_MAX, 0, &a, &bus, &device, &status))
                return status;
        for (unsigned i = 1; i < a.n_args; i++)
                if (strv_extend(&qualifiers, a.args[i]) < 0) {
                        bus_log_create_error(-ENOMEM);
                        return EXIT_FAILURE;
                }
        if (get_profile_for_qualifiers(bus, device, qualifiers, &profile) < 0)
                return EXIT_FAILURE;
        return bus_print_object(bus, BUS_OBJECT_PROFILE, profile, a.json) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
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
int verb_lookup(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *device = NULL, *profile = NULL;
        _cleanup_strv_free_ char **queries = NULL;
        _cleanup_(bus_object_freep) BusObject *o = NULL;
        const char *relation, *matched = NULL;
        BusArgs a;
        int r;

        r = bus_args_parse(argc, argv, "DEVICE C.M.R",
                           "Asks for the profile of a print job's qualifier with the fallback list the\n"
                           "printing stack sends (C.M.R, C.M.*, C.*.R, C.*.*, *) and shows which entry\n"
                           "matched, the profile's relation to the device and the profile.",
                           2, 2, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        r = qualifier_fallbacks(a.args[1], &queries);
        if (r == -EINVAL)
                return bus_usage_error(argv[0], "qualifier '%s' is not of the form C.M.R", a.args[1]);
        if (r < 0) {
                bus_log_create_error(r);
                return EXIT_FAILURE;
        }
        if (bus_connect(&bus) < 0 || bus_resolve(bus, BUS_OBJECT_DEVICE, a.args[0], &device) < 0)
                return EXIT_FAILURE;
        if (get_profile_for_qualifiers(bus, device, queries, &profile) < 0)
                return EXIT_FAILURE;
        if (bus_object_get(bus, BUS_OBJECT_PROFILE, profile, &o) < 0)
                return EXIT_FAILURE;
        if (bus_call(bus, device, CM_IFACE_DEVICE, "GetProfileRelation", &reply, "o", profile) < 0)
                return EXIT_FAILURE;
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

        if (a.json) {
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
                return bus_json_finish(&w) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }
        printf("Device: %s\nQualifiers:", device);
        STRV_FOREACH(q, queries)
                printf(" %s", *q);
        printf("\nMatched: %s\nRelation: %s\n", matched ?: "(none)", relation);
        bus_object_print_text(o, stdout);
        return EXIT_SUCCESS;
}

static int device_set_property(int argc, char **argv, const char *property) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *device = NULL, *help = NULL;
        BusArgs a;
        int status;

        if (asprintf(&help, "Sets the device's %s.", property) < 0)
                return EXIT_FAILURE;
        if (!open_device(argc, argv, "DEVICE VALUE", help, 2, 2, 0, &a, &bus, &device, &status))
                return status;
        return bus_call(bus, device, CM_IFACE_DEVICE, "SetProperty", NULL, "ss", property, a.args[1]) < 0
                ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_device_set_model(int argc, char **argv) {
        return device_set_property(argc, argv, "Model");
}

int verb_device_set_vendor(int argc, char **argv) {
        return device_set_property(argc, argv, "Vendor");
}

int verb_device_set_serial(int argc, char **argv) {
        return device_set_property(argc, argv, "Serial");
}

int verb_device_set_kind(int argc, char **argv) {
        return device_set_property(argc, argv, "Kind");
}

int verb_device_set_enabled(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *device = NULL;
        BusArgs a;
        int r, enabled;

        r = bus_args_parse(argc, argv, "DEVICE true|false", "Enables or disables a device (advisory, colord §3.2).",
                           2, 2, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (strcasecmp(a.args[1], "true") == 0)
                enabled = 1;
        else if (strcasecmp(a.args[1], "false") == 0)
                enabled = 0;
        else
                return bus_usage_error(argv[0], "expected true or false, not '%s'", a.args[1]);
        if (bus_connect(&bus) < 0 || bus_resolve(bus, BUS_OBJECT_DEVICE, a.args[0], &device) < 0)
                return EXIT_FAILURE;
        return bus_call(bus, device, CM_IFACE_DEVICE, "SetEnabled", NULL, "b", enabled) < 0
                ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Holds a profiling inhibition for SECONDS (0: until SIGINT or SIGTERM), then releases it.
 * The signals are blocked before the call so one arriving early is not lost. */
int verb_device_inhibit(int argc, char **argv) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *device = NULL;
        unsigned long seconds = 0;
        sigset_t mask;
        BusArgs a;
        int status, r;

        r = bus_args_parse(argc, argv, "DEVICE [SECONDS]",
                           "Inhibits profiling of a device (GetProfileForQualifiers then fails with\n"
                           "Device.Profiling) for SECONDS, or until Ctrl-C when 0 or omitted.",
                           1, 2, 0, &a);
        if (r <= 0)
                return bus_args_exit(r);
        if (a.n_args > 1) {
                char *end;
                errno = 0;
                seconds = strtoul(a.args[1], &end, 10);
                if (errno != 0 || end == a.args[1] || *end || a.args[1][0] == '-' || seconds > INT32_MAX)
                        return bus_usage_error(argv[0], "'%s' is not a number of seconds", a.args[1]);
        }

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
                fprintf(stderr, "tinct: Failed to block signals: %m\n");
                return EXIT_FAILURE;
        }
        if (bus_connect(&bus) < 0 || bus_resolve(bus, BUS_OBJECT_DEVICE, a.args[0], &device) < 0)
                return EXIT_FAILURE;
        if (bus_call(bus, device, CM_IFACE_DEVICE, "ProfilingInhibit", NULL, NULL) < 0)
                return EXIT_FAILURE;
        if (seconds > 0)
                printf("Profiling of %s inhibited for %lu s (Ctrl-C ends it early).\n", device, seconds);
        else
                printf("Profiling of %s inhibited until Ctrl-C.\n", device);
        fflush(stdout);

        (void) hold_until_signal(&mask, seconds);
        status = bus_call(bus, device, CM_IFACE_DEVICE, "ProfilingUninhibit", NULL, NULL) < 0
                ? EXIT_FAILURE : EXIT_SUCCESS;
        return status;
}
