/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-user profile titles (Profile.Title as each uid set it; colord keeps them per user
 * too). Anyone sets their own on any profile, their own temp ones of ids they choose
 * included, so a uid keeps its LIMIT_TITLES_PER_UID titles set last (root's are not
 * capped): a loop of CreateProfile, Title and DeleteProfile does not grow the store. They
 * are not deleted with the profile: the session registers a user's profiles anew at each
 * login, and their titles come back with them.
 *
 * Deliberately not here: which uid may set one, and the length rule (the daemon's). */
#include "store-internal.h"
#include "tinct-limits.h"

#include <assert.h>

/* seq: the uid's largest + 1, so that a write makes the row the uid's newest (schema 7). */
static const StoreSql sql_set = {
        STMT_TITLE_SET,
        "INSERT INTO profile_titles (profile_id, uid, title, seq) VALUES (?1, ?2, ?3, "
        "(SELECT coalesce(max(seq), 0) + 1 FROM profile_titles WHERE uid = ?2)) "
        "ON CONFLICT (profile_id, uid) DO UPDATE SET title = excluded.title, seq = excluded.seq",
};
/* Everything of a uid but its ?2 titles set last. */
static const StoreSql sql_trim_uid = {
        STMT_TITLE_TRIM_UID,
        "DELETE FROM profile_titles WHERE uid = ?1 AND profile_id NOT IN "
        "(SELECT profile_id FROM profile_titles WHERE uid = ?1 ORDER BY seq DESC LIMIT ?2)",
};
static const StoreSql sql_insert_if_missing = {
        STMT_TITLE_INSERT_IF_MISSING,
        "INSERT INTO profile_titles (profile_id, uid, title) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
};
static const StoreSql sql_get = {
        STMT_TITLE_GET,
        "SELECT title FROM profile_titles WHERE profile_id = ?1 AND uid = ?2",
};

int store_profile_title_set(Store *s, const char *profile_id, uid_t uid, const char *title) {
        assert(profile_id && title);
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = store_exec(s, &sql_set, NULL, ARG_TEXT(profile_id), ARG_INT(uid), ARG_TEXT(title));
        if (r >= 0 && uid != STORE_LAYER_SYSTEM)
                r = store_exec(s, &sql_trim_uid, NULL, ARG_INT(uid), ARG_INT(LIMIT_TITLES_PER_UID));
        return store_op_end(s, &op, r);
}

int store_profile_title_insert_if_missing(Store *s, const char *profile_id, uid_t uid, const char *title) {
        assert(profile_id && title);
        int r = store_exec(s, &sql_insert_if_missing, NULL, ARG_TEXT(profile_id), ARG_INT(uid), ARG_TEXT(title));
        if (r < 0)
                return r;
        return sqlite3_changes(s->db) > 0;
}

int store_profile_title_get(Store *s, const char *profile_id, uid_t uid, char **ret) {
        assert(profile_id && ret);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_get, &st, ARG_TEXT(profile_id), ARG_INT(uid));
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        return store_column_strdup(st, 0, ret);
}
