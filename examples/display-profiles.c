/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libtinct example: print the ICC profile of every display, as an image viewer or a
 * compositor would look it up. With --watch, print again whenever something changes.
 *
 *   cc display-profiles.c $(pkg-config --cflags --libs tinct) -o display-profiles */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <tinct/tinct.h>

static int print_displays(TinctClient *c) {
        char **displays = NULL;
        int r = tinct_get_devices_by_kind(c, "display", &displays);
        if (r < 0) {
                fprintf(stderr, "Cannot list the displays: %s\n", tinct_client_last_error(c));
                return r;
        }
        for (char **d = displays; *d; d++) {
                char *id = NULL, *file = NULL;
                if (tinct_device_get_property(c, *d, "DeviceId", &id) < 0)
                        continue;
                r = tinct_device_get_profile_filename(c, *d, NULL, &file);
                if (r == 0)
                        printf("%s: %s\n", id, file);
                else
                        printf("%s: %s\n", id, r == -ENOENT ? "(no profile: assume sRGB)" : "(profile without a file)");
                free(id);
                free(file);
        }
        tinct_strv_free(displays);
        fflush(stdout);
        return 0;
}

static void on_changed(TinctClient *c, const char *device, void *userdata) {
        *(int *) userdata = 1;
}

int main(int argc, char **argv) {
        TinctClient *c;
        int r = tinct_client_new(&c);
        if (r < 0) {
                fprintf(stderr, "Cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        bool watch = argc > 1 && strcmp(argv[1], "--watch") == 0;
        int changed = 0;
        if (watch && tinct_watch(c, on_changed, &changed) < 0)
                return 1;
        r = print_displays(c);
        while (r >= 0 && watch) {
                r = tinct_client_process(c, UINT64_MAX);
                if (changed) {
                        changed = 0;
                        printf("--\n");
                        r = print_displays(c);
                }
        }
        tinct_client_free(c);
        return r < 0;
}
