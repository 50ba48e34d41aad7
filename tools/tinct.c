/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct: the command-line client. A table of verbs, one function each (verbs.h). */
#include <stdio.h>
#include <string.h>

#include "bus-client.h"
#include "verbs.h"

typedef struct Verb {
        const char *name;
        const char *args;
        const char *help;
        int (*run)(int argc, char **argv);
} Verb;

static const Verb verbs[] = {
        { "edid-info", "[--json] FILE", "Print the fields of an EDID blob", verb_edid_info },
        { "edid-profile", "FILE -o OUT.icc", "Generate an ICC display profile from an EDID", verb_edid_profile },
        { "gamut", "[--json] FILE... [--svg OUT]", "Gamut coverage against sRGB, P3, Adobe RGB, BT.2020", verb_gamut },
        { "icc-info", "[--json] FILE", "Print what the daemon reads from an ICC profile", verb_icc_info },
        { "profile-build", "FILE.ti3 -o OUT.icc [--v2]", "Build a display profile from measurements (Argyll .ti3)", verb_profile_build },
        { "export", "[--state-dir DIR] [FILE]", "Write the whole store as JSON", verb_export },
        { "import", "[--state-dir DIR] FILE", "Load a store written by export", verb_import },
        { "dump", "[--state-dir DIR]", "Write the store to tinct-SECONDS.json and stdout", verb_dump },
        /* the daemon's verbs (colormgr's, same arguments); each takes --json and --help */
        { "doctor", "[DEVICE]", "Which profile applications get for each device, and why", verb_doctor },
        { "status", "", "Daemon version and how many devices, profiles, sensors", verb_status },
        { "get-devices", "", "List the devices", verb_get_devices },
        { "get-devices-by-kind", "KIND", "List the devices of one kind", verb_get_devices_by_kind },
        { "get-profiles", "", "List the profiles", verb_get_profiles },
        { "get-sensors", "", "List the sensors", verb_get_sensors },
        { "get-sensor-reading", "[CAP]", "Lock each sensor, take a sample, unlock", verb_get_sensor_reading },
        { "get-spectral-reading", "[CAP]", "Lock each sensor, measure a spectrum, unlock", verb_get_spectral_reading },
        { "sensor-lock", "[SECONDS]", "Hold every sensor's lock (0: until Ctrl-C)", verb_sensor_lock },
        { "sensor-set-options", "KEY VALUE", "Set a driver option on every sensor", verb_sensor_set_options },
        { "find-device", "ID", "Show a device by id", verb_find_device },
        { "find-device-by-property", "KEY VALUE", "Show a device by property or metadata", verb_find_device_by_property },
        { "find-profile", "ID", "Show a profile by id", verb_find_profile },
        { "find-profile-by-filename", "FILE", "Show a profile by filename", verb_find_profile_by_filename },
        { "get-standard-space", "SPACE", "Show the profile of a standard space", verb_get_standard_space },
        { "create-device", "ID SCOPE KIND", "Create a device", verb_create_device },
        { "create-profile", "ID SCOPE", "Create a profile without a file", verb_create_profile },
        { "import-profile", "FILE", "Copy into the user's ICC dir, wait for the session", verb_import_profile },
        { "create-virtual-device", "PROFILE [KIND]", "Soft-proofing device for a profile, kept on disk", verb_create_virtual_device },
        { "delete-device", "DEVICE", "Delete a device", verb_delete_device },
        { "delete-profile", "PROFILE", "Delete a profile", verb_delete_profile },
        { "profile-set-property", "PROFILE KEY VALUE", "Set a profile property", verb_profile_set_property },
        { "profile-install-system-wide", "PROFILE", "Copy a profile into the system-wide directory", verb_profile_install_system_wide },
        { "device-add-profile", "[--soft] DEVICE PROFILE", "Add a profile to a device (hard)", verb_device_add_profile },
        { "device-remove-profile", "DEVICE PROFILE", "Take a profile off a device", verb_device_remove_profile },
        { "device-make-profile-default", "DEVICE PROFILE", "Make a profile the device's default", verb_device_make_profile_default },
        { "device-get-default-profile", "DEVICE", "Show the device's default profile", verb_device_get_default_profile },
        { "device-get-profile-for-qualifier", "DEVICE QUALIFIER...", "Profile for qualifiers (one call)", verb_device_get_profile_for_qualifier },
        { "lookup", "DEVICE C.M.R", "CUPS fallback lookup; says what matched", verb_lookup },
        { "device-set-model", "DEVICE VALUE", "Set the device's Model", verb_device_set_model },
        { "device-set-vendor", "DEVICE VALUE", "Set the device's Vendor", verb_device_set_vendor },
        { "device-set-serial", "DEVICE VALUE", "Set the device's Serial", verb_device_set_serial },
        { "device-set-kind", "DEVICE VALUE", "Set the device's Kind", verb_device_set_kind },
        { "device-set-enabled", "DEVICE true|false", "Enable or disable a device", verb_device_set_enabled },
        { "device-inhibit", "DEVICE [SECONDS]", "Inhibit profiling (0: until Ctrl-C)", verb_device_inhibit },
};

static void usage(FILE *f) {
        size_t n = sizeof verbs / sizeof verbs[0];
        int width = 0; /* verb and arguments in one aligned column */
        for (size_t i = 0; i < n; i++) {
                int w = (int) (strlen(verbs[i].name) + 1 + strlen(verbs[i].args));
                if (w > width)
                        width = w;
        }
        fprintf(f, "Usage: tinct VERB [ARGS...]\n\nVerbs:\n");
        for (size_t i = 0; i < n; i++)
                fprintf(f, "  %s %-*s  %s\n", verbs[i].name, width - (int) strlen(verbs[i].name) - 1,
                        verbs[i].args, verbs[i].help);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                usage(stderr);
                return 2;
        }
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
                usage(stdout);
                return 0;
        }
        if (strcmp(argv[1], "--version") == 0) {
                printf("tinct %s\n", TINCT_VERSION);
                return 0;
        }
        for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
                if (strcmp(argv[1], verbs[i].name) == 0)
                        return bus_exit_status(verbs[i].run(argc - 1, argv + 1));
        fprintf(stderr, "tinct: unknown verb '%s'\n", argv[1]);
        usage(stderr);
        return 2;
}
