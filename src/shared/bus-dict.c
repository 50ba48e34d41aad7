/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The a{sv} walk (bus-dict.h). It checks the message's shape only: what a value may be is
 * the caller's to check. */
#include "bus-dict.h"

int bus_message_read_dict(sd_bus_message *m, BusDictEntry entry, void *userdata, sd_bus_error *error) {
        int r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        for (;;) {
                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                const char *key;
                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = entry(m, key, userdata, error);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_exit_container(m);
}
