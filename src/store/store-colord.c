/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One-time import of colord's databases (colord §7): mapping.db (mappings_v2, and the legacy
 * mappings table) and storage.db (devices + properties_v2 for disk devices, Enabled rows for
 * any device id, per-user titles in properties_pu).
 *
 * colord's files are opened read-only and never changed. Rows already in our store win, so
 * the import can be repeated safely; it is recorded in store_info and then not repeated.
 * Rows that are not what colord writes (NULL ids, invalid UTF-8, an Enabled value other than
 * True/False, a uid out of range) are skipped and counted, not guessed at. */
#include "store-internal.h"

#include <assert.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "strv.h"

#define COLORD_IMPORT_KEY "colord-import"

typedef struct ImportCounts {
        unsigned mappings, devices, properties, enabled, titles, skipped;
} ImportCounts;

static bool text_ok(const unsigned char *t) {
        return t && utf8_is_valid((const char *) t, strlen((const char *) t));
}

/* A constant query on colord's connection: prepared, used once, finalized. */
static int colord_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **ret) {
        int rc = sqlite3_prepare_v2(db, sql, -1, ret, NULL);
        if (rc != SQLITE_OK)
                log_debug("colord query \"%s\": %s", sql, sqlite3_errmsg(db));
        return store_errno(rc);
}

/* 1 on a row, 0 when done, or a negative errno. */
static int colord_step(sqlite3_stmt *st) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return store_errno(rc);
}

static int colord_has_table(sqlite3 *db, const char *table, const char *column) {
        _cleanup_(store_stmt_finalizep) sqlite3_stmt *st = NULL;
        int r = colord_prepare(db,
                               column ? "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2"
                                      : "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                               &st);
        if (r < 0)
                return r;
        if (column)
                r = store_bind_args(st, (const StoreArg[]) { ARG_TEXT(table), ARG_TEXT(column) }, 2);
        else
                r = store_bind_args(st, (const StoreArg[]) { ARG_TEXT(table) }, 1);
        if (r < 0)
                return r;
        return colord_step(st);
}

static int insert_mapping(Store *s, const unsigned char *device, const unsigned char *profile, int64_t ts,
                          ImportCounts *c) {
        if (!text_ok(device) || !text_ok(profile) || ts < 0) {
                c->skipped++;
                return 0;
        }
        /* colord's mappings are everyone's (colord §16.15): the system's layer. */
        int r = store_mapping_insert_if_missing(s, STORE_LAYER_SYSTEM, (const char *) device, (const char *) profile,
                                                ts);
        if (r < 0)
                return r;
        c->mappings += r;
        return 0;
}

static int import_mapping_rows(Store *s, sqlite3 *db, const char *sql, bool has_timestamp, ImportCounts *c) {
        _cleanup_(store_stmt_finalizep) sqlite3_stmt *st = NULL;
        int r = colord_prepare(db, sql, &st);
        if (r < 0)
                return r;
        while ((r = colord_step(st)) > 0) {
                /* Legacy rows from before colord stored timestamps count as the oldest hard
                 * mappings (1 µs), not as removals (colord's own upgrade would give them 0). */
                int64_t ts = has_timestamp ? sqlite3_column_int64(st, 2) : 1;
                r = insert_mapping(s, sqlite3_column_text(st, 0), sqlite3_column_text(st, 1), ts, c);
                if (r < 0)
                        return r;
        }
        return r;
}

static int import_mapping_db(Store *s, sqlite3 *db, ImportCounts *c) {
        int r = colord_has_table(db, "mappings_v2", NULL);
        if (r < 0)
                return r;
        if (r > 0) {
                r = import_mapping_rows(s, db, "SELECT device, profile, timestamp FROM mappings_v2 ORDER BY rowid",
                                        true, c);
                if (r < 0)
                        return r;
        }
        /* colord empties the legacy table after copying it, but an old file may still hold
         * rows. v2 rows were inserted first and win; among legacy duplicates the newest. */
        r = colord_has_table(db, "mappings", NULL);
        if (r <= 0)
                return r;
        r = colord_has_table(db, "mappings", "timestamp");
        if (r < 0)
                return r;
        if (r > 0)
                return import_mapping_rows(s, db,
                                           "SELECT device, profile, timestamp FROM mappings "
                                           "ORDER BY timestamp DESC, rowid",
                                           true, c);
        return import_mapping_rows(s, db, "SELECT device, profile FROM mappings ORDER BY rowid", false, c);
}

static int import_devices(Store *s, sqlite3 *db, ImportCounts *c) {
        _cleanup_(store_stmt_finalizep) sqlite3_stmt *st = NULL;
        int r = colord_prepare(db, "SELECT device_id FROM devices ORDER BY rowid", &st);
        if (r < 0)
                return r;
        while ((r = colord_step(st)) > 0) {
                const unsigned char *id = sqlite3_column_text(st, 0);
                if (!text_ok(id)) {
                        c->skipped++;
                        continue;
                }
                r = store_device_add(s, (const char *) id);
                if (r == -EEXIST)
                        continue; /* ours wins, including its properties */
                if (r < 0)
                        return r;
                c->devices++;
        }
        return r;
}

static int import_properties(Store *s, sqlite3 *db, bool have_devices, ImportCounts *c) {
        _cleanup_(store_stmt_finalizep) sqlite3_stmt *st = NULL;
        /* Properties of disk devices, plus Enabled rows of any device id (colord §7.2). */
        int r = colord_prepare(db,
                               have_devices
                                       ? "SELECT p.device_id, p.property, p.value, d.device_id IS NOT NULL "
                                         "FROM properties_v2 AS p LEFT JOIN devices AS d ON d.device_id = p.device_id "
                                         "ORDER BY p.rowid"
                                       : "SELECT device_id, property, value, 0 FROM properties_v2 ORDER BY rowid",
                               &st);
        if (r < 0)
                return r;
        while ((r = colord_step(st)) > 0) {
                const unsigned char *id = sqlite3_column_text(st, 0), *key = sqlite3_column_text(st, 1),
                                    *value = sqlite3_column_text(st, 2);
                bool disk = sqlite3_column_int(st, 3) != 0;
                if (!text_ok(id) || !text_ok(key) || !text_ok(value)) {
                        c->skipped++;
                        continue;
                }
                if (streq((const char *) key, "Enabled")) {
                        bool enabled;
                        if (streq((const char *) value, "True"))
                                enabled = true;
                        else if (streq((const char *) value, "False"))
                                enabled = false;
                        else {
                                c->skipped++;
                                continue;
                        }
                        r = store_device_enabled_insert_if_missing(s, STORE_LAYER_SYSTEM, (const char *) id, enabled);
                        if (r < 0)
                                return r;
                        c->enabled += r;
                        continue;
                }
                if (!disk)
                        continue; /* colord never reads these back either */
                /* A key the device already has in our store keeps our value. */
                char **existing = NULL;
                r = store_device_get_properties(s, (const char *) id, &existing);
                if (r < 0)
                        return r;
                bool have = false;
                for (size_t i = 0; existing[i] && existing[i + 1]; i += 2)
                        if (streq(existing[i], (const char *) key))
                                have = true;
                existing = strv_free(existing);
                if (have)
                        continue;
                r = store_device_set_property(s, (const char *) id, (const char *) key, (const char *) value);
                if (r < 0)
                        return r;
                c->properties++;
        }
        return r;
}

static int import_titles(Store *s, sqlite3 *db, ImportCounts *c) {
        _cleanup_(store_stmt_finalizep) sqlite3_stmt *st = NULL;
        int r = colord_prepare(db,
                               "SELECT profile_id, uid, value FROM properties_pu WHERE property = 'Title' "
                               "ORDER BY rowid",
                               &st);
        if (r < 0)
                return r;
        while ((r = colord_step(st)) > 0) {
                const unsigned char *id = sqlite3_column_text(st, 0), *value = sqlite3_column_text(st, 2);
                int64_t uid = sqlite3_column_int64(st, 1);
                if (!text_ok(id) || !text_ok(value) || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
                    uid < 0 || uid >= UINT32_MAX) {
                        c->skipped++;
                        continue;
                }
                r = store_profile_title_insert_if_missing(s, (const char *) id, (uid_t) uid, (const char *) value);
                if (r < 0)
                        return r;
                c->titles += r;
        }
        return r;
}

static int import_storage_db(Store *s, sqlite3 *db, ImportCounts *c) {
        int r = colord_has_table(db, "devices", NULL);
        if (r < 0)
                return r;
        bool have_devices = r > 0;
        if (have_devices) {
                r = import_devices(s, db, c);
                if (r < 0)
                        return r;
        }
        r = colord_has_table(db, "properties_v2", NULL);
        if (r < 0)
                return r;
        if (r > 0) {
                r = import_properties(s, db, have_devices, c);
                if (r < 0)
                        return r;
        }
        r = colord_has_table(db, "properties_pu", NULL);
        if (r < 0)
                return r;
        return r > 0 ? import_titles(s, db, c) : 0;
}

/* Opens one of colord's files. 0 with *ret NULL when it does not exist; a damaged file is
 * logged and skipped (colord itself would delete it). */
static int colord_open(const char *dir, const char *name, sqlite3 **ret) {
        _cleanup_free_ char *path = NULL, *why = NULL;
        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        *ret = NULL;
        struct stat st;
        if (stat(path, &st) < 0)
                return errno == ENOENT ? 0 : log_warning_errno(-errno, "Cannot read colord's %s: %m", path);
        int r = store_db_open_readonly(path, ret, &why);
        if (r == -EBADMSG) {
                log_warning("colord's %s is damaged (%s); not importing it.", path, strempty(why));
                return 0;
        }
        if (r < 0)
                return log_warning_errno(r, "Failed to open colord's %s: %s", path, why ?: strerror(-r));
        return 0;
}

/* Both files (either may be NULL) and the note that records the import, inside the
 * caller's transaction. */
static int import_all(Store *s, sqlite3 *mapping, sqlite3 *storage, const char *colord_dir, char **ret_note) {
        ImportCounts c = {};
        int r;
        if (mapping) {
                r = import_mapping_db(s, mapping, &c);
                if (r < 0)
                        return r;
        }
        if (storage) {
                r = import_storage_db(s, storage, &c);
                if (r < 0)
                        return r;
        }

        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        _cleanup_free_ char *note = NULL;
        if (asprintf(&note,
                     "%s from %s: %u mappings, %u devices, %u properties, %u enabled flags, "
                     "%u titles, %u rows skipped%s",
                     stamp, colord_dir, c.mappings, c.devices, c.properties, c.enabled, c.titles, c.skipped,
                     mapping || storage ? "" : " (no colord databases found)") < 0)
                return -ENOMEM;
        r = store_info_set(s, COLORD_IMPORT_KEY, note);
        if (r < 0)
                return r;
        *ret_note = TAKE_PTR(note);
        return 0;
}

int store_import_colord(Store *s, const char *colord_dir) {
        assert(s);
        assert(colord_dir);
        if (s->read_only_error < 0)
                return s->read_only_error; /* not done: it runs at the first writable start */

        _cleanup_free_ char *done = NULL;
        int r = store_info_get(s, COLORD_IMPORT_KEY, &done);
        if (r >= 0)
                return 0;
        if (r != -ENOENT)
                return r;

        _cleanup_(store_db_closep) sqlite3 *mapping = NULL, *storage = NULL;
        r = colord_open(colord_dir, "mapping.db", &mapping);
        if (r < 0)
                return r; /* not recorded: maybe readable next time */
        r = colord_open(colord_dir, "storage.db", &storage);
        if (r < 0)
                return r;

        _cleanup_free_ char *note = NULL;
        StoreOp op;
        r = store_op_begin(s, true, &op);
        if (r < 0)
                return r;
        r = import_all(s, mapping, storage, colord_dir, &note);
        r = store_op_end(s, &op, r);
        if (r < 0)
                return log_error_errno(r, "Failed to import colord's databases from %s: %m", colord_dir);
        if (mapping || storage)
                log_info("Imported colord's databases: %s", note);
        return 1;
}
