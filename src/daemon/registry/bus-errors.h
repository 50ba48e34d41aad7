/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one place where error conditions become colord's D-Bus error names (colord §1.4).
 * Handlers name a condition and a domain; this table spells the name. */
#pragma once

#include <systemd/sd-bus.h>

typedef enum BusDomain {
        DOMAIN_MANAGER,
        DOMAIN_DEVICE,
        DOMAIN_PROFILE,
        DOMAIN_SENSOR,
} BusDomain;

typedef enum BusErrorCode {
        BUS_ERR_INTERNAL,
        BUS_ERR_ALREADY_EXISTS,        /* manager */
        BUS_ERR_FAILED_TO_AUTHENTICATE,/* every domain */
        BUS_ERR_NOT_SUPPORTED,         /* manager */
        BUS_ERR_NOT_FOUND,             /* manager */
        BUS_ERR_INPUT_INVALID,         /* manager */
        BUS_ERR_FILE_INVALID,          /* manager */
        BUS_ERR_PROFILE_DOES_NOT_EXIST,/* device */
        BUS_ERR_PROFILE_ALREADY_ADDED, /* device */
        BUS_ERR_PROFILING,             /* device */
        BUS_ERR_NOTHING_MATCHED,       /* device */
        BUS_ERR_FAILED_TO_INHIBIT,     /* device */
        BUS_ERR_FAILED_TO_UNINHIBIT,   /* device */
        BUS_ERR_ALREADY_INSTALLED,     /* profile */
        BUS_ERR_FAILED_TO_WRITE,       /* profile */
        BUS_ERR_FAILED_TO_READ,        /* profile */
        BUS_ERR_PROPERTY_INVALID,      /* profile */
        BUS_ERR_FAILED_TO_GET_UID,     /* profile */
        BUS_ERR_NO_SUPPORT,            /* sensor */
        BUS_ERR_NO_DATA,               /* sensor */
        BUS_ERR_ALREADY_LOCKED,        /* sensor */
        BUS_ERR_NOT_LOCKED,            /* sensor */
        BUS_ERR_IN_USE,                /* sensor */
        BUS_ERR_REQUIRED_POSITION_CALIBRATE, /* sensor */
        BUS_ERR_REQUIRED_POSITION_SURFACE,   /* sensor */
        _BUS_ERR_MAX,
} BusErrorCode;

/* Sets *error to the name for (domain, code) with a formatted message and returns a
 * negative errno suitable for returning from an sd-bus handler. */
int bus_error_set(sd_bus_error *error, BusDomain domain, BusErrorCode code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* The D-Bus error name for (domain, code); never NULL. */
const char *bus_error_name(BusDomain domain, BusErrorCode code);
