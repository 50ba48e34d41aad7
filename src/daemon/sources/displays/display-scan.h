/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of display discovery: connector names, which connectors are built-in
 * panels, the device id each connected display gets (identical monitors made distinct),
 * and the diff between two scans. The sysfs reading, the inotify and udev watches and the
 * bus objects are display.c's; an event there only says "something changed", and this
 * module says what (as file-diff.h does for profile directories).
 *
 * Connector names: the kernel names a DRM connector in sysfs "card<N>-<type>-<index>", e.g.
 * card0-DP-1, card0-eDP-1, card1-HDMI-A-2. The XRANDR_name we publish is that name without
 * the "card<N>-" prefix (DP-1, eDP-1, HDMI-A-2): the spelling of mutter's and KWin's
 * connector names and of X's modesetting driver for DP/eDP/DVI/VGA/LVDS (X spells HDMI-A as
 * "HDMI", other drivers drop the dash: see docs/compatibility.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct DisplayConnector {
        char *sysfs_name;       /* "card0-DP-1" */
        char *xrandr_name;      /* "DP-1" */
        char *plain_id;         /* xrandr-<vendor>-<model>-<serial> (colord §9.4), set by the caller */
        char md5[33];           /* of the raw EDID */
        uint8_t *edid;          /* the raw EDID bytes */
        size_t edid_size;

        /* Set by display_list_assign_ids(). */
        char *id;               /* plain_id, or plain_id-<xrandr_name> when not unique */
        bool alias;             /* the first of a group of identical ids: plain_id resolves here */

        /* The caller's, carried along untouched (display.c: the device and profile). */
        void *device;
        char *profile_id;
} DisplayConnector;

typedef struct DisplayList {
        DisplayConnector *items;
        size_t n;
} DisplayList;

/* "card0-DP-1" → "DP-1". -EINVAL when the name is not card<digits>-<something>, which
 * is how the card directories themselves (card0) and other entries (version) are told apart. */
int display_xrandr_name(const char *sysfs_name, char **ret);
/* eDP, LVDS and DSI connectors are built-in panels (Embedded, colord §3.3). */
bool display_is_embedded(const char *xrandr_name);

/* Takes ownership of the strings and the EDID buffer (freed even on failure). */
int display_list_add(DisplayList *l, char *sysfs_name, char *xrandr_name, char *plain_id,
                     const char md5[33], uint8_t *edid, size_t edid_size);
void display_list_clear(DisplayList *l);
/* Orders by connector name, numbers compared as numbers (DP-2 before DP-10). */
void display_list_sort(DisplayList *l);
/* Gives each connector its id. A plain id that only one connector has is used as is; when
 * several connectors have the same one (identical monitors), each gets the connector name
 * appended ("<plain>-DP-2"; the sysfs name when even that repeats, across two cards) and the
 * first in connector order is marked as the plain id's alias. The result depends only on
 * the set of connected connectors, not on the order they were plugged in. List sorted. */
int display_list_assign_ids(DisplayList *l);

typedef enum DisplayChange {
        DISPLAY_ADDED,
        DISPLAY_REMOVED,
        DISPLAY_CHANGED,        /* other EDID, or another id (a twin came or went) */
        DISPLAY_SAME,
} DisplayChange;

/* Calls cb for every connector of either sorted list, in connector order: `before` is NULL
 * for DISPLAY_ADDED, `after` NULL for DISPLAY_REMOVED. */
void display_list_diff(const DisplayList *before, DisplayList *after,
                       void (*cb)(DisplayChange change, DisplayConnector *before, DisplayConnector *after,
                                  void *userdata),
                       void *userdata);
