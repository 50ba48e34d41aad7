/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct export / tinct import: the store as JSON, offline (straight on the SQLite file, not
 * through the daemon). Export takes one consistent snapshot and may run while tinctd runs.
 * Import replaces the store's content in one transaction; run it with tinctd stopped, since
 * the daemon would not notice the change and would keep its own view in memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "store.h"
#include "verbs.h"

#define IMPORT_MAX_SIZE (256u * 1024 * 1024)

static const char *state_dir_of(const Invocation *inv) {
        return inv->opts.state_dir ?: STORE_DEFAULT_STATE_DIR;
}

/* The store to read, as it is: neither created nor backed up. Logged when it cannot. */
static int open_existing(const Invocation *inv, Store **ret) {
        const char *state_dir = state_dir_of(inv);
        int r = store_open_full(state_dir, STORE_OPEN_NO_CREATE | STORE_OPEN_NO_BACKUP, ret);
        if (r == -ENOENT)
                log_error("no store in %s", state_dir);
        return r; /* any other error: store_open_full() said why */
}

/* The JSON export, printed into memory first so that a file written with it is either the
 * old one or a complete export. */
static int print_export(FILE *f, const void *userdata) {
        return store_export_json((Store *) userdata, f);
}

int verb_export(Invocation *inv) {
        const char *target = inv->n_args > 0 && !streq(inv->args[0], "-") ? inv->args[0] : NULL;

        _cleanup_(store_freep) Store *s = NULL;
        int r = open_existing(inv, &s);
        if (r < 0)
                return 1;

        if (!target) {
                r = store_export_json(s, stdout);
                if (r < 0) {
                        log_error("export failed: %s", strerror(-r));
                        return 1;
                }
                return 0;
        }

        /* 0600: it holds every user's mappings. */
        r = write_file_atomic_printed(target, 0600, 0, print_export, s);
        if (r < 0) {
                log_error("export to %s failed: %s", target, strerror(-r));
                return 1;
        }
        return 0;
}


int verb_import(Invocation *inv) {
        const char *state_dir = state_dir_of(inv);
        const char *source = inv->args[0];
        FILE *f = streq(source, "-") ? stdin : fopen(source, "re");
        if (!f) {
                log_error("cannot open %s: %s", source, strerror(errno));
                return 1;
        }
        _cleanup_free_ uint8_t *data = NULL;
        size_t size = 0;
        int r = read_fd_capped(fileno(f), IMPORT_MAX_SIZE, 0, &data, &size);
        if (f != stdin)
                fclose(f);
        if (r < 0) {
                log_error("cannot read %s: %s", source,
                        r == -EFBIG ? "larger than 256 MiB" : strerror(-r));
                return 1;
        }

        /* Opened normally, so the current content is backed up before it is replaced. */
        _cleanup_(store_freep) Store *s = NULL;
        r = store_open(state_dir, &s);
        if (r < 0)
                return 1; /* store_open() said why */
        _cleanup_free_ char *error = NULL;
        r = store_import_json(s, (const char *) data, size, &error);
        if (r < 0) {
                log_error("%s: %s; the store is unchanged.", source, error ?: strerror(-r));
                return 1;
        }
        return 0;
}

/* tinct dump [--state-dir DIR]: colormgr's dump for tinct's own store. colormgr runs
 * sqlite3's .dump of colord's database into colord-<seconds>.txt in the current directory
 * and prints it; this writes the store's JSON export (devices, profiles, mappings, the
 * same document as `tinct export`) to tinct-<seconds>.json there and on stdout. */
int verb_dump(Invocation *inv) {
        _cleanup_(store_freep) Store *s = NULL;
        int r = open_existing(inv, &s);
        if (r < 0)
                return 1;
        _cleanup_free_ char *buf = NULL, *name = NULL;
        size_t n = 0;
        r = print_to_memory(print_export, s, &buf, &n);
        if (r >= 0 && asprintf(&name, "tinct-%lld.json", (long long) time(NULL)) < 0)
                r = -ENOMEM;
        if (r >= 0)
                r = write_file_atomic(name, buf, n, 0600, WRITE_NO_REPLACE);
        if (r < 0) {
                log_error("dump failed: %s", strerror(-r));
                return 1;
        }
        fwrite(buf, 1, n, stdout);
        log_info("Wrote %s", name);
        return fflush(stdout) == 0 ? 0 : 1;
}
