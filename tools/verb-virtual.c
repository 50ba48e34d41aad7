/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct create-virtual-device PROFILE [KIND]: a soft-proofing target (a "virtual" device,
 * colord §3.4) made from one ICC profile in one command, and kept across restarts.
 *
 * PROFILE is an ICC file, or a profile the daemon already has (object path or id). A file
 * is parsed here first, so a malformed one never reaches the daemon. The daemon's own
 * profile of that file (FindProfileByFilename) or of the same bytes (FindProfileById
 * "icc-<checksum>", the id the daemon gives every scanned file) is used when there is one;
 * otherwise the file is imported as a disk profile (CreateProfileWithFd, scope disk: tinct
 * keeps its bytes in the store, so it comes back after a restart; colord has no such scope).
 *
 * The device: id "virtual-<ProfileId>" (one profile, one device, however it was named),
 * scope disk, Mode virtual, Kind (default printer), the profile's Colorspace, Vendor and
 * Model from the ICC's device manufacturer and model descriptions when they are short
 * names (many free profiles put a paragraph there), Model else the profile's title. Then
 * AddProfile hard. A device of that id that already exists is an error (exit 1), not
 * reused: CreateDevice on a virtual device would promote it to a physical one. If
 * AddProfile fails, what this run created is deleted again. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-call.h"
#include "bus-print.h"
#include "icc-info.h"
#include "log.h"
#include "names.h"
#include "fileio.h"
#include "verbs.h"

#define VIRTUAL_ID_PREFIX "virtual-"
#define MAX_NAME_LEN 64 /* longer "names" in dmnd/dmdd are descriptions, not names */

static bool has_icc_suffix(const char *s) {
        size_t n = strlen(s);
        return n > 4 && (strcasecmp(s + n - 4, ".icc") == 0 || strcasecmp(s + n - 4, ".icm") == 0);
}

/* A manufacturer or model text usable as a device property: trimmed, one short line. */
static char *name_from_text(const char *s) {
        if (!s)
                return NULL;
        while (*s == ' ' || *s == '\t')
                s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
                n--;
        if (n == 0 || n > MAX_NAME_LEN)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
                        return NULL;
        return strndup(s, n);
}

/* What one run works with, and what it made. */
typedef struct Run {
        const char *arg;
        char *file;      /* absolute path when PROFILE is a file */
        IccInfo *info;   /* parsed file, when there is one */
        char *profile;   /* the daemon's object path */
        bool imported;   /* the profile was made by this run (deleted again on failure) */
        char *device;    /* the device made by this run */
} Run;

static void run_done(Run *s) {
        free(s->file);
        icc_info_free(s->info);
        free(s->profile);
        free(s->device);
}

/* Reads and parses a file; prints why not. */
static int parse_file(const char *path, IccInfo **ret) {
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_free_ char *error = NULL;
        size_t size = 0;
        int r = read_file_capped(path, TOOL_MAX_FILE, 0, &data, &size, NULL);
        if (r < 0) {
                log_error("cannot read %s: %s", path, strerror(-r));
                return r;
        }
        r = icc_info_parse_flags(data, size, ICC_INFO_SKIP_WARNINGS, ret, &error);
        if (r < 0)
                log_error("%s is not a usable ICC profile: %s", path, error ? error : strerror(-r));
        return r;
}

/* A method answering one path, where NotFound is an answer: 1 found, 0 not, <0 printed. */
static int find_quietly(sd_bus *bus, const char *member, const char *arg, char **ret) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, member, &error, &reply, "s", arg);
        if (r < 0) {
                if (sd_bus_error_has_name(&error, CM_IFACE ".NotFound"))
                        return 0;
                log_error("%s: %s", error.name ? error.name : member, error.message ? error.message : strerror(-r));
                return r;
        }
        r = bus_read_path(reply, ret);
        return r < 0 ? r : 1;
}

/* CreateProfileWithFd(icc-<checksum>, "disk", fd, {Filename}). */
static int import_file(sd_bus *bus, Run *s) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_free_ char *id = NULL;
        int fd, r;

        if (asprintf(&id, "icc-%s", s->info->checksum) < 0)
                return bus_log_create_error(-ENOMEM);
        fd = open(s->file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                log_error("cannot open %s: %s", s->file, strerror(-r));
                return r;
        }
        r = bus_new_method_call(bus, CM_PATH, CM_IFACE, "CreateProfileWithFd", &m);
        if (r >= 0) {
                r = sd_bus_message_append(m, "ssha{ss}", id, "disk", fd, 1, "Filename", s->file);
                if (r < 0)
                        bus_log_create_error(r);
        }
        close(fd); /* sd-bus has its own duplicate */
        if (r < 0)
                return r;
        r = bus_call_message_path(bus, m, &s->profile);
        if (r < 0)
                return r;
        s->imported = true;
        return 0;
}

/* Finds the daemon's profile for PROFILE, importing a file it does not know. */
static int resolve_profile(sd_bus *bus, Run *s) {
        int r;

        if (!s->file)
                return bus_resolve(bus, BUS_OBJECT_PROFILE, s->arg, &s->profile);
        r = find_quietly(bus, "FindProfileByFilename", s->file, &s->profile);
        if (r != 0)
                return r < 0 ? r : 0;
        _cleanup_free_ char *id = NULL;
        if (asprintf(&id, "icc-%s", s->info->checksum) < 0)
                return bus_log_create_error(-ENOMEM);
        r = find_quietly(bus, "FindProfileById", id, &s->profile);
        if (r != 0)
                return r < 0 ? r : 0;
        return import_file(bus, s);
}

/* Appends key=value to an a{ss} being built, when value is set. */
static int append_pair(sd_bus_message *m, const char *key, const char *value) {
        if (isempty(value))
                return 0;
        return sd_bus_message_append(m, "{ss}", key, value);
}

static int create_device(sd_bus *bus, const char *id, const char *kind, const char *colorspace,
                         const char *vendor, const char *model, char **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = bus_new_method_call(bus, CM_PATH, CM_IFACE, "CreateDevice", &m);
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "ss", id, "disk");
        if (r < 0)
                return bus_log_create_error(r);
        r = sd_bus_message_open_container(m, 'a', "{ss}");
        if (r < 0)
                return bus_log_create_error(r);
        const char *const pairs[][2] = {
                { "Kind", kind },
                { "Mode", "virtual" },
                { "Colorspace", streq_ptr(colorspace, "unknown") ? NULL : colorspace },
                { "Vendor", vendor },
                { "Model", model },
        };
        for (size_t i = 0; i < ELEMENTSOF(pairs); i++) {
                r = append_pair(m, pairs[i][0], pairs[i][1]);
                if (r < 0)
                        return bus_log_create_error(r);
        }
        r = sd_bus_message_close_container(m);
        if (r < 0)
                return bus_log_create_error(r);
        return bus_call_message_path(bus, m, ret);
}

/* Undoes this run's objects after a failure (best effort; the failure is reported). */
static void roll_back(sd_bus *bus, const Run *s) {
        if (s->device)
                (void) sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "DeleteDevice", NULL, NULL, "o",
                                          s->device);
        if (s->imported)
                (void) sd_bus_call_method(bus, CM_NAME, CM_PATH, CM_IFACE, "DeleteProfile", NULL, NULL, "o",
                                          s->profile);
}

/* Vendor and Model for the device; Model falls back to the profile's title. */
static void device_names(Run *s, const BusObject *prof, char **ret_vendor, char **ret_model) {
        /* A daemon profile named by id: its file, if readable here, still gives the names. */
        const char *filename = bus_value_get_string(prof->properties, "Filename");
        if (!s->info && !isempty(filename) && access(filename, R_OK) == 0) {
                _cleanup_free_ uint8_t *data = NULL;
                size_t size;
                if (read_file_capped(filename, TOOL_MAX_FILE, 0, &data, &size, NULL) >= 0)
                        (void) icc_info_parse_flags(data, size, ICC_INFO_SKIP_WARNINGS, &s->info, NULL);
        }
        *ret_vendor = s->info ? name_from_text(s->info->manufacturer) : NULL;
        *ret_model = s->info ? name_from_text(s->info->model) : NULL;
        if (!*ret_model)
                *ret_model = name_from_text(bus_value_get_string(prof->properties, "Title"));
}

/* Everything after the file check; on failure the caller rolls back. */
static int make_virtual_device(sd_bus *bus, Run *s, const char *kind) {
        _cleanup_(bus_object_freep) BusObject *prof = NULL;
        _cleanup_free_ char *id = NULL, *existing = NULL, *vendor = NULL, *model = NULL;
        int r;

        r = resolve_profile(bus, s);
        if (r < 0)
                return r;
        r = bus_object_get(bus, BUS_OBJECT_PROFILE, s->profile, &prof);
        if (r < 0)
                return r;
        const char *profile_id = bus_value_get_string(prof->properties, "ProfileId");
        if (isempty(profile_id)) {
                log_error("profile %s has no ProfileId", s->profile);
                return -EBADMSG;
        }
        if (asprintf(&id, VIRTUAL_ID_PREFIX "%s", profile_id) < 0)
                return bus_log_create_error(-ENOMEM);
        r = find_quietly(bus, "FindDeviceById", id, &existing);
        if (r < 0)
                return r;
        if (r > 0) {
                log_error(
                        "device '%s' already exists (%s); delete it first with 'tinct delete-device %s'",
                        id, existing, id);
                return -EEXIST;
        }

        device_names(s, prof, &vendor, &model);
        r = create_device(bus, id, kind, bus_value_get_string(prof->properties, "Colorspace"), vendor, model,
                          &s->device);
        if (r < 0)
                return r;
        r = bus_call(bus, s->device, CM_DEVICE_IFACE, "AddProfile", NULL, "so", "hard", s->profile);
        if (r < 0)
                return r;

        /* The mapping is kept in any case; the profile object only if the daemon keeps it. */
        const char *scope = bus_value_get_string(prof->properties, "Scope");
        const BusValue *sys = bus_value_get(prof->properties, "IsSystemWide");
        if (!streq_ptr(scope, "disk") && !(sys && sys->type == BUS_VALUE_BOOLEAN && sys->boolean))
                log_notice("note: profile %s has scope %s; after a restart it must be registered again",
                        profile_id, strempty(scope));
        return 0;
}

/* The device kind argument: the daemon's own table (names.h); "unknown" is not a kind
 * CreateDevice takes. */
static const char *kind_of(const Invocation *inv) {
        return inv->n_args > 1 ? inv->args[1] : "printer";
}

int verb_create_virtual_device_check(const Invocation *inv) {
        const char *kind = kind_of(inv);
        if (!names_device_kind_is_valid(kind) || streq(kind, "unknown"))
                return verb_usage_error(inv, "unknown device kind '%s' (display, scanner, printer, camera or webcam)",
                                        kind);
        return 0;
}

int verb_create_virtual_device(Invocation *inv) {
        _cleanup_(run_done) Run s = { .arg = inv->args[0] };
        sd_bus *bus = inv->bus;
        struct stat st;
        int r;

        /* A file when one is there or the argument looks like one; else a daemon profile. */
        bool is_object = strncmp(s.arg, CM_PATH "/", strlen(CM_PATH "/")) == 0;
        if (stat(s.arg, &st) == 0 || (!is_object && (strchr(s.arg, '/') || has_icc_suffix(s.arg)))) {
                s.file = realpath(s.arg, NULL);
                if (!s.file) {
                        log_error_errno(errno, "cannot read %s: %m", s.arg);
                        return EXIT_FAILURE;
                }
                r = parse_file(s.file, &s.info);
                if (r < 0)
                        return EXIT_FAILURE;
        }

        r = make_virtual_device(bus, &s, kind_of(inv));
        if (r < 0) {
                roll_back(bus, &s);
                return bus_exit_status(r);
        }
        return bus_exit_status(bus_print_object(bus, BUS_OBJECT_DEVICE, s.device, inv->opts.json));
}
