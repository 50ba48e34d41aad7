/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CUPS queues as devices (see cups-source.h). One request to cupsd at a time; each answer
 * is the whole list of queues, diffed against what the source holds. When cupsd does not
 * answer, the devices stay as they were (one log line) until it does: a queue that went
 * meanwhile goes with the next answer. */
#include "cups-source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cups-fetch.h"
#include "cups-ipp.h"
#include "cups-notify.h"
#include "cups-printer.h"
#include "cups-qualifier.h"
#include "cups-vendor-files.h"
#include "device.h"
#include "file-writer.h"
#include "log.h"
#include "time-util.h"
#include "parser.h"
#include "profile.h"
#include "signals.h"
#include "strv.h"
#include "utf8.h"

typedef struct CupsQueue {
        char *name;             /* the key */
        char *signature;        /* the properties last applied, to see a change */
        Device *device;         /* ours, or NULL (cupsd's own, or taken) */
        bool seen;              /* in the latest answer */
        CupsWatch *watch;
        char *device_uri;
        char *fetched_uri;      /* the printer URI last asked by tinct-fetch */
        FetchRun *run;          /* asking the printer, then until its profiles are parsed (the bytes are its) */
        FetchReply *reply;      /* its answer, while its profiles are parsed one at a time */
        size_t next_profile;    /* in reply */
        char *uuid;             /* the printer's own printer-uuid, lower case */
        char *identity;         /* cups_identity(): the key its hard choices are kept under too */
        char **vendor_profiles; /* ids of the profiles made from printer-icc-profiles */
        char **previous_profiles; /* an earlier answer's, released once this answer's are in */
        List parsing;           /* VendorParse: its vendor profile parsed, then its file written */
        Device *decorated;      /* the device that got the identity and vendor profiles last */
} CupsQueue;

/* A vendor profile being parsed, then its file written: both off the loop, so that what a
 * printer sends delays no client (docs/sandbox.md, "Who waits"). */
typedef struct VendorParse {
        CupsWatch *watch;
        CupsQueue *queue;       /* NULL once its queue went with the write under way */
        List *list;             /* CupsQueue.parsing, or CupsWatch.landing once the queue went */
        ListLink link;
        char *id, *name, *url;
        char **media_types;
        ParserCall *call;
        IccInfo *info;          /* parsed, while its file is written */
        char *path;             /* the file being written (write), then its Filename */
        size_t size;
        FileWrite *write;
        uint8_t *held;          /* its bytes, while a gone queue's write of the same path ends */
} VendorParse;

static VendorParse *vendor_parse_free(VendorParse *v) {
        if (!v)
                return NULL;
        list_unlink(v->list, &v->link);
        parser_call_cancel(v->call);
        file_write_cancel(v->write);
        icc_info_free(v->info);
        free(v->held);
        free(v->path);
        free(v->id);
        free(v->name);
        free(v->url);
        strv_free(v->media_types);
        free(v);
        return NULL;
}

struct CupsWatch {
        const CupsConfig *config;   /* tinctd's, for as long as the source runs */
        Manager *manager;
        CupsServer server;
        char server_name[128];
        sd_event_source *timer;
        IppCall *call;
        Hashmap *queues;        /* name → CupsQueue */
        int last_error;         /* of the last request, so a lasting failure is logged once */
        char *last_problems;    /* the same for malformed printers */
        CupsNotify *notify;     /* cupsd's D-Bus notifier, or NULL (polling only) */
        bool again;             /* a signal came during a request: ask once more */
        List landing;           /* VendorParse: a write under way whose queue went (on_vendor_written) */
};

static const char *const requested[] = {
        "printer-name", "printer-make-and-model", "device-uri", "printer-device-id", "color-supported",
        "printer-is-temporary", "print-color-mode-default", "media-col-default", "media-type-default",
        "printer-resolution-default", NULL,
};

static CupsQueue *queue_free(CupsQueue *q) {
        if (q) {
                /* A write under way cannot be stopped: its file lands, and goes with the sweep
                 * once it has (on_vendor_written). */
                while (q->parsing.size > 0) {
                        VendorParse *v = list_entry(q->parsing.head.next, VendorParse, link);
                        if (!v->write) {
                                vendor_parse_free(v);
                                continue;
                        }
                        list_unlink(&q->parsing, &v->link);
                        v->queue = NULL;
                        v->list = &q->watch->landing;
                        list_append(v->list, &v->link);
                }
                if (q->reply)
                        fetch_reply_done(q->reply);
                free(q->reply);
                fetch_run_free(q->run);
                free(q->name);
                free(q->signature);
                free(q->device_uri);
                free(q->fetched_uri);
                free(q->uuid);
                free(q->identity);
                strv_free(q->vendor_profiles);
                strv_free(q->previous_profiles);
                free(q);
        }
        return NULL;
}

CupsWatch *cups_watch_free(CupsWatch *w) {
        if (!w)
                return NULL;
        /* The manager frees the devices itself. */
        void *it = NULL, *v;
        while (hashmap_iterate(w->queues, &it, NULL, &v))
                queue_free(v);
        hashmap_free(w->queues);
        /* Their files land after the daemon ends, for the next start to clear. */
        while (w->landing.size > 0)
                vendor_parse_free(list_entry(w->landing.head.next, VendorParse, link));
        ipp_call_free(w->call);
        sd_event_source_disable_unref(w->timer);
        cups_notify_free(w->notify); /* before the server it points to */
        cups_server_done(&w->server);
        free(w->last_problems);
        free(w);
        return NULL;
}

static CupsQueue *queue_of_device(CupsWatch *w, const Device *d) {
        void *it = NULL, *v;
        if (!w || !d)
                return NULL;
        while (hashmap_iterate(w->queues, &it, NULL, &v))
                if (((CupsQueue *) v)->device == d)
                        return v;
        return NULL;
}

static bool cups_yields_to_client(void *userdata, const Device *d) {
        return queue_of_device(userdata, d);
}

static void cups_handed_over(void *userdata, Device *d) {
        CupsQueue *q = queue_of_device(userdata, d);
        if (!q)
                return;
        log_info("CUPS queue %s: cupsd registers it itself; its device %s is cupsd's now", q->name, d->id);
        q->device = NULL;
}

static void on_poke(void *userdata);

static void cups_device_removed(void *userdata, Device *d) {
        CupsWatch *w = userdata;
        void *it = NULL, *v;
        bool again = false;
        while (w && hashmap_iterate(w->queues, &it, NULL, &v)) {
                CupsQueue *q = v;
                if (q->device == d) {
                        q->device = NULL; /* the next answer makes it again if the queue is still there */
                        again = true;
                }
                if (q->decorated == d)
                        q->decorated = NULL;
        }
        /* Someone else removed it (cupsd re-registering a queue, at its start too, which no
         * notifier signal tells): ask now rather than at the slow safety poll. */
        if (again)
                on_poke(w);
}

/* ---- identity and vendor profiles ------------------------------------------------------- */

#define IDENTITY_PREFIX "printer-identity:"

/* The user's hard choices are kept under the printer's identity as well as under the
 * device id (docs/printers.md): a queue made again for the same printer, under any name,
 * gets them back. The system's layer only: a queue's device is the system's. */
static void cups_choice_stored(void *userdata, const Device *d, const char *profile_id, uint64_t timestamp) {
        CupsWatch *w = userdata;
        Manager *m = w->manager;
        const char *identity = strmap_get(&d->metadata, "PRINTER_identity");
        if (!identity || !m->store || d->owner != 0)
                return;
        _cleanup_free_ char *key = NULL;
        if (asprintf(&key, IDENTITY_PREFIX "%s", identity) < 0)
                return (void) log_oom();
        int r = store_mapping_set(m->store, STORE_LAYER_SYSTEM, key, profile_id, timestamp);
        if (r < 0)
                log_warning_errno(r, "Cannot keep the choice of %s for printer %s: %m", profile_id, identity);
}

/* A device of this identity whose own id has no stored choices yet takes the identity's. */
static void restore_identity_choices(Manager *m, Device *d, const char *identity) {
        StoreMapping *own = NULL, *maps = NULL;
        size_t n_own = 0, n = 0;
        _cleanup_free_ char *key = NULL;
        if (!m->store || asprintf(&key, IDENTITY_PREFIX "%s", identity) < 0)
                return;
        if (store_mapping_profiles_for_device(m->store, STORE_LAYER_SYSTEM, d->id, &own, &n_own) < 0)
                return;
        store_mappings_free(own, n_own);
        if (n_own > 0 || store_mapping_profiles_for_device(m->store, STORE_LAYER_SYSTEM, key, &maps, &n) < 0)
                return;
        bool changed = false;
        for (size_t i = 0; i < n; i++) {
                if (maps[i].timestamp == 0)
                        continue;
                if (store_mapping_set(m->store, STORE_LAYER_SYSTEM, d->id, maps[i].id, maps[i].timestamp) < 0)
                        continue;
                Profile *p = manager_find_profile_by_id(m, maps[i].id);
                if (p && device_add_profile(d, p, true, maps[i].timestamp) >= 0)
                        changed = true;
        }
        store_mappings_free(maps, n);
        if (changed) {
                log_info("%s: the choice made for printer %s is back", d->id, identity);
                device_touch(d);
                device_emit_relations_changed(d, true, NULL);
        }
}

/* A vendor profile the source made, by id: never another's profile that holds the id
 * (docs/printers.md, "Vendor profiles are the daemon's"). */
static Profile *find_vendor_profile(Manager *m, const char *id) {
        Profile *p = manager_find_profile_by_id(m, id);
        return p && p->printer_vendor ? p : NULL;
}

/* The identity as metadata, the vendor profiles as soft ones, the identity's choices: on
 * whichever device of the queue's id lives now (tinct's or cupsd's). */
static void decorate(CupsWatch *w, CupsQueue *q, bool force) {
        Manager *m = w->manager;
        _cleanup_free_ char *id = cups_device_id(q->name);
        _cleanup_free_ char *path = id ? manager_object_path(m, DEVICE_PATH_PREFIX, id, 0) : NULL;
        Device *d = path ? manager_find_device_by_path(m, path) : NULL;
        if (!d || (d == q->decorated && !force))
                return;
        q->decorated = d;
        bool props = false;
        if (q->uuid && !streq_ptr(strmap_get(&d->metadata, "PRINTER_uuid"), q->uuid))
                props = device_set_property(d, "PRINTER_uuid", q->uuid, NULL) >= 0 || props;
        if (q->identity && !streq_ptr(strmap_get(&d->metadata, "PRINTER_identity"), q->identity))
                props = device_set_property(d, "PRINTER_identity", q->identity, NULL) >= 0 || props;
        if (props)
                device_emit_properties(d, "Metadata", NULL);
        bool added = false;
        STRV_FOREACH(pid, q->vendor_profiles) {
                Profile *p = find_vendor_profile(m, *pid);
                if (p && !device_find_profile(d, p) && device_add_profile(d, p, false, now(CLOCK_REALTIME)) >= 0)
                        added = true;
        }
        if (added) {
                device_touch(d);
                device_emit_relations_changed(d, true, NULL);
        }
        if (q->identity)
                restore_identity_choices(m, d, q->identity);
}

static void vendor_next(CupsQueue *q);

/* A profile of the id exists: the daemon's (another queue of the same printer made it, or
 * an answer parsed meanwhile), which the queue lists too; or another's, which is never
 * adopted nor its file deleted: clients cannot take such an id (manager-dbus.c), so it is
 * one stored before that rule, and the printer's profile waits until the id is free. */
static int vendor_profile_exists(CupsQueue *q, const char *id, const char *name) {
        Profile *p = manager_find_profile_by_id(q->watch->manager, id);
        if (p->printer_vendor)
                return strv_contains(q->vendor_profiles, id) ? 0 : strv_extend(&q->vendor_profiles, id);
        log_warning("Printer %s: profile id %s is held by a profile tinctd did not make (owner %u); the printer's "
                    "profile %s is not registered", q->name, id, (unsigned) p->owner, name);
        return 0;
}

static void sweep_vendor_files(CupsWatch *w);

/* The rest of a vendor profile once its file is written: its profile object. */
static int vendor_profile_add(CupsQueue *q, VendorParse *v) {
        Manager *m = q->watch->manager;
        const char *id = v->id;
        if (manager_find_profile_by_id(m, id))
                return vendor_profile_exists(q, id, v->name); /* the file goes with vendor_next's sweep */
        _cleanup_free_ char *qualifier = cups_profile_qualifier(v->name, v->info->colorspace, v->media_types);
        _cleanup_(profile_freep) Profile *p = NULL;
        if (!qualifier || profile_new(m, id, 0, SCOPE_NORMAL, &p) < 0)
                return -ENOMEM;
        p->printer_vendor = true;
        int r = profile_set_file(p, v->path, v->info, (const char *const[]) { "PRINTER_profile_name", v->name,
                                                                              "PRINTER_profile_url", v->url, NULL });
        if (r >= 0)
                r = profile_set_property(p, "Qualifier", qualifier, NULL);
        if (r >= 0)
                r = profile_set_property(p, "Format", "ColorModel.MediaType.Resolution", NULL);
        if (r < 0)
                return r;
        r = manager_add_profile(m, p, false);
        if (r < 0)
                return r;
        TAKE_PTR(p);
        log_info("Printer %s: vendor profile %s (%s) as %s", q->name, v->name, qualifier, id);
        return strv_extend(&q->vendor_profiles, id);
}

static void on_vendor_written(int r, uint8_t *data, size_t size, void *userdata);

/* Hands the bytes to a writer thread (file-writer.h). 1 when the write started. */
static int vendor_write_start(VendorParse *v, uint8_t *data) {
        int r = file_write_atomic_async(v->watch->manager->event, v->path, data, v->size, 0644, WRITE_SKIP_IF_SAME,
                                        on_vendor_written, v, &v->write);
        return r < 0 ? r : 1;
}

/* A queue's profile whose path a gone queue's write held (vendor_profile_write) is written
 * now, after it: so the later answer's bytes are the ones that stay. */
static void vendor_write_held(CupsWatch *w, const char *path) {
        void *it = NULL, *e;
        while (hashmap_iterate(w->queues, &it, NULL, &e)) {
                CupsQueue *q = e;
                VendorParse *v;
                LIST_FOREACH(&q->parsing, v, VendorParse, link) {
                        if (!v->held || !streq(v->path, path))
                                continue;
                        int r = vendor_write_start(v, TAKE_PTR(v->held));
                        if (r >= 0)
                                return;
                        log_warning_errno(r, "Printer %s: cannot write the file of profile %s: %m", q->name, v->name);
                        vendor_parse_free(v);
                        vendor_next(q);
                        return; /* one queue's profile per path at most */
                }
        }
}

static void on_vendor_written(int r, uint8_t *data, size_t size, void *userdata) {
        VendorParse *v = userdata;
        CupsQueue *q = v->queue;
        free(data);

        v->write = NULL; /* answered: nothing to cancel */
        if (!q) { /* the queue went meanwhile: so does the file, with whatever else is unnamed */
                CupsWatch *w = v->watch;
                _cleanup_free_ char *path = TAKE_PTR(v->path);
                vendor_parse_free(v);
                vendor_write_held(w, path);
                sweep_vendor_files(w);
                return;
        }
        if (r < 0)
                log_warning_errno(r, "Printer %s: cannot write the file of profile %s (%zu bytes) as %s: %m", q->name,
                                  v->name, size, v->path);
        else {
                r = vendor_profile_add(q, v);
                if (r < 0)
                        log_warning_errno(r, "Printer %s: cannot register profile %s: %m", q->name, v->name);
        }
        vendor_parse_free(v);
        vendor_next(q);
}

/* The writes under way, of every queue's and of gone queues': their paths (appended to
 * *paths) and bytes together. */
static int vendor_writes(CupsWatch *w, char ***paths, uint64_t *ret_bytes) {
        uint64_t bytes = 0;
        const VendorParse *v;
        void *it = NULL, *e;
        while (hashmap_iterate(w->queues, &it, NULL, &e))
                LIST_FOREACH(&((CupsQueue *) e)->parsing, v, VendorParse, link)
                        if (v->write || v->held) {
                                if (strv_extend(paths, v->path) < 0)
                                        return -ENOMEM;
                                bytes += v->size;
                        }
        LIST_FOREACH(&w->landing, v, VendorParse, link) {
                if (strv_extend(paths, v->path) < 0)
                        return -ENOMEM;
                bytes += v->size;
        }
        *ret_bytes = bytes;
        return 0;
}

/* A parsed vendor profile's file, written by a thread of its own (file-writer.h): a file,
 * because print filters read a profile by its Filename; complete and fsync'd before the
 * profile is registered with it (on_vendor_written). 1 when the write started. */
static int vendor_profile_write(CupsQueue *q, VendorParse *v, uint8_t *icc, size_t icc_len) {
        _cleanup_free_ uint8_t *owned = icc;
        Manager *m = q->watch->manager;
        if (manager_find_profile_by_id(m, v->id))
                return vendor_profile_exists(q, v->id, v->name);
        _cleanup_strv_free_ char **writing = NULL;
        uint64_t bytes;
        int r = vendor_writes(q->watch, &writing, &bytes);
        if (r >= 0)
                r = cups_vendor_files_reserve(m->config.state_dir, v->id, icc_len, writing, bytes, &v->path);
        if (r == -EDQUOT) {
                log_warning("Printer %s: profile %s (%zu bytes) is not kept: the printers' vendor profiles would "
                            "be more than %u files or %llu MiB together (docs/printers.md)", q->name, v->name,
                            icc_len, (unsigned) LIMIT_PRINTER_FILES, LIMIT_PRINTER_FILES_BYTES >> 20);
                return 0;
        }
        if (r < 0)
                return log_warning_errno(r, "Printer %s: cannot write the file of profile %s in %s/printers: %m",
                                         q->name, v->name, m->config.state_dir);
        v->size = icc_len;
        /* A queue of the same name that went had its write of this path under way (removed
         * and added again within it): this one waits for it, so that its bytes stay. */
        const VendorParse *l;
        LIST_FOREACH(&q->watch->landing, l, VendorParse, link)
                if (streq(l->path, v->path)) {
                        v->held = TAKE_PTR(owned);
                        return 1; /* vendor_write_held() goes on */
                }
        return vendor_write_start(v, TAKE_PTR(owned));
}

static void on_vendor_parsed(int r, IccInfo *info, const char *why, uint8_t *data, size_t size, void *userdata) {
        VendorParse *v = userdata;
        CupsQueue *q = v->queue;

        v->call = NULL; /* answered: nothing to cancel */
        if (r < 0) {
                log_warning("Printer %s: profile %s from %s is not a usable ICC profile: %s", q->name, v->name, v->url,
                            why ?: strerror(-r));
                icc_info_free(info);
                free(data);
        } else {
                v->info = info;
                r = vendor_profile_write(q, v, data, size);
                if (r > 0)
                        return; /* on_vendor_written() goes on */
                if (r < 0)
                        log_warning_errno(r, "Printer %s: cannot register profile %s: %m", q->name, v->name);
        }
        vendor_parse_free(v);
        vendor_next(q);
}

/* Starts the parse of one vendor profile (the bytes copied: they are the reply's), or notes
 * one that exists already. */
static int vendor_profile(CupsWatch *w, CupsQueue *q, const FetchProfile *f, char *const *media_types) {
        Manager *m = w->manager;
        _cleanup_free_ char *id = cups_vendor_profile_id(q->identity, q->name, f->name);
        if (!id)
                return -ENOMEM;
        if (manager_find_profile_by_id(m, id))
                return vendor_profile_exists(q, id, f->name);
        VendorParse *v = calloc(1, sizeof *v);
        if (!v)
                return -ENOMEM;
        v->watch = w;
        v->queue = q;
        v->list = &q->parsing;
        list_append(v->list, &v->link);
        v->id = TAKE_PTR(id);
        v->name = strdup(f->name);
        v->url = strdup(f->url);
        v->media_types = strv_copy(media_types);
        uint8_t *icc = malloc(f->icc_len ?: 1);
        if (icc)
                memcpy(icc, f->icc, f->icc_len);
        if (!v->name || !v->url || (media_types && !v->media_types) || !icc) {
                free(icc);
                vendor_parse_free(v);
                return -ENOMEM;
        }
        int r = parser_icc_info_async(m->parser, icc, f->icc_len, 0, on_vendor_parsed, v, &v->call);
        if (r < 0)
                vendor_parse_free(v);
        return r;
}

static bool vendor_profile_held(CupsWatch *w, const char *id) {
        void *it = NULL, *v;
        while (hashmap_iterate(w->queues, &it, NULL, &v)) {
                const CupsQueue *q = v;
                if (strv_contains(q->vendor_profiles, id) || strv_contains(q->previous_profiles, id))
                        return true;
        }
        return false;
}

/* The vendor profiles of these ids that no queue lists any more go, their files before the
 * ProfileRemoved; a profile of such an id that the source did not make is never touched
 * (docs/printers.md). */
static void release_vendor_profiles(CupsWatch *w, char *const *ids) {
        STRV_FOREACH(pid, ids) {
                Profile *p = vendor_profile_held(w, *pid) ? NULL : find_vendor_profile(w->manager, *pid);
                if (!p)
                        continue;
                if (p->filename)
                        cups_vendor_files_remove(w->manager->config.state_dir, p->filename);
                manager_remove_profile(w->manager, p);
        }
}

/* <state>/printers/ holds the files of live vendor profiles only (cups-vendor-files.h). Runs
 * where profiles went or an answer is in. A file being written is not a live profile's yet
 * (it is registered once written: on_vendor_written), so it stays, and with it the hidden
 * temporary files while any write is under way. */
static void sweep_vendor_files(CupsWatch *w) {
        Manager *m = w->manager;
        _cleanup_strv_free_ char **keep = NULL;
        Profile *p;
        LIST_FOREACH(&m->profiles, p, Profile, link)
                if (p->printer_vendor && p->filename && strv_extend(&keep, p->filename) < 0)
                        return (void) log_oom(); /* keep = a part: nothing may go */
        size_t n = 0, before = strv_length(keep);
        uint64_t bytes;
        if (vendor_writes(w, &keep, &bytes) < 0)
                return (void) log_oom();
        int r = cups_vendor_files_sweep(m->config.state_dir, keep, strv_length(keep) > before, &n);
        if (r < 0)
                log_warning_errno(r, "Cannot sweep %s/printers of the files no printer uses: %m", m->config.state_dir);
        else if (n > 0)
                log_info("Removed %zu file%s of printers' vendor profiles that no queue uses", n, n == 1 ? "" : "s");
}

/* The printer's profiles are parsed one at a time, each copied out of the answer only when
 * its turn comes: a loop iteration handles one of them, never the whole answer (16 profiles
 * of 4 MB, bench/bench-printer.py). The device gets them once the last is done. */
static void vendor_next(CupsQueue *q) {
        while (q->reply && q->next_profile < q->reply->n_profiles) {
                const FetchProfile *f = &q->reply->profiles[q->next_profile++];
                int r = vendor_profile(q->watch, q, f, q->reply->media_types);
                if (r < 0)
                        log_warning_errno(r, "Printer %s: cannot register profile %s: %m", q->name, f->name);
                if (q->parsing.size > 0)
                        return; /* on_vendor_parsed() goes on */
        }
        if (q->reply)
                fetch_reply_done(q->reply);
        q->reply = mfree(q->reply);
        q->run = fetch_run_free(q->run);
        /* The answer is the printer's whole set: what an earlier one gave (another
         * printer-uuid, profiles it no longer offers) goes unless another queue holds it. */
        _cleanup_strv_free_ char **previous = TAKE_PTR(q->previous_profiles);
        release_vendor_profiles(q->watch, previous);
        sweep_vendor_files(q->watch);
        decorate(q->watch, q, true);
}

static void on_fetched(FetchRun *run, int error, FetchReply *reply, void *userdata) {
        CupsQueue *q = userdata;
        if (error < 0) {
                log_warning_errno(error, "Printer %s: tinct-fetch gave no usable answer for %s: %m", q->name,
                                  q->fetched_uri);
                q->run = fetch_run_free(q->run);
                return;
        }
        STRV_FOREACH(line, reply->problems)
                log_warning("Printer %s: %s", q->name, *line);
        _cleanup_free_ char *identity = NULL, *uuid = NULL;
        if (reply->uuid && cups_identity(reply->uuid, NULL, &identity) >= 0)
                uuid = strdup(identity + strlen("uuid:"));
        else if (!q->identity)
                (void) cups_identity(NULL, reply->device_id, &identity);
        if (identity) {
                free(q->identity);
                q->identity = TAKE_PTR(identity);
                if (uuid) {
                        free(q->uuid);
                        q->uuid = TAKE_PTR(uuid);
                }
        }
        q->reply = malloc(sizeof *q->reply);
        if (!q->reply) {
                log_oom();
                fetch_reply_done(reply);
                q->run = fetch_run_free(q->run);
                return;
        }
        *q->reply = *reply; /* its strings are the queue's now, its bytes stay in q->run */
        q->next_profile = 0;
        strv_free(q->previous_profiles); /* none: q->run held the queue's fetch until vendor_next() was done */
        q->previous_profiles = TAKE_PTR(q->vendor_profiles);
        vendor_next(q);
}

static void queue_fetch(CupsWatch *w, CupsQueue *q) {
        if (q->run || !q->device_uri || streq_ptr(q->fetched_uri, q->device_uri))
                return;
        if (strncmp(q->device_uri, "ipp://", 6) != 0 && strncmp(q->device_uri, "ipps://", 7) != 0)
                return; /* not a network printer tinct-fetch can ask */
        if (free_and_strdup(&q->fetched_uri, q->device_uri) < 0)
                return (void) log_oom();
        int r = fetch_run_start(w->manager->event, w->config->fetch_helper, q->device_uri, on_fetched, q,
                                &q->run);
        if (r < 0)
                log_warning_errno(r, "Printer %s: cannot ask tinct-fetch (%s) for its identity and profiles: %m",
                                  q->name, w->config->fetch_helper ?: FETCH_SOCKET);
}

/* ---- one queue -------------------------------------------------------------------------- */

typedef struct Props {
        const char *keys[8];
        char *values[8];
        size_t n;
} Props;

static void props_done(Props *p) {
        for (size_t i = 0; i < p->n; i++)
                free(p->values[i]);
}

static int props_add(Props *p, const char *key, const char *value) {
        assert(p->n < ELEMENTSOF(p->keys));
        char *copy = strdup(value);
        if (!copy)
                return -ENOMEM;
        p->keys[p->n] = key;
        p->values[p->n++] = copy;
        return 0;
}

/* What cupsd would send (colord §9.5), from what cupsd says of the queue. */
static int queue_props(const CupsPrinter *pr, Props *ret) {
        _cleanup_free_ char *vendor = NULL, *model = NULL, *serial = NULL;
        int r;
        if (pr->make_model) {
                r = cups_vendor_model(pr->make_model, &vendor, &model);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        if (pr->device_uri && !(serial = cups_sanitize_uri(pr->device_uri)))
                return -ENOMEM;
        _cleanup_free_ char *uuid = NULL;
        if (pr->device_uri) {
                r = cups_uri_uuid(pr->device_uri, &uuid);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        const DeviceProperty props[] = {
                { "Kind", "printer" },
                { "Mode", "physical" },
                { "Colorspace", pr->color ? "rgb" : "gray" },
                { "Format", "ColorModel.MediaType.Resolution" },
                { "Vendor", vendor },
                { "Model", model },
                { "Serial", serial },
                { "PRINTER_uuid", uuid },
        };
        for (size_t i = 0; i < ELEMENTSOF(props); i++) {
                if (!props[i].value)
                        continue; /* left out, as cupsd leaves it out */
                r = props_add(ret, props[i].key, props[i].value);
                if (r < 0)
                        return r;
        }
        return 0;
}

static char *props_signature(const Props *p) {
        size_t len = 1;
        for (size_t i = 0; i < p->n; i++)
                len += strlen(p->keys[i]) + strlen(p->values[i]) + 2;
        char *s = malloc(len), *e = s;
        if (!s)
                return NULL;
        for (size_t i = 0; i < p->n; i++)
                e += sprintf(e, "%s=%s\n", p->keys[i], p->values[i]);
        *e = 0;
        return s;
}

static int apply_props(Device *d, const Props *p) {
        /* Kind first: the model clean-up depends on it. */
        for (size_t i = 0; i < p->n; i++) {
                int r = device_set_property(d, p->keys[i], p->values[i], NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int queue_create_device(CupsWatch *w, CupsQueue *q, const char *id, const Props *props) {
        Manager *m = w->manager;
        _cleanup_(device_freep) Device *d = NULL;
        int r = device_new(m, id, 0, SCOPE_NORMAL, &d);
        if (r < 0)
                return r;
        r = apply_props(d, props);
        if (r < 0)
                return r;
        bool enabled;
        if (m->store && store_device_get_enabled(m->store, id, device_mapping_layer(d), &enabled) >= 0)
                d->enabled = enabled;
        r = manager_add_device(m, d);
        if (r < 0)
                return r;
        q->device = TAKE_PTR(d);
        log_info("CUPS queue %s: device %s", q->name, id);
        return 0;
}

static int queue_update(CupsWatch *w, const CupsPrinter *pr) {
        Manager *m = w->manager;
        CupsQueue *q = hashmap_get(w->queues, pr->name);
        int r;
        if (!q) {
                q = calloc(1, sizeof *q);
                if (q) {
                        q->watch = w;
                        list_init(&q->parsing);
                }
                if (!q || !(q->name = strdup(pr->name))) {
                        queue_free(q);
                        return -ENOMEM;
                }
                r = hashmap_put(w->queues, q->name, q);
                if (r < 0) {
                        queue_free(q);
                        return r;
                }
        }
        q->seen = true;

        _cleanup_free_ char *id = cups_device_id(pr->name);
        _cleanup_(props_done) Props props = { 0 };
        if (!id)
                return -ENOMEM;
        r = queue_props(pr, &props);
        if (r < 0)
                return r;
        _cleanup_free_ char *signature = props_signature(&props);
        _cleanup_free_ char *path = manager_object_path(m, DEVICE_PATH_PREFIX, id, 0);
        if (!signature || !path)
                return -ENOMEM;
        Device *existing = manager_find_device_by_path(m, path);
        if (existing && existing != q->device) {
                /* cupsd's own, a stored one or a root client's: never a second one; it
                 * still gets the printer's identity and vendor profiles (decorate). */
        } else if (!existing) {
                r = queue_create_device(w, q, id, &props);
                if (r < 0)
                        return r;
        } else if (!streq_ptr(q->signature, signature)) {
                r = apply_props(existing, &props);
                if (r < 0)
                        return r;
                device_touch(existing);
                device_emit_properties(existing, "Colorspace", "Vendor", "Model", "Serial", "Metadata", NULL);
                log_info("CUPS queue %s changed", q->name);
        }
        free(q->signature);
        q->signature = TAKE_PTR(signature);
        if (pr->device_uri && !streq_ptr(q->device_uri, pr->device_uri)) {
                r = free_and_strdup(&q->device_uri, pr->device_uri);
                if (r < 0)
                        return r;
        }
        /* A temporary or discovered queue names the printer's uuid in its URI. */
        _cleanup_free_ char *uuid = NULL;
        if (!q->identity && pr->device_uri && cups_uri_uuid(pr->device_uri, &uuid) >= 0 &&
            asprintf(&q->identity, "uuid:%s", uuid) >= 0)
                q->uuid = TAKE_PTR(uuid);
        if (!q->identity && pr->device_id)
                (void) cups_identity(NULL, pr->device_id, &q->identity);
        queue_fetch(w, q);
        decorate(w, q, false);
        return 0;
}

static void queue_gone(CupsWatch *w, CupsQueue *q) {
        Manager *m = w->manager;
        log_info("CUPS queue %s is gone%s", q->name, q->device ? ", and its device with it" : "");
        hashmap_remove_value(w->queues, q->name, q);
        Device *d = q->device;
        _cleanup_strv_free_ char **vendor = TAKE_PTR(q->vendor_profiles);
        _cleanup_strv_free_ char **previous = TAKE_PTR(q->previous_profiles);
        queue_free(q);
        if (d)
                manager_remove_device(m, d);
        /* Its vendor profiles too, unless another queue of the same printer holds them, and
         * their files with whatever else no live vendor profile names. */
        release_vendor_profiles(w, vendor);
        release_vendor_profiles(w, previous);
        sweep_vendor_files(w);
}

/* ---- asking cupsd ---------------------------------------------------------------------- */

static int schedule(CupsWatch *w, uint64_t usec);

/* Slow while cupsd's notifier tells of changes (the poll only catches a lost signal). */
static uint64_t poll_usec(CupsWatch *w) {
        if (!cups_notify_subscribed(w->notify))
                return CUPS_POLL_SEC * 1000000ULL;
        return w->config->poll_usec ?: CUPS_SAFETY_POLL_SEC * 1000000ULL;
}

static void report_problems(CupsWatch *w, char *problems) {
        if (streq_ptr(problems, w->last_problems)) {
                free(problems);
                return;
        }
        if (problems)
                log_warning("cupsd at %s: %s", w->server_name, problems);
        free(w->last_problems);
        w->last_problems = problems;
}

static void append_problem(char **all, const char *name, const char *problem) {
        char *s;
        if (asprintf(&s, "%s%s%s%s%s", *all ?: "", *all ? "; " : "", name ? "printer " : "", name ?: "", problem) < 0)
                return;
        free(*all);
        *all = s;
}

static void on_printers(IppCall *call, int error, IppMessage *msg, void *userdata) {
        CupsWatch *w = userdata;
        assert(call == w->call);
        w->call = ipp_call_free(w->call);
        /* client-error-not-found (0x0406): cupsd has no printers at all. */
        if (error >= 0 && msg->status > 0x00ff && msg->status != 0x0406)
                error = -EPROTO;
        if (error < 0) {
                if (error != w->last_error)
                        log_warning_errno(error, "Cannot list the printers of cupsd at %s: %m; keeping the %zu "
                                          "printer devices as they are until it answers", w->server_name,
                                          hashmap_size(w->queues));
                w->last_error = error;
                if (msg)
                        ipp_message_done(msg);
                cups_notify_cupsd_answers(w->notify, false);
                w->again = false;
                (void) schedule(w, CUPS_POLL_SEC * 1000000ULL);
                return;
        }
        if (w->last_error < 0)
                log_info("cupsd at %s answers", w->server_name);
        w->last_error = 0;

        void *it = NULL, *v;
        while (hashmap_iterate(w->queues, &it, NULL, &v))
                ((CupsQueue *) v)->seen = false;
        char *problems = NULL;
        for (size_t i = 0; i < msg->n_groups; i++) {
                if (msg->groups[i].tag != IPP_TAG_PRINTER)
                        continue;
                _cleanup_(cups_printer_done) CupsPrinter pr = { 0 };
                _cleanup_free_ char *problem = NULL;
                int r = cups_printer_from_ipp(&msg->groups[i], &pr, &problem);
                if (r == -ENOMEM) {
                        log_oom();
                        break;
                }
                if (problem)
                        append_problem(&problems, pr.name, problem);
                if (r < 0)
                        continue;
                r = queue_update(w, &pr);
                if (r < 0)
                        log_warning_errno(r, "CUPS queue %s: cannot make its device: %m", pr.name);
        }
        ipp_message_done(msg);
        /* A queue that failed above still counts as seen: only absence removes. */
        it = NULL;
        while (hashmap_iterate(w->queues, &it, NULL, &v)) {
                CupsQueue *q = v;
                if (!q->seen) {
                        queue_gone(w, q);
                        it = NULL; /* the map changed under the iterator */
                }
        }
        report_problems(w, problems);
        cups_notify_cupsd_answers(w->notify, true);
        /* While a subscription is being made, its outcome pokes: no listing in between,
         * so the next one after it is the poke's (docs/printers.md). */
        if (!cups_notify_subscribing(w->notify))
                (void) schedule(w, w->again ? CUPS_NOTIFY_DELAY_USEC : poll_usec(w));
        w->again = false;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        CupsWatch *w = userdata;
        if (w->call)
                return 0;
        int r = ipp_call_start(w->manager->event, &w->server, IPP_OP_CUPS_GET_PRINTERS, NULL, requested, NULL, 0,
                               CUPS_CALL_TIMEOUT_SEC * 1000000ULL, on_printers, w, &w->call);
        if (r < 0) {
                /* Synchronous failures (no socket) come here: the same one-line rule. */
                if (r != w->last_error)
                        log_warning_errno(r, "Cannot reach cupsd at %s: %m; keeping the %zu printer devices as "
                                          "they are until it answers", w->server_name, hashmap_size(w->queues));
                w->last_error = r;
                cups_notify_cupsd_answers(w->notify, false);
                return schedule(w, CUPS_POLL_SEC * 1000000ULL);
        }
        return 0;
}

static int schedule(CupsWatch *w, uint64_t usec) {
        if (!w->timer)
                return sd_event_add_time_relative(w->manager->event, &w->timer, CLOCK_MONOTONIC, usec, 0, on_timer, w);
        int r = sd_event_source_set_time_relative(w->timer, usec);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
}

/* A signal of cupsd's notifier: list the queues soon. A burst (PrinterAdded, then
 * PrinterModified) makes one listing, and a flood of signals cannot postpone it. */
static void on_poke(void *userdata) {
        CupsWatch *w = userdata;
        uint64_t due, now_usec;
        int enabled;
        if (w->call) {
                w->again = true;
                return;
        }
        if (w->timer && sd_event_source_get_enabled(w->timer, &enabled) >= 0 && enabled != SD_EVENT_OFF &&
            sd_event_source_get_time(w->timer, &due) >= 0 &&
            sd_event_now(w->manager->event, CLOCK_MONOTONIC, &now_usec) >= 0 &&
            due <= now_usec + CUPS_NOTIFY_DELAY_USEC)
                return;
        (void) schedule(w, CUPS_NOTIFY_DELAY_USEC);
}

/* No vendor profile exists yet: each is made again from its printer's answer, so every file
 * of the last run (a queue removed while tinctd was down, a printer that answered another
 * printer-uuid then) is named by nothing and goes (docs/printers.md). */
static void clear_vendor_files(Manager *m) {
        size_t n = 0;
        uint64_t bytes = 0;
        int r = cups_vendor_files_clear(m->config.state_dir, &n, &bytes);
        if (r < 0)
                log_warning_errno(r, "Cannot empty %s/printers of the last run's vendor profiles: %m",
                                  m->config.state_dir);
        if (n > 0)
                log_info("Removed the %zu file%s (%llu bytes) of the last run's printer vendor profiles; each printer's "
                         "answer brings its own again", n, n == 1 ? "" : "s", (unsigned long long) bytes);
}

static int cups_start(Manager *m, const void *config, void **ret_state) {
        const CupsConfig *c = config;
        clear_vendor_files(m);
        if (c->off)
                return 0;
        CupsWatch *w = calloc(1, sizeof *w);
        if (!w)
                return log_oom();
        w->manager = m;
        list_init(&w->landing);
        w->config = c;
        const char *env = getenv("CUPS_SERVER");
        int r = cups_server_parse(env, &w->server);
        if (r < 0) {
                cups_watch_free(w);
                if (r == -ENOMEM)
                        return log_oom();
                log_warning("CUPS_SERVER=%s is not a socket path, an IP address or localhost (tinct resolves no "
                            "names); printers are not followed", env);
                return r;
        }
        cups_server_name(&w->server, w->server_name, sizeof w->server_name);
        if (!(w->queues = hashmap_new())) {
                cups_watch_free(w);
                return log_oom();
        }
        *ret_state = w;
        r = cups_notify_new(m->event, m->bus, &w->server, w->server_name,
                            (int32_t) ((c->lease_usec ?: CUPS_LEASE_SEC * 1000000ULL) / 1000000ULL) ?: 1,
                            on_poke, w, &w->notify);
        if (r < 0)
                log_warning_errno(r, "Cannot watch cupsd's D-Bus notifier: %m; listing its queues every %d s",
                                  CUPS_POLL_SEC);
        r = schedule(w, 0);
        if (r < 0)
                return log_warning_errno(r, "Cannot follow cupsd: %m");
        log_debug("Following the queues of cupsd at %s", w->server_name);
        return 0;
}

void cups_config_done(CupsConfig *c) {
        c->fetch_helper = mfree(c->fetch_helper);
}

static void cups_stop(void *userdata) {
        cups_watch_free(userdata);
}

const DeviceSourceVTable cups_source = {
        .name = "CUPS queues",
        .start = cups_start,
        .stop = cups_stop,
        .device_removed = cups_device_removed,
        .yields_to_client = cups_yields_to_client,
        .handed_over = cups_handed_over,
        .choice_stored = cups_choice_stored,
        .profile_id_reserved = cups_vendor_profile_id_reserved,
};
