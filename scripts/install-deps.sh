#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian 12 packages tinct needs to build, test and demo — only those missing.
# Usage: scripts/install-deps.sh [--fuzz]
#   --fuzz: also clang and its sanitizer runtime, for fuzz/run-fuzzers.sh (docs/fuzzing.md);
#   run-tests does not need them (95 MB of the download on a fresh machine).
set -euo pipefail

packages=(
        meson ninja-build pkg-config gcc
        libsystemd-dev libsqlite3-dev liblcms2-dev libseccomp-dev
        dbus-daemon python3 python3-dbus python3-gi gir1.2-colord-1.0 colord util-linux systemd
        cups-daemon cups-client
)
# man-db: systemd-analyze verify checks Documentation=man:tinctd(8) with man(1) (tests/install).
packages+=(man-db)
if [ "${1:-}" = --fuzz ]; then
        packages+=(clang libclang-rt-14-dev)
fi
# valgrind runs the bus tests' daemon under memcheck in run-tests too.
packages+=(valgrind)
# tinct-session's X11 side (libX11, RandR) and its test under Xvfb (xprop from x11-utils); tinct
# verify's patch window and its test (xwininfo).
packages+=(libx11-dev libxrandr-dev xvfb x11-utils)
# argyll: tests/cli/test-profile-build.py and test-printer-profile.py compare tinct
# profile-build with colprof (targen, fakeread, colprof, profcheck, xicclu).
packages+=(argyll)
# Scanners (docs/scanners.md): libsane to build tinct-sane-list; sane-airscan for network
# (eSCL) scanners and their test (tests/scan), beside SANE's own test backend (libsane1).
packages+=(libsane-dev sane-airscan)
# tinct profile-build --chart: libtiff and libpng read the image; argyll-ref has the chart
# layouts and references; tests/cli/test-profile-build-chart.py renders images with numpy
# and compares with scanin + colprof.
packages+=(libtiff-dev libpng-dev argyll-ref python3-numpy)
# tinct-fetch's TLS (ipps printers, https profile URLs; docs/printers.md); openssl makes the
# test's self-signed certificate (tests/compat/test-cups-print.py).
packages+=(libgnutls28-dev openssl)
# The printer tests (docs/printers.md): ippeveprinter as the printer, a private avahi-daemon
# for its DNS-SD, cups-filters and cups for the everywhere queue's filters; ghostscript is
# gstoraster's renderer, and test-cups-print.py renders with it to check the kept raster.
packages+=(cups-ipp-utils avahi-daemon cups-filters cups ghostscript)
# The booted system test (tests/system): the Debian packages are built (debian/) and
# checked with lintian, a Debian 12 root is made with debootstrap and booted with
# systemd-nspawn.
packages+=(dpkg-dev debhelper fakeroot lintian debootstrap systemd-container)

missing=()
for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
        echo "Missing packages and not root: run as root or install them: ${missing[*]}" >&2
        exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# colord's maintainer scripts would try to start the real service; tinct never uses it.
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
