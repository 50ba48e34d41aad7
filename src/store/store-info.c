/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store_info table: small key/value facts about the store itself (that colord's
 * databases were imported, and when). Exported and imported with the rest.
 *
 * Deliberately not here: the schema version, which is SQLite's user_version (store-migrate.c). */
#include "store-internal.h"

#include <assert.h>

static const StoreSql sql_set = {
        STMT_INFO_SET,
        "INSERT INTO store_info (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
};
static const StoreSql sql_get = { STMT_INFO_GET, "SELECT value FROM store_info WHERE key = ?1" };

int store_info_set(Store *s, const char *key, const char *value) {
        assert(key && value);
        return store_exec(s, &sql_set, NULL, ARG_TEXT(key), ARG_TEXT(value));
}

int store_info_get(Store *s, const char *key, char **ret) {
        assert(key && ret);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_exec(s, &sql_get, &st, ARG_TEXT(key));
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        return store_column_strdup(st, 0, ret);
}
