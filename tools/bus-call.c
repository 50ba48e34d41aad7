/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-call: the daemon's methods as tinct calls them (bus-call.h). A failure is logged once,
 * here, with the daemon's error name, and comes back as an errno that carries its kind, so
 * that verbs return the exit status without any state kept between calls. */
#include "bus-call.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"

int bus_exit_status(int r) {
        if (r >= 0)
                return EXIT_SUCCESS;
        switch (r) {
        case -ENOENT:
                return EXIT_NOT_FOUND;
        case -EACCES:
                return EXIT_DENIED;
        case -EHOSTUNREACH:
                return EXIT_UNREACHABLE;
        default:
                return EXIT_FAILURE;
        }
}

/* The errno a failed call returns: its kind (bus-call.h) from the error name, or from the
 * connection's errno when the daemon did not answer; any other failure -EIO, so that an
 * errno of sd-bus's own never passes for one of those kinds. */
static int call_errno(const sd_bus_error *error, int r) {
        static const struct {
                const char *suffix;
                int error;
        } table[] = {
                { "ColorManager.NotFound", -ENOENT },
                { ".FailedToAuthenticate", -EACCES },
                { ".NotAuthorized", -EACCES },
                { "DBus.Error.AccessDenied", -EACCES },
                { "DBus.Error.ServiceUnknown", -EHOSTUNREACH },
                { "DBus.Error.NameHasNoOwner", -EHOSTUNREACH },
                { "DBus.Error.NoServer", -EHOSTUNREACH },
        };

        if (!sd_bus_error_is_set(error))
                return r == -ENOENT || r == -ECONNREFUSED || r == -ECONNRESET || r == -ENOTCONN ? -EHOSTUNREACH
                                                                                               : -EIO;
        size_t n = strlen(error->name);
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                size_t k = strlen(table[i].suffix);
                if (n >= k && streq(error->name + n - k, table[i].suffix))
                        return table[i].error;
        }
        return -EIO;
}

int bus_connect(sd_bus **ret) {
        int r;

        r = sd_bus_open_system(ret);
        if (r < 0) {
                log_error_errno(r, "Failed to connect to the system bus: %m");
                return -EHOSTUNREACH;
        }
        return 0;
}

static int report_call_error(const char *member, const sd_bus_error *error, int r) {
        if (sd_bus_error_is_set(error))
                log_error_errno(r, "%s: %s", error->name, isempty(error->message) ? strerror(-r) : error->message);
        else
                log_error_errno(r, "%s failed: %m", member);
        return call_errno(error, r);
}

int bus_log_parse_error(int r) {
        return log_error_errno(r, "Failed to parse the daemon's reply: %m");
}

int bus_log_create_error(int r) {
        return log_error_errno(r, "Failed to build a method call: %m");
}

/* Every call goes through bus_call_message(): one place reports its failure. */
static int bus_callv(sd_bus *bus, const char *path, const char *iface, const char *member,
                     sd_bus_message **ret_reply, const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = bus_new_method_call(bus, path, iface, member, &m);
        if (r < 0)
                return r;
        if (!isempty(types)) {
                r = sd_bus_message_appendv(m, types, ap);
                if (r < 0)
                        return bus_log_create_error(r);
        }
        return bus_call_message(bus, m, ret_reply);
}

int bus_call(sd_bus *bus, const char *path, const char *iface, const char *member,
             sd_bus_message **ret_reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = bus_callv(bus, path, iface, member, ret_reply, types, ap);
        va_end(ap);
        return r;
}

int bus_new_method_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                        sd_bus_message **ret) {
        int r;

        r = sd_bus_message_new_method_call(bus, ret, CM_NAME, path, iface, member);
        if (r < 0)
                return bus_log_create_error(r);
        return 0;
}

int bus_call_message(sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply) {
        return bus_call_message_timeout(bus, m, 0, ret_reply);
}

int bus_call_message_timeout(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_message **ret_reply) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call(bus, m, usec, &error, &reply);
        if (r < 0)
                return report_call_error(sd_bus_message_get_member(m), &error, r);
        if (ret_reply)
                *ret_reply = reply;
        else
                sd_bus_message_unref(reply);
        return 0;
}

int bus_call_message_path(sd_bus *bus, sd_bus_message *m, char **ret_path) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = bus_call_message(bus, m, &reply);
        if (r < 0)
                return r;
        return bus_read_path(reply, ret_path);
}

int bus_read_path(sd_bus_message *reply, char **ret_path) {
        const char *p;
        int r = sd_bus_message_read(reply, "o", &p);
        if (r < 0)
                return bus_log_parse_error(r);
        *ret_path = strdup(p);
        if (!*ret_path)
                return bus_log_parse_error(-ENOMEM);
        return 0;
}

static int read_paths(sd_bus_message *reply, char ***ret_paths) {
        char **paths = NULL;
        int r = sd_bus_message_read_strv(reply, &paths);
        if (r < 0)
                return bus_log_parse_error(r);
        if (!paths) { /* an empty array gives NULL */
                paths = calloc(1, sizeof(char *));
                if (!paths)
                        return bus_log_parse_error(-ENOMEM);
        }
        *ret_paths = paths;
        return 0;
}

/* The call of bus_call_path() and bus_call_paths(), its reply read by one of the two; a
 * negative errno, logged, when the call failed. */
static int call_read(sd_bus *bus, const char *path, const char *iface, const char *member,
                     char **ret_path, char ***ret_paths, const char *types, va_list ap) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = bus_callv(bus, path, iface, member, &reply, types, ap);
        if (r < 0)
                return r;
        return ret_path ? bus_read_path(reply, ret_path) : read_paths(reply, ret_paths);
}

int bus_call_path(sd_bus *bus, const char *path, const char *iface, const char *member,
                  char **ret_path, const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        int r = call_read(bus, path, iface, member, ret_path, NULL, types, ap);
        va_end(ap);
        return r;
}

int bus_call_paths(sd_bus *bus, const char *path, const char *iface, const char *member,
                   char ***ret_paths, const char *types, ...) {
        va_list ap;
        va_start(ap, types);
        int r = call_read(bus, path, iface, member, NULL, ret_paths, types, ap);
        va_end(ap);
        return r;
}

const char *bus_object_kind_interface(BusObjectKind kind) {
        switch (kind) {
        case BUS_OBJECT_DEVICE:
                return CM_DEVICE_IFACE;
        case BUS_OBJECT_PROFILE:
                return CM_PROFILE_IFACE;
        case BUS_OBJECT_SENSOR:
                return CM_SENSOR_IFACE;
        }
        return NULL;
}

int bus_resolve(sd_bus *bus, BusObjectKind kind, const char *arg, char **ret_path) {
        static const char *const find[] = {
                [BUS_OBJECT_DEVICE] = "FindDeviceById",
                [BUS_OBJECT_PROFILE] = "FindProfileById",
                [BUS_OBJECT_SENSOR] = "FindSensorById",
        };

        if (sd_bus_object_path_is_valid(arg)) {
                *ret_path = strdup(arg);
                if (!*ret_path)
                        return log_oom();
                return 0;
        }
        return bus_call_path(bus, CM_PATH, CM_IFACE, find[kind], ret_path, "s", arg);
}
