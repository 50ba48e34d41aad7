/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every verb of the tinct command line, as tinct.c's verb table calls them (cli.h): a verb
 * gets its parsed arguments, options and (VERB_BUS verbs) the bus, and returns an exit
 * status. A *_check function validates argument values before the bus is opened. Verbs that
 * talk to the daemon live in verb-bus*.c and verb-{doctor,virtual}.c; offline ones beside. */
#pragma once

#include "cli.h"

/* The largest file a verb reads whole (ICC profiles, EDIDs): bigger than any real one. */
#define TOOL_MAX_FILE (64u * 1024u * 1024u)

/* Offline. */
int verb_edid_info(Invocation *inv);    /* verb-edid.c */
int verb_edid_profile(Invocation *inv); /* verb-edid.c */
int verb_icc_info(Invocation *inv);     /* verb-icc.c */
int verb_gamut_check(const Invocation *inv); /* verb-gamut.c */
int verb_gamut(Invocation *inv);        /* verb-gamut.c */
int verb_profile_build_check(const Invocation *inv); /* verb-profile-build.c */
int verb_profile_build(Invocation *inv); /* verb-profile-build.c */
/* --chart: verb_profile_build's check and run hand over to these. */
int verb_profile_build_chart_check(const Invocation *inv); /* verb-profile-build-chart.c */
int verb_profile_build_chart(Invocation *inv); /* verb-profile-build-chart.c */
/* The end of every profile-build: r and reason are what the build returned; on success
 * writes icc to --output. Logs either failure and returns it. */
int profile_build_save(const Invocation *inv, const char *path, int r, const char *reason, const uint8_t *icc,
                       size_t icc_len); /* profile-save.c */
int verb_export(Invocation *inv);       /* verb-store.c */
int verb_import(Invocation *inv);       /* verb-store.c */
int verb_dump(Invocation *inv);         /* verb-store.c */

/* The daemon's bus verbs, as colormgr has them, plus lookup, status and doctor. */
int verb_get_devices(Invocation *inv);                 /* verb-bus.c */
int verb_get_devices_by_kind(Invocation *inv);         /* verb-bus.c */
int verb_get_profiles(Invocation *inv);                /* verb-bus.c */
int verb_get_sensors(Invocation *inv);                 /* verb-bus.c */
int verb_find_device(Invocation *inv);                 /* verb-bus.c */
int verb_find_device_by_property(Invocation *inv);     /* verb-bus.c */
int verb_find_profile(Invocation *inv);                /* verb-bus.c */
int verb_find_profile_by_filename(Invocation *inv);    /* verb-bus.c */
int verb_get_standard_space(Invocation *inv);          /* verb-bus.c */
int verb_create_device(Invocation *inv);               /* verb-bus.c */
int verb_create_profile(Invocation *inv);              /* verb-bus.c */
int verb_delete_device(Invocation *inv);               /* verb-bus.c */
int verb_delete_profile(Invocation *inv);              /* verb-bus.c */
int verb_profile_set_property(Invocation *inv);        /* verb-bus.c */
int verb_profile_install_system_wide(Invocation *inv); /* verb-bus.c */
int verb_status(Invocation *inv);                      /* verb-bus.c */
int verb_rescan_scanners(Invocation *inv);             /* verb-scanners.c */
int verb_device_add_profile(Invocation *inv);          /* verb-bus-device.c */
int verb_device_make_profile_default(Invocation *inv); /* verb-bus-device.c */
int verb_device_remove_profile(Invocation *inv);       /* verb-bus-device.c */
int verb_device_get_default_profile(Invocation *inv);  /* verb-bus-device.c */
int verb_device_get_profile_for_qualifier(Invocation *inv); /* verb-bus-device.c */
int verb_device_set_model(Invocation *inv);            /* verb-bus-device.c */
int verb_device_set_vendor(Invocation *inv);           /* verb-bus-device.c */
int verb_device_set_serial(Invocation *inv);           /* verb-bus-device.c */
int verb_device_set_kind(Invocation *inv);             /* verb-bus-device.c */
int verb_device_set_enabled_check(const Invocation *inv); /* verb-bus-device.c */
int verb_device_set_enabled(Invocation *inv);          /* verb-bus-device.c */
int verb_device_inhibit_check(const Invocation *inv);  /* verb-bus-device.c */
int verb_device_inhibit(Invocation *inv);              /* verb-bus-device.c */
int verb_lookup_check(const Invocation *inv);          /* verb-bus-device.c */
int verb_lookup(Invocation *inv);                      /* verb-bus-device.c */
int verb_verify(Invocation *inv);                           /* verb-verify.c */
int verb_get_sensor_reading_check(const Invocation *inv);   /* verb-bus-sensor.c */
int verb_get_sensor_reading(Invocation *inv);               /* verb-bus-sensor.c */
int verb_get_spectral_reading_check(const Invocation *inv); /* verb-bus-sensor.c */
int verb_get_spectral_reading(Invocation *inv);             /* verb-bus-sensor.c */
int verb_sensor_lock_check(const Invocation *inv);          /* verb-bus-sensor.c */
int verb_sensor_lock(Invocation *inv);                      /* verb-bus-sensor.c */
int verb_sensor_set_options(Invocation *inv);               /* verb-bus-sensor.c */
int verb_import_profile_check(const Invocation *inv);       /* verb-bus-import.c */
int verb_import_profile(Invocation *inv);                   /* verb-bus-import.c */
int verb_create_virtual_device_check(const Invocation *inv); /* verb-virtual.c */
int verb_create_virtual_device(Invocation *inv);             /* verb-virtual.c */
int verb_doctor(Invocation *inv);                            /* verb-doctor.c */
