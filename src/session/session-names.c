/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure naming rules of tinct-session (see session-names.h). */
#include "session-names.h"

#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "macro.h"
#include "strv.h"

int session_user_icc_dirs(const char *xdg_data_home, const char *home, char ***ret) {
        _cleanup_(strv_freep) char **dirs = NULL;
        char *d;
        bool home_ok = !isempty(home) && home[0] == '/';

        if (!isempty(xdg_data_home) && xdg_data_home[0] == '/') {
                if (asprintf(&d, "%s/icc", xdg_data_home) < 0 || strv_consume(&dirs, d) < 0)
                        return -ENOMEM;
        } else if (home_ok) {
                if (asprintf(&d, "%s/.local/share/icc", home) < 0 || strv_consume(&dirs, d) < 0)
                        return -ENOMEM;
        }
        if (home_ok && (asprintf(&d, "%s/.color/icc", home) < 0 || strv_consume(&dirs, d) < 0))
                return -ENOMEM;
        if (!dirs)
                return -ENOENT;
        *ret = TAKE_PTR(dirs);
        return 0;
}

bool session_name_is_candidate(const char *name) {
        return !isempty(name) && name[0] != '.' && !strstr(name, ".goutputstream");
}

bool session_name_has_icc_suffix(const char *name) {
        size_t n = strlen(name);
        return n > 4 && (strcasecmp(name + n - 4, ".icc") == 0 || strcasecmp(name + n - 4, ".icm") == 0);
}

void session_icc_atom_name(unsigned n, char buf[SESSION_ICC_ATOM_MAX]) {
        if (n == 0)
                snprintf(buf, SESSION_ICC_ATOM_MAX, "_ICC_PROFILE");
        else
                snprintf(buf, SESSION_ICC_ATOM_MAX, "_ICC_PROFILE_%u", n);
}

bool session_output_is_embedded(const char *output_name) {
        static const char *const panels[] = { "eDP", "LVDS", "DSI" };
        for (size_t i = 0; i < ELEMENTSOF(panels); i++)
                if (strncasecmp(output_name, panels[i], strlen(panels[i])) == 0)
                        return true;
        return false;
}
