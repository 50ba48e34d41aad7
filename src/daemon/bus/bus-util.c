/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-util.h"

#include <string.h>

#include "manager.h"

int bus_append_strmap(sd_bus_message *m, const StrMap *map) {
        int r = sd_bus_message_open_container(m, 'a', "{ss}");
        if (r < 0)
                return r;
        for (size_t i = 0; i < map->n; i++) {
                r = sd_bus_message_open_container(m, 'e', "ss");
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', map->entries[i].key);
                if (r >= 0)
                        r = sd_bus_message_append_basic(m, 's', map->entries[i].value);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

int bus_read_string_array(sd_bus_message *m, const char **ret, size_t max, size_t *ret_n) {
        size_t n = 0;
        int r = sd_bus_message_enter_container(m, 'a', "s");
        if (r < 0)
                return r;
        for (;;) {
                const char *s;
                r = sd_bus_message_read_basic(m, 's', &s);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                if (n == max)
                        return -E2BIG;
                ret[n++] = s;
        }
        ret[n] = NULL;
        *ret_n = n;
        return sd_bus_message_exit_container(m);
}

int bus_check_property(const char *key, const char *value, BusDomain domain, sd_bus_error *error) {
        if (strlen(key) > LIMIT_KEY_LEN || strlen(value) > LIMIT_VALUE_LEN)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID, "metadata key/value length invalid");
        (void) domain;
        return 0;
}

int bus_read_strmap(sd_bus_message *m, StrMap *ret, BusDomain domain, sd_bus_error *error) {
        const char *k, *v;
        int r = sd_bus_message_enter_container(m, 'a', "{ss}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "{ss}", &k, &v)) > 0) {
                r = bus_check_property(k, v, domain, error);
                if (r < 0)
                        return r;
                if (!strmap_get(ret, k) && ret->n >= LIMIT_METADATA_ENTRIES)
                        return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INPUT_INVALID,
                                             "too many properties (at most %d)", LIMIT_METADATA_ENTRIES);
                r = strmap_set(ret, k, v);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

int bus_error_object_gone(sd_bus_message *m, const char *what, sd_bus_error *error) {
        return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_OBJECT, "%s %s no longer exists", what,
                                 sd_bus_message_get_path(m));
}
