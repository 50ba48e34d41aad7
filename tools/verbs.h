/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every verb of the tinct command line. Each returns an exit status (0 success). argv[0] is
 * the verb name. Verbs that talk to the daemon live in verb-bus*.c; offline ones beside. */
#pragma once

/* The largest file a verb reads whole (ICC profiles, EDIDs): bigger than any real one. */
#define TOOL_MAX_FILE (64u * 1024u * 1024u)

int verb_edid_info(int argc, char **argv);     /* verb-edid.c */
int verb_edid_profile(int argc, char **argv);  /* verb-edid.c */
int verb_icc_info(int argc, char **argv);      /* verb-icc.c */
int verb_profile_build(int argc, char **argv); /* verb-profile-build.c */
int verb_export(int argc, char **argv);        /* verb-store.c */
int verb_import(int argc, char **argv);        /* verb-store.c */

/* The daemon's bus verbs, as colormgr has them, plus lookup and status (verb-bus*.c). */
int verb_get_devices(int argc, char **argv);                 /* verb-bus.c */
int verb_get_devices_by_kind(int argc, char **argv);         /* verb-bus.c */
int verb_get_profiles(int argc, char **argv);                /* verb-bus.c */
int verb_get_sensors(int argc, char **argv);                 /* verb-bus.c */
int verb_find_device(int argc, char **argv);                 /* verb-bus.c */
int verb_find_device_by_property(int argc, char **argv);     /* verb-bus.c */
int verb_find_profile(int argc, char **argv);                /* verb-bus.c */
int verb_find_profile_by_filename(int argc, char **argv);    /* verb-bus.c */
int verb_get_standard_space(int argc, char **argv);          /* verb-bus.c */
int verb_create_device(int argc, char **argv);               /* verb-bus.c */
int verb_create_profile(int argc, char **argv);              /* verb-bus.c */
int verb_delete_device(int argc, char **argv);               /* verb-bus.c */
int verb_delete_profile(int argc, char **argv);              /* verb-bus.c */
int verb_profile_set_property(int argc, char **argv);        /* verb-bus.c */
int verb_profile_install_system_wide(int argc, char **argv); /* verb-bus.c */
int verb_status(int argc, char **argv);                      /* verb-bus.c */
int verb_device_add_profile(int argc, char **argv);          /* verb-bus-device.c */
int verb_device_make_profile_default(int argc, char **argv); /* verb-bus-device.c */
int verb_device_remove_profile(int argc, char **argv);       /* verb-bus-device.c */
int verb_device_get_default_profile(int argc, char **argv);  /* verb-bus-device.c */
int verb_device_get_profile_for_qualifier(int argc, char **argv); /* verb-bus-device.c */
int verb_device_set_model(int argc, char **argv);            /* verb-bus-device.c */
int verb_device_set_vendor(int argc, char **argv);           /* verb-bus-device.c */
int verb_device_set_serial(int argc, char **argv);           /* verb-bus-device.c */
int verb_device_set_kind(int argc, char **argv);             /* verb-bus-device.c */
int verb_device_set_enabled(int argc, char **argv);          /* verb-bus-device.c */
int verb_device_inhibit(int argc, char **argv);              /* verb-bus-device.c */
int verb_lookup(int argc, char **argv);                      /* verb-bus-device.c */
int verb_get_sensor_reading(int argc, char **argv);          /* verb-bus-sensor.c */
int verb_get_spectral_reading(int argc, char **argv);        /* verb-bus-sensor.c */
int verb_sensor_lock(int argc, char **argv);                 /* verb-bus-sensor.c */
int verb_sensor_set_options(int argc, char **argv);          /* verb-bus-sensor.c */
int verb_import_profile(int argc, char **argv);              /* verb-bus-import.c */
int verb_dump(int argc, char **argv);                        /* verb-store.c */
int verb_create_virtual_device(int argc, char **argv);       /* verb-virtual.c */
int verb_gamut(int argc, char **argv);                       /* verb-gamut.c */
int verb_doctor(int argc, char **argv);                      /* verb-doctor.c */
