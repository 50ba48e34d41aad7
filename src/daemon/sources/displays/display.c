/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Display discovery (see display.h): reading the DRM connectors from sysfs, making the
 * display devices and their EDID profiles, and a debounced rescan on every drm event of
 * udev-source.h, whose parses after start-up are made ahead in the parser processes, so that
 * a monitor's EDID never makes the loop wait (docs/sandbox.md). The naming and diff rules
 * are in display-scan.c. */
#include "display.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "signals.h"
#include "device.h"
#include "debounce.h"
#include "display-scan.h"
#include "edid-icc.h"
#include "edid.h"
#include "fileio.h"
#include "icc-create.h"
#include "icc-info.h"
#include "log.h"
#include "md5.h"
#include "parser.h"
#include "profile-load.h"
#include "profile-warnings.h"
#include "profile.h"
#include "udev-source.h"

/* A parse made ahead: its answer, by the MD5 of the bytes parsed. */
typedef struct Prepared {
        char key[33];
        int r;
        char *why;
        Edid *edid;             /* an EDID's */
        IccInfo *info;          /* a generated profile's */
} Prepared;

typedef struct PrepareCall {
        DisplayWatch *watch;
        ListLink link;          /* in DisplayWatch.preparing */
        ParserCall *call;
        char key[33];
} PrepareCall;

/* One plug makes several events (status, then edid; or a burst from the kernel): one rescan. */
#define RESCAN_DELAY_USEC (50 * 1000ULL)
#define EDID_MAX_SIZE (EDID_MAX_BLOCKS * EDID_BLOCK_SIZE)
#define CMF_BINARY "tinctd"

struct DisplayWatch {
        Manager *manager;
        char *drm_dir;          /* <root>/sys/class/drm */
        char *edid_dir;         /* <state-dir>/edid */
        DisplayList known;      /* connectors as last applied, with their devices */
        Hashmap *aliases;       /* plain id → DisplayConnector in known (identical monitors) */
        char **profiles;        /* ids of the EDID profiles this module registered */

        UdevSource *source;     /* drm events: any of them means "look again" */
        Debounce *rescan;

        /* After start-up a rescan's parses are made ahead, asynchronously (docs/sandbox.md):
         * the EDIDs and their generated profiles' read-backs, by the MD5 of their bytes; the
         * rescan runs once all are answered and finds them here. */
        bool started;
        Prepared *prepared;
        size_t n_prepared;
        List preparing;         /* PrepareCall: answers awaited */
};

static PrepareCall *prepare_call_free(PrepareCall *c) {
        if (!c)
                return NULL;
        list_unlink(&c->watch->preparing, &c->link);
        parser_call_cancel(c->call);
        free(c);
        return NULL;
}

static void prepared_clear(DisplayWatch *w) {
        for (size_t i = 0; i < w->n_prepared; i++) {
                free(w->prepared[i].why);
                edid_free(w->prepared[i].edid);
                icc_info_free(w->prepared[i].info);
        }
        w->prepared = mfree(w->prepared);
        w->n_prepared = 0;
}

static Prepared *prepared_find(DisplayWatch *w, const char *key) {
        for (size_t i = 0; i < w->n_prepared; i++)
                if (streq(w->prepared[i].key, key))
                        return &w->prepared[i];
        return NULL;
}

DisplayWatch *display_watch_free(DisplayWatch *w) {
        if (!w)
                return NULL;
        while (w->preparing.size > 0)
                prepare_call_free(list_entry(w->preparing.head.next, PrepareCall, link));
        prepared_clear(w);
        /* Devices and profiles belong to the manager, which frees them itself. */
        udev_source_free(w->source);
        debounce_free(w->rescan);
        hashmap_free(w->aliases);
        display_list_clear(&w->known);
        strv_free(w->profiles);
        free(w->drm_dir);
        free(w->edid_dir);
        free(w);
        return NULL;
}

static const char *display_alias_target(void *userdata, const char *id) {
        DisplayWatch *w = userdata;
        DisplayConnector *c = w && w->aliases ? hashmap_get(w->aliases, id) : NULL;
        return c && c->device ? c->id : NULL;
}

static void display_device_removed(void *userdata, Device *d) {
        DisplayWatch *w = userdata;
        if (!w)
                return;
        for (size_t i = 0; i < w->known.n; i++)
                if (w->known.items[i].device == d)
                        w->known.items[i].device = NULL;
}

/* ---- reading sysfs ------------------------------------------------------------------- */


static bool connector_connected(const char *dir) {
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ uint8_t *status = NULL;
        size_t n;
        if (asprintf(&path, "%s/status", dir) < 0 || read_file_capped(path, 64, 0, &status, &n, NULL) < 0)
                return false;
        return strncmp((char *) status, "connected", 9) == 0 && (n == 9 || status[9] == '\n');
}

/* Reads one connector; 0 with nothing added when it is not connected or has no usable EDID. */
/* The parsed EDID: made ahead (borrowed), or parsed now (start-up: *ret_owned). */
static int edid_of(DisplayWatch *w, const uint8_t *data, size_t size, const Edid **ret, Edid **ret_owned,
                   char **ret_why) {
        char key[33];
        md5_hex(data, size, key);
        const Prepared *p = prepared_find(w, key);
        if (p && p->r < 0) {
                *ret_why = p->why ? strdup(p->why) : NULL;
                return p->r;
        }
        if (p && p->edid) {
                *ret = p->edid;
                return 0;
        }
        int r = parser_edid(w->manager->parser, data, size, ret_owned, ret_why);
        if (r >= 0)
                *ret = *ret_owned;
        return r;
}

static int read_connector(DisplayWatch *w, const char *name, DisplayList *into) {
        _cleanup_free_ char *xrandr = NULL, *dir = NULL, *path = NULL, *plain = NULL;
        _cleanup_free_ uint8_t *edid = NULL;
        _cleanup_(edid_freep) Edid *e = NULL;
        EdidIccParams params;
        size_t size;
        int r;

        if (display_xrandr_name(name, &xrandr) < 0)
                return 0;
        if (asprintf(&dir, "%s/%s", w->drm_dir, name) < 0 || asprintf(&path, "%s/edid", dir) < 0)
                return -ENOMEM;
        if (!connector_connected(dir))
                return 0;
        r = read_file_capped(path, EDID_MAX_SIZE, 0, &edid, &size, NULL);
        if (r < 0) {
                log_full_errno(LOG_NOTICE, r, "%s: ignoring the display, cannot read its EDID: %m", name);
                return 0;
        }
        if (size == 0) {
                log_debug("%s: connected, but no EDID yet", name);
                return 0;
        }
        _cleanup_free_ char *why = NULL;
        const Edid *parsed;
        r = edid_of(w, edid, size, &parsed, &e, &why);
        if (r < 0) {
                log_notice("%s: ignoring the display, its EDID is not usable: %s", name, why ? why : edid_strerror(r));
                return 0;
        }
        r = edid_icc_params_init_named(&params, parsed, CMF_BINARY);
        if (r >= 0 && !(plain = edid_icc_display_id(&params, xrandr)))
                r = -ENOMEM;
        edid_icc_params_done(&params);
        if (r < 0)
                return r;
        r = display_list_add(into, strdup(name), TAKE_PTR(xrandr), TAKE_PTR(plain), parsed->md5, TAKE_PTR(edid), size);
        return r;
}

static int scan_connectors(DisplayWatch *w, DisplayList *ret) {
        DisplayList l = {};
        DIR *d = opendir(w->drm_dir);
        if (!d) {
                if (errno != ENOENT)
                        log_warning_errno(errno, "Cannot read %s: %m", w->drm_dir);
                *ret = l;
                return 0;
        }
        struct dirent *de;
        int r = 0;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                r = read_connector(w, de->d_name, &l);
                if (r < 0)
                        break;
        }
        closedir(d);
        if (r >= 0)
                r = display_list_assign_ids(&l);
        if (r < 0) {
                display_list_clear(&l);
                return r;
        }
        *ret = l;
        return 0;
}

/* ---- the EDID profile ---------------------------------------------------------------- */


static bool is_own_profile(DisplayWatch *w, const Profile *p) {
        size_t n = strlen(w->edid_dir);
        return p->owner == 0 && p->filename && strncmp(p->filename, w->edid_dir, n) == 0 && p->filename[n] == '/';
}

/* Generates, stores and registers the profile for one EDID. Returns the profile, or NULL
 * when there is none (refused colorimetry, I/O trouble: logged). */
static Profile *edid_profile(DisplayWatch *w, const DisplayConnector *c, const EdidIccParams *params) {
        Manager *m = w->manager;
        _cleanup_free_ void *data = NULL;
        _cleanup_free_ char *path = NULL, *why = NULL, *id = NULL;
        _cleanup_(icc_info_freep) IccInfo *owned_info = NULL;
        const IccInfo *info = NULL;
        const char *reason = NULL;
        size_t size;

        int r = icc_create_display_profile(&params->params, &data, &size, &reason);
        if (r < 0) {
                log_notice("%s (%s): no EDID profile: %s", c->xrandr_name, c->id, strempty(reason));
                return NULL;
        }
        if (mkdir(w->edid_dir, 0755) < 0 && errno != EEXIST) {
                log_warning_errno(errno, "Cannot create %s: %m", w->edid_dir);
                return NULL;
        }
        if (asprintf(&path, "%s/edid-%s.icc", w->edid_dir, c->md5) < 0)
                return NULL;
        r = write_file_atomic(path, data, size, 0644, WRITE_SKIP_IF_SAME);
        if (r < 0) {
                log_warning_errno(r, "Cannot write %s: %m", path);
                return NULL;
        }
        char key[33];
        md5_hex(data, size, key);
        Prepared *ahead = prepared_find(w, key);
        if (ahead && ahead->r < 0) {
                r = ahead->r;
                why = ahead->why ? strdup(ahead->why) : NULL;
        } else if (ahead && ahead->info) {
                info = ahead->info;
                r = 0;
        } else {
                r = parser_icc_info(m->parser, data, size, 0, &owned_info, &why);
                info = owned_info;
        }
        if (r < 0) {
                log_warning("%s: generated profile does not read back: %s", path, strempty(why));
                return NULL;
        }
        if (asprintf(&id, "icc-%s", info->checksum) < 0)
                return NULL;

        /* The same EDID on two connectors, or the same bytes found elsewhere: one object (its
         * warnings now known from this parse, if the scan left them for later). */
        Profile *p = manager_find_profile_by_id(m, id);
        if (p) {
                if (!p->warnings && info->warnings) {
                        profile_warnings_dequeue(p);
                        p->warnings = strv_copy(info->warnings);
                }
                return p;
        }

        _cleanup_(profile_freep) Profile *n = NULL;
        if (profile_new(m, id, 0, SCOPE_NORMAL, &n) < 0)
                return NULL;
        n->is_system_wide = true;
        r = profile_set_file(n, path, info, (const char *const[]) { "FILE_checksum", info->checksum, NULL });
        if (r >= 0)
                r = strv_extend(&w->profiles, id);
        if (r < 0) {
                log_warning_errno(r, "Cannot register %s: %m", path);
                return NULL;
        }
        n->data = TAKE_PTR(data);
        n->size = size;
        r = manager_add_profile(m, n, false);
        if (r < 0) {
                strv_remove(w->profiles, id);
                log_warning_errno(r, "Cannot register %s: %m", path);
                return NULL;
        }
        log_debug("%s: EDID profile %s (%s)", c->xrandr_name, id, path);
        return TAKE_PTR(n);
}

/* The EDID profile is every display's soft fallback, on the rules of colord §5.5 B (which
 * would attach it anyway, through its MAPPING_device_id, for every display whose id is the
 * plain one): not when the user removed this pair before (timestamp 0), not when the profile
 * has warnings. Hard mappings (restored by manager_add_device()) always sort before it, so
 * the user's choice wins; and when that choice goes away (a session's temp profile), the
 * display falls back to its EDID profile instead of having none. */
static bool want_soft_edid(Manager *m, const char *device_id, Profile *p) {
        uint64_t ts;
        char *const *warnings = profile_warnings(p);

        if (!warnings) /* known from the parse that made it (edid_profile()); out of memory else */
                return false;
        if (!strv_isempty(warnings)) {
                log_notice("%s: EDID profile %s not attached, it has warnings (%s, ...)", device_id, p->id, warnings[0]);
                return false;
        }
        if (m->store && store_mapping_get(m->store, STORE_LAYER_SYSTEM, device_id, p->id, &ts) == 0 && ts == 0) {
                log_debug("%s: EDID profile %s was removed by the user before, not attached", device_id, p->id);
                return false;
        }
        return true;
}

/* ---- devices --------------------------------------------------------------------------- */

/* Code 0 of the two maxima means "not given" (CTA-861.3 §4.2); a minimum of 0 is a value. */
static int set_metadata_number(Device *d, const char *key, const EdidLuminance *l, int decimals, bool zero_is_value) {
        char buf[64];
        if (!l->present || !(l->cd_m2 > 0 || (zero_is_value && l->cd_m2 == 0)))
                return 0;
        snprintf(buf, sizeof buf, "%.*f", decimals, l->cd_m2);
        return device_set_property(d, key, buf, NULL);
}

/* Our own capability keys (docs/compatibility.md, "Display devices found by the daemon"). */
static int set_hdr_metadata(Device *d, const Edid *e) {
        static const char *const eotfs[] = { "sdr", "hdr", "pq", "hlg" };
        char buf[256];
        int r;

        if (e->cta.has_hdr_static_metadata) {
                buf[0] = 0;
                for (unsigned i = 0; i < ELEMENTSOF(eotfs); i++)
                        if (e->cta.eotfs & (1u << i))
                                snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "," : "", eotfs[i]);
                r = device_set_property(d, "TINCT_hdr_eotfs", buf, NULL);
                if (r < 0)
                        return r;
                r = set_metadata_number(d, "TINCT_max_luminance", &e->cta.max_luminance, 2, false);
                if (r < 0)
                        return r;
                r = set_metadata_number(d, "TINCT_max_frame_avg_luminance", &e->cta.max_frame_avg_luminance, 2, false);
                if (r < 0)
                        return r;
                if (e->cta.max_luminance.present && e->cta.min_luminance.present) {
                        r = set_metadata_number(d, "TINCT_min_luminance", &e->cta.min_luminance, 4, true);
                        if (r < 0)
                                return r;
                }
        }
        if (e->cta.has_colorimetry) {
                buf[0] = 0;
                for (unsigned i = 0; i < 16; i++) {
                        const char *name = edid_colorimetry_name(i);
                        if (!(e->cta.colorimetry & (1u << i)) || !name || strncmp(name, "Reserved", 8) == 0)
                                continue;
                        size_t at = strlen(buf);
                        snprintf(buf + at, sizeof buf - at, "%s%s", at ? "," : "", name);
                        for (char *s = buf + at; *s; s++)
                                *s = (char) tolower((unsigned char) *s);
                }
                if (buf[0]) {
                        r = device_set_property(d, "TINCT_colorimetry", buf, NULL);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int add_display(DisplayWatch *w, DisplayConnector *c) {
        Manager *m = w->manager;
        _cleanup_(edid_freep) Edid *owned = NULL;
        _cleanup_free_ char *path = NULL, *why = NULL;
        _cleanup_(device_freep) Device *d = NULL;
        EdidIccParams params;
        const Edid *e;
        int r;

        r = edid_of(w, c->edid, c->edid_size, &e, &owned, &why);
        if (r < 0)
                return r;
        path = manager_object_path(m, DEVICE_PATH_PREFIX, c->id, 0);
        if (!path)
                return -ENOMEM;
        Device *other = manager_find_device_by_path(m, path);
        if (other) {
                /* A root client or a stored disk device got there first; leave it alone. */
                log_notice("%s: device %s already exists (scope %s), not adding the display", c->xrandr_name,
                           c->id, scope_to_string(other->scope));
                return 0;
        }

        r = edid_icc_params_init_named(&params, e, CMF_BINARY);
        if (r < 0) {
                edid_icc_params_done(&params);
                return r;
        }
        Profile *p = edid_profile(w, c, &params);
        if (p) {
                r = free_and_strdup(&c->profile_id, p->id);
                if (r < 0)
                        goto finish;
        }

        r = device_new(m, c->id, 0, SCOPE_NORMAL, &d);
        if (r < 0)
                goto finish;
        const DeviceProperty props[] = {
                { "Kind", "display" },
                { "Mode", "physical" },
                { "Colorspace", "rgb" },
                { "Seat", "seat0" },
                { "Vendor", params.vendor },
                { "Model", params.model },
                { "Serial", params.serial },
                { "XRANDR_name", c->xrandr_name },
                { "OutputEdidMd5", c->md5 },
                { "TINCT_connector", c->sysfs_name },
                { "Embedded", display_is_embedded(c->xrandr_name) ? "" : NULL },
        };
        r = device_set_properties(d, props, ELEMENTSOF(props));
        if (r < 0)
                goto finish;
        r = set_hdr_metadata(d, e);
        if (r < 0)
                goto finish;
        bool enabled;
        if (m->store && store_device_get_enabled(m->store, c->id, device_mapping_layer(d), &enabled) >= 0)
                d->enabled = enabled;
        if (p && want_soft_edid(m, c->id, p)) {
                r = device_add_profile(d, p, false, now(CLOCK_REALTIME));
                if (r < 0)
                        goto finish;
        }
        r = manager_add_device(m, d);
        if (r < 0)
                goto finish;
        c->device = TAKE_PTR(d);
        log_info("Display %s: %s%s%s", c->xrandr_name, c->id, p ? ", EDID profile " : "", p ? p->id : "");
finish:
        edid_icc_params_done(&params);
        return r;
}

static void remove_display(DisplayWatch *w, DisplayConnector *c) {
        if (!c->device)
                return;
        log_info("Display %s: %s removed", c->xrandr_name, c->id);
        manager_remove_device(w->manager, c->device); /* display_device_removed() clears it */
}

/* EDID profiles no current display uses and no device holds any more (a session's device
 * may still list one until it goes). The file stays, so a replug reuses it. */
static void collect_profiles(DisplayWatch *w) {
        Manager *m = w->manager;
        for (size_t i = 0; w->profiles && w->profiles[i];) {
                /* A copy: strv_remove() frees the entry it compares with. */
                char id[strlen(w->profiles[i]) + 1];
                strcpy(id, w->profiles[i]);
                Profile *p = manager_find_profile_by_id(m, id);
                bool keep = p && is_own_profile(w, p) && p->n_holders > 0;
                for (size_t j = 0; p && !keep && j < w->known.n; j++)
                        keep = streq_ptr(w->known.items[j].profile_id, id);
                if (keep) {
                        i++;
                        continue;
                }
                if (p && is_own_profile(w, p)) {
                        log_debug("Dropping EDID profile %s", id);
                        manager_remove_profile(m, p);
                }
                strv_remove(w->profiles, id);
        }
}

static int rebuild_aliases(DisplayWatch *w) {
        hashmap_free(w->aliases);
        w->aliases = hashmap_new();
        if (!w->aliases)
                return -ENOMEM;
        for (size_t i = 0; i < w->known.n; i++) {
                DisplayConnector *c = &w->known.items[i];
                if (c->alias && hashmap_put(w->aliases, c->plain_id, c) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static void apply_change(DisplayChange change, DisplayConnector *before, DisplayConnector *after, void *userdata) {
        DisplayWatch *w = userdata;
        int r;

        switch (change) {
        case DISPLAY_SAME:
                after->device = TAKE_PTR(before->device);
                after->profile_id = TAKE_PTR(before->profile_id);
                return;
        case DISPLAY_CHANGED:
        case DISPLAY_REMOVED:
                remove_display(w, before);
                if (change == DISPLAY_REMOVED)
                        return;
                __attribute__((fallthrough));
        case DISPLAY_ADDED:
                r = add_display(w, after);
                if (r < 0)
                        log_warning_errno(r, "Display %s: cannot add %s: %m", after->xrandr_name, after->id);
                return;
        }
}

static void rescan(DisplayWatch *w) {
        DisplayList now;
        int r = scan_connectors(w, &now);
        if (r < 0) {
                log_warning_errno(r, "Cannot scan the display connectors: %m");
                return;
        }
        /* The alias map points into the old list; nothing looks it up during the diff. */
        w->aliases = hashmap_free(w->aliases);
        display_list_diff(&w->known, &now, apply_change, w);
        display_list_clear(&w->known);
        w->known = now;
        if (rebuild_aliases(w) < 0)
                log_oom();
        collect_profiles(w);
}

/* ---- watching ------------------------------------------------------------------------ */

static void prepare_done(DisplayWatch *w) {
        if (w->preparing.size > 0)
                return;
        rescan(w);
        prepared_clear(w);
}

static int prepare_add(DisplayWatch *w, const char *key, int r, const char *why, Edid *e, IccInfo *info) {
        Prepared *t = reallocarray(w->prepared, w->n_prepared + 1, sizeof *t);
        if (!t) {
                edid_free(e);
                icc_info_free(info);
                return -ENOMEM;
        }
        w->prepared = t;
        Prepared *p = &w->prepared[w->n_prepared++];
        *p = (Prepared) { .r = r, .why = why ? strdup(why) : NULL, .edid = e, .info = info };
        strcpy(p->key, key);
        return 0;
}

static PrepareCall *prepare_call_new(DisplayWatch *w, const char *key) {
        PrepareCall *c = calloc(1, sizeof *c);
        if (!c)
                return NULL;
        c->watch = w;
        strcpy(c->key, key);
        list_append(&w->preparing, &c->link);
        return c;
}

static void on_profile_read_back(int r, IccInfo *info, const char *why, uint8_t *data, size_t size, void *userdata) {
        PrepareCall *c = userdata;
        DisplayWatch *w = c->watch;
        free(data);
        c->call = NULL;
        if (prepare_add(w, c->key, r, why, NULL, info) < 0)
                log_oom();
        prepare_call_free(c);
        prepare_done(w);
}

/* The profile an EDID makes (as edid_profile() makes it), read back ahead. */
static void prepare_profile(DisplayWatch *w, const Edid *e) {
        EdidIccParams params;
        void *data = NULL;
        size_t size;
        const char *reason = NULL;
        int r = edid_icc_params_init_named(&params, e, CMF_BINARY);
        if (r >= 0)
                r = icc_create_display_profile(&params.params, &data, &size, &reason);
        edid_icc_params_done(&params);
        if (r < 0)
                return; /* edid_profile() finds the same and says so */
        char key[33];
        md5_hex(data, size, key);
        PrepareCall *c = prepared_find(w, key) ? NULL : prepare_call_new(w, key);
        if (!c) {
                free(data);
                return;
        }
        r = parser_icc_info_async(w->manager->parser, data, size, 0, on_profile_read_back, c, &c->call);
        if (r < 0)
                prepare_call_free(c); /* parsed in the rescan */
}

static void on_edid_parsed(int r, Edid *e, const char *why, void *userdata) {
        PrepareCall *c = userdata;
        DisplayWatch *w = c->watch;
        c->call = NULL;
        if (e)
                prepare_profile(w, e);
        if (prepare_add(w, c->key, r, why, e, NULL) < 0)
                log_oom();
        prepare_call_free(c);
        prepare_done(w);
}

/* Starts the parses a rescan will need (the EDIDs of the connected connectors, not made
 * ahead yet); the rescan runs when the last is answered. */
static void prepare_rescan(DisplayWatch *w) {
        DIR *d = opendir(w->drm_dir);
        for (struct dirent *de; d && (de = readdir(d));) {
                _cleanup_free_ char *dir = NULL, *path = NULL;
                _cleanup_free_ uint8_t *edid = NULL;
                size_t size;
                if (de->d_name[0] == '.' || asprintf(&dir, "%s/%s", w->drm_dir, de->d_name) < 0 ||
                    asprintf(&path, "%s/edid", dir) < 0 || !connector_connected(dir) ||
                    read_file_capped(path, EDID_MAX_SIZE, 0, &edid, &size, NULL) < 0 || size == 0)
                        continue; /* the rescan says why, if it matters */
                char key[33];
                md5_hex(edid, size, key);
                bool asked = prepared_find(w, key);
                PrepareCall *it;
                LIST_FOREACH(&w->preparing, it, PrepareCall, link)
                        asked = asked || streq(it->key, key);
                PrepareCall *c = asked ? NULL : prepare_call_new(w, key);
                if (c && parser_edid_async(w->manager->parser, TAKE_PTR(edid), size, on_edid_parsed, c, &c->call) < 0)
                        prepare_call_free(c); /* parsed in the rescan */
        }
        if (d)
                closedir(d);
        prepare_done(w);
}

static void on_rescan(void *userdata) {
        DisplayWatch *w = userdata;
        if (w->started)
                prepare_rescan(w);
        else
                rescan(w);
}

static void on_drm_event(UdevAction action, const UdevInfo *info, void *userdata) {
        DisplayWatch *w = userdata;
        /* add, change (hotplug on a connector is a "change" of the card), remove: all mean
         * "look again", once for a burst. */
        debounce_schedule(w->rescan);
}

static int watch_setup(DisplayWatch *w) {
        static char *const subsystems[] = { (char *) "drm", NULL };
        Manager *m = w->manager;
        int r = debounce_new(m->event, RESCAN_DELAY_USEC, on_rescan, w, &w->rescan);
        if (r < 0)
                return r;
        r = udev_source_new(m->event, m->config.sysfs_root, subsystems, on_drm_event, w, &w->source);
        if (r < 0)
                return r;
        return udev_source_watch(w->source);
}

static int display_start(Manager *m, const void *config, void **ret_state) {
        if (m->config.no_udev) {
                log_debug("Display discovery disabled (--no-udev)");
                return 0;
        }
        DisplayWatch *w = calloc(1, sizeof *w);
        if (!w)
                return log_oom();
        *ret_state = w;
        w->manager = m;
        list_init(&w->preparing);
        const char *root = strempty(m->config.sysfs_root);
        if (asprintf(&w->drm_dir, "%s/sys/class/drm", root) < 0 ||
            asprintf(&w->edid_dir, "%s/edid", m->config.state_dir) < 0)
                return log_oom();

        if (m->event) {
                int r = watch_setup(w);
                if (r < 0)
                        log_warning_errno(r, "Display hotplug is not followed: %m");
        }
        rescan(w); /* at start-up: the loop may wait for its parses */
        w->started = true;
        log_info("Found %zu displays", w->known.n);
        return 0;
}

static void display_stop(void *userdata) {
        display_watch_free(userdata);
}

const DeviceSourceVTable display_source = {
        .name = "displays",
        .start = display_start,
        .stop = display_stop,
        .device_removed = display_device_removed,
        .alias_target = display_alias_target,
};
