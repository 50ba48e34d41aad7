/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profiles of scope "disk": what CreateProfile was given (id, owner, properties, the ICC
 * bytes), so the daemon re-creates them at every start before devices come back. */
#include "store-internal.h"

#include <stdint.h>

#include "strv.h"

int store_disk_profile_add(Store *s, const StoreDiskProfile *p) {
        if (!p || !p->id || strv_length(p->properties) % 2 != 0 || (p->size > 0 && !p->data))
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DISK_PROFILE_ADD, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, p->id);
        if (r >= 0)
                r = store_errno(sqlite3_bind_int64(st, 2, (int64_t) p->owner));
        if (r >= 0)
                r = store_bind_strv(st, 3, p->properties);
        if (r >= 0)
                r = store_errno(p->data ? sqlite3_bind_blob64(st, 4, p->data, p->size, SQLITE_STATIC)
                                        : sqlite3_bind_null(st, 4));
        if (r >= 0)
                r = store_step_done(s, st);
        if (r == -EEXIST || (r < 0 && sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE))
                return -EEXIST;
        return r;
}

int store_disk_profile_remove(Store *s, const char *id) {
        if (!id)
                return -EINVAL;
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DISK_PROFILE_REMOVE, &st);
        if (r >= 0)
                r = store_bind_text(st, 1, id);
        if (r >= 0)
                r = store_step_done(s, st);
        if (r >= 0 && sqlite3_changes(s->db) == 0)
                r = -ENOENT;
        return r;
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

int store_disk_profile_set_property(Store *s, const char *id, const char *key, const char *value) {
        if (!id || !key || !value)
                return -EINVAL;
        StoreOp op;
        int r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **pairs = NULL;
        {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_DISK_PROFILE_GET_PROPERTIES, &st);
                if (r >= 0)
                        r = store_bind_text(st, 1, id);
                if (r >= 0)
                        r = store_step_row(s, st);
                if (r == 0)
                        r = -ENOENT;
                if (r > 0)
                        r = store_column_strv(st, 0, &pairs);
        }
        if (r >= 0)
                r = pairs_set(&pairs, key, value);
        if (r >= 0) {
                _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
                r = store_stmt(s, STMT_DISK_PROFILE_SET_PROPERTIES, &st);
                if (r >= 0)
                        r = store_bind_text(st, 1, id);
                if (r >= 0)
                        r = store_bind_strv(st, 2, pairs);
                if (r >= 0)
                        r = store_step_done(s, st);
        }
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
        if (!(p->id = strdup(id)))
                return -ENOMEM;
        p->owner = (uid_t) owner;
        if (sqlite3_column_type(st, 3) == SQLITE_BLOB) {
                size_t size = (size_t) sqlite3_column_bytes(st, 3);
                const void *data = sqlite3_column_blob(st, 3);
                /* An empty blob is an empty file; keep a non-NULL pointer for it. */
                if (!(p->data = malloc(size ? size : 1)))
                        return -ENOMEM;
                if (size)
                        memcpy(p->data, data, size);
                p->size = size;
        }
        return 0;
}

int store_disk_profile_list(Store *s, StoreDiskProfile **ret, size_t *ret_n) {
        _cleanup_stmt_reset_ sqlite3_stmt *st = NULL;
        int r = store_stmt(s, STMT_DISK_PROFILE_LIST, &st);
        if (r < 0)
                return r;
        StoreDiskProfile *l = NULL;
        size_t n = 0, skipped = 0;
        while ((r = store_step_row(s, st)) > 0) {
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
