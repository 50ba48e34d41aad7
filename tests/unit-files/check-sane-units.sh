#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The SANE helper's units, offline (docs/scanners.md, "The helper's unit"): systemd parses
# them without complaint, the service's exposure is at most 1.5, it has what network
# scanners and USB scanners need (the network, the scanner group, USB device nodes) and not
# what they do not (the store, privileges), and the socket is the daemon's: its user only,
# the path tinct.service passes to tinctd --sane-socket.
# Usage: check-sane-units.sh BUILT_tinct.service BUILT_tinct-sane-list.socket BUILT_tinct-sane-list@.service
set -euo pipefail
daemon=$1 socket=$2 service=$3
command -v systemd-analyze >/dev/null || { echo "systemd-analyze missing (package systemd)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
has() { grep -qx -- "$2" "$1" || fail "$(basename "$1") has no line '$2'"; }
hasnt() { ! grep -qx -- "$2" "$1" || fail "$(basename "$1") has the line '$2'"; }

# Unknown keys and bad values are only warnings to systemd: none here. The helper is not
# installed in a build tree, so that one complaint is expected.
out=$(systemd-analyze verify --man=no "$socket" "$service" 2>&1 | grep -v 'is not executable' || true)
[ -z "$out" ] || fail "systemd-analyze verify: $out"

out=$(systemd-analyze security --offline=yes "$service" 2>&1) || true
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
[ -n "$score" ] || fail "no score in: $out"
echo "tinct-sane-list@.service exposure score: $score"
awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }' || { grep '✗' <<<"$out"; fail "exposure $score > 1.5"; }

# One helper per connection, its stdin and stdout the connection, in --socket mode.
has "$socket" 'Accept=yes'
has "$service" 'StandardInput=socket'
has "$service" 'StandardOutput=socket'
grep -q '^ExecStart=.*/tinct-sane-list --socket$' "$service" || fail "ExecStart is not tinct-sane-list --socket"
# Only the daemon's user may ask, on the path the daemon is given.
user=$(sed -n 's/^User=//p' "$daemon")
has "$socket" "SocketUser=$user"
has "$socket" 'SocketMode=0600'
path=$(sed -n 's/^ListenStream=//p' "$socket")
grep -q "^ExecStart=.*/tinctd .*--sane-socket $path\( \|$\)" "$daemon" || fail "tinct.service does not pass --sane-socket $path"
grep -q '^Wants=.*tinct-sane-list.socket' "$daemon" || fail "tinct.service does not want tinct-sane-list.socket"

# Unprivileged, with the scanner group (USB nodes), and no store.
has "$service" 'DynamicUser=yes'
has "$service" 'SupplementaryGroups=scanner'
has "$service" 'NoNewPrivileges=yes'
has "$service" 'CapabilityBoundingSet='
has "$service" 'ProtectSystem=strict'
has "$service" 'DeviceAllow=char-usb_device rw'
state=$(sed -n 's/^StateDirectory=//p' "$daemon")
grep -q "^InaccessiblePaths=.*-/var/lib/$state\( \|$\)" "$service" || fail "the store /var/lib/$state is not inaccessible"
# The network: eSCL over IPv4 and IPv6, avahi and the name service on AF_UNIX, netlink.
fams=$(sed -n 's/^RestrictAddressFamilies=//p' "$service")
for f in AF_UNIX AF_INET AF_INET6 AF_NETLINK; do
        grep -qw "$f" <<<"$fams" || fail "RestrictAddressFamilies lacks $f"
done
grep -q '^IPAddressDeny=' "$service" && fail "the helper's unit denies IP addresses: no network scanner"
grep -q '^PrivateNetwork=yes' "$service" && fail "PrivateNetwork=yes: no network scanner"
# And the daemon's own unit keeps none (the reason for this unit).
has "$daemon" 'IPAddressDeny=any'
grep -q '^RestrictAddressFamilies=.*AF_INET' "$daemon" && fail "tinct.service may open Internet sockets"
hasnt "$daemon" 'SupplementaryGroups=scanner'
echo ok
