#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree a packager and a newcomer read: the licence files exist, every source file says
# its licence (SPDX), no tracked file holds the absolute path of the checkout it was made
# in (results, logs, generated files carried by mistake), and every citation of colord's
# behaviour resolves inside the repository: `colord §N` names a heading `§N` of
# docs/colord-behaviour.md, and nothing cites an outside "spec" by number.
# Usage: check-tree.sh SOURCE_ROOT
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

# Citations. The outside specification tinct was written from is not in the tree, so "spec §4.7",
# "spec Appendix A" or "spec 9.5" cannot be followed; what the code relies on is written down in
# docs/colord-behaviour.md and cited as "colord §4.7". Other standards are cited by their own
# name (E-EDID, ICC.1, CTA-861, "HDR10+ System Spec").
self=tests/hygiene/check-tree.sh
doc=docs/colord-behaviour.md
unresolved=$(git grep -n -I -i -E '(^|[^a-z])spec( section| item)? ?(§|[0-9]|appendix)' -- . ":!$self" |
        grep -v -F 'System Spec §')
if [ -n "$unresolved" ]; then
        echo "citations of an outside spec (write the behaviour down in $doc and cite colord §N):"
        echo "$unresolved"
        bad=1
fi
if [ -f "$doc" ]; then
        headings=$(grep -o -E '^#+ (§[0-9]+(\.[0-9]+)*|Appendix [A-Z])' "$doc" | sed -E 's/^#+ //')
        # "colord §4.4, §4.7", "colord §1.1, §3.3, Appendix A", "colord §5.5 B", "colord §2.2 step 5"
        cite='(§[0-9]+(\.[0-9]+)*|Appendix [A-Z])'
        git grep -n -I -o -E "colord $cite((,| and| or|/) ?$cite)*" -- . ":!$self" |
                awk -v doc="$doc" 'NR == FNR { heading[$0] = 1; next }
                        {
                                where = $0; sub(/:colord .*/, "", where)
                                rest = substr($0, length(where) + 2)
                                while (match(rest, /§[0-9]+(\.[0-9]+)*|Appendix [A-Z]/)) {
                                        ref = substr(rest, RSTART, RLENGTH)
                                        if (!(ref in heading)) {
                                                print "colord " ref " has no heading in " doc ": " where
                                                bad = 1
                                        }
                                        rest = substr(rest, RSTART + RLENGTH)
                                }
                        }
                        END { exit bad }' <(echo "$headings") - || bad=1
else
        echo "missing $doc"
        bad=1
fi

[ $bad -eq 0 ] && echo ok
exit $bad
