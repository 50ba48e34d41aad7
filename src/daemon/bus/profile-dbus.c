/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profile objects on the bus: one fallback vtable under .../profiles. Title is per user
 * (colord §4.3): its getter answers with the caller's own title when one is stored. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bus-util.h"
#include "daemon-dbus.h"
#include "fileio.h"
#include "log.h"
#include "polkit.h"
#include "profile-dirs.h"
#include "profile-warnings.h"
#include "profile.h"

#define ACTION_MODIFY "org.freedesktop.color-manager.modify-profile"
#define ACTION_INSTALL "org.freedesktop.color-manager.install-system-wide"

/* The continuations look the profile up again: it may have gone while polkit answered. */
static int set_property_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Profile *p = manager_find_profile_by_path(m, sd_bus_message_get_path(msg));
        if (!p)
                return bus_error_object_gone(msg, "profile", error);
        const char *key, *value, *prop = NULL;
        int r = sd_bus_message_read(msg, "ss", &key, &value);
        if (r < 0)
                return r;
        r = bus_check_property(key, value, DOMAIN_PROFILE, error);
        if (r < 0)
                return r;
        if (streq(key, "Filename"))
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_PROPERTY_INVALID,
                                     "Setting the Filename property after profile creation is no longer supported");
        if (streq(key, "Title")) {
                /* Titles are per user, so anyone may set their own, even on system profiles. */
                if (strlen(value) < 3)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "'Title' value input invalid");
                r = store_profile_title_set(m->store, p->id, c->uid, value);
                if (r < 0)
                        return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_INTERNAL, "failed to save title: %s", strerror(-r));
                prop = "Title";
        } else {
                if (c->uid != 0 && c->uid != m->daemon_uid && c->uid != p->owner)
                        return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_AUTHENTICATE,
                                             "profile '%s' belongs to another user", p->id);
                if (profile_check_property(p, key) == -E2BIG)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many metadata entries");
                /* A disk profile comes back from the store: the change is stored first, and
                 * one the disk refuses is answered as an error and not made. */
                if (p->scope == SCOPE_DISK) {
                        r = store_disk_profile_set_property(m->store, p->id, key, value);
                        if (r < 0)
                                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_INTERNAL, "failed to save property %s: %s",
                                                     key, strerror(-r));
                }
                r = manager_profile_set_property(m, p, key, value, &prop);
                if (r < 0)
                        return r; /* only -ENOMEM is left */
        }
        profile_emit_property_changed(p, prop);
        return sd_bus_reply_method_return(msg, "");
}

static int method_set_property(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        return polkit_authorize_object(p->manager, msg, ACTION_MODIFY, DOMAIN_PROFILE, p->scope == SCOPE_TEMP, p->owner,
                                       set_property_authorized, error);
}


static int install_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Profile *p = manager_find_profile_by_path(m, sd_bus_message_get_path(msg));
        if (!p)
                return bus_error_object_gone(msg, "profile", error);
        int r;
        if (!p->filename)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_INTERNAL, "icc filename not set");
        if (p->is_system_wide)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_ALREADY_INSTALLED, "profile is already system-wide");
        if (!p->data)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_WRITE, "no ICC data was read for this profile");

        _cleanup_free_ char *dir = NULL, *dest = NULL;
        const char *base = strrchr(p->filename, '/');
        base = base ? base + 1 : p->filename;
        if (isempty(base) || streq(base, ".") || streq(base, ".."))
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_WRITE, "invalid file name");
        if (asprintf(&dir, "%s/icc", m->config.state_dir) < 0 || asprintf(&dest, "%s/%s", dir, base) < 0)
                return -ENOMEM;
        (void) mkdir(dir, 0755);
        /* A hidden name while writing, so the directory watch ignores the partial file; link()
         * refuses to replace an existing file, unlike rename(): colord overwrites whatever
         * has the same name (colord §16.27). */
        r = write_file_atomic(dest, p->data, p->size, 0644, WRITE_NO_REPLACE);
        if (r == -EEXIST)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_WRITE, "%s already exists", dest);
        if (r < 0)
                return bus_error_set(error, DOMAIN_PROFILE, BUS_ERR_FAILED_TO_WRITE, "failed to write %s: %s", dest, strerror(-r));
        log_info("Installed %s system-wide as %s", p->id, dest);
        (void) profile_dirs_add_file(m, dest);
        return sd_bus_reply_method_return(msg, "");
}

static int method_install_system_wide(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        return polkit_authorize(p->manager, msg, ACTION_INSTALL, DOMAIN_PROFILE, install_authorized, error);
}

static int prop_title(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        sd_bus_message *call = sd_bus_get_current_message(bus);
        Client *c;
        if (call && manager_get_client(p->manager, call, &c) >= 0) {
                _cleanup_free_ char *t = NULL;
                if (store_profile_title_get(p->manager->store, p->id, c->uid, &t) >= 0)
                        return sd_bus_message_append(reply, "s", t);
        }
        return sd_bus_message_append(reply, "s", strempty(p->title));
}

static int prop_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        const char *v = streq(property, "ProfileId") ? p->id :
                        streq(property, "Qualifier") ? p->qualifier :
                        streq(property, "Format") ? p->format :
                        streq(property, "Kind") ? p->kind :
                        streq(property, "Colorspace") ? p->colorspace :
                        streq(property, "Filename") ? p->filename :
                        scope_to_string(p->scope);
        return sd_bus_message_append(reply, "s", strempty(v));
}

static int prop_bool(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        return sd_bus_message_append(reply, "b", (int) (streq(property, "HasVcgt") ? p->has_vcgt : p->is_system_wide));
}

static int prop_metadata(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        return bus_append_strmap(reply, &p->metadata);
}

static int prop_warnings(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Profile *p = userdata;
        char *const *w = profile_warnings(p);
        if (!w) /* a read the prepare hook did not see (bus-order.h): none yet, never waited for here */
                (void) profile_warnings_request(p, NULL);
        return sd_bus_message_append_strv(reply, w ? (char **) w : (char *[]) { NULL });
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
const sd_bus_vtable profile_vtable[] = {
        SD_BUS_VTABLE_START(SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("ProfileId", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Title", "s", prop_title, 0, EMITS),
        SD_BUS_PROPERTY("Metadata", "a{ss}", prop_metadata, 0, EMITS),
        SD_BUS_PROPERTY("Qualifier", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Format", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Kind", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Colorspace", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("HasVcgt", "b", prop_bool, 0, EMITS),
        SD_BUS_PROPERTY("IsSystemWide", "b", prop_bool, 0, EMITS),
        SD_BUS_PROPERTY("Filename", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Created", "x", NULL, offsetof(Profile, created), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Scope", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Owner", "u", NULL, offsetof(Profile, owner), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Warnings", "as", prop_warnings, 0, EMITS),
        SD_BUS_METHOD_WITH_ARGS("SetProperty", SD_BUS_ARGS("s", property_name, "s", property_value),
                                SD_BUS_NO_RESULT, method_set_property, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("InstallSystemWide", "", "", method_install_system_wide, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("Changed", NULL, 0),
        SD_BUS_VTABLE_END,
};
