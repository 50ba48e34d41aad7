/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test of the a{sv} walk on real sealed sd-bus messages, built on a connection over a
 * socketpair that is started but never used (libsystemd makes messages only on a started
 * one; nothing is sent and no bus daemon runs): every key in order with its value left to the caller, a caller's error ending the
 * walk, a dictionary of the wrong shape refused, and the read position after the dictionary. */
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bus-dict.h"
#include "tests.h"

typedef struct Seen {
        char log[256];
        const char *stop_at;
} Seen;

static int on_entry(sd_bus_message *m, const char *key, void *userdata, sd_bus_error *error) {
        Seen *s = userdata;
        if (s->stop_at && strcmp(key, s->stop_at) == 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, "refused");
        const char *contents;
        int r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r < 0)
                return r;
        size_t at = strlen(s->log);
        if (strcmp(contents, "u") == 0) {
                uint32_t u;
                r = sd_bus_message_read(m, "v", "u", &u);
                snprintf(s->log + at, sizeof s->log - at, "%s=%u;", key, u);
        } else if (strcmp(contents, "s") == 0) {
                const char *v;
                r = sd_bus_message_read(m, "v", "s", &v);
                snprintf(s->log + at, sizeof s->log - at, "%s=%s;", key, v);
        } else {
                r = sd_bus_message_skip(m, "v");
                snprintf(s->log + at, sizeof s->log - at, "%s:%s;", key, contents);
        }
        return r;
}

static sd_bus_message *sealed(sd_bus *bus) {
        sd_bus_message *m = NULL;
        assert_se(sd_bus_message_new_method_call(bus, &m, "org.example", "/", "org.example", "M") >= 0);
        return m;
}

static void finish(sd_bus_message *m) {
        assert_se(sd_bus_message_seal(m, 1, 0) >= 0);
        assert_se(sd_bus_message_rewind(m, true) >= 0);
}

int main(void) {
        sd_bus *bus = NULL;
        int fds[2];
        assert_se(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) >= 0);
        assert_se(sd_bus_new(&bus) >= 0);
        assert_se(sd_bus_set_fd(bus, fds[0], fds[0]) >= 0);
        assert_se(sd_bus_start(bus) >= 0);

        sd_bus_message *m = sealed(bus);
        assert_se(sd_bus_message_append(m, "a{sv}s", 3, "Quality", "u", 2, "Title", "s", "Lab", "Gamma", "d", 2.2,
                                        "after") >= 0);
        finish(m);
        Seen s = {};
        assert_se(bus_message_read_dict(m, on_entry, &s, NULL) >= 0);
        assert_streq(s.log, "Quality=2;Title=Lab;Gamma:d;");
        const char *after;
        assert_se(sd_bus_message_read(m, "s", &after) > 0);
        assert_streq(after, "after");
        sd_bus_message_unref(m);

        /* The caller's error ends the walk: the later keys are not seen. */
        m = sealed(bus);
        assert_se(sd_bus_message_append(m, "a{sv}", 3, "a", "u", 1, "b", "u", 2, "c", "u", 3) >= 0);
        finish(m);
        Seen stop = { .stop_at = "b" };
        sd_bus_error error = SD_BUS_ERROR_NULL;
        assert_se(bus_message_read_dict(m, on_entry, &stop, &error) == -EINVAL);
        assert_streq(error.name, SD_BUS_ERROR_INVALID_ARGS);
        assert_streq(stop.log, "a=1;");
        sd_bus_error_free(&error);
        sd_bus_message_unref(m);

        /* An empty dictionary calls nothing. */
        m = sealed(bus);
        assert_se(sd_bus_message_append(m, "a{sv}", 0) >= 0);
        finish(m);
        Seen none = {};
        assert_se(bus_message_read_dict(m, on_entry, &none, NULL) >= 0);
        assert_streq(none.log, "");
        sd_bus_message_unref(m);

        /* a{ss} is not a dictionary of variants. */
        m = sealed(bus);
        assert_se(sd_bus_message_append(m, "a{ss}", 1, "k", "v") >= 0);
        finish(m);
        Seen wrong = {};
        assert_se(bus_message_read_dict(m, on_entry, &wrong, NULL) < 0);
        assert_streq(wrong.log, "");
        sd_bus_message_unref(m);

        sd_bus_close_unref(bus);
        close(fds[1]);
        return 0;
}
