/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of tinct-session's pure naming rules (session-names.c). */
#include <errno.h>

#include "session-names.h"
#include "strv.h"
#include "tests.h"

static void test_dirs(void) {
        char **d = NULL;

        assert_se(session_user_icc_dirs("/x/data", "/home/u", &d) == 0);
        assert_se(strv_length(d) == 2);
        assert_streq(d[0], "/x/data/icc");
        assert_streq(d[1], "/home/u/.color/icc");
        d = strv_free(d);

        /* Unset, empty or relative XDG_DATA_HOME: the default under HOME. */
        const char *unset[] = { NULL, "", "relative/data" };
        for (size_t i = 0; i < ELEMENTSOF(unset); i++) {
                assert_se(session_user_icc_dirs(unset[i], "/home/u", &d) == 0);
                assert_se(strv_length(d) == 2);
                assert_streq(d[0], "/home/u/.local/share/icc");
                assert_streq(d[1], "/home/u/.color/icc");
                d = strv_free(d);
        }

        /* No usable HOME: only what XDG_DATA_HOME names. */
        assert_se(session_user_icc_dirs("/x/data", "home", &d) == 0);
        assert_se(strv_length(d) == 1);
        assert_streq(d[0], "/x/data/icc");
        d = strv_free(d);
        assert_se(session_user_icc_dirs(NULL, NULL, &d) == -ENOENT && !d);
        assert_se(session_user_icc_dirs("rel", "", &d) == -ENOENT && !d);
}

static void test_names(void) {
        assert_se(session_name_is_candidate("a.icc"));
        assert_se(session_name_is_candidate("profile"));
        assert_se(!session_name_is_candidate(""));
        assert_se(!session_name_is_candidate(".a.icc.XXXXXX"));
        assert_se(!session_name_is_candidate("a.icc.goutputstream-ABC123"));

        assert_se(session_name_has_icc_suffix("a.icc"));
        assert_se(session_name_has_icc_suffix("A.ICM"));
        assert_se(session_name_has_icc_suffix("x.Icc"));
        assert_se(!session_name_has_icc_suffix(".icc"));
        assert_se(!session_name_has_icc_suffix("a.icc~"));
        assert_se(!session_name_has_icc_suffix("icc"));
        assert_se(!session_name_has_icc_suffix("a.txt"));
}

static void test_atoms_and_outputs(void) {
        char buf[SESSION_ICC_ATOM_MAX];
        session_icc_atom_name(0, buf);
        assert_streq(buf, "_ICC_PROFILE");
        session_icc_atom_name(1, buf);
        assert_streq(buf, "_ICC_PROFILE_1");
        session_icc_atom_name(12, buf);
        assert_streq(buf, "_ICC_PROFILE_12");

        assert_se(session_output_is_embedded("eDP-1"));
        assert_se(session_output_is_embedded("LVDS1"));
        assert_se(session_output_is_embedded("DSI-1"));
        assert_se(!session_output_is_embedded("DP-1"));
        assert_se(!session_output_is_embedded("HDMI-1"));
        assert_se(!session_output_is_embedded("screen"));
}

int main(void) {
        test_dirs();
        test_names();
        test_atoms_and_outputs();
        return 0;
}
