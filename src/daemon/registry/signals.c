/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The signals the registry emits after it changed state (signals.h). They need only the
 * object's path and interface: sd-bus finds the vtable (bus/) registered for it. */
#include "signals.h"

#include <stdarg.h>

#include "device.h"
#include "profile.h"
#include "sensor.h"

void manager_emit_path_signal(Manager *m, const char *member, const char *path) {
        sd_bus *bus = manager_signal_bus(m);
        if (bus)
                (void) sd_bus_emit_signal(bus, CM_PATH, CM_IFACE, member, "o", path);
}

void device_emit_properties(Device *d, const char *first, ...) {
        const char *names[24];
        size_t n = 0;
        va_list ap;
        va_start(ap, first);
        for (const char *s = first; s && n < ELEMENTSOF(names) - 1; s = va_arg(ap, const char *))
                names[n++] = s;
        va_end(ap);
        names[n] = NULL;
        sd_bus *bus = manager_signal_bus(d->manager);
        if (bus)
                (void) sd_bus_emit_properties_changed_strv(bus, d->path, CM_DEVICE_IFACE, (char **) names);
}

void device_emit_relations_changed(Device *d, bool modified, const char *extra_property) {
        Manager *m = d->manager;
        sd_bus *bus = manager_signal_bus(m);
        if (!bus)
                return;
        device_emit_properties(d, "Profiles", modified ? "Modified" : extra_property,
                               modified ? extra_property : NULL, NULL);
        (void) sd_bus_emit_signal(bus, d->path, CM_DEVICE_IFACE, "Changed", "");
        manager_emit_path_signal(m, "DeviceChanged", d->path);
}

void profile_emit_property_changed(Profile *p, const char *property) {
        Manager *m = p->manager;
        sd_bus *bus = manager_signal_bus(m);
        if (!bus)
                return;
        (void) sd_bus_emit_properties_changed(bus, p->path, CM_PROFILE_IFACE, property, NULL);
        if (streq(property, "Metadata"))
                return;
        (void) sd_bus_emit_signal(bus, p->path, CM_PROFILE_IFACE, "Changed", "");
        manager_emit_path_signal(m, "ProfileChanged", p->path);
}

void sensor_emit_properties(Sensor *s, const char *first, ...) {
        const char *names[8];
        size_t n = 0;
        va_list ap;
        va_start(ap, first);
        for (const char *p = first; p && n < ELEMENTSOF(names) - 1; p = va_arg(ap, const char *))
                names[n++] = p;
        va_end(ap);
        names[n] = NULL;
        sd_bus *bus = manager_signal_bus(s->manager);
        if (bus)
                (void) sd_bus_emit_properties_changed_strv(bus, s->path, CM_SENSOR_IFACE, (char **) names);
}
