/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schema and its forward migrations: one SQL script per version step, each run in one
 * transaction together with the new PRAGMA user_version, so a file is always at one whole
 * version. Every step is tested from every older version (test-store-open.c).
 *
 * Deliberately not here: when to migrate, and the backup made before (store-open.c). */
#include "store-internal.h"

#include <assert.h>

#include "log.h"

/* Forward migrations: entry v takes a file from user_version v to v + 1, in one transaction
 * together with the new user_version. Never edit a released entry; append a new one. */
static const char *const migrations[] = {
        /* 0 → 1: the initial schema. */
        "CREATE TABLE mappings ("
        "        device_id TEXT NOT NULL,"
        "        profile_id TEXT NOT NULL,"
        "        timestamp INTEGER NOT NULL DEFAULT 0," /* µs; 0 = removed by the user */
        "        PRIMARY KEY (device_id, profile_id)"
        ") WITHOUT ROWID, STRICT;"
        "CREATE INDEX mappings_by_profile ON mappings (profile_id, timestamp);"
        /* seq gives insertion order; AUTOINCREMENT so a deleted id's number is never reused. */
        "CREATE TABLE devices ("
        "        seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        "        device_id TEXT NOT NULL UNIQUE"
        ") STRICT;"
        "CREATE TABLE device_properties ("
        "        device_id TEXT NOT NULL REFERENCES devices (device_id) ON DELETE CASCADE,"
        "        key TEXT NOT NULL,"
        "        value TEXT NOT NULL,"
        "        PRIMARY KEY (device_id, key)"
        ") STRICT;"
        /* Per device id whatever the scope, as colord keeps it; not a property (colord §16.7). */
        "CREATE TABLE device_enabled ("
        "        device_id TEXT PRIMARY KEY NOT NULL,"
        "        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1))"
        ") WITHOUT ROWID, STRICT;"
        "CREATE TABLE profile_titles ("
        "        profile_id TEXT NOT NULL,"
        "        uid INTEGER NOT NULL,"
        "        title TEXT NOT NULL,"
        "        PRIMARY KEY (profile_id, uid)"
        ") WITHOUT ROWID, STRICT;"
        "PRAGMA user_version = 1;",

        /* 1 → 2: facts about the store itself (colord import done), and the ICC cache. */
        "CREATE TABLE store_info ("
        "        key TEXT PRIMARY KEY NOT NULL,"
        "        value TEXT NOT NULL"
        ") WITHOUT ROWID, STRICT;"
        /* A rowid table: rows carry metadata blobs, too wide for WITHOUT ROWID. metadata and
         * warnings are string lists, each string NUL-terminated; SQL NULL is a NULL list. */
        "CREATE TABLE profile_cache ("
        "        path TEXT NOT NULL UNIQUE,"
        "        size INTEGER NOT NULL,"
        "        mtime_ns INTEGER NOT NULL,"
        "        inode INTEGER NOT NULL,"
        "        checksum TEXT NOT NULL,"
        "        description TEXT,"
        "        title TEXT,"
        "        copyright TEXT,"
        "        kind TEXT NOT NULL,"
        "        colorspace TEXT NOT NULL,"
        "        has_vcgt INTEGER NOT NULL,"
        "        created INTEGER NOT NULL,"
        "        metadata BLOB,"
        "        warnings BLOB,"
        "        tags_ignored INTEGER NOT NULL DEFAULT 0"
        ") STRICT;"
        "PRAGMA user_version = 2;",

        /* 2 → 3: profiles of scope "disk" (colord refuses them), with the ICC bytes they were
         * created from, so they come back without the client's file. properties: key, value
         * pairs as a string list. */
        "CREATE TABLE disk_profiles ("
        "        seq INTEGER PRIMARY KEY,"
        "        profile_id TEXT NOT NULL UNIQUE,"
        "        owner INTEGER NOT NULL,"
        "        properties BLOB,"
        "        data BLOB"
        ") STRICT;"
        "PRAGMA user_version = 3;",

        /* 3 → 4: the uid that created a disk device, so it comes back with the same owner
         * and path (colord restores every one as root's, which under tinct's ownership
         * rule would lock a user out of their own device). Older rows: root's. */
        "ALTER TABLE devices ADD COLUMN owner INTEGER NOT NULL DEFAULT 0;"
        "PRAGMA user_version = 4;",

        /* 4 → 5: mappings in layers (store.h): owner 0 is the system's, a uid the choices that
         * user made without authorization, on their own temp devices, so that they never
         * replace or hide the system's (docs/compatibility.md row 64). The key changes, so the
         * table is rebuilt; every older row was made before the layers existed and becomes the
         * system's, as it acted for everyone until now. */
        "CREATE TABLE mappings_v5 ("
        "        device_id TEXT NOT NULL,"
        "        profile_id TEXT NOT NULL,"
        "        owner INTEGER NOT NULL DEFAULT 0,"
        "        timestamp INTEGER NOT NULL DEFAULT 0," /* µs; 0 = removed by the user */
        "        PRIMARY KEY (device_id, profile_id, owner)"
        ") WITHOUT ROWID, STRICT;"
        "INSERT INTO mappings_v5 (device_id, profile_id, owner, timestamp) "
        "        SELECT device_id, profile_id, 0, timestamp FROM mappings;"
        "DROP TABLE mappings;" /* and its index */
        "ALTER TABLE mappings_v5 RENAME TO mappings;"
        "CREATE INDEX mappings_by_profile ON mappings (profile_id, timestamp);"
        "PRAGMA user_version = 5;",

        /* 5 → 6: verifications of a device against its profile (`tinct verify`, and the
         * calibration helper's check right after profiling), kept by device id whatever the
         * device's scope: a display is made anew at every start and its Metadata with it
         * (docs/verify.md). In layers as the mappings: owner 0 the system's, a uid those
         * recorded on that user's own devices. when_utc is the ISO 8601 text the client
         * wrote; seq orders rows; the store keeps the newest STORE_VERIFICATIONS_KEPT per
         * device, source and owner. */
        "CREATE TABLE verifications ("
        "        seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        "        device_id TEXT NOT NULL,"
        "        owner INTEGER NOT NULL DEFAULT 0,"
        "        source TEXT NOT NULL CHECK (source IN ('verify', 'calibration')),"
        "        when_utc TEXT NOT NULL,"
        "        mean REAL NOT NULL,"
        "        max REAL NOT NULL,"
        "        patches INTEGER NOT NULL,"
        "        profile_id TEXT NOT NULL"
        ") STRICT;"
        "CREATE INDEX verifications_by_device ON verifications (device_id, source, owner, seq);"
        "PRAGMA user_version = 6;",

        /* 6 → 7: what a user writes without authorization is bounded per uid (tinct-limits.h):
         * their layer's mappings, their titles and their Enabled flags, the oldest going
         * first. seq orders each uid's rows by their last write (the owner's largest + 1);
         * older rows have 0 and go first. Enabled flags come in layers as the mappings
         * (docs/compatibility.md, "Whose choice is stored"): owner 0 the system's, a uid
         * those set on that user's own temp devices, so a user's flag never changes the
         * system's device of the id. The key changes, so the table is rebuilt; every older
         * row becomes the system's, as it acted for everyone until now. */
        "ALTER TABLE mappings ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;"
        "CREATE INDEX mappings_by_owner ON mappings (owner, seq);"
        "ALTER TABLE profile_titles ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;"
        "CREATE INDEX profile_titles_by_uid ON profile_titles (uid, seq);"
        "CREATE TABLE device_enabled_v7 ("
        "        device_id TEXT NOT NULL,"
        "        owner INTEGER NOT NULL DEFAULT 0,"
        "        enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),"
        "        seq INTEGER NOT NULL DEFAULT 0,"
        "        PRIMARY KEY (device_id, owner)"
        ") WITHOUT ROWID, STRICT;"
        "INSERT INTO device_enabled_v7 (device_id, owner, enabled) SELECT device_id, 0, enabled FROM device_enabled;"
        "DROP TABLE device_enabled;"
        "ALTER TABLE device_enabled_v7 RENAME TO device_enabled;"
        "CREATE INDEX device_enabled_by_owner ON device_enabled (owner, seq);"
        "PRAGMA user_version = 7;",
};
_Static_assert(ELEMENTSOF(migrations) == STORE_SCHEMA_VERSION, "one migration per schema version");

/* One step in one transaction. SQLite's message goes into *ret_error (sqlite3_free). */
static int migrate_step(sqlite3 *db, int from, char **ret_error) {
        int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, ret_error);
        if (rc != SQLITE_OK)
                return rc;
        rc = sqlite3_exec(db, migrations[from], NULL, NULL, ret_error);
        if (rc != SQLITE_OK)
                return rc;
        return sqlite3_exec(db, "COMMIT", NULL, NULL, ret_error);
}

int store_migrate(Store *s, int from, int to) {
        assert(s);
        assert(from >= 0 && to <= STORE_SCHEMA_VERSION);

        for (int v = from; v < to; v++) {
                char *err = NULL;
                int rc = migrate_step(s->db, v, &err);
                if (rc != SQLITE_OK) {
                        int r = store_errno(rc) ?: -EIO;
                        log_error_errno(r, "Failed to migrate %s from schema %d to %d: %s", s->db_path, v, v + 1,
                                        err ?: sqlite3_errmsg(s->db));
                        sqlite3_free(err);
                        if (!sqlite3_get_autocommit(s->db))
                                (void) sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
                        return r;
                }
                if (from > 0)
                        log_info("Migrated %s from schema %d to %d.", s->db_path, v, v + 1);
        }
        return 0;
}

int store_schema_version(Store *s) {
        assert(s);
        int v = 0;
        int r = store_db_user_version(s->db, &v);
        if (r < 0)
                return r;
        return v;
}
