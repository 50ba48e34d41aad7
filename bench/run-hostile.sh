#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 19's figures for one build of tinctd: the worst wait of another client while a
# hostile ICC file (a 'meta' dict of 80 000 keys, written by tinct-bench-hostile-icc) is parsed, the hostile caller's own answer time (tinct-bench-hostile), and
# the time from starting tinctd to READY with three such files in its profile directory.
#
#         bench/run-hostile.sh [DAEMON_BUILD_DIR] [BENCH_BUILD_DIR]
#
# With TINCT_BENCH_HANG=1 (a DAEMON_BUILD_DIR configured with -Dparser_test_hooks=enabled),
# also a parse that never ends: a file starting with TINCT-TEST:hang, on which tinct-parse
# loops until the daemon's --parse-timeout (3 s here); the same two client figures, as
# hang_* RESULT lines. That is the case where only asynchronous parsing keeps the others
# served: the 80 000-key file is refused in milliseconds either way.
#
# DAEMON_BUILD_DIR (default build) holds the tinctd under test (e.g. main's build, for the
# "before" figure); BENCH_BUILD_DIR (default build) holds tinct-bench-hostile and
# tinct-bench-hostile-icc. A private bus in a temp dir; nothing else is touched.
# RESULT lines on stdout. Not a test: no figure fails it.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
DAEMON_BUILD=$(cd "${1:-$SRC/build}" && pwd)
BENCH_BUILD=$(cd "${2:-$SRC/build}" && pwd)
TMP=$(mktemp -d /tmp/tinct-bench-hostile.XXXXXX)
bus_pid= daemon_pid=
cleanup() {
        [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
        [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
        wait 2>/dev/null || true
        rm -rf "$TMP"
}
trap cleanup EXIT

"$BENCH_BUILD/bench/tinct-bench-hostile-icc" 80000 "$TMP/hostile.icc"
mkdir -p "$TMP/icc" "$TMP/state"
for i in 0 1 2; do
        # distinct bytes per copy (the last byte is padding), so none is a duplicate
        cp "$TMP/hostile.icc" "$TMP/icc/hostile-$i.icc"
        printf "\\x$i" | dd of="$TMP/icc/hostile-$i.icc" bs=1 seek=$(($(stat -c %s "$TMP/hostile.icc") - 1)) \
                conv=notrunc status=none
done

sed "s|@LISTEN@|unix:path=$TMP/bus|" "$SRC/tests/harness/dbus-system.conf.in" >"$TMP/bus.conf"
dbus-daemon --config-file="$TMP/bus.conf" --nofork --nopidfile --nosyslog 2>/dev/null &
bus_pid=$!
while [ ! -S "$TMP/bus" ]; do sleep 0.05; done
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$TMP/bus"

# Starts tinctd on $TMP/state with the profile directory $1 (and more arguments) and waits
# for READY; prints the milliseconds from the start.
start_daemon() {
        local dir=$1 start end
        shift
        [ -n "$daemon_pid" ] && { kill "$daemon_pid" && wait "$daemon_pid" || true; }
        rm -f "$TMP/ready"
        start=$(date +%s%N)
        "$DAEMON_BUILD/src/daemon/tinctd" --state-dir "$TMP/state" --profile-dir "$dir" --no-udev "$@" \
                --ready-fd 4 4>"$TMP/ready" 2>"$TMP/daemon.log" &
        daemon_pid=$!
        until grep -q READY "$TMP/ready" 2>/dev/null; do
                kill -0 "$daemon_pid" 2>/dev/null || { echo "tinctd failed to start" >&2; cat "$TMP/daemon.log" >&2; exit 1; }
                sleep 0.01
        done
        end=$(date +%s%N)
        echo $(( (end - start) / 1000000 ))
}

# Not in a subshell ($(...)): daemon_pid must stay set for the next start and the cleanup.
start_daemon "$TMP/icc" >"$TMP/ms"
printf 'RESULT\thostile_startup_three_files\t%s\tms\n' "$(cat "$TMP/ms")"
# Again on the same state: a daemon that remembers failed files does not parse them again.
start_daemon "$TMP/icc" >"$TMP/ms"
printf 'RESULT\thostile_startup_three_files_again\t%s\tms\n' "$(cat "$TMP/ms")"

"$BENCH_BUILD/bench/tinct-bench-hostile" "$TMP/hostile.icc" 3

if [ "${TINCT_BENCH_HANG:-0}" = 1 ]; then
        rm -rf "$TMP/state" && mkdir -p "$TMP/state" "$TMP/empty"
        # "TINCT-TEST:hang", zeros, "acsp" at 36: what the hook looks for (docs/sandbox.md)
        { printf 'TINCT-TEST:hang'; head -c 21 /dev/zero; printf 'acsp'; head -c 216 /dev/zero; } >"$TMP/hang.icc"
        start_daemon "$TMP/empty" --parse-timeout 3 >/dev/null
        "$BENCH_BUILD/bench/tinct-bench-hostile" "$TMP/hang.icc" 3 | sed 's/^RESULT\thostile_/RESULT\thang_/'
fi
