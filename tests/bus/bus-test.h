/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared conveniences of the bus tests (tests/bus): a tiny runner, key/value literals,
 * the property type tables from the introspection XML, and expectations that differ
 * between tinctd and colord. Everything talks to the daemon over the bus through
 * tests/harness. */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "strv.h"
#include "tests.h"

/* A NULL-terminated key/value list literal: KV("Model", "X", "Serial", "Y") */
/* asprintf() that cannot fail (the test aborts instead). */
static inline char *xasprintf(const char *fmt, ...) _printf_(1, 2);
static inline char *xasprintf(const char *fmt, ...) {
        va_list ap;
        char *s;
        va_start(ap, fmt);
        assert_se(vasprintf(&s, fmt, ap) >= 0);
        va_end(ap);
        return s;
}

/* The store's bytes with the daemon stopped (so SQLite has checkpointed): the database and
 * whatever log SQLite left (test-verify-records.c, test-store-records.c). */
static inline off_t store_size_stopped(Harness *h) {
        off_t total = 0;
        const char *names[] = { "tinct.db", "tinct.db-wal" };
        assert_se(harness_stop_daemon(h) == 0);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s", harness_state_dir(h), names[i]);
                struct stat st;
                if (stat(path, &st) == 0)
                        total += st.st_size;
                else
                        assert_se(errno == ENOENT);
        }
        return total;
}

#define KV(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define NO_KV ((const char *const *) NULL)

#define DEV_PATH(e) CM_PATH "/devices/" e
#define PROF_PATH(e) CM_PATH "/profiles/" e

/* Runs one test function, naming it on stderr so a failure is easy to place. */
#define RUN(fn, ...)                                                  \
        do {                                                          \
                fprintf(stderr, "=== %s\n", #fn);                     \
                fn(__VA_ARGS__);                                      \
                fprintf(stderr, "--- %s: ok\n", #fn);                 \
        } while (0)

/* Tests of behaviour tinct fixes on purpose (colord §16) are skipped against colord. */
#define SKIP_ON_COLORD(h, why)                                                        \
        do {                                                                          \
                if (harness_is_colord(h)) {                                           \
                        fprintf(stderr, "    (skipped on colord: %s)\n", why);        \
                        return;                                                       \
                }                                                                     \
        } while (0)

typedef struct PropType {
        const char *name;
        const char *type;
} PropType;

static const PropType device_props[] _unused_ = {
        { "Created", "t" }, { "Modified", "t" }, { "Model", "s" }, { "Serial", "s" },
        { "Vendor", "s" }, { "Colorspace", "s" }, { "Kind", "s" }, { "DeviceId", "s" },
        { "Profiles", "ao" }, { "Mode", "s" }, { "Format", "s" }, { "Scope", "s" },
        { "Owner", "u" }, { "Enabled", "b" }, { "Seat", "s" }, { "Embedded", "b" },
        { "Metadata", "a{ss}" }, { "ProfilingInhibitors", "as" }, {},
};

static const PropType profile_props[] _unused_ = {
        { "ProfileId", "s" }, { "Title", "s" }, { "Metadata", "a{ss}" }, { "Qualifier", "s" },
        { "Format", "s" }, { "Kind", "s" }, { "Colorspace", "s" }, { "HasVcgt", "b" },
        { "IsSystemWide", "b" }, { "Filename", "s" }, { "Created", "x" }, { "Scope", "s" },
        { "Owner", "u" }, { "Warnings", "as" }, {},
};

static const PropType sensor_props[] _unused_ = {
        { "SensorId", "s" }, { "Kind", "s" }, { "State", "s" }, { "Mode", "s" },
        { "Serial", "s" }, { "Model", "s" }, { "Vendor", "s" }, { "Native", "b" },
        { "Embedded", "b" }, { "Locked", "b" }, { "Capabilities", "as" },
        { "Options", "a{sv}" }, { "Metadata", "a{ss}" }, {},
};

static const PropType manager_props[] _unused_ = {
        { "DaemonVersion", "s" }, { "SystemVendor", "s" }, { "SystemModel", "s" }, {},
};

static inline const char *prop_type(const PropType *t, const char *name) {
        for (; t->name; t++)
                if (streq(t->name, name))
                        return t->type;
        return NULL;
}

/* GetAll on path/iface: asserts that exactly the properties of the table are present,
 * each with its introspected type (skipping names in `lenient` whose type colord gets
 * wrong when running against colord). */
static inline void check_getall(Harness *h, sd_bus *bus, const char *path, const char *iface,
                                const PropType *table, const char *lenient) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **seen = NULL;
        int r;

        r = harness_call(bus, path, "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s", iface);
        assert_bus_ok(r, &error);
        assert_se(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                const char *name, *contents;
                assert_se(sd_bus_message_read(reply, "s", &name) >= 0);
                assert_se(sd_bus_message_peek_type(reply, NULL, &contents) >= 0);
                const char *want = prop_type(table, name);
                if (!want) {
                        fprintf(stderr, "%s %s: unexpected property %s\n", path, iface, name);
                        abort();
                }
                if (!streq(want, contents) && !(harness_is_colord(h) && lenient && streq(lenient, name))) {
                        fprintf(stderr, "%s %s: property %s has type %s, introspected %s\n", path, iface,
                                name, contents, want);
                        abort();
                }
                assert_se(strv_extend(&seen, name) >= 0);
                assert_se(sd_bus_message_skip(reply, "v") >= 0);
                assert_se(sd_bus_message_exit_container(reply) >= 0);
        }
        for (const PropType *t = table; t->name; t++)
                if (!strv_contains(seen, t->name)) {
                        fprintf(stderr, "%s %s: property %s missing from GetAll\n", path, iface, t->name);
                        abort();
                }
}

static inline bool strv_equal_list(char **l, const char *const *want) {
        size_t i = 0;
        for (; want[i]; i++)
                if (!l || !l[i] || !streq(l[i], want[i]))
                        return false;
        return !l || !l[i];
}

static inline void dump_strv(const char *what, char **l) {
        fprintf(stderr, "    %s:", what);
        STRV_FOREACH(s, l)
                fprintf(stderr, " %s", *s);
        fprintf(stderr, "\n");
}

/* Asserts a strv equals the given NULL-terminated list, printing both otherwise. */
#define assert_strv(l, ...)                                                             \
        do {                                                                            \
                const char *const _w[] = { __VA_ARGS__, NULL };                         \
                if (!strv_equal_list((l), _w)) {                                        \
                        fprintf(stderr, "%s:%d: list mismatch\n", __FILE__, __LINE__);  \
                        dump_strv("got", (l));                                          \
                        dump_strv("want", (char **) _w);                                \
                        abort();                                                        \
                }                                                                       \
        } while (0)
#define assert_strv_empty(l)                                                            \
        do {                                                                            \
                if ((l) && (l)[0]) {                                                    \
                        fprintf(stderr, "%s:%d: list not empty\n", __FILE__, __LINE__); \
                        dump_strv("got", (l));                                          \
                        abort();                                                        \
                }                                                                       \
        } while (0)

static inline char **device_profiles(sd_bus *bus, const char *dev) {
        return harness_get_strv(bus, dev, CM_DEVICE_IFACE, "Profiles", "ao");
}

static inline int add_profile(sd_bus *bus, const char *dev, const char *relation, const char *prof,
                              sd_bus_error *error) {
        return harness_call(bus, dev, CM_DEVICE_IFACE, "AddProfile", error, NULL, "so", relation, prof);
}

static inline void must_add_profile(sd_bus *bus, const char *dev, const char *relation, const char *prof) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        assert_bus_ok(add_profile(bus, dev, relation, prof, &error), &error);
}

static inline void must_call(sd_bus *bus, const char *path, const char *iface, const char *member,
                             const char *types, const char *arg) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = types ? harness_call(bus, path, iface, member, &error, NULL, types, arg)
                      : harness_call(bus, path, iface, member, &error, NULL, NULL);
        assert_bus_ok(r, &error);
}

static inline char *relation_of(sd_bus *bus, const char *dev, const char *prof) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *rel;
        int r = harness_call(bus, dev, CM_DEVICE_IFACE, "GetProfileRelation", &error, &reply, "o", prof);
        assert_bus_ok(r, &error);
        assert_se(sd_bus_message_read(reply, "s", &rel) >= 0);
        return strdup(rel);
}

/* GetProfileForQualifiers; returns the path or NULL with error set. */
static inline char *profile_for_qualifiers(sd_bus *bus, const char *dev, const char *const *q,
                                           sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *path;
        assert_se(sd_bus_message_new_method_call(bus, &m, CM_NAME, dev, CM_DEVICE_IFACE,
                                                 "GetProfileForQualifiers") >= 0);
        assert_se(sd_bus_message_append_strv(m, (char **) q) >= 0);
        if (sd_bus_call(bus, m, HARNESS_CALL_TIMEOUT_USEC, error, &reply) < 0)
                return NULL;
        assert_se(sd_bus_message_read(reply, "o", &path) >= 0);
        return strdup(path);
}

/* Finds by id; returns path or NULL (error set). */
static inline char *find_by(sd_bus *bus, const char *member, const char *arg, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        if (harness_call(bus, CM_PATH, CM_IFACE, member, error, &reply, "s", arg) < 0)
                return NULL;
        assert_se(sd_bus_message_read(reply, "o", &path) >= 0);
        return strdup(path);
}

static inline char *find_by2(sd_bus *bus, const char *member, const char *a, const char *b, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        if (harness_call(bus, CM_PATH, CM_IFACE, member, error, &reply, "ss", a, b) < 0)
                return NULL;
        assert_se(sd_bus_message_read(reply, "o", &path) >= 0);
        return strdup(path);
}

#define assert_find_ok(bus, member, arg, want)                                           \
        do {                                                                             \
                _cleanup_(sd_bus_error_free) sd_bus_error _e = SD_BUS_ERROR_NULL;        \
                _cleanup_free_ char *_p = find_by((bus), (member), (arg), &_e);          \
                if (!_p) {                                                               \
                        fprintf(stderr, "%s:%d: %s(%s) failed: %s\n", __FILE__, __LINE__, \
                                (member), (arg), strempty(_e.name));                     \
                        abort();                                                         \
                }                                                                        \
                assert_streq(_p, (want));                                                \
        } while (0)

#define assert_find_error(bus, member, arg, errname)                                     \
        do {                                                                             \
                _cleanup_(sd_bus_error_free) sd_bus_error _e = SD_BUS_ERROR_NULL;        \
                _cleanup_free_ char *_p = find_by((bus), (member), (arg), &_e);          \
                assert_bus_error(_p ? 0 : -1, &_e, (errname));                           \
        } while (0)

/* A path appears in an "ao" list exactly n times. */
static inline size_t strv_count(char **l, const char *s) {
        size_t n = 0;
        STRV_FOREACH(p, l)
                if (streq(*p, s))
                        n++;
        return n;
}

static inline int delete_object(sd_bus *bus, const char *member, const char *path, sd_bus_error *error) {
        return harness_call(bus, CM_PATH, CM_IFACE, member, error, NULL, "o", path);
}

/* True if GetAll on the path/iface fails (the object is gone). */
static inline bool object_gone(sd_bus *bus, const char *path, const char *iface) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = harness_call(bus, path, "org.freedesktop.DBus.Properties", "GetAll", &error, NULL, "s", iface);
        return r < 0;
}
