#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The install tree a distribution package is made from: configures SRC afresh with
# --prefix=/usr in a temporary directory, builds, installs into a DESTDIR, and compares the
# installed files with tests/install/expected-files.txt. Then every installed systemd unit
# passes `systemd-analyze verify` (with its binaries' paths pointed into the DESTDIR, since
# nothing is installed on the machine itself), the pkg-config file names the library, and
# the installed tinct and tinctd run (--version).
#   check-install.sh SRC [CORPUS]
set -euo pipefail
src=$(realpath "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tinct-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# What a package build configures: no tests, benchmarks or fuzzers (none is installed; they
# are the other builds' job), which also keeps this build to the installed half of the tree.
meson setup "$tmp/build" "$src" --prefix=/usr --buildtype=plain -Dcorpus_dir="${2:-}" \
        -Dtests=false -Dbench=false -Dfuzz=disabled >"$tmp/setup.log" ||
        { cat "$tmp/setup.log"; exit 1; }
ninja -C "$tmp/build" >"$tmp/build.log" || { tail -50 "$tmp/build.log"; exit 1; }
meson install -C "$tmp/build" --destdir "$tmp/dest" --no-rebuild >"$tmp/install.log" ||
        { cat "$tmp/install.log"; exit 1; }

(cd "$tmp/dest" && find . \( -type f -o -type l \) | sed 's|^\.||') |
        sed -E 's|^/usr/lib/[a-z0-9_]+-linux-[a-z0-9_]+/|/usr/@LIBDIR@/|' | sort >"$tmp/got"
grep -v '^#' "$src/tests/install/expected-files.txt" | sort >"$tmp/want"
if ! diff -u "$tmp/want" "$tmp/got"; then
        echo "installed files differ from tests/install/expected-files.txt (- expected, + installed)" >&2
        exit 1
fi
echo "installed: $(wc -l <"$tmp/got") files, as expected"

# Units: verified as installed, but with /usr/libexec and /usr/bin pointing into DESTDIR.
mkdir -p "$tmp/units"
found=0
for unit in "$tmp"/dest/usr/lib/systemd/system/*.service "$tmp"/dest/usr/lib/systemd/user/*.service; do
        [ -f "$unit" ] || continue
        sed -e "s|=/usr/libexec/|=$tmp/dest/usr/libexec/|g" -e "s|=/usr/bin/|=$tmp/dest/usr/bin/|g" \
                "$unit" >"$tmp/units/$(basename "$unit")"
        mode=--system
        # A user manager needs a runtime directory even to verify a unit.
        case $unit in */user/*) mode=--user; mkdir -p -m 0700 "$tmp/runtime"; export XDG_RUNTIME_DIR="$tmp/runtime" ;; esac
        # Documentation=man:... is checked with man(1): the pages are in DESTDIR too.
        if ! out=$(MANPATH="$tmp/dest/usr/share/man" systemd-analyze verify $mode "$tmp/units/$(basename "$unit")" 2>&1) || [ -n "$out" ]; then
                echo "systemd-analyze verify $(basename "$unit"):" >&2
                echo "$out" >&2
                exit 1
        fi
        echo "systemd-analyze verify $mode $(basename "$unit"): clean"
        found=$((found + 1))
done
[ "$found" -gt 0 ] || { echo "no systemd unit installed" >&2; exit 1; }

pc=$(find "$tmp/dest" -name tinct.pc)
grep -q '^Libs: .*-ltinct' "$pc" || { echo "tinct.pc does not link -ltinct" >&2; exit 1; }
"$tmp/dest/usr/bin/tinct" --version
"$tmp/dest/usr/libexec/tinctd" --version
"$tmp/dest/usr/libexec/tinct-session" --version

# What a distribution may turn off: a headless or Wayland-only build links no libX11 into
# tinct-session, and -Dtests=false defines no test at all (nor builds their programs).
meson setup "$tmp/headless" "$src" --prefix=/usr --buildtype=plain -Dx11=disabled -Dtests=false -Dbench=false \
        >"$tmp/headless-setup.log" || { cat "$tmp/headless-setup.log"; exit 1; }
ninja -C "$tmp/headless" src/session/tinct-session >"$tmp/headless-build.log" ||
        { tail -50 "$tmp/headless-build.log"; exit 1; }
if readelf -d "$tmp/headless/src/session/tinct-session" | grep -E 'NEEDED.*lib(X11|Xrandr)'; then
        echo "tinct-session built with -Dx11=disabled links X11" >&2
        exit 1
fi
tests=$(meson introspect "$tmp/headless" --tests)
[ "$tests" = "[]" ] || { echo "-Dtests=false still defines tests: ${tests:0:200}" >&2; exit 1; }
echo "headless build (-Dx11=disabled -Dtests=false): tinct-session without X11, no tests"
