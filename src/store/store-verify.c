/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verifications of a device against its profile (docs/verify.md): one row per result, the
 * newest STORE_VERIFICATIONS_KEPT per device and source, so that a display made anew at
 * every start gets its last results back and doctor's drift has its history. A user
 * records on their own temp devices without authorization, under ids of their choosing,
 * so a user's layer keeps its LIMIT_VERIFIED_DEVICES_PER_UID devices verified last: the
 * store does not grow with a loop of CreateDevice, results and DeleteDevice.
 *
 * Deliberately not here: which client may record one and when (the daemon's
 * device-verify.c), what the figures mean (display-verify.c). */
#include "store-internal.h"
#include "tinct-limits.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const StoreSql sql_add = {
        STMT_VERIFICATION_ADD,
        "INSERT INTO verifications (device_id, owner, source, when_utc, mean, max, patches, profile_id) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
};
/* Everything of the device, layer and source but the newest ?4 rows. */
static const StoreSql sql_trim = {
        STMT_VERIFICATION_TRIM,
        "DELETE FROM verifications WHERE device_id = ?1 AND owner = ?2 AND source = ?3 AND seq NOT IN "
        "(SELECT seq FROM verifications WHERE device_id = ?1 AND owner = ?2 AND source = ?3 "
        "ORDER BY seq DESC LIMIT ?4)",
};
/* A user's layer: everything of its devices but the ?2 whose newest result is newest. */
static const StoreSql sql_trim_layer = {
        STMT_VERIFICATION_TRIM_LAYER,
        "DELETE FROM verifications WHERE owner = ?1 AND device_id NOT IN "
        "(SELECT device_id FROM verifications WHERE owner = ?1 GROUP BY device_id ORDER BY MAX(seq) DESC LIMIT ?2)",
};
static const StoreSql sql_list = {
        STMT_VERIFICATION_LIST,
        "SELECT source, when_utc, mean, max, patches, profile_id FROM verifications "
        "WHERE device_id = ?1 AND (owner = ?2 OR owner = 0) AND (?3 IS NULL OR source = ?3) ORDER BY seq DESC",
};

static bool source_is_valid(const char *source) {
        return source && (streq(source, STORE_VERIFICATION_VERIFY) || streq(source, STORE_VERIFICATION_CALIBRATION));
}

/* "YYYY-MM-DDTHH:MM:SSZ", as display_verify_format_time() writes it. */
static bool when_is_valid(const char *when) {
        static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
        if (!when || strlen(when) != strlen(pattern))
                return false;
        for (size_t i = 0; pattern[i]; i++)
                if (pattern[i] == 'd' ? !(when[i] >= '0' && when[i] <= '9') : when[i] != pattern[i])
                        return false;
        return true;
}

static bool figure_is_valid(double v) {
        return isfinite(v) && v >= 0.0;
}

int store_verification_add(Store *s, uid_t layer, const char *device_id, const StoreVerification *v) {
        assert(device_id && v);
        if (!source_is_valid(v->source) || !when_is_valid(v->when) || !figure_is_valid(v->mean) ||
            !figure_is_valid(v->max) || !v->profile_id)
                return -EINVAL;

        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = store_exec(s, &sql_add, NULL, ARG_TEXT(device_id), ARG_INT(layer), ARG_TEXT(v->source), ARG_TEXT(v->when),
                       ARG_REAL(v->mean),
                       ARG_REAL(v->max), ARG_INT(v->patches),
                       ARG_TEXT(v->profile_id));
        if (r >= 0)
                r = store_exec(s, &sql_trim, NULL, ARG_TEXT(device_id), ARG_INT(layer), ARG_TEXT(v->source),
                               ARG_INT(STORE_VERIFICATIONS_KEPT));
        if (r >= 0 && layer != STORE_LAYER_SYSTEM)
                r = store_exec(s, &sql_trim_layer, NULL, ARG_INT(layer), ARG_INT(LIMIT_VERIFIED_DEVICES_PER_UID));
        return store_op_end(s, &op, r);
}

static void verification_clear(StoreVerification *v) {
        free(v->source);
        free(v->when);
        free(v->profile_id);
}

void store_verifications_free(StoreVerification *l, size_t n) {
        for (size_t i = 0; i < n; i++)
                verification_clear(&l[i]);
        free(l);
}

static int read_row(sqlite3_stmt *st, StoreVerification *ret) {
        int r = store_column_strdup(st, 0, &ret->source);
        if (r >= 0)
                r = store_column_strdup(st, 1, &ret->when);
        if (r >= 0)
                r = store_column_strdup(st, 5, &ret->profile_id);
        if (r < 0)
                return r;
        ret->mean = sqlite3_column_double(st, 2);
        ret->max = sqlite3_column_double(st, 3);
        int64_t patches = sqlite3_column_int64(st, 4);
        ret->patches = patches < 0 || patches > UINT32_MAX ? 0 : (unsigned) patches;
        return 0;
}

int store_verification_list(Store *s, uid_t layer, const char *device_id, const char *source,
                            StoreVerification **ret, size_t *ret_n) {
        assert(device_id && ret && ret_n);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        StoreVerification *l = NULL;
        size_t n = 0;
        int r;

        for (r = store_exec(s, &sql_list, &st, ARG_TEXT(device_id), ARG_INT(layer), ARG_TEXT(source)); r > 0;
             r = store_step(s, st)) {
                StoreVerification *t = realloc(l, (n + 1) * sizeof *l);
                if (!t) {
                        r = -ENOMEM;
                        break;
                }
                l = t;
                l[n] = (StoreVerification) { 0 };
                r = read_row(st, &l[n]);
                if (r < 0) {
                        verification_clear(&l[n]);
                        break;
                }
                n++;
        }
        if (r < 0) {
                store_verifications_free(l, n);
                return r;
        }
        *ret = l;
        *ret_n = n;
        return 0;
}
