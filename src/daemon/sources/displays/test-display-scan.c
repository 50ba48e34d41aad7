/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for display-scan.c: connector names, embedded panels, ids for identical
 * monitors (and their alias), and the scan diff. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display-scan.h"
#include "macro.h"
#include "tests.h"

static void add(DisplayList *l, const char *sysfs, const char *plain, const char *md5) {
        char *x = NULL;
        uint8_t *edid = malloc(4);
        assert_se(edid);
        memcpy(edid, md5, 4);
        assert_se(display_xrandr_name(sysfs, &x) == 0);
        assert_se(display_list_add(l, strdup(sysfs), x, strdup(plain), md5, edid, 4) == 0);
}

static void test_names(void) {
        char *x = NULL;
        assert_se(display_xrandr_name("card0-DP-1", &x) == 0);
        assert_streq(x, "DP-1");
        free(x);
        assert_se(display_xrandr_name("card12-HDMI-A-2", &x) == 0);
        assert_streq(x, "HDMI-A-2");
        free(x);
        assert_se(display_xrandr_name("card0", &x) == -EINVAL);
        assert_se(display_xrandr_name("card0-", &x) == -EINVAL);
        assert_se(display_xrandr_name("cardX-DP-1", &x) == -EINVAL);
        assert_se(display_xrandr_name("version", &x) == -EINVAL);
        assert_se(display_xrandr_name("renderD128", &x) == -EINVAL);

        assert_se(display_is_embedded("eDP-1"));
        assert_se(display_is_embedded("LVDS-1"));
        assert_se(display_is_embedded("DSI-1"));
        assert_se(!display_is_embedded("DP-1"));
        assert_se(!display_is_embedded("HDMI-A-1"));
        assert_se(!display_is_embedded("DPI-1"));
}

static const char *const MD5_A = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char *const MD5_B = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static void test_ids(void) {
        DisplayList l = {};
        add(&l, "card0-DP-10", "xrandr-Dell-U2713H-X", MD5_A);
        add(&l, "card0-DP-2", "xrandr-Dell-U2713H-X", MD5_A);
        add(&l, "card0-eDP-1", "xrandr-IBM", MD5_B);
        assert_se(display_list_assign_ids(&l) == 0);
        /* Sorted numerically: DP-2 before DP-10. */
        assert_streq(l.items[0].sysfs_name, "card0-DP-2");
        assert_streq(l.items[0].id, "xrandr-Dell-U2713H-X-DP-2");
        assert_se(l.items[0].alias);
        assert_streq(l.items[1].sysfs_name, "card0-DP-10");
        assert_streq(l.items[1].id, "xrandr-Dell-U2713H-X-DP-10");
        assert_se(!l.items[1].alias);
        assert_streq(l.items[2].id, "xrandr-IBM");
        assert_se(!l.items[2].alias);
        display_list_clear(&l);

        /* The same connector name on two cards: the sysfs name tells them apart. */
        add(&l, "card1-DP-1", "xrandr-X", MD5_A);
        add(&l, "card0-DP-1", "xrandr-X", MD5_A);
        assert_se(display_list_assign_ids(&l) == 0);
        assert_streq(l.items[0].id, "xrandr-X-card0-DP-1");
        assert_streq(l.items[1].id, "xrandr-X-card1-DP-1");
        assert_se(l.items[0].alias && !l.items[1].alias);
        display_list_clear(&l);
}

typedef struct Seen {
        char log[512];
} Seen;

static void record(DisplayChange change, DisplayConnector *before, DisplayConnector *after, void *userdata) {
        static const char *const names[] = { "+", "-", "~", "=" };
        Seen *s = userdata;
        const DisplayConnector *c = after ? after : before;
        size_t n = strlen(s->log);
        snprintf(s->log + n, sizeof s->log - n, "%s%s ", names[change], c->xrandr_name);
        if (change == DISPLAY_SAME || change == DISPLAY_CHANGED)
                assert_se(before && after && streq(before->sysfs_name, after->sysfs_name));
}

static void test_diff(void) {
        DisplayList a = {}, b = {};
        Seen s = {};

        add(&a, "card0-DP-1", "xrandr-A", MD5_A);
        add(&a, "card0-DP-3", "xrandr-B", MD5_B);
        add(&a, "card0-eDP-1", "xrandr-P", MD5_B);
        assert_se(display_list_assign_ids(&a) == 0);

        /* DP-1: a twin arrives on DP-2, so DP-1's id changes; DP-3 unplugged; eDP same. */
        add(&b, "card0-eDP-1", "xrandr-P", MD5_B);
        add(&b, "card0-DP-2", "xrandr-A", MD5_A);
        add(&b, "card0-DP-1", "xrandr-A", MD5_A);
        assert_se(display_list_assign_ids(&b) == 0);
        display_list_diff(&a, &b, record, &s);
        assert_streq(s.log, "~DP-1 +DP-2 -DP-3 =eDP-1 ");

        /* Same connector, other EDID. */
        DisplayList c = {};
        add(&c, "card0-eDP-1", "xrandr-P", MD5_A);
        assert_se(display_list_assign_ids(&c) == 0);
        DisplayList d = {};
        add(&d, "card0-eDP-1", "xrandr-P", MD5_B);
        assert_se(display_list_assign_ids(&d) == 0);
        s = (Seen) {};
        display_list_diff(&c, &d, record, &s);
        assert_streq(s.log, "~eDP-1 ");

        /* Empty lists on either side. */
        DisplayList e = {};
        s = (Seen) {};
        display_list_diff(&e, &c, record, &s);
        assert_streq(s.log, "+eDP-1 ");
        s = (Seen) {};
        display_list_diff(&c, &e, record, &s);
        assert_streq(s.log, "-eDP-1 ");

        display_list_clear(&a);
        display_list_clear(&b);
        display_list_clear(&c);
        display_list_clear(&d);
}

int main(void) {
        test_names();
        test_ids();
        test_diff();
        printf("display-scan: ok\n");
        return 0;
}
