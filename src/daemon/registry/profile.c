/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Profile state: properties, ICC facts, standard-space knowledge, and the back-references
 * to devices that hold it. Signals are the caller's job. */
#include <assert.h>
#include "profile.h"

#include <stdlib.h>
#include <string.h>

#include "names.h"

int profile_new(Manager *m, const char *id, uid_t owner, Scope scope, Profile **ret) {
        Profile *p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        p->manager = m;
        p->owner = owner;
        p->scope = scope;
        p->kind = "unknown";
        p->colorspace = "unknown";
        p->score = 1;
        p->id = strdup(id);
        p->path = manager_object_path(m, PROFILE_PATH_PREFIX, id, owner);
        p->warnings = calloc(1, sizeof(char *));
        if (!p->id || !p->path || !p->warnings) {
                profile_free(p);
                return -ENOMEM;
        }
        *ret = p;
        return 0;
}

Profile *profile_free(Profile *p) {
        if (!p)
                return NULL;
        free(p->id);
        free(p->path);
        free(p->creator);
        free(p->filename);
        free(p->mapping_target);
        free(p->qualifier);
        free(p->format);
        free(p->title);
        strmap_clear(&p->metadata);
        strv_free(p->warnings);
        free(p->data);
        free(p->holders);
        free(p);
        return NULL;
}

static int set_copy(char **field, const char *value) {
        return free_and_strdup(field, value);
}

static int set_metadata(Profile *p, const char *key, const char *value) {
        if (!strmap_get(&p->metadata, key) && p->metadata.n >= LIMIT_METADATA_ENTRIES)
                return -E2BIG;
        return strmap_set(&p->metadata, key, value);
}

int profile_check_property(const Profile *p, const char *key) {
        if (streq(key, "Filename") || streq(key, "Qualifier") || streq(key, "Format") || streq(key, "Colorspace"))
                return 0;
        const char *k = streq(key, "CreatorApp") ? "CMF_product" : key;
        if (!strmap_get(&p->metadata, k) && p->metadata.n >= LIMIT_METADATA_ENTRIES)
                return -E2BIG;
        return 0;
}

int profile_set_property(Profile *p, const char *key, const char *value, const char **ret_property) {
        const char *prop = key;
        int r;

        if (streq(key, "Filename"))
                r = set_copy(&p->filename, value);
        else if (streq(key, "Qualifier"))
                r = set_copy(&p->qualifier, value);
        else if (streq(key, "Format"))
                r = set_copy(&p->format, value);
        else if (streq(key, "Colorspace")) {
                p->colorspace = names_colorspace_parse(value);
                r = 0;
        } else {
                /* i1Profiler writes CreatorApp; colord files it under CMF_product. */
                r = set_metadata(p, streq(key, "CreatorApp") ? "CMF_product" : key, value);
                prop = "Metadata";
        }
        if (r < 0)
                return r;
        if (ret_property)
                *ret_property = prop;
        return 0;
}

static const struct {
        const char *id;
        const char *space;
        int score;
} well_known[] = {
        { "icc-34562abf994ccd066d2c5721d0d68c5d", "srgb", 10 },
        { "icc-fc66337837e2886bfd72e9838228f1b8", "srgb", 8 },
        { "icc-29f83ddeaff255ae7842fae4ca83390d", "srgb", 6 },
        { "icc-c95bd637e95d8a3b0df38f99c1320389", "srgb", 4 },
        { "icc-dea88382d899d5f6e573b432473ae138", "adobe-rgb", 10 },
        { "icc-91cf26c58e07eda724fdbf3eadce4505", "unknown", 1 },
        { "icc-2e54d10b392cac47226469ba2ea95bd8", "unknown", 1 },
};

void profile_apply_well_known_id(Profile *p) {
        for (size_t i = 0; i < ELEMENTSOF(well_known); i++)
                if (streq(p->id, well_known[i].id)) {
                        (void) strmap_set(&p->metadata, "STANDARD_space", well_known[i].space);
                        (void) strmap_set(&p->metadata, "DATA_source", "standard");
                        p->score = well_known[i].score;
                }
        /* colord means to prefer system-wide copies but loses the bonus (colord §4.5). */
        if (p->is_system_wide)
                p->score++;
}

int profile_apply_icc(Profile *p, const IccInfo *info) {
        int r;

        p->kind = info->kind ? info->kind : "unknown";
        p->colorspace = info->colorspace ? info->colorspace : "unknown";
        p->has_vcgt = info->has_vcgt;
        p->created = info->created;
        r = set_copy(&p->title, info->title);
        if (r < 0)
                return r;
        for (size_t i = 0; info->metadata && info->metadata[i] && info->metadata[i + 1]; i += 2) {
                r = set_metadata(p, info->metadata[i], info->metadata[i + 1]);
                if (r < 0)
                        return r;
        }
        char **w = NULL; /* NULL: computed later (ICC_INFO_SKIP_WARNINGS) */
        if (info->warnings && !(w = strv_copy(info->warnings)))
                return -ENOMEM;
        strv_free(p->warnings);
        p->warnings = w;

        const char *mf = strmap_get(&p->metadata, "MAPPING_format");
        const char *mq = strmap_get(&p->metadata, "MAPPING_qualifier");
        if (mf) {
                r = set_copy(&p->format, mf);
                if (r < 0)
                        return r;
        }
        if (mq) {
                r = set_copy(&p->qualifier, mq);
                if (r < 0)
                        return r;
        }
        if (streq(p->colorspace, "rgb") && !p->qualifier) {
                r = set_copy(&p->format, "ColorSpace..");
                if (r < 0)
                        return r;
                r = set_copy(&p->qualifier, "RGB..");
                if (r < 0)
                        return r;
        }
        return 0;
}

int profile_set_file(Profile *p, const char *path, const IccInfo *info, const char *const *metadata) {
        int r = set_copy(&p->filename, path);
        if (r < 0)
                return r;
        r = profile_apply_icc(p, info);
        if (r < 0)
                return r;
        for (size_t i = 0; metadata[i]; i += 2) {
                assert(metadata[i + 1]);
                r = strmap_set(&p->metadata, metadata[i], metadata[i + 1]);
                if (r < 0)
                        return r;
        }
        return 0;
}

bool profile_is_edid(const Profile *p) {
        return streq_ptr(strmap_get(&p->metadata, "DATA_source"), "edid");
}

int profile_add_holder(Profile *p, Device *d) {
        /* A device holds a profile at most once (device_add_profile() refuses a second). */
        for (size_t i = 0; i < p->n_holders; i++)
                assert(p->holders[i] != d);
        Device **n = realloc(p->holders, sizeof *n * (p->n_holders + 1));
        if (!n)
                return -ENOMEM;
        p->holders = n;
        p->holders[p->n_holders++] = d;
        return 0;
}

void profile_remove_holder(Profile *p, Device *d) {
        for (size_t i = 0; i < p->n_holders; i++)
                if (p->holders[i] == d) {
                        memmove(&p->holders[i], &p->holders[i + 1], sizeof *p->holders * (p->n_holders - i - 1));
                        p->n_holders--;
                        return;
                }
        assert(!"a device let go of a profile it did not hold");
}
