/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure rules of tinct-session, unit-tested beside it: which directories hold the user's
 * own profiles, which names in them are looked at, which root window property carries the
 * profile of the n-th monitor, and the device properties of an X output. No I/O here. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The user's ICC directories, in order (colord §8.5): $XDG_DATA_HOME/icc when XDG_DATA_HOME
 * is set to an absolute path (the XDG base directory rule: a relative one is ignored), else
 * $HOME/.local/share/icc; then $HOME/.color/icc. Without an absolute HOME only the first, if
 * XDG_DATA_HOME gives it. Returns 0 with a NULL-terminated array (strv_free) or -ENOMEM,
 * -ENOENT when no directory can be named. */
int session_user_icc_dirs(const char *xdg_data_home, const char *home, char ***ret);

/* A directory entry worth opening: not hidden (write_file_atomic's and most editors'
 * temporary files start with '.'), not GIO's temporary ".goutputstream-XXXXXX". */
bool session_name_is_candidate(const char *name);
/* *.icc or *.icm in any case: such a file that does not parse is worth a log line; another
 * name is only taken when its bytes say ICC ('acsp' at offset 36, ICC.1 §7.2.9). */
bool session_name_has_icc_suffix(const char *name);

/* The "ICC Profiles in X" root window property of monitor n (counted as Xinerama counts):
 * "_ICC_PROFILE" for 0, "_ICC_PROFILE_<n>" after. buf of at least SESSION_ICC_ATOM_MAX. */
#define SESSION_ICC_ATOM_MAX 32
void session_icc_atom_name(unsigned n, char buf[SESSION_ICC_ATOM_MAX]);

/* Built-in panels by connector name (eDP, LVDS, DSI): the device gets Embedded (colord §3.3). */
bool session_output_is_embedded(const char *output_name);
