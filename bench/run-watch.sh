#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run-watch.sh: issue 22's "a change costs what changed": the time from a file renamed
# into a watched profile directory to tinctd's ProfileAdded, and from its removal to
# ProfileRemoved, with 1000, 10 000 and 100 000 profiles in that directory.
#
#         bench/run-watch.sh [--colord] [DAEMON_BUILD_DIR] [BENCH_BUILD_DIR]
#
# DAEMON_BUILD_DIR (default build-bench, a release build like run-bench.sh's) holds the
# tinctd under test (another tree's build gives the "before" figures); BENCH_BUILD_DIR
# (default the same) holds tinct-bench-icc, -startup and -watch. --colord: Debian's colord
# too, at 1000 and 10 000 (as root; it parses every file at each start, 100 000 would
# take minutes).
#
# The profiles are tinct-bench-icc's: distinct, valid lcms2 sRGB profiles of under 1 KiB,
# each with its own description and Profile ID, so none is a duplicate and the daemon
# parses, registers and exports every one. The file moved in and out is one more of them.
# For each size tinct-bench-startup starts the daemon on an empty state directory (its
# start-up figure is reported as startup.watch-pN), waits until GetProfiles lists all N,
# and runs tinct-bench-watch ($TINCT_WATCH_ROUNDS, default 30, rounds of rename in / unlink;
# TINCT_WATCH_COUNTS overrides the sizes). A private bus in a temp
# dir; nothing else is touched. RESULT lines on stdout; also written to
# bench/results/watch-<daemon>.txt. Not a test: no figure fails it, only a signal that
# does not come (10 s) or a start that does not finish (900 s).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
WITH_COLORD=0
if [ "${1:-}" = --colord ]; then WITH_COLORD=1; shift; fi
DAEMON_BUILD=$(cd "${1:-$SRC/build-bench}" && pwd)
BENCH_BUILD=$(cd "${2:-$DAEMON_BUILD}" && pwd)
RESULTS=${TINCT_BENCH_RESULTS:-$SRC/bench/results}
COUNTS=${TINCT_WATCH_COUNTS:-1000 10000 100000}
ROUNDS=${TINCT_WATCH_ROUNDS:-30}
TMP=$(mktemp -d /tmp/tinct-bench-watch.XXXXXX)
bus_pid=
cleanup() {
        [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
        wait 2>/dev/null || true
        rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
log() { echo "run-watch: $*" >&2; }

sed "s|@LISTEN@|unix:path=$TMP/bus|" "$SRC/tests/harness/dbus-system.conf.in" >"$TMP/bus.conf"
dbus-daemon --config-file="$TMP/bus.conf" --nofork --nopidfile --nosyslog 2>/dev/null &
bus_pid=$!
for _ in $(seq 300); do [ -S "$TMP/bus" ] && break; sleep 0.1; done
[ -S "$TMP/bus" ] || { log "dbus-daemon did not start"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/bus"

# The moved file: one more distinct profile, numbered past every set.
"$BENCH_BUILD/bench/tinct-bench-icc" "$TMP/extra" 1 999999

measure() { # DAEMON BINARY N
        local name=$1 binary=$2 n=$3 dir="$TMP/icc-$3"
        [ -d "$dir" ] || { log "writing $n profiles"; "$BENCH_BUILD/bench/tinct-bench-icc" "$dir" "$n"; }
        log "$name: $n profiles"
        rm -rf "$TMP/state-$name-$n" && mkdir -p "$TMP/state-$name-$n"
        "$BENCH_BUILD/bench/tinct-bench-startup" --daemon "$name" --binary "$binary" \
                --state-dir "$TMP/state-$name-$n" --profile-dir "$dir" --expect "$n" --key "watch-p$n" \
                --timeout 900 --log "$TMP/$name.log" -- \
                "$BENCH_BUILD/bench/tinct-bench-watch" --profile-dir "$dir" \
                --source "$TMP/extra/bench-999999.icc" --rounds "$ROUNDS" --key "$name.p$n"
}

mkdir -p "$RESULTS"
for n in $COUNTS; do
        measure tinctd "$DAEMON_BUILD/src/daemon/tinctd" "$n"
done | tee "$RESULTS/watch-tinctd.txt"
if [ "$WITH_COLORD" = 1 ]; then
        for n in $COUNTS; do
                if [ "$n" -le 10000 ]; then measure colord "${TINCT_COLORD:-/usr/libexec/colord}" "$n"; fi
        done | tee "$RESULTS/watch-colord.txt"
fi
