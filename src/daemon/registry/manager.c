/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The registry's indexes: object paths, per-owner accounting, the lookups by path, id and
 * file name (those that ask a source or the claims are lifetimes.c's), and keeping the
 * profile indexes right when a profile changes. Lookups go through hash maps so cost does
 * not grow with the number of objects. What comes and goes, and the rules it follows, is
 * lifetimes.c's; this file calls nothing of the registry but the device and profile models,
 * so everything else may build on it. */
#include "manager.h"

#include <assert.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "profile.h"

typedef struct OwnerSuffix {
        char key[16];
        char suffix[];
} OwnerSuffix;

/* "_<username>_<uid>" for a non-root owner (colord §1.1). colord dereferences getpwuid()
 * unchecked (colord §16.13); without a passwd entry we use "_<uid>". Cached: user names do
 * not change under a running daemon often enough to matter for object paths. */
static const char *owner_suffix(Manager *m, uid_t owner) {
        char key[16];
        snprintf(key, sizeof key, "%u", (unsigned) owner);
        OwnerSuffix *s = hashmap_get(m->owner_suffixes, key);
        if (s)
                return s->suffix;

        struct passwd pw, *res = NULL;
        char buf[4096], suffix[512];
        if (getpwuid_r(owner, &pw, buf, sizeof buf, &res) == 0 && res)
                snprintf(suffix, sizeof suffix, "_%s_%u", res->pw_name, (unsigned) owner);
        else
                snprintf(suffix, sizeof suffix, "_%u", (unsigned) owner);
        s = malloc(sizeof *s + strlen(suffix) + 1);
        if (!s)
                return NULL;
        memcpy(s->key, key, sizeof key);
        strcpy(s->suffix, suffix);
        if (hashmap_put(m->owner_suffixes, s->key, s) < 0) {
                free(s);
                return NULL;
        }
        return s->suffix;
}

char *manager_object_path(Manager *m, const char *prefix, const char *id, uid_t owner) {
        const char *suffix = "";
        if (owner != 0 && owner != m->daemon_uid && !(suffix = owner_suffix(m, owner)))
                return NULL;

        size_t plen = strlen(prefix), ilen = strlen(id), slen = strlen(suffix);
        char *path = malloc(plen + 1 + ilen + slen + 1);
        if (!path)
                return NULL;
        memcpy(path, prefix, plen);
        path[plen] = '/';
        char *e = path + plen + 1;
        memcpy(e, id, ilen);
        memcpy(e + ilen, suffix, slen + 1);
        names_escape_path_element_in_place(e);
        return path;
}

typedef struct UidCount {
        char key[16];
        unsigned n;
} UidCount;

unsigned manager_objects_of_uid(Manager *m, uid_t uid) {
        char key[16];
        snprintf(key, sizeof key, "%u", (unsigned) uid);
        UidCount *c = hashmap_get(m->uid_counts, key);
        return c ? c->n : 0;
}

void manager_account_object(Manager *m, uid_t uid, int delta) {
        char key[16];
        snprintf(key, sizeof key, "%u", (unsigned) uid);
        UidCount *c = hashmap_get(m->uid_counts, key);
        if (!c) {
                if (delta <= 0 || !(c = calloc(1, sizeof *c)))
                        return;
                memcpy(c->key, key, sizeof key);
                if (hashmap_put(m->uid_counts, c->key, c) < 0) {
                        free(c);
                        return;
                }
        }
        /* Every object is counted once when created and once when freed. */
        assert(delta > 0 || c->n >= (unsigned) -delta);
        c->n += delta;
}

Device *manager_find_device_by_path(Manager *m, const char *path) {
        return hashmap_get(m->devices_by_path, path);
}

Profile *manager_find_profile_by_id(Manager *m, const char *id) {
        return hashmap_get(m->profiles_by_id, id);
}

Profile *manager_find_profile_by_path(Manager *m, const char *path) {
        return hashmap_get(m->profiles_by_path, path);
}

Profile *manager_find_profile_by_filename(Manager *m, const char *filename) {
        if (filename[0] == '/')
                return chain_index_first(&m->profiles_by_filename, filename);
        Profile *p;
        LIST_FOREACH(&m->profiles, p, Profile, link) {
                if (!p->filename)
                        continue;
                const char *base = strrchr(p->filename, '/');
                if (streq(base ? base + 1 : p->filename, filename))
                        return p;
        }
        return NULL;
}

/* The index key is the profile's own copy: Metadata values may be replaced meanwhile. */
int manager_profile_index_target(Manager *m, Profile *p) {
        const char *target = strmap_get(&p->metadata, "MAPPING_device_id");
        if (!target)
                return 0;
        if (!(p->mapping_target = strdup(target)))
                return -ENOMEM;
        return chain_index_add(&m->profiles_by_target, p);
}

void manager_profile_unindex_target(Manager *m, Profile *p) {
        chain_index_remove(&m->profiles_by_target, p);
        p->mapping_target = mfree(p->mapping_target);
}

int manager_profile_set_filename(Manager *m, Profile *p, const char *filename) {
        chain_index_remove(&m->profiles_by_filename, p);
        int r = free_and_strdup(&p->filename, filename);
        int k = chain_index_add(&m->profiles_by_filename, p);
        return r < 0 ? r : k;
}

int manager_profile_set_property(Manager *m, Profile *p, const char *key, const char *value,
                                 const char **ret_property) {
        int r = profile_set_property(p, key, value, ret_property);
        if (r >= 0 && streq(key, "MAPPING_device_id")) {
                manager_profile_unindex_target(m, p);
                r = manager_profile_index_target(m, p);
        }
        return r;
}
