/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verification results between a device's Metadata and the store (device-verify.h). */
#include "device-verify.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "log.h"
#include "macro.h"
#include "store.h"
#include "tinct-limits.h"
#include "verify-keys.h"

typedef struct VerifySource {
        const char *prefix; /* of the Metadata keys */
        const char *source; /* the store's name */
} VerifySource;

static const VerifySource sources[] = {
        { VERIFY_KEYS_LAST, STORE_VERIFICATION_VERIFY },
        { VERIFY_KEYS_PROFILED, STORE_VERIFICATION_CALIBRATION },
};

/* The source whose prefix key starts with, and the rest of the key; NULL for other keys. */
static const VerifySource *source_of(const char *key, const char **ret_suffix) {
        for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                if (strncmp(key, sources[i].prefix, strlen(sources[i].prefix)) == 0) {
                        *ret_suffix = key + strlen(sources[i].prefix);
                        return &sources[i];
                }
        return NULL;
}


static const char *get(const Device *d, const VerifySource *s, const char *suffix) {
        char key[64];
        snprintf(key, sizeof key, "%s%s", s->prefix, suffix);
        return strmap_get(&d->metadata, key);
}

static bool parse_figure(const char *text, double *ret) {
        char *end;
        if (!text)
                return false;
        errno = 0;
        *ret = strtod(text, &end);
        return errno == 0 && end != text && *end == '\0' && isfinite(*ret) && *ret >= 0.0;
}

static bool parse_count(const char *text, unsigned *ret) {
        char *end;
        if (!text || !(*text >= '0' && *text <= '9'))
                return false;
        errno = 0;
        unsigned long v = strtoul(text, &end, 10);
        if (errno != 0 || *end != '\0' || v > UINT32_MAX)
                return false;
        *ret = (unsigned) v;
        return true;
}

int device_verify_record(Device *d, const char *key, const char *value, sd_bus_error *error) {
        const char *suffix;
        const VerifySource *s = source_of(key, &suffix);
        Store *store = d->manager->store;

        if (!s || !store)
                return 0;
        /* Refused at the first key, before anything of the result changed on the device. */
        if (store_is_read_only(store))
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL,
                                     "failed to save the verification %s: the store is read-only: %s", key,
                                     strerror(-store_read_only_error(store)));
        if (!streq(suffix, VERIFY_KEY_DATE))
                return 0;

        StoreVerification v = {
                .source = (char *) s->source,
                .when = (char *) value,
                .profile_id = (char *) get(d, s, VERIFY_KEY_PROFILE),
        };
        if (!parse_figure(get(d, s, VERIFY_KEY_MEAN), &v.mean) || !parse_figure(get(d, s, VERIFY_KEY_MAX), &v.max) ||
            !parse_count(get(d, s, VERIFY_KEY_PATCHES), &v.patches) || !v.profile_id) {
                log_notice("Device %s: %s set without a whole result before it; not recorded as a verification",
                           d->id, key);
                return 0;
        }
        int r = store_verification_add(store, device_mapping_layer(d), d->id, &v);
        if (r == -EINVAL) {
                log_notice("Device %s: %s is not an ISO 8601 UTC time (%s); not recorded as a verification", d->id,
                           key, value);
                return 0;
        }
        if (r < 0)
                return bus_error_set(error, DOMAIN_MANAGER, BUS_ERR_INTERNAL, "failed to save the verification %s: %s",
                                     key, strerror(-r));
        log_debug("Device %s: verification of %s recorded (%s, mean %.3f)", d->id, v.when, v.source, v.mean);
        return 0;
}

static int set_missing(Device *d, const VerifySource *s, const char *suffix, const char *value) {
        char key[64];
        snprintf(key, sizeof key, "%s%s", s->prefix, suffix);
        if (strmap_get(&d->metadata, key) || d->metadata.n >= LIMIT_METADATA_ENTRIES)
                return 0;
        return strmap_set(&d->metadata, key, value);
}

static int restore_one(Device *d, const VerifySource *s) {
        StoreVerification *l = NULL;
        size_t n = 0;
        char mean[32], max[32], patches[16];

        int r = store_verification_list(d->manager->store, device_mapping_layer(d), d->id, s->source, &l, &n);
        if (r < 0 || n == 0)
                return r;
        /* As the clients write them (display_verify_record()). */
        snprintf(mean, sizeof mean, "%.3f", l[0].mean);
        snprintf(max, sizeof max, "%.3f", l[0].max);
        snprintf(patches, sizeof patches, "%u", l[0].patches);
        r = set_missing(d, s, VERIFY_KEY_MEAN, mean);
        if (r >= 0)
                r = set_missing(d, s, VERIFY_KEY_MAX, max);
        if (r >= 0)
                r = set_missing(d, s, VERIFY_KEY_PROFILE, l[0].profile_id);
        if (r >= 0)
                r = set_missing(d, s, VERIFY_KEY_PATCHES, patches);
        if (r >= 0)
                r = set_missing(d, s, VERIFY_KEY_DATE, l[0].when);
        store_verifications_free(l, n);
        return r;
}

void device_verify_restore(Device *d) {
        if (!d->manager->store)
                return;
        for (size_t i = 0; i < ELEMENTSOF(sources); i++) {
                int r = restore_one(d, &sources[i]);
                if (r < 0)
                        log_warning_errno(r, "Device %s: cannot restore its stored verification (%s): %m", d->id,
                                          sources[i].source);
        }
}
