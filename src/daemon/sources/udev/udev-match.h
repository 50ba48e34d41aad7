/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure part of udev discovery: given what udev and sysfs say about one device, decide
 * whether it is a scanner, a camera, a colour sensor or nothing, and what it is called
 * (docs/colord-behaviour.md, "Devices found through udev"). Reading udev's database, the
 * hotplug watches and the bus objects are udev-source.c's and udev.c's; this module only
 * reads the UdevInfo it is handed, so it can be unit-tested without a device. */
#pragma once

#include <stdbool.h>

typedef struct UdevInfo {
        char *syspath;          /* "/sys/devices/...", as the kernel names it */
        char *subsystem;        /* "usb", "video4linux" */
        char *devnode;          /* "/dev/bus/usb/001/005", or NULL */
        char **properties;      /* udev's properties: key, value, key, value, ..., NULL */
        char *device_class;     /* sysfs bDeviceClass, or NULL */
        char *manufacturer;     /* sysfs manufacturer, or NULL */
        char *product;          /* sysfs product, or NULL */
        char *removable;        /* the nearest ancestor's sysfs removable, or NULL */
} UdevInfo;

void udev_info_done(UdevInfo *i);
const char *udev_info_property(const UdevInfo *i, const char *key);
/* Appends one property (copies); -ENOMEM. */
int udev_info_add_property(UdevInfo *i, const char *key, const char *value);

typedef enum UdevMatchType {
        UDEV_MATCH_NONE,
        UDEV_MATCH_DEVICE,      /* a scanner or camera: a Device */
        UDEV_MATCH_SENSOR,      /* a colorimeter: a Sensor */
} UdevMatchType;

typedef struct UdevMatch {
        UdevMatchType type;
        const char *why_not;    /* NONE: why (for the log), static */
        const char *kind;       /* DEVICE: "scanner" or "camera"; SENSOR: the sensor kind. Static. */
        char *device_id;        /* DEVICE only: sysfs[-vendor][-model] */
        char *vendor, *model;   /* cleaned up; DEVICE: NULL when udev has none */
        char *serial;           /* DEVICE: the sysfs path; SENSOR: ID_SERIAL_SHORT or "" */
        char *seat;             /* DEVICE only */
        char **caps;            /* SENSOR only: capability names in colord's enum order */
        bool embedded;
} UdevMatch;

/* Fills ret (type NONE with why_not when the device is none of ours). 0, or -ENOMEM. */
int udev_match(const UdevInfo *i, UdevMatch *ret);
void udev_match_done(UdevMatch *m);

/* "_", CR and LF become spaces, trailing blanks go. */
char *udev_clean_name(const char *s);
/* A sensor kind colord knows (libcolord's string table), other than "unknown". */
bool udev_sensor_kind_valid(const char *kind);
/* The capabilities of a space-separated COLORD_SENSOR_CAPS value, known ones only, each
 * once, in enum order. NULL on -ENOMEM only (an empty list is a strv with no entry). */
char **udev_sensor_caps_parse(const char *value);
