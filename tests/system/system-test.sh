#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The booted system test (issue 26): tinct as a distribution installs it. Builds the Debian
# packages (debian/, dpkg-buildpackage), makes a Debian 12 root with debootstrap that has what
# a desktop that depends on colord has (colord, cups, cups-filters, xiccd), boots it with
# systemd-nspawn, gives colord a stored choice, installs the packages with apt as a user
# would, and runs debian/tests/ (autopkgtest's null runner, inside the container) for every
# part under its real unit, the real dbus-daemon, polkitd and cupsd. Then purges tinct,
# installs colord again and checks that it serves the bus and still has its choice.
#
#   system-test.sh SRC_DIR
#
# Cache (between runs): ${TINCT_SYSTEM_TEST_CACHE:-/var/cache/tinct-system-test}: root/ (the
# Debian root, never changed by a run: the container boots it with --volatile=overlay, so a
# run's writes go to a tmpfs), debs/<hash of the source>/ (the packages), lock. Delete it to
# start afresh. The Debian mirror is the host's (its apt sources), read at run time.
#
# Exit 0 passed, 1 failed, 77 skipped: a machine that cannot boot a container (not root, no
# systemd-nspawn or debootstrap, no mirror reachable) says why in one line. It never touches
# the host's system bus or /var/lib/colord: the container has its own.
set -uo pipefail
src=$(realpath "${1:?usage: system-test.sh SRC_DIR}")
cache=${TINCT_SYSTEM_TEST_CACHE:-/var/cache/tinct-system-test}
suite=bookworm
# The root's content; a change here (or to this list's order) makes a new root.
root_packages=(
        systemd systemd-sysv dbus dbus-user-session libpam-systemd polkitd
        shared-mime-info avahi-daemon libnss-myhostname
        colord cups cups-filters cups-ipp-utils xiccd
        autopkgtest python3 sane-utils libsane1
        libgnutls30 liblcms2-2 libpng16-16 libseccomp2 libsqlite3-0 libtiff6 libx11-6 libxrandr2
)
root_key="v1 $suite ${root_packages[*]}"

skip() { echo "system test skipped: $*"; exit 77; }
fail() { echo "system test FAILED: $*"; exit 1; }
step() { printf '== %s (%ds)\n' "$*" "$SECONDS"; }

[ "$(id -u)" = 0 ] || skip "not root (debootstrap and systemd-nspawn need root)"
for tool in systemd-nspawn debootstrap dpkg-buildpackage nsenter flock; do
        command -v "$tool" >/dev/null || skip "no $tool (scripts/install-deps.sh installs it)"
done

# The mirror: the first URI of a $suite source in the host's apt sources (deb822 or one-line).
mirror() {
        local f uri
        for f in /etc/apt/sources.list.d/*.sources; do
                [ -f "$f" ] || continue
                uri=$(awk -v s="$suite" '
                        /^[[:space:]]*$/ { if (u && ok) { print u; exit } u = ""; ok = 0; next }
                        tolower($1) == "uris:" { u = $2 }
                        tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
                        END { if (u && ok) print u }' "$f" | head -1)
                [ -n "$uri" ] && { echo "$uri"; return; }
        done
        cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
}

# A download that failed is this machine's lack of network: a skip; anything else a failure.
no_network_or_fail() {
        if grep -qiE "Failed getting release file|Couldn't download|Temporary failure resolving|Could not resolve|\
Failed to fetch|Unable to connect|Connection (refused|timed out)|Network is unreachable" "$cache/debootstrap.log"; then
                skip "$1 could not download (no network to the mirror?)"
        fi
        fail "$1 (see $cache/debootstrap.log)"
}

mkdir -p "$cache" || skip "cannot make the cache $cache"
exec 9>"$cache/lock"
flock 9 # one run at a time per cache

# --- the packages, cached by the source they are built from ---
step "packages"
# The hash leaves out what no package is built from (tests, benchmarks, fuzzers, Markdown), so
# that a change to a test does not rebuild the packages.
hash=$(cd "$src" && { git ls-files -co --exclude-standard -z -- . ':!tests' ':!bench' ':!fuzz' ':!debian/tests' \
                              ':!*.md' 2>/dev/null | sort -z | xargs -0 sha256sum 2>/dev/null; } | sha256sum | cut -c1-16)
debs=$cache/debs/$hash
if [ ! -f "$debs/done" ]; then
        rm -rf "$cache/debs" && mkdir -p "$debs/src/tinct" || fail "mkdir $debs"
        (cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$debs/src/tinct") ||
                fail "copy of the source"
        (cd "$debs/src/tinct" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
                dpkg-buildpackage -us -uc -b >"$debs/build.log" 2>&1) ||
                { tail -30 "$debs/build.log"; fail "dpkg-buildpackage"; }
        mv "$debs"/src/*.deb "$debs"/ && rm -f "$debs"/*-dbgsym_*.deb
        mv "$debs"/src/*.changes "$debs"/ 2>/dev/null
        rm -rf "$debs/src"
        # lintian: no error and no warning (issue 26); its output is kept beside the packages.
        if command -v lintian >/dev/null; then
                lintian --no-cfg -I "$debs"/*.deb >"$debs/lintian.txt" 2>&1
                grep -E '^[EW]: ' "$debs/lintian.txt" && fail "lintian found errors or warnings"
        fi
        touch "$debs/done"
fi
ls -s "$debs"/*.deb
grep -v '^running with root' "$debs/lintian.txt" 2>/dev/null

# --- the Debian root, cached ---
root=$cache/root
if [ "$(cat "$root.key" 2>/dev/null)" != "$root_key" ]; then
        step "debootstrap (cold cache)"
        url=$(mirror)
        [ -n "$url" ] || skip "no $suite mirror in this machine's apt sources"
        rm -rf "$root" "$root.new" "$root.key"
        debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,libpam-systemd,polkitd "$suite" "$root.new" "$url" \
                >"$cache/debootstrap.log" 2>&1 ||
                { tail -5 "$cache/debootstrap.log"; rm -rf "$root.new"; no_network_or_fail "debootstrap from $url"; }
        # What a desktop has and a minbase root lacks: localhost in /etc/hosts (ippeveprinter,
        # tinct-fetch), shared-mime-info (colord finds no profile without it), avahi-daemon
        # (ippeveprinter aborts without it).
        printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root.new/etc/hosts"
        echo tinct-system-test >"$root.new/etc/hostname"
        printf '#!/bin/sh\nexit 101\n' >"$root.new/usr/sbin/policy-rc.d"
        chmod +x "$root.new/usr/sbin/policy-rc.d"
        # Archives kept: colord is installed again after the purge without the network.
        rm -f "$root.new/etc/apt/apt.conf.d/docker-clean"
        echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' >"$root.new/etc/apt/apt.conf.d/10keep"
        if ! chroot "$root.new" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                "${root_packages[@]}" >>"$cache/debootstrap.log" 2>&1; then
                tail -5 "$cache/debootstrap.log"
                rm -rf "$root.new"
                no_network_or_fail "apt-get install in the new root"
        fi
        rm -f "$root.new/usr/sbin/policy-rc.d"
        # The SANE test backend, so that the listing has a device to show.
        sed -i 's/^#\?test$/test/' "$root.new/etc/sane.d/dll.conf"
        grep -qx test "$root.new/etc/sane.d/dll.conf" || echo test >>"$root.new/etc/sane.d/dll.conf"
        # The test's users: alice (polkit rule allows), bob (nothing allows).
        chroot "$root.new" useradd -m -s /bin/bash alice
        chroot "$root.new" useradd -m -s /bin/bash bob
        mv "$root.new" "$root" && echo "$root_key" >"$root.key"
fi

# --- boot ---
run_dir=$(mktemp -d /tmp/tinct-system-test-XXXXXX)
nspawn_pid=
cleanup() {
        # SIGTERM: nspawn has the container's systemd power off; then it is killed.
        if [ -n "$nspawn_pid" ] && kill -TERM "$nspawn_pid" 2>/dev/null; then
                for _ in $(seq 300); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
                kill -KILL "$nspawn_pid" 2>/dev/null
                wait "$nspawn_pid" 2>/dev/null
        fi
        rm -rf "$run_dir"
}
trap cleanup EXIT
mkdir -p "$run_dir/debs" "$run_dir/src"
cp "$debs"/*.deb "$run_dir/debs/"
cp -r "$src/debian" "$run_dir/src/"
chmod -R a+rX "$run_dir"

step "boot"
# No machined and no systemd on the host needed (--register=no --keep-unit): the container's PID 1 is found as the descendant of
# systemd-nspawn whose pid in its own namespace is 1.
systemd-nspawn --quiet --boot --volatile=overlay -D "$root" --register=no --keep-unit --machine="tinct-st-$$" \
        --bind-ro="$run_dir:/srv/tinct" --console=passive >"$run_dir/console.log" 2>&1 &
nspawn_pid=$!
pid1() {
        local p=$1 c
        [ "$(awk '$1 == "NSpid:" { print $NF }' "/proc/$p/status" 2>/dev/null)" = 1 ] && [ "$p" != "$nspawn_pid" ] &&
                { echo "$p"; return 0; }
        for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do pid1 "$c" && return 0; done
        return 1
}
leader=
for _ in $(seq 600); do
        leader=$(pid1 "$nspawn_pid") && break
        kill -0 "$nspawn_pid" 2>/dev/null || { tail -5 "$run_dir/console.log"; skip "systemd-nspawn --boot failed"; }
        sleep 0.1
done
[ -n "$leader" ] || skip "no PID 1 in the container"
inside() { nsenter -t "$leader" -a env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }
# PID 1 is there before its manager answers: until then is-system-running says "offline".
state=offline
for _ in $(seq 600); do
        state=$(inside timeout 300 systemctl is-system-running --wait 2>/dev/null)
        [ "$state" != offline ] && [ -n "$state" ] && break
        sleep 0.1
done
[ "$state" = running ] || { inside systemctl --failed --no-legend; fail "the container's system is '$state'"; }

# --- colord first, with a stored choice ---
step "colord's stored choice"
inside sh -euc '
        colormgr create-device tinct-st-printer disk printer >/dev/null
        p=$(colormgr find-profile-by-filename /usr/share/color/icc/colord/sRGB.icc | sed -n "s/^Object Path: *//p")
        d=$(colormgr find-device tinct-st-printer | sed -n "s/^Object Path: *//p")
        colormgr device-add-profile "$d" "$p"
        colormgr device-make-profile-default "$d" "$p"
        colormgr device-get-default-profile "$d" | grep -q sRGB.icc
        mkdir -p /etc/tinct-test
        echo "tinct-st-printer sRGB.icc" >/etc/tinct-test/colord-choice
' || fail "colord's stored choice"

# --- tinct, as a user installs it ---
step "apt install ./tinct…deb"
inside sh -c 'cd /srv/tinct/debs && DEBIAN_FRONTEND=noninteractive apt-get install -y ./*.deb' >"$run_dir/apt.log" 2>&1 ||
        { cat "$run_dir/apt.log"; fail "apt install of the packages"; }
# What apt removed and installed, and what it kept of colord's dependents.
sed -n '/^The following packages will be REMOVED:/,/^[^ ]/p;/^The following NEW packages/,/^[^ ]/p' \
        "$run_dir/apt.log" | grep -v '^[0-9]* upgraded' | uniq
inside dpkg-query -W -f='  ${Package}: ${db:Status-Abbrev}\n' colord colord-sensor-argyll colord-data libcolord2 \
        cups cups-filters xiccd 2>&1
inside dpkg --audit | grep . && fail "dpkg --audit: packages not fully installed"
# Started by the package, not by a test's call: its own user owns the bus name at once.
inside systemctl is-active -q tinct.service || { inside journalctl -u tinct.service -n 20 --no-pager; fail "tinct.service is not running after the installation"; }
inside busctl --system status org.freedesktop.ColorManager | grep -q '^Comm=tinctd$' || fail "tinctd does not own org.freedesktop.ColorManager"

step "debian/tests (autopkgtest, null runner)"
inside autopkgtest --no-built-binaries --output-dir /tmp/autopkgtest /srv/tinct/src -- null >"$run_dir/autopkgtest.log" 2>&1
rc=$?
# Each test's own lines (ok:/FAIL:), then the summary.
inside sh -c 'cd /tmp/autopkgtest && for t in $(cut -d" " -f1 summary); do
        echo "-- $t"; cat "$t-stdout" "$t-stderr" 2>/dev/null | sed "s/^/   /"; done; cat summary'
[ "$rc" = 0 ] || { tail -n 40 "$run_dir/autopkgtest.log"; fail "autopkgtest exit $rc"; }

# --- purge, and colord back ---
step "purge, colord again"
inside env DEBIAN_FRONTEND=noninteractive apt-get purge -y tinct libtinct0 libtinct-dev >"$run_dir/purge.log" 2>&1 ||
        { cat "$run_dir/purge.log"; fail "purge"; }
left=$(inside sh -c 'ls -d /var/lib/tinct /run/tinct-* /etc/systemd/system/*/tinct* /etc/systemd/user/*/tinct* \
        /etc/systemd/system/dbus-org.freedesktop.ColorManager.service /var/lib/systemd/deb-systemd-helper-enabled/*tinct* \
        2>/dev/null; dpkg -S tinct 2>/dev/null')
[ -z "$left" ] || fail "the purge left: $left"
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends colord >"$run_dir/colord.log" 2>&1 ||
        { cat "$run_dir/colord.log"; fail "colord installed again"; }
inside sh -euc '
        d=$(colormgr find-device tinct-st-printer | sed -n "s/^Object Path: *//p")
        colormgr device-get-default-profile "$d" | grep -q sRGB.icc
        busctl status org.freedesktop.ColorManager | grep -q "^Comm=colord"
' || fail "colord after the purge: it serves the bus with its stored choice"
step "passed"
