/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Connector naming, id assignment and the scan diff for display discovery (no I/O). */
#include "display-scan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

int display_xrandr_name(const char *sysfs_name, char **ret) {
        if (strncmp(sysfs_name, "card", 4) != 0)
                return -EINVAL;
        const char *p = sysfs_name + 4;
        if (!isdigit((unsigned char) *p))
                return -EINVAL;
        while (isdigit((unsigned char) *p))
                p++;
        if (*p != '-' || isempty(p + 1))
                return -EINVAL;
        char *s = strdup(p + 1);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

bool display_is_embedded(const char *xrandr_name) {
        static const char *const panels[] = { "eDP-", "LVDS-", "DSI-" };
        for (size_t i = 0; i < ELEMENTSOF(panels); i++)
                if (strncmp(xrandr_name, panels[i], strlen(panels[i])) == 0)
                        return true;
        return false;
}

static void connector_done(DisplayConnector *c) {
        free(c->sysfs_name);
        free(c->xrandr_name);
        free(c->plain_id);
        free(c->edid);
        free(c->id);
        free(c->profile_id);
}

int display_list_add(DisplayList *l, char *sysfs_name, char *xrandr_name, char *plain_id,
                     const char md5[33], uint8_t *edid, size_t edid_size) {
        DisplayConnector c = {
                .sysfs_name = sysfs_name, .xrandr_name = xrandr_name, .plain_id = plain_id,
                .edid = edid, .edid_size = edid_size,
        };
        DisplayConnector *n = realloc(l->items, sizeof *n * (l->n + 1));
        if (!n) {
                connector_done(&c);
                return -ENOMEM;
        }
        memcpy(c.md5, md5, sizeof c.md5);
        c.md5[32] = 0;
        l->items = n;
        l->items[l->n++] = c;
        return 0;
}

void display_list_clear(DisplayList *l) {
        for (size_t i = 0; i < l->n; i++)
                connector_done(&l->items[i]);
        free(l->items);
        *l = (DisplayList) {};
}

static int compare_connectors(const void *a, const void *b) {
        return strverscmp(((const DisplayConnector *) a)->sysfs_name, ((const DisplayConnector *) b)->sysfs_name);
}

void display_list_sort(DisplayList *l) {
        if (l->n > 1)
                qsort(l->items, l->n, sizeof *l->items, compare_connectors);
}

int display_list_assign_ids(DisplayList *l) {
        display_list_sort(l);
        for (size_t i = 0; i < l->n; i++) {
                DisplayConnector *c = &l->items[i];
                size_t twins = 0, first = i;
                bool same_xrandr = false;
                for (size_t j = 0; j < l->n; j++) {
                        if (!streq(l->items[j].plain_id, c->plain_id))
                                continue;
                        if (twins++ == 0)
                                first = j;
                        if (j != i && streq(l->items[j].xrandr_name, c->xrandr_name))
                                same_xrandr = true;
                }
                char *id = NULL;
                if (twins == 1)
                        id = strdup(c->plain_id);
                else if (asprintf(&id, "%s-%s", c->plain_id, same_xrandr ? c->sysfs_name : c->xrandr_name) < 0)
                        id = NULL;
                if (!id)
                        return -ENOMEM;
                free(c->id);
                c->id = id;
                c->alias = twins > 1 && first == i;
        }
        return 0;
}

static bool connector_same(const DisplayConnector *a, const DisplayConnector *b) {
        return streq(a->md5, b->md5) && streq_ptr(a->id, b->id) && a->edid_size == b->edid_size &&
               memcmp(a->edid, b->edid, a->edid_size) == 0;
}

void display_list_diff(const DisplayList *before, DisplayList *after,
                       void (*cb)(DisplayChange change, DisplayConnector *before, DisplayConnector *after,
                                  void *userdata),
                       void *userdata) {
        size_t i = 0, j = 0;
        while (i < before->n || j < after->n) {
                int c = i >= before->n ? 1 : j >= after->n ? -1
                                                           : strverscmp(before->items[i].sysfs_name, after->items[j].sysfs_name);
                if (c < 0)
                        cb(DISPLAY_REMOVED, &before->items[i++], NULL, userdata);
                else if (c > 0)
                        cb(DISPLAY_ADDED, NULL, &after->items[j++], userdata);
                else {
                        DisplayConnector *a = &before->items[i++], *b = &after->items[j++];
                        cb(connector_same(a, b) ? DISPLAY_SAME : DISPLAY_CHANGED, a, b, userdata);
                }
        }
}
