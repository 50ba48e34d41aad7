/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A colour profile object: an ICC file the daemon found or a client registered, or a
 * virtual profile without a file (colord §4). No bus code here: profile-dbus.c has it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "device.h"
#include "icc-info.h"
#include "list.h"
#include "manager.h"
#include "strmap.h"

struct Profile {
        Manager *manager;
        ListLink link;

        char *id;
        char *path;
        uid_t owner;
        Scope scope;
        char *creator;

        char *filename;
        bool filename_claimed; /* the creator's word, not checked (profile-claim.h) */
        bool printer_vendor;   /* a printer's vendor profile the CUPS source made: the daemon's object and file */
        struct Profile *same_file_next; /* Manager.profiles_by_filename */
        char *mapping_target;           /* MAPPING_device_id when indexed, Manager.profiles_by_target */
        struct Profile *same_target_next;
        char *qualifier;
        char *format;
        char *title; /* from the ICC description; per-user titles live in the store */
        const char *kind;
        const char *colorspace;
        bool has_vcgt;
        bool is_system_wide;
        int64_t created; /* seconds, from the ICC header */
        StrMap metadata;
        char **warnings; /* NULL until computed: use profile_warnings() (profile-warnings.h) */
        ListLink warnings_link; /* in Manager.warnings_pending while NULL */
        struct WarningsJob *warnings_job; /* the background pass's parse of them, while it runs */
        int score; /* GetStandardSpace preference */

        /* The file's bytes as they were read, for InstallSystemWide (copied, never mapped). */
        uint8_t *data;
        size_t size;

        Device **holders; /* devices that list this profile */
        size_t n_holders;
};

int profile_new(Manager *m, const char *id, uid_t owner, Scope scope, Profile **ret);
Profile *profile_free(Profile *p);

/* -E2BIG when profile_set_property(p, key, …) would add a Metadata entry beyond
 * LIMIT_METADATA_ENTRIES: checked before the value is stored. */
int profile_check_property(const Profile *p, const char *key);
/* Applies a CreateProfile/SetProperty property (colord §4.2). Title is per-user and handled
 * by the caller. *ret_property is the bus property that changed. */
int profile_set_property(Profile *p, const char *key, const char *value, const char **ret_property);

/* Takes the facts parsed from an ICC file (colord §4.4 order: dict merged after properties). */
int profile_apply_icc(Profile *p, const IccInfo *info);

/* A file the daemon registers itself (found in a profile directory, or written by it: a
 * display's EDID profile, a printer's vendor profile): its Filename, the parser's facts, then
 * the daemon's own metadata, key/value pairs ending in NULL, which no client's bound limits. */
int profile_set_file(Profile *p, const char *path, const IccInfo *info, const char *const *metadata);

/* The built-in table of well-known ids (colord §4.5). */
void profile_apply_well_known_id(Profile *p);

bool profile_is_edid(const Profile *p);

int profile_add_holder(Profile *p, Device *d);
void profile_remove_holder(Profile *p, Device *d);

DEFINE_TRIVIAL_CLEANUP_FUNC(Profile *, profile_free);
