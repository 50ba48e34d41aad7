#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree a packager and a newcomer read: the licence files exist, every source file says
# its licence (SPDX), and no tracked file holds the absolute path of the checkout it was made
# in (results, logs, generated files carried by mistake). Usage: check-tree.sh SOURCE_ROOT
set -uo pipefail
root=$1
cd "$root" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipping"; exit 77; }
bad=0
for f in COPYING COPYING.LGPL-2.1; do
        [ -s "$f" ] || { echo "missing $f"; bad=1; }
done
while IFS= read -r f; do
        case $f in
        *.c|*.h|*.py|*.sh|*/meson.build|meson.build|meson_options.txt|run-tests|tinct-demo|.ci/run) ;;
        *) continue ;;
        esac
        head -c 400 "$f" | grep -q "SPDX-License-Identifier:" || { echo "no SPDX line: $f"; bad=1; }
done < <(git ls-files)
here=$(pwd -P)
if git grep -l -F "$here" -- . >/dev/null 2>&1; then
        echo "files holding this checkout's path ($here):"
        git grep -l -F "$here" -- .
        bad=1
fi
[ $bad -eq 0 ] && echo ok
exit $bad
