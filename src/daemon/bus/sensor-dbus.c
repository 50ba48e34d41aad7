/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sensor objects on the bus (docs/colord-behaviour.md, "Sensors"). A reading, the options
 * and the Options property are the sensor's driver's (SensorDriver, sensor.h: the dummy
 * answers from a timer, a udev sensor when spotread has read the instrument); neither
 * blocks other clients. Unlike colord (docs/compatibility.md), only
 * the client holding the lock may take readings or set options. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "bus-order.h"
#include "daemon-dbus.h"
#include "log.h"
#include "polkit.h"
#include "sensor.h"

#define ACTION_LOCK "org.freedesktop.color-manager.sensor-lock"

static Sensor *sensor_of(Manager *m, sd_bus_message *msg) {
        return hashmap_get(m->sensors_by_path, sd_bus_message_get_path(msg));
}

static int lock_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Sensor *s = sensor_of(m, msg);
        if (!s)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "sensor no longer exists");
        if (s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_ALREADY_LOCKED, "sensor is already locked");
        int r = free_and_strdup(&s->lock_holder, sd_bus_message_get_sender(msg));
        if (r < 0)
                return r;
        s->locked = true;
        c->watched = true;
        sensor_emit_properties(s, "Locked", NULL);
        return sd_bus_reply_method_return(msg, "");
}

static int method_lock(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        /* colord answers AlreadyLocked before it asks polkit; so do we. */
        if (s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_ALREADY_LOCKED, "sensor is already locked");
        return polkit_authorize(s->manager, msg, ACTION_LOCK, DOMAIN_SENSOR, lock_authorized, error);
}

static int check_holder(Sensor *s, sd_bus_message *msg, sd_bus_error *error) {
        if (!s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NOT_LOCKED, "sensor is not yet locked");
        if (!streq_ptr(s->lock_holder, sd_bus_message_get_sender(msg)))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NOT_LOCKED, "sensor is locked by another client");
        return 0;
}

static int unlock_authorized(sd_bus_message *msg, Manager *m, Client *c, sd_bus_error *error) {
        Sensor *s = sensor_of(m, msg);
        if (!s)
                return sd_bus_error_set(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "sensor no longer exists");
        int r = check_holder(s, msg, error);
        if (r < 0)
                return r;
        /* A reading still in progress ends with the lock; spotread goes too. */
        sensor_abort(s, bus_error_name(DOMAIN_SENSOR, BUS_ERR_INTERNAL), "the sensor was unlocked");
        s->locked = false;
        s->lock_holder = mfree(s->lock_holder);
        sensor_emit_properties(s, "Locked", NULL);
        return sd_bus_reply_method_return(msg, "");
}

static int method_unlock(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        if (!s->locked)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NOT_LOCKED, "sensor is not yet locked");
        return polkit_authorize(s->manager, msg, ACTION_LOCK, DOMAIN_SENSOR, unlock_authorized, error);
}

static const char *const all_caps[] = {
        "unknown", "lcd", "crt", "printer", "spot", "projector", "ambient", "calibration", "led", "plasma",
        "lcd-ccfl", "lcd-rgb-led", "lcd-white-led", "wide-gamut-lcd-ccfl", "wide-gamut-lcd-rgb-led",
        "spectral", "calibration-dark", "calibration-irradiance", NULL,
};

static bool is_known_cap(const char *cap) {
        return strv_contains((char **) all_caps, cap) && !streq(cap, "unknown");
}

/* What a reading or SetOptions needs: the caller holds the lock and nothing else is running. */
static int check_idle_holder(Sensor *s, sd_bus_message *msg, sd_bus_error *error) {
        int r = check_holder(s, msg, error);
        if (r < 0)
                return r;
        if (!streq(s->state, "idle"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_IN_USE, "sensor not idle: %s", s->state);
        return 0;
}

/* GetSample's and GetSpectrum's argument, read only from the holder of an idle sensor. */
static int read_cap(Sensor *s, sd_bus_message *msg, const char **ret_cap, sd_bus_error *error) {
        int r = sd_bus_message_read(msg, "s", ret_cap);
        if (r < 0)
                return r;
        return check_idle_holder(s, msg, error);
}

static int no_driver(Sensor *s, sd_bus_error *error) {
        return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT,
                             "no driver for the %s sensor: install Debian's argyll package (ArgyllCMS spotread)", s->kind);
}

static int method_get_sample(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        const char *cap;
        int r = read_cap(s, msg, &cap, error);
        if (r < 0)
                return r;
        if (!is_known_cap(cap))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cap '%s' unknown", cap);
        if (streq(cap, "spectral"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cap 'spectral' needs GetSpectrum");

        if (s->driver->available && !s->driver->available())
                return no_driver(s, error);

        if (!(s->pending_cap = strdup(cap)))
                return -ENOMEM;
        s->pending = bus_call_keep(s->manager->bus_order, msg);
        if (!s->pending) {
                s->pending_cap = mfree(s->pending_cap);
                return -ENOMEM;
        }
        r = s->driver->sample(s);
        if (r < 0) {
                s->pending = bus_call_free(s->pending);
                s->pending_cap = mfree(s->pending_cap);
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cannot start the reading: %s", strerror(-r));
        }
        s->state = "measuring";
        sensor_emit_properties(s, "State", NULL);
        return 1;
}

static int method_get_spectrum(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        const char *cap;
        int r = read_cap(s, msg, &cap, error);
        if (r < 0)
                return r;
        if (!streq(cap, "spectral") && !streq(cap, "calibration-dark") && !streq(cap, "calibration-irradiance"))
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_INTERNAL, "cap '%s' is not a spectral capability", cap);
        return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "the %s driver has no spectral mode",
                             s->driver->name);
}

static int method_set_options(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        int r = check_idle_holder(s, msg, error);
        if (r < 0)
                return r;
        if (!s->driver->set_options)
                return bus_error_set(error, DOMAIN_SENSOR, BUS_ERR_NO_SUPPORT, "the %s driver takes no options",
                                     s->driver->name);
        r = s->driver->set_options(s, msg, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(msg, "");
}

static int prop_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        const char *v = streq(property, "SensorId") ? s->id :
                        streq(property, "Kind") ? s->kind :
                        streq(property, "State") ? s->state :
                        streq(property, "Mode") ? s->mode :
                        streq(property, "Serial") ? s->serial :
                        streq(property, "Model") ? s->model : s->vendor;
        return sd_bus_message_append(reply, "s", strempty(v));
}

static int prop_bool(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        bool v = streq(property, "Native") ? s->native : streq(property, "Embedded") ? s->embedded : s->locked;
        return sd_bus_message_append(reply, "b", (int) v);
}

static int prop_caps(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append_strv(reply, ((Sensor *) userdata)->caps);
}

/* colord's dummy sets no Options; a driver may show its settings there. */
static int prop_options(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Sensor *s = userdata;
        if (!s->driver->append_options)
                return sd_bus_message_append(reply, "a{sv}", 0);
        return s->driver->append_options(s, reply);
}

static int prop_metadata(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        /* a{ss}, as introspected; colord sends an empty a{sv} here (docs/compatibility.md). */
        Sensor *s = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "{ss}");
        for (size_t i = 0; r >= 0 && s->metadata && s->metadata[i] && s->metadata[i + 1]; i += 2)
                r = sd_bus_message_append(reply, "{ss}", s->metadata[i], s->metadata[i + 1]);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

#define EMITS SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
const sd_bus_vtable sensor_vtable[] = {
        SD_BUS_VTABLE_START(SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("SensorId", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Kind", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("State", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Mode", "s", prop_string, 0, EMITS),
        SD_BUS_PROPERTY("Serial", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Model", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Vendor", "s", prop_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Native", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Embedded", "b", prop_bool, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Locked", "b", prop_bool, 0, EMITS),
        SD_BUS_PROPERTY("Capabilities", "as", prop_caps, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Options", "a{sv}", prop_options, 0, EMITS),
        SD_BUS_PROPERTY("Metadata", "a{ss}", prop_metadata, 0, EMITS),
        SD_BUS_METHOD("Lock", "", "", method_lock, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Unlock", "", "", method_unlock, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSample", SD_BUS_ARGS("s", capability),
                                SD_BUS_RESULT("d", sample_x, "d", sample_y, "d", sample_z), method_get_sample, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSpectrum", SD_BUS_ARGS("s", capability),
                                SD_BUS_RESULT("d", start_nm, "d", end_nm, "ad", data), method_get_spectrum, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetOptions", SD_BUS_ARGS("a{sv}", values), SD_BUS_NO_RESULT, method_set_options, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("ButtonPressed", NULL, 0),
        SD_BUS_VTABLE_END,
};
