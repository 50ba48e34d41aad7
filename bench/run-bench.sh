#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run-bench.sh: tinctd against Debian's colord, side by side, in one run.
#
#     sudo bench/run-bench.sh [--quick] [--no-colord]
#
# Starts a private dbus-daemon (tests/harness/dbus-system.conf.in, socket in a temporary
# directory; the machine's system bus is never used), then for tinctd and, when
# /usr/libexec/colord is installed and we are root, for colord (in a private mount
# namespace, so the machine's /var/lib/colord and /usr/share/color/icc are never touched):
#   1. startup with 0, 1000 and 5000 distinct ICC profiles: cold (empty state dir) and
#      warm (second start on the same state dir): time to a correct GetProfiles, RSS, HWM;
#   2. lookups at 10, 1000 and 10 000 devices (5 profiles each), throughput with 1, 2, 4,
#      8 and 16 clients, and the object-creation costs;
#   3. RSS before and after 10 000 (twice) CreateDevice/DeleteDevice cycles.
# Writes bench/results/raw-<daemon>.txt (RESULT lines), summary.txt (the table, both
# daemons and the ratio, with the targets) and latency-vs-objects.svg, and prints the
# summary. Not a test: it never fails because a figure is bad, only when it cannot measure.
#
# Environment: TINCT_BENCH_BUILD_DIR (default build-bench, set up as a release build with
# -Dbench=true if missing; tinctd, tinct-parse and the benchmark programs are built),
# TINCT_BENCH_RESULTS (default bench/results), TINCT_COLORD (default /usr/libexec/colord).
# --quick: short measurements and at most 1000 devices, to check that the script works (its
# figures are not worth reporting).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${TINCT_BENCH_BUILD_DIR:-$SRC/build-bench}
RESULTS=${TINCT_BENCH_RESULTS:-$SRC/bench/results}
COLORD=${TINCT_COLORD:-/usr/libexec/colord}
QUICK=0
WITH_COLORD=1
for arg in "$@"; do
        case "$arg" in
        --quick) QUICK=1 ;;
        --no-colord) WITH_COLORD=0 ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
        esac
done

log() { echo "run-bench: $*" >&2; }

# Profilers, for looking into a missed target (bench/README.md). Installing is best
# effort: the benchmark itself needs neither.
install_tools() {
        local missing=()
        command -v valgrind >/dev/null || missing+=(valgrind)
        command -v perf >/dev/null || missing+=(linux-perf)
        [ ${#missing[@]} -eq 0 ] && return 0
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
                log "installing ${missing[*]}"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null ||
                        log "could not install ${missing[*]} (not needed for the benchmark itself)"
        fi
}

build() {
        if [ ! -f "$BUILD/build.ninja" ]; then
                # -Wno-error=maybe-uninitialized: GCC 12 at -O3 sees false positives in
                # src/store/store-json.c; the warning still shows.
                meson setup "$BUILD" "$SRC" -Dbuildtype=release -Dbench=true -Dtests=false \
                        -Dc_args=-Wno-error=maybe-uninitialized >&2
        else
                meson configure "$BUILD" -Dbench=true >&2 # a build dir made before the option
        fi
        # Only what the benchmark runs, so unrelated work in progress cannot stop it: the
        # daemon with its parser process (and the link that puts it beside tinctd; without
        # it tinctd would skip every profile), and the benchmark programs.
        ninja -C "$BUILD" src/daemon/tinctd src/sandbox/tinct-parse src/daemon/tinct-parse \
                bench/tinct-bench-load bench/tinct-bench-startup bench/tinct-bench-icc >&2
        [ -x "$BUILD/src/daemon/tinct-parse" ] || { log "no tinct-parse beside tinctd in $BUILD"; exit 1; }
}

install_tools
build
TINCTD=$BUILD/src/daemon/tinctd
LOAD=$BUILD/bench/tinct-bench-load
STARTUP=$BUILD/bench/tinct-bench-startup
MKICC=$BUILD/bench/tinct-bench-icc

if [ "$WITH_COLORD" = 1 ] && { [ ! -x "$COLORD" ] || [ "$(id -u)" != 0 ]; }; then
        log "colord not run: $COLORD missing or not root (its mount namespace needs root)"
        WITH_COLORD=0
fi

TMP=$(mktemp -d /tmp/tinct-bench.XXXXXX)
BUS_PID=
cleanup() {
        [ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null && wait "$BUS_PID" 2>/dev/null
        rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The private bus.
sed "s|@LISTEN@|unix:path=$TMP/system_bus_socket|" "$SRC/tests/harness/dbus-system.conf.in" >"$TMP/bus.conf"
mkfifo "$TMP/bus.addr"
dbus-daemon --nofork --nopidfile --config-file="$TMP/bus.conf" --print-address=3 3>"$TMP/bus.addr" 2>"$TMP/bus.log" &
BUS_PID=$!
# Bounded: a bus that never says its address stops the run instead of hanging it.
read -r -t 30 DBUS_SYSTEM_BUS_ADDRESS <"$TMP/bus.addr" || { log "dbus-daemon gave no address: $(cat "$TMP/bus.log")"; exit 1; }
export DBUS_SYSTEM_BUS_ADDRESS
log "private bus at $DBUS_SYSTEM_BUS_ADDRESS"

# No step waits without a limit: the start-ups have tinct-bench-startup's --timeout, and each
# run of the load generator this many seconds (a full colord run takes about 10 minutes).
LOAD_LIMIT=1800
if [ "$QUICK" = 1 ]; then
        PROFILE_COUNTS="0 1000"
        SIZES=10,1000
        CYCLES=1000
        LOAD_ARGS=(--duration 0.5 --throughput-duration 0.5 --min-samples 500 --warmup 0.1)
else
        PROFILE_COUNTS="0 1000 5000"
        SIZES=10,1000,10000
        CYCLES=10000
        LOAD_ARGS=(--duration 3 --throughput-duration 3 --min-samples 3000 --warmup 0.5)
fi

log "generating ICC profiles"
for n in $PROFILE_COUNTS; do
        mkdir -p "$TMP/icc-$n"
        "$MKICC" "$TMP/icc-$n" "$n"
done

mkdir -p "$RESULTS"
{
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "host: $(uname -srm), $(nproc) CPUs, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo)"
        echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "tinct: $(git -C "$SRC" describe --always --dirty 2>/dev/null || echo unknown), build ${BUILD#"$SRC"/}"
        if [ "$WITH_COLORD" = 1 ]; then
                echo "colord: $(dpkg-query -W -f '${Version}' colord 2>/dev/null || echo unknown) ($COLORD)"
        fi
        echo "bus: dbus-daemon $(dbus-daemon --version | head -1 | awk '{print $NF}'), private"
        echo "mode: $([ "$QUICK" = 1 ] && echo quick || echo full)"
} >"$RESULTS/env.txt"

run_daemon() {
        local name=$1 binary=$2 out="$RESULTS/raw-$1.txt" n state
        : >"$out"
        for n in $PROFILE_COUNTS; do
                state="$TMP/state-$name-$n"
                mkdir -p "$state"
                log "$name: startup with $n profiles, cold"
                "$STARTUP" --daemon "$name" --binary "$binary" --state-dir "$state" --profile-dir "$TMP/icc-$n" \
                        --expect "$n" --key "cold.p$n" --log "$TMP/$name.log" >>"$out"
                log "$name: startup with $n profiles, warm"
                "$STARTUP" --daemon "$name" --binary "$binary" --state-dir "$state" --profile-dir "$TMP/icc-$n" \
                        --expect "$n" --key "warm.p$n" --log "$TMP/$name.log" >>"$out"
        done

        log "$name: lookups at $SIZES devices, throughput, creation costs"
        mkdir -p "$TMP/state-$name-load"
        "$STARTUP" --daemon "$name" --binary "$binary" --state-dir "$TMP/state-$name-load" --profile-dir "$TMP/icc-0" \
                --expect 0 --key load --log "$TMP/$name.log" -- \
                timeout "$LOAD_LIMIT" "$LOAD" --devices "$SIZES" --mutations "${LOAD_ARGS[@]}" >>"$out"

        log "$name: RSS across $CYCLES CreateDevice/DeleteDevice cycles (twice)"
        mkdir -p "$TMP/state-$name-rss"
        "$STARTUP" --daemon "$name" --binary "$binary" --state-dir "$TMP/state-$name-rss" --profile-dir "$TMP/icc-0" \
                --expect 0 --key rss --log "$TMP/$name.log" -- \
                timeout "$LOAD_LIMIT" "$LOAD" --devices 10 --no-latency --clients "" --rss-cycles "$CYCLES" >>"$out"
        cp "$TMP/$name.log" "$RESULTS/daemon-$name.log"
}

rm -f "$RESULTS/raw-colord.txt"
run_daemon tinctd "$TINCTD"
if [ "$WITH_COLORD" = 1 ]; then
        run_daemon colord "$COLORD"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RESULTS/env.txt"

python3 "$SRC/bench/report.py" "$RESULTS"
cat "$RESULTS/summary.txt"
