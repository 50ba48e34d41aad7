#include "profile-scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "icc-info.h"
#include "log.h"
#include "profile-load.h"
#include "profile.h"

#define MAX_DEPTH 2

static bool has_icc_suffix(const char *name) {
        size_t n = strlen(name);
        return n > 4 && (strcasecmp(name + n - 4, ".icc") == 0 || strcasecmp(name + n - 4, ".icm") == 0);
}

static bool has_icc_magic(const uint8_t *data, size_t size) {
        return size >= 40 && memcmp(data + 36, "acsp", 4) == 0;
}

int profile_scan_file(Manager *m, const char *path) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        if (strstr(base, ".goutputstream") || base[0] == '.')
                return 0; /* temporary files of atomic writers */

        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return log_warning_errno(errno, "Skipping %s: %m", path);
        _cleanup_free_ uint8_t *data = NULL;
        size_t size;
        int r = read_regular_fd(fd, &data, &size);
        if (r < 0)
                return log_warning_errno(r, "Skipping %s: %m", path);
        if (size == 0 || (!has_icc_suffix(base) && !has_icc_magic(data, size)))
                return 0;

        _cleanup_(icc_info_freep) IccInfo *info = NULL;
        _cleanup_free_ char *why = NULL;
        r = icc_info_parse(data, size, &info, &why);
        if (r < 0) {
                log_warning("Skipping %s: %s", path, why ? why : strerror(-r));
                return r;
        }

        _cleanup_free_ char *id = NULL;
        if (asprintf(&id, "icc-%s", info->checksum) < 0)
                return log_oom();
        Profile *dup = manager_find_profile_by_id(m, id);
        if (dup) {
                log_debug("Skipping %s: same checksum as %s", path, strempty(dup->filename));
                return 0;
        }

        _cleanup_(profile_freep) Profile *p = NULL;
        r = profile_new(m, id, 0, SCOPE_UNKNOWN, &p);
        if (r < 0)
                return log_oom();
        /* Everything the daemon finds in its own directories is system-wide, whatever the
         * prefix (colord tests the path prefix instead; see docs/compatibility.md). */
        p->is_system_wide = true;
        if ((r = free_and_strdup(&p->filename, path)) < 0 ||
            (r = profile_apply_icc(p, info)) < 0 ||
            (r = strmap_set(&p->metadata, "FILE_checksum", info->checksum)) < 0)
                return log_warning_errno(r, "Skipping %s: %m", path);
        profile_apply_well_known_id(p);
        r = manager_add_profile(m, p, false);
        if (r < 0)
                return log_warning_errno(r, "Failed to add profile %s: %m", path);
        TAKE_PTR(p);
        return 1;
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void scan_dir(Manager *m, const char *dir, int depth) {
        _cleanup_strv_free_ char **names = NULL;
        DIR *d = opendir(dir);
        if (!d) {
                if (errno != ENOENT)
                        log_warning_errno(errno, "Cannot read profile directory %s: %m", dir);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..") && strv_extend(&names, de->d_name) < 0)
                        break;
        closedir(d);
        /* Sorted, so that which of two identical files wins does not depend on the
         * filesystem's order. */
        qsort(names, strv_length(names), sizeof(char *), compare_names);

        STRV_FOREACH(n, names) {
                _cleanup_free_ char *path = NULL;
                struct stat st;
                if (asprintf(&path, "%s/%s", dir, *n) < 0)
                        return;
                if (lstat(path, &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (depth < MAX_DEPTH)
                                scan_dir(m, path, depth + 1);
                        else
                                log_warning("Not descending into %s: deeper than %d levels", path, MAX_DEPTH);
                } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
                        (void) profile_scan_file(m, path);
        }
}

int profile_scan_all(Manager *m) {
        STRV_FOREACH(dir, m->config.profile_dirs)
                scan_dir(m, *dir, 0);
        log_info("Found %zu profiles", m->profiles.size);
        return 0;
}
