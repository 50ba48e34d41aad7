/* SPDX-License-Identifier: GPL-2.0-or-later */
/* org.tinct.Scanners1 on /org/tinct/Scanners (docs/scanners.md): Rescan, answered with the
 * result of the listing running at the call, else of a new one, else (the minute's runs
 * spent) of the last one. Not on colord's interfaces, whose introspection clients compare.
 * Anyone may call it: it changes nobody's choices, and the helper runs it can cause are
 * bounded per minute whoever asks (scanner-source.c). */
#include <errno.h>

#include "bus-errors.h"
#include "bus-order.h"
#include "log.h"
#include "scanner-source.h"

static void rescan_done(const ScanResult *result, void *userdata) {
        _cleanup_(bus_call_freep) BusCall *kept = userdata;
        sd_bus_message *call = kept->msg;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;
        if (!result)
                return; /* the daemon is exiting */
        if (result->error < 0) {
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                bus_error_set(&error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "%s", result->message);
                r = sd_bus_reply_method_error(call, &error);
        } else {
                r = sd_bus_message_new_method_return(call, &reply);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "u", result->n_scanners);
                if (r >= 0)
                        r = sd_bus_message_open_container(reply, 'a', "(ss)");
                for (char **p = result->unanswered; r >= 0 && p && p[0] && p[1]; p += 2)
                        r = sd_bus_message_append(reply, "(ss)", p[0], p[1]);
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
                if (r >= 0)
                        r = sd_bus_send(NULL, reply, NULL);
        }
        if (r < 0)
                log_debug_errno(r, "Scanners: cannot answer Rescan: %m");
}

static int method_rescan(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        ScannerSource *s = userdata;
        /* rescan_done() frees it, perhaps before the call returns (the last listing's result
         * answers at once). */
        BusCall *kept = bus_call_keep(scanner_source_manager(s)->bus_order, msg);
        if (!kept)
                return -ENOMEM;
        int r = scanner_source_rescan(s, rescan_done, kept);
        if (r < 0)
                bus_call_free(kept);
        if (r == -EBUSY)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "too many rescans waiting");
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "cannot rescan: %s", strerror(-r));
        return 1;
}

static const sd_bus_vtable scanners_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Rescan", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("u", scanners, "a(ss)", unanswered),
                                method_rescan, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int scanner_dbus_register(ScannerSource *s, sd_bus *bus, sd_bus_slot **ret_slot) {
        return sd_bus_add_object_vtable(bus, ret_slot, TINCT_SCANNERS_PATH, TINCT_SCANNERS_IFACE, scanners_vtable, s);
}
