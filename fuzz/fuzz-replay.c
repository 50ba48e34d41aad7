/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replay runner shared by every fuzz target: a main() that feeds each regular file of the
 * directories (or files) on the command line to the target's LLVMFuzzerTestOneInput(), so a
 * target's corpus runs as an ordinary test in every build, sanitizers included, without
 * libFuzzer. It does no mutation; that is what the real libFuzzer build is for. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs are small (EDIDs, ICC profiles); anything bigger is a mistake in the corpus. */
#define REPLAY_MAX_INPUT (64u * 1024u * 1024u)

static int replay_file(const char *path) {
        struct stat st;
        uint8_t *buf;
        FILE *f;
        size_t n;

        f = fopen(path, "rb");
        if (!f) {
                fprintf(stderr, "%s: %s\n", path, strerror(errno));
                return -1;
        }
        if (fstat(fileno(f), &st) < 0 || (size_t) st.st_size > REPLAY_MAX_INPUT) {
                fprintf(stderr, "%s: cannot size or too big\n", path);
                fclose(f);
                return -1;
        }
        /* Exactly st_size bytes (at least 1 for malloc), so a read past the end is caught by
         * the sanitizers just as libFuzzer would catch it. */
        buf = malloc(st.st_size > 0 ? (size_t) st.st_size : 1);
        if (!buf) {
                fclose(f);
                return -1;
        }
        n = fread(buf, 1, (size_t) st.st_size, f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        return 0;
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static int replay_dir(const char *dir, unsigned *count) {
        struct dirent **entries = NULL;
        int n, r = 0;

        /* Sorted, so a failure always shows up at the same input. */
        n = scandir(dir, &entries, NULL, NULL);
        if (n < 0) {
                fprintf(stderr, "%s: %s\n", dir, strerror(errno));
                return -1;
        }
        char **names = calloc((size_t) n + 1, sizeof *names);
        for (int i = 0; i < n; i++)
                names[i] = entries[i]->d_name;
        qsort(names, (size_t) n, sizeof *names, compare_names);
        for (int i = 0; i < n && r == 0; i++) {
                char path[4096];
                struct stat st;

                snprintf(path, sizeof path, "%s/%s", dir, names[i]);
                if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
                        continue;
                r = replay_file(path);
                (*count)++;
        }
        free(names);
        for (int i = 0; i < n; i++)
                free(entries[i]);
        free(entries);
        return r;
}

int main(int argc, char **argv) {
        unsigned count = 0;

        if (argc < 2) {
                fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
                return 2;
        }
        for (int i = 1; i < argc; i++) {
                struct stat st;
                int r;

                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
                        return 1;
                }
                if (S_ISDIR(st.st_mode))
                        r = replay_dir(argv[i], &count);
                else {
                        r = replay_file(argv[i]);
                        count++;
                }
                if (r < 0)
                        return 1;
        }
        printf("replayed %u inputs\n", count);
        return count > 0 ? 0 : 1;
}
