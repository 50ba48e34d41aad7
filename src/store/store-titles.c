/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-user profile titles (Profile.Title as each uid set it; colord keeps them per user
 * too).
 *
 * Deliberately not here: which uid may set one, and the length rule (the daemon's). */
#include "store-internal.h"

#include <assert.h>

static const StoreSql sql_set = {
        STMT_TITLE_SET,
        "INSERT INTO profile_titles (profile_id, uid, title) VALUES (?1, ?2, ?3) "
        "ON CONFLICT (profile_id, uid) DO UPDATE SET title = excluded.title",
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
        return store_exec(s, &sql_set, NULL, ARG_TEXT(profile_id), ARG_INT(uid), ARG_TEXT(title));
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
