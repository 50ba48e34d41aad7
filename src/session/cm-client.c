/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The system bus connection, the daemon's presence and the calls (see cm-client.h). */
#include "cm-client.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "strv.h"

struct CmClient {
        sd_bus *bus;
        sd_bus_slot *owner_slot;
        char *owner;            /* the daemon's unique name, NULL when it is not there */
        struct {
                CmPresenceFn fn;
                void *userdata;
        } watchers[CM_MAX_WATCHERS];
        unsigned n_watchers;
};

static void notify(CmClient *c, bool present) {
        for (unsigned i = 0; i < c->n_watchers; i++)
                c->watchers[i].fn(present, c->watchers[i].userdata);
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        CmClient *c = userdata;
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, CM_NAME))
                return 0;
        /* The answer to our own start-up look may come after we knew the owner already. */
        if (!isempty(new_owner) && streq_ptr(new_owner, c->owner))
                return 0;
        if (c->owner) {
                log_info("%s has left the bus (%s)", CM_NAME, c->owner);
                c->owner = mfree(c->owner);
                notify(c, false);
        }
        if (!isempty(new_owner)) {
                if (!(c->owner = strdup(new_owner))) {
                        log_oom();
                        return 0;
                }
                log_info("%s is on the bus (%s)", CM_NAME, new_owner);
                notify(c, true);
        }
        return 0;
}

int cm_client_new(sd_event *event, CmClient **ret) {
        _cleanup_(cm_client_freep) CmClient *c = calloc(1, sizeof *c);
        if (!c)
                return -ENOMEM;
        int r = sd_bus_open_system(&c->bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to the system bus: %m");
        r = sd_bus_attach_event(c->bus, event, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot attach the system bus to the loop: %m");
        *ret = TAKE_PTR(c);
        return 0;
}

CmClient *cm_client_free(CmClient *c) {
        if (!c)
                return NULL;
        sd_bus_slot_unref(c->owner_slot);
        sd_bus_flush_close_unref(c->bus);
        free(c->owner);
        free(c);
        return NULL;
}

sd_bus *cm_client_bus(CmClient *c) {
        return c->bus;
}

bool cm_client_daemon_present(const CmClient *c) {
        return c->owner;
}

int cm_client_add_presence_watch(CmClient *c, CmPresenceFn fn, void *userdata) {
        if (c->n_watchers >= CM_MAX_WATCHERS)
                return -E2BIG;
        c->watchers[c->n_watchers].fn = fn;
        c->watchers[c->n_watchers++].userdata = userdata;
        return 0;
}

bool cm_client_start(CmClient *c) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *owner;

        /* Subscribed first, so a daemon starting after the look is not missed. */
        int r = sd_bus_match_signal(c->bus, &c->owner_slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, c);
        if (r < 0)
                log_warning_errno(r, "Cannot follow %s on the bus: %m", CM_NAME);
        r = sd_bus_call_method(c->bus, CM_NAME, CM_PATH, "org.freedesktop.DBus.Peer", "Ping", &e, NULL, "");
        if (r >= 0)
                r = sd_bus_call_method(c->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetNameOwner", &e, &reply, "s", CM_NAME);
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &owner);
        if (r >= 0 && !(c->owner = strdup(owner)))
                r = -ENOMEM;
        if (r < 0) {
                log_notice("%s is not running (%s); waiting for it", CM_NAME, e.message ? e.message : strerror(-r));
                return false;
        }
        return true;
}

bool cm_error_is(const sd_bus_error *e, const char *suffix) {
        if (!e || !e->name)
                return false;
        size_t n = strlen(e->name), k = strlen(suffix);
        return n > k && e->name[n - k - 1] == '.' && streq(e->name + n - k, suffix);
}

static int read_path(sd_bus_message *reply, char **ret_path) {
        const char *path;
        int r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        return (*ret_path = strdup(path)) ? 0 : -ENOMEM;
}

int cm_create_profile_fd(CmClient *c, const char *id, int fd, const char *filename, const char *checksum,
                         char **ret_path, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "CreateProfileWithFd", error, &reply,
                                   "ssha{ss}", id, "temp", fd, 2, "Filename", filename, "FILE_checksum", checksum);
        if (r < 0)
                return r;
        return read_path(reply, ret_path);
}

int cm_delete_profile(CmClient *c, const char *path, sd_bus_error *error) {
        return sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "DeleteProfile", error, NULL, "o", path);
}

int cm_create_device(CmClient *c, const char *id, char *const *props, char **ret_path, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        int r = sd_bus_message_new_method_call(c->bus, &m, CM_NAME, CM_PATH, CM_IFACE, "CreateDevice");
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", id, "temp");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{ss}");
        for (size_t i = 0; r >= 0 && props && props[i] && props[i + 1]; i += 2)
                r = sd_bus_message_append(m, "{ss}", props[i], props[i + 1]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_call(c->bus, m, 0, error, &reply);
        if (r < 0)
                return r;
        return read_path(reply, ret_path);
}

int cm_delete_device(CmClient *c, const char *path, sd_bus_error *error) {
        return sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "DeleteDevice", error, NULL, "o", path);
}

int cm_find_device_by_id(CmClient *c, const char *id, char **ret_path, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(c->bus, CM_NAME, CM_PATH, CM_IFACE, "FindDeviceById", error, &reply, "s", id);
        if (r < 0)
                return r;
        return read_path(reply, ret_path);
}

int cm_device_state(CmClient *c, const char *device, char **ret_profile, bool *ret_inhibited) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *profile = NULL;
        const char *path;
        int r;

        r = sd_bus_get_property(c->bus, CM_NAME, device, CM_DEVICE_IFACE, "Profiles", &e, &reply, "ao");
        if (r < 0)
                return log_debug_errno(r, "Cannot read the profiles of %s: %s", device, e.message ? e.message : "");
        r = sd_bus_message_enter_container(reply, 'a', "o");
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        if (r > 0 && !(profile = strdup(path)))
                return -ENOMEM;
        reply = sd_bus_message_unref(reply);

        char **inhibitors = NULL;
        r = sd_bus_get_property_strv(c->bus, CM_NAME, device, CM_DEVICE_IFACE, "ProfilingInhibitors", &e,
                                     &inhibitors);
        if (r < 0)
                return log_debug_errno(r, "Cannot read the inhibitors of %s: %s", device, e.message ? e.message : "");
        *ret_inhibited = !strv_isempty(inhibitors);
        strv_free(inhibitors);
        *ret_profile = TAKE_PTR(profile);
        return 0;
}

int cm_profile_filename(CmClient *c, const char *profile, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        char *filename = NULL;
        int r = sd_bus_get_property_string(c->bus, CM_NAME, profile, CM_PROFILE_IFACE, "Filename", &e, &filename);
        if (r < 0)
                return log_debug_errno(r, "Cannot read the file name of %s: %s", profile, e.message ? e.message : "");
        if (isempty(filename))
                filename = mfree(filename);
        *ret = filename;
        return 0;
}
