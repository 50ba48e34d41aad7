/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct icc-info: prints what the daemon would read from an ICC profile (src/icc), as text or
 * as JSON for scripts (src/icc/check-corpus.py compares it with the corpus references).
 * Offline only: it never talks to the daemon. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icc-info.h"
#include "json.h"
#include "log.h"
#include "macro.h"
#include "fileio.h"
#include "strv.h"
#include "verbs.h"

static int print_json(FILE *f, const char *path, const IccInfo *info, int r, const char *error) {
        JsonWriter w;
        json_writer_init(&w, f);
        json_write_begin_object(&w);
        json_write_member_text(&w, "file", path);
        if (r < 0) {
                json_write_member_text(&w, "error", error ? error : strerror(-r));
                json_write_key(&w, "errno");
                json_write_int64(&w, -r);
        } else {
                json_write_member_text(&w, "error", NULL);
                json_write_member_text(&w, "checksum", info->checksum);
                json_write_member_text(&w, "description", info->description);
                json_write_member_text(&w, "title", info->title);
                json_write_member_text(&w, "copyright", info->copyright);
                json_write_member_text(&w, "manufacturer", info->manufacturer);
                json_write_member_text(&w, "model", info->model);
                json_write_member_text(&w, "kind", info->kind);
                json_write_member_text(&w, "colorspace", info->colorspace);
                json_write_key(&w, "has_vcgt");
                json_write_bool(&w, info->has_vcgt);
                json_write_key(&w, "created");
                json_write_int64(&w, info->created);
                json_write_key(&w, "tags_ignored");
                json_write_int64(&w, info->tags_ignored);
                json_write_key(&w, "metadata");
                json_write_begin_object(&w);
                for (size_t i = 0; info->metadata && info->metadata[i] && info->metadata[i + 1]; i += 2)
                        json_write_member_text(&w, info->metadata[i], info->metadata[i + 1]);
                json_write_end_object(&w);
                json_write_key(&w, "warnings");
                json_write_begin_array(&w);
                STRV_FOREACH(k, info->warnings)
                        json_write_string_lossy(&w, *k);
                json_write_end_array(&w);
        }
        json_write_end_object(&w);
        return json_writer_finish(&w);
}

static void print_text(FILE *f, const IccInfo *info) {
        fprintf(f, "Checksum:     %s\n", info->checksum);
        fprintf(f, "Description:  %s\n", strempty(info->description));
        fprintf(f, "Title:        %s\n", strempty(info->title));
        fprintf(f, "Copyright:    %s\n", strempty(info->copyright));
        if (info->manufacturer)
                fprintf(f, "Manufacturer: %s\n", info->manufacturer);
        if (info->model)
                fprintf(f, "Model:        %s\n", info->model);
        fprintf(f, "Kind:         %s\n", info->kind);
        fprintf(f, "Colorspace:   %s\n", info->colorspace);
        fprintf(f, "HasVcgt:      %s\n", info->has_vcgt ? "yes" : "no");
        fprintf(f, "Created:      %" PRIi64 "\n", info->created);
        if (info->tags_ignored > 0)
                fprintf(f, "Ignored tags: %u (outside the file)\n", info->tags_ignored);
        for (size_t i = 0; info->metadata && info->metadata[i] && info->metadata[i + 1]; i += 2)
                fprintf(f, "Metadata:     %s=%s\n", info->metadata[i], info->metadata[i + 1]);
        fputs("Warnings:    ", f);
        if (strv_length(info->warnings) == 0)
                fputs(" none", f);
        STRV_FOREACH(w, info->warnings)
                fprintf(f, " %s", *w);
        fputc('\n', f);
}

int verb_icc_info(Invocation *inv) {
        const char *path = inv->args[0];
        bool json = inv->opts.json;

        _cleanup_free_ uint8_t *data = NULL;
        size_t size = 0;
        int r = read_file_capped(path, TOOL_MAX_FILE, 0, &data, &size, NULL);
        if (r < 0) {
                log_error("cannot read %s: %s", path, strerror(-r));
                return 1;
        }

        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *error = NULL;
        r = icc_info_parse(data, size, &info, &error);
        if (json) {
                int k = print_json(stdout, path, info, r, error);
                if (k < 0)
                        log_error("writing JSON: %s", strerror(-k));
                return r < 0 || k < 0 ? 1 : 0;
        }
        if (r < 0) {
                log_error("%s: %s", path, error ? error : strerror(-r));
                return 1;
        }
        print_text(stdout, info);
        return 0;
}
