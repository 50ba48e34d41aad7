/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profiles of scope "disk": what CreateProfile was given (id, owner, properties, the ICC
 * bytes), so the daemon re-creates them at every start before devices come back. */
#include "store-internal.h"

#include <assert.h>
#include <stdint.h>

#include "strv.h"

static const StoreSql sql_add = {
        STMT_DISK_PROFILE_ADD,
        "INSERT INTO disk_profiles (profile_id, owner, properties, data) VALUES (?1, ?2, ?3, ?4)",
};
static const StoreSql sql_remove = { STMT_DISK_PROFILE_REMOVE, "DELETE FROM disk_profiles WHERE profile_id = ?1" };
static const StoreSql sql_list = {
        STMT_DISK_PROFILE_LIST,
        "SELECT profile_id, owner, properties, data FROM disk_profiles ORDER BY seq",
};
static const StoreSql sql_get_properties = {
        STMT_DISK_PROFILE_GET_PROPERTIES,
        "SELECT properties FROM disk_profiles WHERE profile_id = ?1",
};
static const StoreSql sql_set_properties = {
        STMT_DISK_PROFILE_SET_PROPERTIES,
        "UPDATE disk_profiles SET properties = ?2 WHERE profile_id = ?1",
};

int store_disk_profile_add(Store *s, const StoreDiskProfile *p) {
        assert(p && p->id);
        assert(strv_length(p->properties) % 2 == 0);
        assert(p->size == 0 || p->data);
        int r = store_exec(s, &sql_add, NULL, ARG_TEXT(p->id), ARG_INT(p->owner), ARG_STRV(p->properties),
                           ARG_BLOB(p->data, p->size));
        if (r == -EEXIST || (r < 0 && sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE))
                return -EEXIST;
        return r;
}

int store_disk_profile_remove(Store *s, const char *id) {
        assert(id);
        int r = store_exec(s, &sql_remove, NULL, ARG_TEXT(id));
        if (r < 0)
                return r;
        return sqlite3_changes(s->db) > 0 ? 0 : -ENOENT;
}

/* Replaces or appends key in a key, value, ... list. */
static int pairs_set(char ***pairs, const char *key, const char *value) {
        for (char **k = *pairs; k && k[0] && k[1]; k += 2)
                if (streq(k[0], key))
                        return free_and_strdup(&k[1], value);
        int r = strv_extend(pairs, key);
        if (r < 0)
                return r;
        return strv_extend(pairs, value);
}

/* Read, change, write back, inside the caller's transaction. */
static int properties_update(Store *s, const char *id, const char *key, const char *value) {
        _cleanup_strv_free_ char **pairs = NULL;
        {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                int r = store_exec(s, &sql_get_properties, &st, ARG_TEXT(id));
                if (r < 0)
                        return r;
                if (r == 0)
                        return -ENOENT;
                r = store_column_strv(st, 0, &pairs);
                if (r < 0)
                        return r;
        }
        int r = pairs_set(&pairs, key, value);
        if (r < 0)
                return r;
        return store_exec(s, &sql_set_properties, NULL, ARG_TEXT(id), ARG_STRV(pairs));
}

int store_disk_profile_set_property(Store *s, const char *id, const char *key, const char *value) {
        assert(id && key && value);
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = properties_update(s, id, key, value);
        return store_op_end(s, &op, r);
}

static void disk_profile_clear(StoreDiskProfile *p) {
        free(p->id);
        strv_free(p->properties);
        free(p->data);
        *p = (StoreDiskProfile) { 0 };
}

void store_disk_profiles_free(StoreDiskProfile *l, size_t n) {
        for (size_t i = 0; l && i < n; i++)
                disk_profile_clear(&l[i]);
        free(l);
}

static int read_row(sqlite3_stmt *st, StoreDiskProfile *p) {
        const char *id = (const char *) sqlite3_column_text(st, 0);
        int64_t owner = sqlite3_column_int64(st, 1);
        if (!id || !utf8_is_valid(id, strlen(id)) || owner < 0 || owner > UINT32_MAX)
                return -EBADMSG;
        int r = store_column_strv(st, 2, &p->properties);
        if (r < 0)
                return r;
        if (strv_length(p->properties) % 2 != 0)
                return -EBADMSG;
        p->id = strdup(id);
        if (!p->id)
                return -ENOMEM;
        p->owner = (uid_t) owner;
        if (sqlite3_column_type(st, 3) == SQLITE_BLOB) {
                size_t size = (size_t) sqlite3_column_bytes(st, 3);
                const void *data = sqlite3_column_blob(st, 3);
                /* An empty blob is an empty file; keep a non-NULL pointer for it. */
                p->data = malloc(size ? size : 1);
                if (!p->data)
                        return -ENOMEM;
                if (size)
                        memcpy(p->data, data, size);
                p->size = size;
        }
        return 0;
}

int store_disk_profile_list(Store *s, StoreDiskProfile **ret, size_t *ret_n) {
        assert(ret && ret_n);
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        StoreDiskProfile *l = NULL;
        size_t n = 0, skipped = 0;
        int r;
        for (r = store_exec(s, &sql_list, &st); r > 0; r = store_step(s, st)) {
                StoreDiskProfile *t = realloc(l, (n + 1) * sizeof *l);
                if (!t) {
                        r = -ENOMEM;
                        break;
                }
                l = t;
                l[n] = (StoreDiskProfile) { 0 };
                int k = read_row(st, &l[n]);
                if (k < 0)
                        disk_profile_clear(&l[n]);
                if (k == -ENOMEM) {
                        r = k;
                        break;
                }
                if (k < 0) {
                        skipped++; /* a damaged row loses that profile, not the others */
                        continue;
                }
                n++;
        }
        if (r < 0) {
                store_disk_profiles_free(l, n);
                return r;
        }
        *ret = l;
        *ret_n = n;
        return skipped > INT32_MAX ? INT32_MAX : (int) skipped;
}
