/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cm-names.h"

#define CM CM_IFACE "."

static const char *const prefix[] = {
        [DOMAIN_MANAGER] = CM,
        [DOMAIN_DEVICE] = CM "Device.",
        [DOMAIN_PROFILE] = CM "Profile.",
        [DOMAIN_SENSOR] = CM "Sensor.",
};

static const char *const suffix[_BUS_ERR_MAX] = {
        [BUS_ERR_INTERNAL] = "Internal",
        [BUS_ERR_ALREADY_EXISTS] = "AlreadyExists",
        [BUS_ERR_FAILED_TO_AUTHENTICATE] = "FailedToAuthenticate",
        [BUS_ERR_NOT_SUPPORTED] = "NotSupported",
        [BUS_ERR_NOT_FOUND] = "NotFound",
        [BUS_ERR_INPUT_INVALID] = "InputInvalid",
        [BUS_ERR_FILE_INVALID] = "FileInvalid",
        [BUS_ERR_PROFILE_DOES_NOT_EXIST] = "ProfileDoesNotExist",
        [BUS_ERR_PROFILE_ALREADY_ADDED] = "ProfileAlreadyAdded",
        [BUS_ERR_PROFILING] = "Profiling",
        [BUS_ERR_NOTHING_MATCHED] = "NothingMatched",
        [BUS_ERR_FAILED_TO_INHIBIT] = "FailedToInhibit",
        [BUS_ERR_FAILED_TO_UNINHIBIT] = "FailedToUninhibit",
        [BUS_ERR_ALREADY_INSTALLED] = "AlreadyInstalled",
        [BUS_ERR_FAILED_TO_WRITE] = "FailedToWrite",
        [BUS_ERR_FAILED_TO_READ] = "FailedToRead",
        [BUS_ERR_PROPERTY_INVALID] = "PropertyInvalid",
        [BUS_ERR_FAILED_TO_GET_UID] = "FailedToGetUid",
        [BUS_ERR_NO_SUPPORT] = "NoSupport",
        [BUS_ERR_NO_DATA] = "NoData",
        [BUS_ERR_ALREADY_LOCKED] = "AlreadyLocked",
        [BUS_ERR_NOT_LOCKED] = "NotLocked",
        [BUS_ERR_IN_USE] = "InUse",
        [BUS_ERR_REQUIRED_POSITION_CALIBRATE] = "RequiredPositionCalibrate",
        [BUS_ERR_REQUIRED_POSITION_SURFACE] = "RequiredPositionSurface",
};

/* Built once: every (domain, code) name as one string, so bus errors can point at it. */
static char names[4][_BUS_ERR_MAX][96];

const char *bus_error_name(BusDomain domain, BusErrorCode code) {
        char *n = names[domain][code];
        if (!n[0])
                snprintf(n, sizeof names[0][0], "%s%s", prefix[domain], suffix[code]);
        return n;
}

int bus_error_set(sd_bus_error *error, BusDomain domain, BusErrorCode code, const char *fmt, ...) {
        char msg[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        sd_bus_error_set(error, bus_error_name(domain, code), msg);
        return -EIO;
}
