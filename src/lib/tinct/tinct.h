/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libtinct: a small C client for the colour management daemon (tinctd, or colord: the bus
 * interface org.freedesktop.ColorManager is the same). It answers the question an
 * application has — which ICC file do I use for this device? — and tells it when the answer
 * may have changed. Everything else of the interface (creating devices, sensors) is left to
 * the bus itself or to libcolord.
 *
 * Errors are negative errno-style values; tinct_strerror() describes the last bus error of a
 * client. Strings returned through ret_* arguments are the caller's, to free(). Functions are
 * not thread-safe: one client per thread. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

#include <stdint.h>

typedef struct TinctClient TinctClient;

/* Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS is honoured). 0 or a negative errno. */
int tinct_client_new(TinctClient **ret);
/* Disconnects; NULL is accepted. Returns NULL. */
TinctClient *tinct_client_free(TinctClient *c);
/* The message of the last failed call ("" when there is none). Valid until the next call. */
const char *tinct_client_last_error(TinctClient *c);

/* A device's object path, by its id ("xrandr-Dell-U2713H-...", "cups-Photo") or by a property
 * (e.g. "XRANDR_name" = "DP-1"). -ENOENT when there is none. */
int tinct_find_device_by_id(TinctClient *c, const char *id, char **ret_path);
int tinct_find_device_by_property(TinctClient *c, const char *key, const char *value, char **ret_path);

/* Object paths of every device of a kind ("display", "printer", ...), NULL-terminated;
 * free with tinct_strv_free(). */
int tinct_get_devices_by_kind(TinctClient *c, const char *kind, char ***ret_paths);
void tinct_strv_free(char **l);

/* A device property by name ("DeviceId", "Model", ...). */
int tinct_device_get_property(TinctClient *c, const char *device_path, const char *name, char **ret_value);

/* The ICC file to use for a device: its default profile, or, with qualifiers (NULL-terminated,
 * e.g. { "RGB.Glossy.600dpi", NULL }), the best match by the daemon's fallback rules.
 * -ENOENT: no profile for it; -ENODATA: the profile has no file (a profile made in memory);
 * -EBUSY: the device is being profiled, use no profile for now. */
int tinct_device_get_profile_filename(TinctClient *c, const char *device_path, const char *const *qualifiers,
                                      char **ret_filename);

/* Called when the answers above may have changed: a device or profile was added, removed
 * or changed (device_path is the device concerned, or NULL for a profile change). */
typedef void (*TinctChangedFunc)(TinctClient *c, const char *device_path, void *userdata);
/* Starts watching; one callback per client (a second call replaces it, NULL stops). */
int tinct_watch(TinctClient *c, TinctChangedFunc func, void *userdata);
/* For a main loop: the fd to poll for input, and the function to call when it is readable
 * (or with timeout_usec to wait here; 0 just dispatches what arrived). Returns > 0 when
 * something was processed, 0 when not, or a negative errno. */
int tinct_client_get_fd(TinctClient *c);
int tinct_client_process(TinctClient *c, uint64_t timeout_usec);

#ifdef __cplusplus
}
#endif
