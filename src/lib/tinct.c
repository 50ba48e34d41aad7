/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libtinct (see tinct/tinct.h) on sd-bus: one connection per client, plain synchronous calls
 * for the questions, one match on the manager's signals for the watch. */
#include "tinct/tinct.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "cm-names.h"

struct TinctClient {
        sd_bus *bus;
        sd_bus_error error;
        sd_bus_slot *match;
        TinctChangedFunc changed;
        void *userdata;
};

int tinct_client_new(TinctClient **ret) {
        TinctClient *c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        c->error = SD_BUS_ERROR_NULL;
        int r = sd_bus_open_system(&c->bus);
        if (r < 0) {
                free(c);
                return r;
        }
        *ret = c;
        return 0;
}

TinctClient *tinct_client_free(TinctClient *c) {
        if (!c)
                return NULL;
        sd_bus_slot_unref(c->match);
        sd_bus_flush_close_unref(c->bus);
        sd_bus_error_free(&c->error);
        free(c);
        return NULL;
}

const char *tinct_client_last_error(TinctClient *c) {
        return c->error.message ? c->error.message : "";
}

static bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), k = strlen(suffix);
        return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The daemon's "not found" errors, in any of its domains, become -ENOENT; a device being
 * profiled (its profiles must not be used meanwhile) -EBUSY. */
static int call_failed(TinctClient *c, int r) {
        const char *name = c->error.name ? c->error.name : "";
        if (ends_with(name, ".NotFound") || ends_with(name, ".NothingMatched") || ends_with(name, ".ProfileDoesNotExist"))
                return -ENOENT;
        if (ends_with(name, ".Profiling"))
                return -EBUSY;
        return r;
}

static int read_path(TinctClient *c, sd_bus_message *reply, char **ret) {
        const char *path;
        int r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        return (*ret = strdup(path)) ? 0 : -ENOMEM;
}

int tinct_find_device_by_id(TinctClient *c, const char *id, char **ret_path) {
        sd_bus_message *reply = NULL;
        sd_bus_error_free(&c->error);
        int r = sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "FindDeviceById", &c->error, &reply, "s", id);
        if (r < 0)
                return call_failed(c, r);
        r = read_path(c, reply, ret_path);
        sd_bus_message_unref(reply);
        return r;
}

int tinct_find_device_by_property(TinctClient *c, const char *key, const char *value, char **ret_path) {
        sd_bus_message *reply = NULL;
        sd_bus_error_free(&c->error);
        int r = sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "FindDeviceByProperty", &c->error, &reply, "ss",
                                   key, value);
        if (r < 0)
                return call_failed(c, r);
        r = read_path(c, reply, ret_path);
        sd_bus_message_unref(reply);
        return r;
}

void tinct_strv_free(char **l) {
        for (char **p = l; p && *p; p++)
                free(*p);
        free(l);
}

int tinct_get_devices_by_kind(TinctClient *c, const char *kind, char ***ret_paths) {
        sd_bus_message *reply = NULL;
        char **l = NULL;
        sd_bus_error_free(&c->error);
        int r = sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "GetDevicesByKind", &c->error, &reply, "s", kind);
        if (r < 0)
                return call_failed(c, r);
        r = sd_bus_message_read_strv(reply, &l);
        sd_bus_message_unref(reply);
        if (r < 0)
                return r;
        if (!l && !(l = calloc(1, sizeof(char *))))
                return -ENOMEM;
        *ret_paths = l;
        return 0;
}

static int get_string(TinctClient *c, const char *path, const char *iface, const char *name, char **ret) {
        sd_bus_error_free(&c->error);
        int r = sd_bus_get_property_string(c->bus, CM_NAME, path, iface, name, &c->error, ret);
        return r < 0 ? call_failed(c, r) : 0;
}

int tinct_device_get_property(TinctClient *c, const char *device_path, const char *name, char **ret_value) {
        return get_string(c, device_path, CM_DEVICE_IFACE, name, ret_value);
}

int tinct_device_get_profile_filename(TinctClient *c, const char *device_path, const char *const *qualifiers,
                                      char **ret_filename) {
        static const char *const any[] = { "*", NULL };
        sd_bus_message *call = NULL, *reply = NULL;
        char *profile = NULL, *filename = NULL;
        int r;

        sd_bus_error_free(&c->error);
        /* GetProfileForQualifiers("*") is the default profile, with the daemon's own rules. */
        r = sd_bus_message_new_method_call(c->bus, &call, CM_NAME, device_path, CM_DEVICE_IFACE, "GetProfileForQualifiers");
        if (r >= 0)
                r = sd_bus_message_append_strv(call, (char **) (qualifiers && qualifiers[0] ? qualifiers : any));
        if (r >= 0)
                r = sd_bus_call(c->bus, call, 0, &c->error, &reply);
        sd_bus_message_unref(call);
        if (r < 0)
                return call_failed(c, r);
        r = read_path(c, reply, &profile);
        sd_bus_message_unref(reply);
        if (r < 0)
                return r;
        r = get_string(c, profile, CM_PROFILE_IFACE, "Filename", &filename);
        free(profile);
        if (r < 0)
                return r;
        if (!filename[0]) {
                free(filename);
                return -ENODATA;
        }
        *ret_filename = filename;
        return 0;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        TinctClient *c = userdata;
        const char *member = sd_bus_message_get_member(m), *path = NULL;
        if (!c->changed || !member)
                return 0;
        if (strncmp(member, "Device", 6) == 0)
                (void) sd_bus_message_read(m, "o", &path);
        else if (strncmp(member, "Profile", 7) != 0)
                return 0;
        c->changed(c, path, c->userdata);
        return 0;
}

int tinct_watch(TinctClient *c, TinctChangedFunc func, void *userdata) {
        c->changed = func;
        c->userdata = userdata;
        if (!func) {
                c->match = sd_bus_slot_unref(c->match);
                return 0;
        }
        if (c->match)
                return 0;
        /* DeviceAdded/Removed/Changed and ProfileAdded/Removed/Changed, all on the manager. */
        /* No sender in the match: sd-bus compares it with the unique name of each signal. */
        int r = sd_bus_match_signal(c->bus, &c->match, NULL, CM_PATH, CM_IFACE, NULL, on_signal, c);
        return r < 0 ? r : 0;
}

int tinct_client_get_fd(TinctClient *c) {
        return sd_bus_get_fd(c->bus);
}

int tinct_client_process(TinctClient *c, uint64_t timeout_usec) {
        int r = sd_bus_process(c->bus, NULL);
        if (r != 0 || timeout_usec == 0)
                return r;
        r = sd_bus_wait(c->bus, timeout_usec);
        if (r <= 0)
                return r;
        return sd_bus_process(c->bus, NULL);
}
