/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device objects on the bus: one fallback vtable under /org/freedesktop/ColorManager/devices
 * whose find callback maps a path to its Device. Every change emits PropertiesChanged
 * (with the normalised, correctly typed value) before the method's reply (colord §1.2). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bus-util.h"
#include "device-source.h"
#include "daemon-dbus.h"
#include "device.h"
#include "device-verify.h"
#include "log.h"
#include "names.h"
#include "polkit.h"
#include "profile.h"

#define ACTION_MODIFY "org.freedesktop.color-manager.modify-device"
#define ACTION_INHIBIT "org.freedesktop.color-manager.device-inhibit"

/* The continuations look the device up again with this: it may have gone while polkit answered. */
static Device *device_of(Manager *m, sd_bus_message *msg) {
        return manager_find_device_by_path(m, sd_bus_message_get_path(msg));
}

static int check_may_modify(Manager *m, Client *c, Device *d, sd_bus_error *error) {
        if (device_may_be_modified_by(d, c->uid))
                return 0;
        return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_FAILED_TO_AUTHENTICATE,
                             "device '%s' belongs to another user", d->id);
}

/* ---- hard choices on devices that share an id ----------------------------------------
 * A user's hard choice is a mapping by device id (docs/compatibility.md row 39), and several
 * live devices may carry one id: the session's temp display device and the daemon's own, a
 * root client's and a user's. The choice made on one is applied at once to every other live
 * device of that id the caller may change (row 18: not another user's session devices, which
 * pick the mapping up from the store when they are next created), so each shows what the
 * store now says; each changed device emits its own signals. Soft relations are not choices
 * and stay where they are. See docs/compatibility.md, "Hard choices on devices that share an
 * id". */
typedef enum HardChoice {
        CHOICE_ADD,     /* AddProfile hard */
        CHOICE_DEFAULT, /* MakeProfileDefault: the profile first, hard, on each */
        CHOICE_REMOVE,  /* RemoveProfile: the stored mapping is gone, so is every hard relation */
} HardChoice;

static bool choice_changes(const Device *e, Profile *p, HardChoice what) {
        DeviceProfile *dp = device_find_profile((Device *) e, p);
        switch (what) {
        case CHOICE_ADD:
                return !dp || !dp->hard;
        case CHOICE_DEFAULT:
                return true;
        case CHOICE_REMOVE:
                return dp && dp->hard;
        }
        return false;
}

/* The other devices the choice reaches, for `uid`: same id, may be changed by uid. */
#define FOREACH_CHOICE_PEER(m, d, uid, e)                                                \
        for (Device *e = chain_index_first(&(m)->devices_by_id, (d)->id); e;              \
             e = chain_index_next(&(m)->devices_by_id, e))                                \
                if (e != (d) && device_may_be_modified_by(e, (uid)))

/* Whether the choice would change a device other than the caller's own temp ones, which
 * polkit never covers (row 50): then it is asked, as for changing that device directly. */
static bool choice_reaches_others(Manager *m, uid_t uid, const Device *d, Profile *p, HardChoice what) {
        FOREACH_CHOICE_PEER(m, d, uid, e)
                if (!(e->scope == SCOPE_TEMP && e->owner == uid) && choice_changes(e, p, what))
                        return true;
        return false;
}

static void propagate_choice(Manager *m, Client *c, Device *d, Profile *p, HardChoice what, uint64_t now) {
        FOREACH_CHOICE_PEER(m, d, c->uid, e) {
                if (!choice_changes(e, p, what))
                        continue;
                int r = what == CHOICE_REMOVE ? device_remove_profile(e, p) :
                        what == CHOICE_DEFAULT && device_find_profile(e, p) ? device_make_profile_default(e, p, now) :
                        device_add_profile(e, p, true, now);
                if (r < 0) {
                        log_warning_errno(r, "Failed to apply the choice of %s to %s: %m", p->id, e->path);
                        continue;
                }
                device_touch(e);
                device_emit_relations_changed(e, true, NULL);
        }
}

/* Where a hard choice is stored (docs/compatibility.md row 64). An authorized one (root, the
 * daemon, polkit's yes) is the system's; it also drops the caller's own row for the pair,
 * which would otherwise hide it on the caller's own devices. One let through without a check,
 * on the caller's own temp device (row 50), is the caller's alone: it goes to the caller's
 * layer and never replaces or hides what the system or another user stored. Two writes, not
 * one transaction: if the second fails, the caller's older row stays in their own layer only. */
static int choice_store(Manager *m, const Client *c, const Device *d, const Profile *p, uint64_t timestamp) {
        if (!c->authorized)
                return store_mapping_set(m->store, c->uid, d->id, p->id, timestamp);
        int r = store_mapping_set(m->store, STORE_LAYER_SYSTEM, d->id, p->id, timestamp);
        if (r >= 0) /* a printer's choice follows it to its next queue (docs/printers.md) */
                manager_sources_choice_stored(m, d, p->id, timestamp);
        if (r < 0 || c->uid == STORE_LAYER_SYSTEM)
                return r;
        return store_mapping_unset(m->store, c->uid, d->id, p->id);
}

/* Polkit for a hard choice: a caller's own temp device is not checked (row 50) unless the
 * choice would also change a device that is not the caller's own temp object. Decided here,
 * before polkit, from the arguments; when nobody is asked the continuation runs at once, on
 * the same registry. */
static int authorize_choice(sd_bus_message *msg, Device *d, HardChoice what, AuthContinuation cont,
                            sd_bus_error *error) {
        Manager *m = d->manager;
        bool skip = d->scope == SCOPE_TEMP;
        Client *c;
        if (skip && manager_get_client(m, msg, &c) >= 0) {
                const char *relation = "hard", *path = NULL;
                int r = what == CHOICE_ADD ? sd_bus_message_read(msg, "so", &relation, &path)
                                           : sd_bus_message_read(msg, "o", &path);
                Profile *p = r >= 0 ? manager_find_profile_by_path(m, path) : NULL;
                if (p && streq(relation, "hard") && choice_reaches_others(m, c->uid, d, p, what))
                        skip = false;
        }
        return polkit_authorize_object(m, msg, ACTION_MODIFY, DOMAIN_DEVICE, skip, d->owner, cont, error);
}

/* Methods that need polkit (not for the caller's own temp device): the handler only asks;
 * the continuation does the work. */
#define DEVICE_AUTH_METHOD(name, cont, action)                                                      \
        static int name(sd_bus_message *msg, void *userdata, sd_bus_error *error) {                 \
                Device *d = userdata;                                                               \
                return polkit_authorize_object(d->manager, msg, action, DOMAIN_DEVICE,              \
                                               d->scope == SCOPE_TEMP, d->owner, cont, error);      \
        }

static int set_property_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Device *d = device_of(m, msg);
        if (!d)
                return bus_error_object_gone(msg, "device", error);
        const char *key, *value, *prop;
        int r = sd_bus_message_read(msg, "ss", &key, &value);
        if (r < 0)
                return r;
        r = bus_check_property(key, value, DOMAIN_DEVICE, error);
        if (r < 0)
                return r;
        r = check_may_modify(m, c, d, error);
        if (r < 0)
                return r;
        if (streq(key, "Kind") && !names_device_kind_is_valid(value))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "device type %s not recognised", value);
        if (device_check_property(d, key) == -E2BIG)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many metadata entries");
        r = device_verify_record(d, key, value, error);
        if (r < 0)
                return r;
        /* Stored first: a change the disk refuses is answered as an error and not made, so
         * nothing acknowledged is lost at the next start. */
        if (d->scope == SCOPE_DISK && !streq(key, "Enabled")) {
                r = store_device_set_property(m->store, d->id, key, value);
                if (r < 0)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save property %s: %s",
                                             key, strerror(-r));
        }
        r = device_set_property(d, key, value, &prop);
        if (r < 0)
                return r; /* only -ENOMEM is left; the stored value then shows at the next start */
        device_emit_properties(d, prop, NULL);
        return sd_bus_reply_method_return(msg, "");
}

DEVICE_AUTH_METHOD(method_set_property, set_property_authorized, ACTION_MODIFY)

static int add_profile_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Device *d = device_of(m, msg);
        if (!d)
                return bus_error_object_gone(msg, "device", error);
        const char *relation, *path;
        int r = sd_bus_message_read(msg, "so", &relation, &path);
        if (r < 0)
                return r;
        r = check_may_modify(m, c, d, error);
        if (r < 0)
                return r;
        bool hard = streq(relation, "hard");
        if (!hard && !streq(relation, "soft"))
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_INTERNAL,
                                     "relation '%s' unknown, expected 'hard' or 'soft'", relation);
        Profile *p = manager_find_profile_by_path(m, path);
        if (!p)
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_PROFILE_DOES_NOT_EXIST,
                                     "profile object path '%s' does not exist", path);
        uint64_t when = now(CLOCK_REALTIME);
        bool was_soft = device_find_profile(d, p) != NULL;
        r = device_add_profile(d, p, hard, when);
        if (r == -EEXIST)
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_PROFILE_ALREADY_ADDED,
                                     "profile object path '%s' has already been added", path);
        if (r < 0)
                return r;
        /* A hard relation is a stored choice: when the disk refuses it, the relation is taken
         * back (nothing was signalled yet) and the caller told, rather than acknowledged and
         * lost at the next start. */
        if (hard) {
                r = choice_store(m, c, d, p, when);
                if (r < 0) {
                        if (was_soft)
                                device_find_profile(d, p)->hard = false;
                        else
                                (void) device_remove_profile(d, p);
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save the profile choice: %s",
                                             strerror(-r));
                }
        }
        device_touch(d);
        device_emit_relations_changed(d, true, NULL);
        if (hard)
                propagate_choice(m, c, d, p, CHOICE_ADD, when);
        return sd_bus_reply_method_return(msg, "");
}

static int method_add_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return authorize_choice(msg, userdata, CHOICE_ADD, add_profile_authorized, error);
}

/* The common start of RemoveProfile and MakeProfileDefault: the device (it may have gone
 * while polkit answered), the caller's right to change it, and the profile argument, which
 * must be one of the device's (each method words that error as it always has). */
static int read_profile_arg(sd_bus_message *msg, Manager *m, Client *c, HardChoice what, Device **ret_device,
                            Profile **ret_profile, sd_bus_error *error) {
        Device *d = device_of(m, msg);
        const char *path;
        if (!d)
                return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "device %s no longer exists",
                                         sd_bus_message_get_path(msg));
        int r = sd_bus_message_read(msg, "o", &path);
        if (r < 0)
                return r;
        r = check_may_modify(m, c, d, error);
        if (r < 0)
                return r;
        Profile *p = manager_find_profile_by_path(m, path);
        if (!p || !device_find_profile(d, p)) {
                if (what == CHOICE_REMOVE)
                        return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_PROFILE_DOES_NOT_EXIST,
                                             "profile object path '%s' does not exist on '%s'", path, d->path);
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_PROFILE_DOES_NOT_EXIST,
                                     "profile object path '%s' does not exist for this device", path);
        }
        *ret_device = d;
        *ret_profile = p;
        return 0;
}

static int remove_profile_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Device *d;
        Profile *p;
        int r = read_profile_arg(msg, m, c, CHOICE_REMOVE, &d, &p, error);
        if (r < 0)
                return r;
        /* Timestamp 0 remembers that the user removed it: no automatic re-adding (colord §5.5).
         * Stored first: if the disk refuses, the relation stays and the caller is told. */
        r = choice_store(m, c, d, p, 0);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save the removal: %s", strerror(-r));
        (void) device_remove_profile(d, p);
        device_touch(d);
        device_emit_relations_changed(d, true, NULL);
        propagate_choice(m, c, d, p, CHOICE_REMOVE, 0);
        return sd_bus_reply_method_return(msg, "");
}

static int method_remove_profile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return authorize_choice(msg, userdata, CHOICE_REMOVE, remove_profile_authorized, error);
}

static int make_default_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Device *d;
        Profile *p;
        int r = read_profile_arg(msg, m, c, CHOICE_DEFAULT, &d, &p, error);
        if (r < 0)
                return r;
        /* Stored first: if the disk refuses, nothing changes (the choice would not survive). */
        uint64_t when = now(CLOCK_REALTIME);
        r = choice_store(m, c, d, p, when);
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save the default: %s", strerror(-r));
        (void) device_make_profile_default(d, p, when);
        device_touch(d);
        device_emit_relations_changed(d, true, NULL);
        propagate_choice(m, c, d, p, CHOICE_DEFAULT, when);
        return sd_bus_reply_method_return(msg, "");
}

static int method_make_profile_default(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return authorize_choice(msg, userdata, CHOICE_DEFAULT, make_default_authorized, error);
}

static int method_get_profile_for_qualifiers(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        /* Read in place, no copies: this is CUPS's call for every job. */
        const char *qualifiers[LIMIT_QUALIFIERS + 1];
        size_t n;
        int r = bus_read_string_array(msg, qualifiers, LIMIT_QUALIFIERS, &n);
        if (r == -E2BIG)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "too many qualifiers (at most %d)", LIMIT_QUALIFIERS);
        if (r < 0)
                return r;
        if (!strv_isempty(d->inhibitors))
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_PROFILING, "profiling, so ignoring '%s'",
                                     strempty(qualifiers[0]));
        Profile *p = device_profile_for_qualifiers(d, qualifiers);
        if (!p) {
                size_t len = 1;
                for (size_t i = 0; i < n; i++)
                        len += strlen(qualifiers[i]) + 1;
                _cleanup_free_ char *joined = calloc(1, len);
                if (!joined)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        if (i > 0)
                                strcat(joined, ",");
                        strcat(joined, qualifiers[i]);
                }
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_NOTHING_MATCHED, "nothing matched expression '%s'", joined);
        }
        return sd_bus_reply_method_return(msg, "o", p->path);
}

static int method_get_profile_relation(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        const char *path;
        int r = sd_bus_message_read(msg, "o", &path);
        if (r < 0)
                return r;
        Profile *p = manager_find_profile_by_path(d->manager, path);
        DeviceProfile *e = p ? device_find_profile(d, p) : NULL;
        if (!e)
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_PROFILE_DOES_NOT_EXIST, "no profile '%s' found", path);
        return sd_bus_reply_method_return(msg, "s", e->hard ? "hard" : "soft");
}

static int inhibit_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Device *d = device_of(m, msg);
        if (!d)
                return bus_error_object_gone(msg, "device", error);
        int r;
        const char *sender = sd_bus_message_get_sender(msg);
        r = check_may_modify(m, c, d, error);
        if (r < 0)
                return r;
        if (strv_contains(d->inhibitors, sender))
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_FAILED_TO_INHIBIT, "already inhibited by %s", sender);
        if (strv_length(d->inhibitors) >= LIMIT_METADATA_ENTRIES)
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_FAILED_TO_INHIBIT, "too many inhibitors");
        r = strv_extend(&d->inhibitors, sender);
        if (r < 0)
                return r;
        c->watched = true;
        device_emit_relations_changed(d, false, "ProfilingInhibitors");
        return sd_bus_reply_method_return(msg, "");
}

DEVICE_AUTH_METHOD(method_profiling_inhibit, inhibit_authorized, ACTION_INHIBIT)

static int method_profiling_uninhibit(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        const char *sender = sd_bus_message_get_sender(msg);
        if (!strv_remove(d->inhibitors, sender))
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_FAILED_TO_UNINHIBIT, "not set inhibitor for %s", sender);
        device_emit_relations_changed(d, false, "ProfilingInhibitors");
        return sd_bus_reply_method_return(msg, "");
}

static int set_enabled_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Device *d = device_of(m, msg);
        if (!d)
                return bus_error_object_gone(msg, "device", error);
        int enabled;
        int r = sd_bus_message_read(msg, "b", &enabled);
        if (r < 0)
                return r;
        r = check_may_modify(m, c, d, error);
        if (r < 0)
                return r;
        if (d->enabled == !!enabled)
                return sd_bus_reply_method_return(msg, "");
        r = store_device_set_enabled(m->store, d->id, c->authorized ? STORE_LAYER_SYSTEM : c->uid, enabled);
        if (r < 0)
                return bus_error_set(error, DOMAIN_DEVICE, BUS_ERR_INTERNAL, "failed to save Enabled: %s", strerror(-r));
        d->enabled = enabled;
        device_touch(d);
        device_emit_properties(d, "Enabled", "Modified", NULL);
        (void) sd_bus_emit_signal(m->bus, d->path, CM_DEVICE_IFACE, "Changed", "");
        manager_emit_path_signal(m, "DeviceChanged", d->path);
        return sd_bus_reply_method_return(msg, "");
}

DEVICE_AUTH_METHOD(method_set_enabled, set_enabled_authorized, ACTION_MODIFY)


/* Strings are read by sd-bus itself from the field (NULL reads as ""), without a getter
 * call and a format string per property: GetAll marshals twenty of them. */
static int prop_scope(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return sd_bus_message_append_basic(reply, 's', scope_to_string(d->scope));
}

static int prop_profiles(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        size_t n;
        _cleanup_free_ Profile **ordered = device_ordered_profiles(d, &n);
        if (!ordered)
                return -ENOMEM;
        int r = sd_bus_message_open_container(reply, 'a', "o");
        for (size_t i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append_basic(reply, 'o', ordered[i]->path);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int prop_bool(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        int v = streq(property, "Enabled") ? d->enabled : d->embedded;
        return sd_bus_message_append_basic(reply, 'b', &v);
}

static int prop_metadata(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return bus_append_strmap(reply, &d->metadata);
}

static int prop_inhibitors(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Device *d = userdata;
        return sd_bus_message_append_strv(reply, d->inhibitors ? d->inhibitors : (char *[]) { NULL });
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
const sd_bus_vtable device_vtable[] = {
        SD_BUS_VTABLE_START(SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Created", "t", NULL, offsetof(Device, created), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Modified", "t", NULL, offsetof(Device, modified), EMITS),
        SD_BUS_PROPERTY("Model", "s", NULL, offsetof(Device, model), EMITS),
        SD_BUS_PROPERTY("Serial", "s", NULL, offsetof(Device, serial), EMITS),
        SD_BUS_PROPERTY("Vendor", "s", NULL, offsetof(Device, vendor), EMITS),
        SD_BUS_PROPERTY("Colorspace", "s", NULL, offsetof(Device, colorspace), EMITS),
        SD_BUS_PROPERTY("Kind", "s", NULL, offsetof(Device, kind), EMITS),
        SD_BUS_PROPERTY("DeviceId", "s", NULL, offsetof(Device, id), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Profiles", "ao", prop_profiles, 0, EMITS),
        SD_BUS_PROPERTY("Mode", "s", NULL, offsetof(Device, mode), EMITS),
        SD_BUS_PROPERTY("Format", "s", NULL, offsetof(Device, format), EMITS),
        SD_BUS_PROPERTY("Scope", "s", prop_scope, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Owner", "u", NULL, offsetof(Device, owner), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Enabled", "b", prop_bool, 0, EMITS),
        SD_BUS_PROPERTY("Seat", "s", NULL, offsetof(Device, seat), EMITS),
        SD_BUS_PROPERTY("Embedded", "b", prop_bool, 0, EMITS),
        SD_BUS_PROPERTY("Metadata", "a{ss}", prop_metadata, 0, EMITS),
        SD_BUS_PROPERTY("ProfilingInhibitors", "as", prop_inhibitors, 0, EMITS),
        SD_BUS_METHOD_WITH_ARGS("SetProperty", SD_BUS_ARGS("s", property_name, "s", property_value),
                                SD_BUS_NO_RESULT, method_set_property, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("AddProfile", SD_BUS_ARGS("s", relation, "o", object_path), SD_BUS_NO_RESULT,
                                method_add_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveProfile", SD_BUS_ARGS("o", object_path), SD_BUS_NO_RESULT,
                                method_remove_profile, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("MakeProfileDefault", SD_BUS_ARGS("o", profile_path), SD_BUS_NO_RESULT,
                                method_make_profile_default, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProfileForQualifiers", SD_BUS_ARGS("as", qualifiers),
                                SD_BUS_RESULT("o", object_path), method_get_profile_for_qualifiers, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetProfileRelation", SD_BUS_ARGS("o", object_path), SD_BUS_RESULT("s", relation),
                                method_get_profile_relation, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ProfilingInhibit", "", "", method_profiling_inhibit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("ProfilingUninhibit", "", "", method_profiling_uninhibit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetEnabled", SD_BUS_ARGS("b", enabled), SD_BUS_NO_RESULT, method_set_enabled, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("Changed", NULL, 0),
        SD_BUS_VTABLE_END,
};
