#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The generated systemd unit: systemd-analyze's offline exposure score at most 1.5 (the
# security issue's bar; colord.service scores 9.0), the daemon's own user, and the settings
# whose absence would break the daemon (comments in data/systemd/tinct.service.in).
# Usage: check-unit.sh BUILT_UNIT
set -euo pipefail
unit=$1
command -v systemd-analyze >/dev/null || { echo "systemd-analyze missing (package systemd)"; exit 77; }
out=$(systemd-analyze security --offline=yes "$unit" 2>&1) || true
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
[ -n "$score" ] || { echo "no score in: $out"; exit 1; }
echo "exposure score: $score"
awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }' || { echo "exposure $score > 1.5"; grep '✗' <<<"$out"; exit 1; }
grep -q '^User=[a-z]' "$unit" || { echo "no User="; exit 1; }
grep -q '^User=root$' "$unit" && { echo "runs as root"; exit 1; }
# udevd's events do not reach another network namespace: hotplug needs the host's.
grep -q '^PrivateNetwork=yes' "$unit" && { echo "PrivateNetwork=yes would hide udev events"; exit 1; }
grep -q '^DeviceAllow=char-usb_device rw' "$unit" || { echo "colour instruments not allowed"; exit 1; }
echo ok
