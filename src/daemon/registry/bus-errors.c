/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus-errors.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cm-names.h"
#include "macro.h"

/* Every condition's name in one domain; the four tables below are constant, so an error
 * can point at its name with no table built at run time. */
#define NAMES_IN(domain)                                                                            \
        {                                                                                           \
                [BUS_ERR_INTERNAL] = domain "Internal",                                             \
                [BUS_ERR_ALREADY_EXISTS] = domain "AlreadyExists",                                  \
                [BUS_ERR_FAILED_TO_AUTHENTICATE] = domain "FailedToAuthenticate",                   \
                [BUS_ERR_NOT_SUPPORTED] = domain "NotSupported",                                    \
                [BUS_ERR_NOT_FOUND] = domain "NotFound",                                            \
                [BUS_ERR_INPUT_INVALID] = domain "InputInvalid",                                    \
                [BUS_ERR_FILE_INVALID] = domain "FileInvalid",                                      \
                [BUS_ERR_PROFILE_DOES_NOT_EXIST] = domain "ProfileDoesNotExist",                    \
                [BUS_ERR_PROFILE_ALREADY_ADDED] = domain "ProfileAlreadyAdded",                     \
                [BUS_ERR_PROFILING] = domain "Profiling",                                           \
                [BUS_ERR_NOTHING_MATCHED] = domain "NothingMatched",                                \
                [BUS_ERR_FAILED_TO_INHIBIT] = domain "FailedToInhibit",                             \
                [BUS_ERR_FAILED_TO_UNINHIBIT] = domain "FailedToUninhibit",                         \
                [BUS_ERR_ALREADY_INSTALLED] = domain "AlreadyInstalled",                            \
                [BUS_ERR_FAILED_TO_WRITE] = domain "FailedToWrite",                                 \
                [BUS_ERR_FAILED_TO_READ] = domain "FailedToRead",                                   \
                [BUS_ERR_PROPERTY_INVALID] = domain "PropertyInvalid",                              \
                [BUS_ERR_FAILED_TO_GET_UID] = domain "FailedToGetUid",                              \
                [BUS_ERR_NO_SUPPORT] = domain "NoSupport",                                          \
                [BUS_ERR_NO_DATA] = domain "NoData",                                                \
                [BUS_ERR_ALREADY_LOCKED] = domain "AlreadyLocked",                                  \
                [BUS_ERR_NOT_LOCKED] = domain "NotLocked",                                          \
                [BUS_ERR_IN_USE] = domain "InUse",                                                  \
                [BUS_ERR_REQUIRED_POSITION_CALIBRATE] = domain "RequiredPositionCalibrate",         \
                [BUS_ERR_REQUIRED_POSITION_SURFACE] = domain "RequiredPositionSurface",             \
        }

static const char *const names[][_BUS_ERR_MAX] = {
        [DOMAIN_MANAGER] = NAMES_IN(CM_IFACE "."),
        [DOMAIN_DEVICE] = NAMES_IN(CM_DEVICE_IFACE "."),
        [DOMAIN_PROFILE] = NAMES_IN(CM_PROFILE_IFACE "."),
        [DOMAIN_SENSOR] = NAMES_IN(CM_SENSOR_IFACE "."),
};

const char *bus_error_name(BusDomain domain, BusErrorCode code) {
        assert((size_t) domain < ELEMENTSOF(names) && code < _BUS_ERR_MAX && names[domain][code]);
        return names[domain][code];
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
