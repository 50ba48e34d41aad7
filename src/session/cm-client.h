/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-session's side of the system bus: the connection, whether the colour daemon
 * (org.freedesktop.ColorManager: tinctd, or colord) is there, and the few calls the helper
 * makes of it, each a small synchronous function.
 *
 * The daemon's presence is followed through NameOwnerChanged: when it starts (or restarts)
 * every watcher is told, so the temp objects a restarted daemon forgot are made again; when
 * it goes, the watchers forget their object paths. The calls are synchronous on purpose:
 * the daemon answers from its own loop without ever calling us, and the session has
 * nothing more urgent to do meanwhile. Not here: what is registered (user-profiles.c,
 * x11.c) and the session bus (session-bus.c). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "cm-names.h"
#include "macro.h"

typedef struct CmClient CmClient;

/* present: the daemon has (again) a bus name owner; false: it has gone. */
typedef void (*CmPresenceFn)(bool present, void *userdata);

/* Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS when set) and attaches it to event. */
int cm_client_new(sd_event *event, CmClient **ret);
CmClient *cm_client_free(CmClient *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(CmClient *, cm_client_free);

sd_bus *cm_client_bus(CmClient *c);
bool cm_client_daemon_present(const CmClient *c);
/* At most a few watchers (CM_MAX_WATCHERS); called in the order added. */
#define CM_MAX_WATCHERS 4
int cm_client_add_presence_watch(CmClient *c, CmPresenceFn fn, void *userdata);
/* Looks whether the daemon runs (a Ping, which activates it where it is activatable) and
 * starts following its name. Returns whether it is present; its absence is not an error. */
bool cm_client_start(CmClient *c);

/* The daemon's error name ends in ".<suffix>" (org.freedesktop.ColorManager.AlreadyExists). */
bool cm_error_is(const sd_bus_error *e, const char *suffix);

/* CreateProfileWithFd(id, "temp", fd, {Filename, FILE_checksum}) (colord §8.5). */
int cm_create_profile_fd(CmClient *c, const char *id, int fd, const char *filename, const char *checksum,
                         char **ret_path, sd_bus_error *error);
int cm_delete_profile(CmClient *c, const char *path, sd_bus_error *error);
/* props: key, value, ..., NULL. */
int cm_create_device(CmClient *c, const char *id, char *const *props, char **ret_path, sd_bus_error *error);
int cm_delete_device(CmClient *c, const char *path, sd_bus_error *error);
int cm_find_device_by_id(CmClient *c, const char *id, char **ret_path, sd_bus_error *error);

/* A device's default profile (the first of Profiles; *ret_profile NULL when it has none) and
 * whether anyone inhibits profiling of it (ProfilingInhibitors not empty). */
int cm_device_state(CmClient *c, const char *device, char **ret_profile, bool *ret_inhibited);
/* A profile's Filename; *ret NULL when it has none. */
int cm_profile_filename(CmClient *c, const char *profile, char **ret);
