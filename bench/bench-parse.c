/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tinct-bench-parse --helper PATH DIR...: what the parser sandbox (docs/sandbox.md) costs.
 * For every ICC file (*.icc, *.icm) and EDID (*.bin) in the directories, the same parse
 * twice, in this process and through a confined tinct-parse process, one file at a time
 * as the daemon does it:
 *  - icc.info: icc_info_parse_flags(ICC_INFO_SKIP_WARNINGS), the cold-start parse;
 *  - icc.warnings: icc_info_compute_warnings(), the idle-time pass;
 *  - edid: edid_parse();
 * each as the mean per file over all files (after one warm-up pass), in-process and
 * sandboxed, and their difference, the price per file. Also the start of a parser process
 * (spawn, confinement, first answer), as the median of 50 starts.
 * Files are read into memory first: disk and page cache are not part of any figure. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench-util.h"
#include "edid.h"
#include "icc-info.h"
#include "parser.h"
#include "strv.h"

typedef struct Blob {
        uint8_t *data;
        size_t size;
        bool edid;
} Blob;

static Blob *blobs;
static size_t n_blobs;

static bool has_suffix(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n > m && strcasecmp(s + n - m, suffix) == 0;
}

static void load_dir(const char *dir) {
        DIR *d = opendir(dir);
        if (!d) {
                fprintf(stderr, "%s: %m\n", dir);
                exit(1);
        }
        for (struct dirent *de; (de = readdir(d));) {
                bool edid = has_suffix(de->d_name, ".bin");
                if (!edid && !has_suffix(de->d_name, ".icc") && !has_suffix(de->d_name, ".icm"))
                        continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                FILE *f = fopen(path, "re");
                if (!f)
                        continue;
                Blob b = { .edid = edid };
                size_t cap = 1 << 14;
                b.data = malloc(cap);
                for (size_t k; b.data && (k = fread(b.data + b.size, 1, cap - b.size, f)) > 0;)
                        if ((b.size += k) == cap)
                                b.data = realloc(b.data, cap *= 2);
                fclose(f);
                if (!b.data) {
                        fprintf(stderr, "out of memory\n");
                        exit(1);
                }
                blobs = realloc(blobs, (n_blobs + 1) * sizeof(Blob));
                blobs[n_blobs++] = b;
        }
        closedir(d);
}

typedef enum Kind { ICC_INFO, ICC_WARNINGS, EDID_PARSE } Kind;

static void one(Parser *p, const Blob *b, Kind k) {
        if (k == EDID_PARSE) {
                Edid *e = NULL;
                (void) (p ? parser_edid(p, b->data, b->size, &e, NULL) : edid_parse(b->data, b->size, &e));
                edid_free(e);
        } else if (k == ICC_INFO) {
                IccInfo *info = NULL;
                (void) (p ? parser_icc_info(p, b->data, b->size, ICC_INFO_SKIP_WARNINGS, &info, NULL)
                          : icc_info_parse_flags(b->data, b->size, ICC_INFO_SKIP_WARNINGS, &info, NULL));
                icc_info_free(info);
        } else {
                char **w = NULL;
                (void) (p ? parser_icc_warnings(p, b->data, b->size, &w, NULL)
                          : icc_info_compute_warnings(b->data, b->size, &w, NULL));
                strv_free(w);
        }
}

/* Mean ns per file of this kind, over one pass after a warm-up pass. */
static double pass(Parser *p, Kind k, size_t *ret_n) {
        size_t n = 0;
        uint64_t t0 = 0;
        for (int round = 0; round < 2; round++) {
                if (round == 1)
                        t0 = now_nsec();
                n = 0;
                for (size_t i = 0; i < n_blobs; i++)
                        if (blobs[i].edid == (k == EDID_PARSE)) {
                                one(p, &blobs[i], k);
                                n++;
                        }
        }
        *ret_n = n;
        return n ? (double) (now_nsec() - t0) / (double) n : 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
        const char *helper = NULL;
        static const struct option options[] = { { "helper", required_argument, NULL, 'H' }, {} };
        for (int c; (c = getopt_long(argc, argv, "", options, NULL)) >= 0;)
                if (c == 'H')
                        helper = optarg;
                else
                        return 2;
        if (!helper || optind >= argc) {
                fprintf(stderr, "usage: tinct-bench-parse --helper PATH DIR...\n");
                return 2;
        }
        for (int i = optind; i < argc; i++)
                load_dir(argv[i]);

        /* A parser's start: new process, confinement, the first (small) answer. */
        uint64_t starts[50];
        const Blob *first = NULL;
        for (size_t i = 0; i < n_blobs && !first; i++)
                if (!blobs[i].edid)
                        first = &blobs[i];
        for (size_t i = 0; first && i < ELEMENTSOF(starts); i++) {
                Parser *p = NULL;
                if (parser_new(helper, 10 * 1000000ull, &p) < 0)
                        return 1;
                uint64_t t0 = now_nsec();
                one(p, first, ICC_INFO);
                starts[i] = now_nsec() - t0;
                if (parser_spawn_count(p) != 1) {
                        fprintf(stderr, "the parser did not start\n");
                        return 1;
                }
                parser_free(p);
        }
        if (first) {
                qsort(starts, ELEMENTSOF(starts), sizeof starts[0], cmp_u64);
                result_printf(starts[ELEMENTSOF(starts) / 2] / 1e3, "us", "sandbox.start.median");
        }

        Parser *p = NULL;
        if (parser_new(helper, 10 * 1000000ull, &p) < 0)
                return 1;
        static const struct {
                Kind kind;
                const char *name;
        } kinds[] = { { ICC_INFO, "icc.info" }, { ICC_WARNINGS, "icc.warnings" }, { EDID_PARSE, "edid" } };
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                size_t n;
                double local = pass(NULL, kinds[i].kind, &n);
                double boxed = pass(p, kinds[i].kind, &n);
                if (n == 0)
                        continue;
                result_printf((double) n, "files", "sandbox.%s.files", kinds[i].name);
                result_printf(local / 1e3, "us", "sandbox.%s.in-process", kinds[i].name);
                result_printf(boxed / 1e3, "us", "sandbox.%s.sandboxed", kinds[i].name);
                result_printf((boxed - local) / 1e3, "us", "sandbox.%s.cost-per-file", kinds[i].name);
        }
        result_printf(parser_spawn_count(p), "processes", "sandbox.processes-started");
        parser_free(p);

        /* The start-up scan's way: every ICC file in one batch over the pool (docs/sandbox.md,
         * "Who waits"), wall time per file, after a warm-up batch. */
        ParserIccJob *jobs = calloc(n_blobs ? n_blobs : 1, sizeof *jobs);
        size_t n_jobs = 0;
        for (size_t i = 0; jobs && i < n_blobs; i++)
                if (!blobs[i].edid)
                        jobs[n_jobs++] = (ParserIccJob) { .data = blobs[i].data, .size = blobs[i].size };
        if (!jobs || parser_new(helper, 10 * 1000000ull, &p) < 0)
                return 1;
        uint64_t t0 = 0;
        for (int round = 0; n_jobs > 0 && round < 2; round++) {
                if (round == 1)
                        t0 = now_nsec();
                if (parser_icc_info_many(p, jobs, n_jobs, ICC_INFO_SKIP_WARNINGS) < 0)
                        return 1;
                for (size_t i = 0; i < n_jobs; i++) {
                        icc_info_free(jobs[i].info);
                        free(jobs[i].error);
                }
        }
        if (n_jobs > 0)
                result_printf((double) (now_nsec() - t0) / 1e3 / (double) n_jobs, "us", "sandbox.icc.info.batched");
        result_printf(parser_spawn_count(p), "processes", "sandbox.batched.processes-started");
        parser_free(p);
        free(jobs);
        return 0;
}
