#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/run-profile-build.sh: the CPU time of `tinct profile-build` on the printer
# measurements stored for the tests (tests/data/argyll/printer: a simulated CMYK printer,
# 1000 patches, exact and with 1% noise, and the same printer driven as RGB, 600 patches).
#
#         bench/run-profile-build.sh [BUILD_DIR ...]
#
# For each build directory (default build; give another tree's build first for the "before"
# figures) it builds tools/tinct there and times, ROUNDS times each ($TINCT_BENCH_ROUNDS,
# default 3), the four builds docs/printer-profiles.md describes: cmyk.ti3 and cmyk-noisy.ti3
# and rgb.ti3 with --v2, and cmyk.ti3 as v4 with --ink-limit 260. Almost all of the time is
# the A2B fit (cross-validated, a conjugate-gradient solve per fold, smoothness and channel)
# and the B2A inversion (output-fit.c, output-invert.c).
#
# The figure is user + system CPU seconds of the command (bash's `time`), the smallest of the
# rounds: the machine is shared, and other load only ever adds. With two or more build
# directories the last line per case is the ratio first / last. RESULT lines (each build named
# by its directory's last component) on stdout, also written to bench/results/profile-build.txt. Not a test: no figure fails it, only a build
# that does not succeed.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
RESULTS=${TINCT_BENCH_RESULTS:-$SRC/bench/results}
ROUNDS=${TINCT_BENCH_ROUNDS:-3}
DATA=$SRC/tests/data/argyll/printer
[ $# -gt 0 ] || set -- "$SRC/build"
TMP=$(mktemp -d /tmp/tinct-bench-profile-build.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
log() { echo "run-profile-build: $*" >&2; }

CASES=("cmyk-v2 cmyk.ti3 --v2" "cmyk-noisy-v2 cmyk-noisy.ti3 --v2" "rgb-v2 rgb.ti3 --v2"
       "cmyk-v4-ink260 cmyk.ti3 --ink-limit 260")

cpu_seconds() { # TINCT FILE ARGS...: user + system seconds of one build
        local tinct=$1 file=$2 TIMEFORMAT='%3U %3S' t
        shift 2
        t=$({ time "$tinct" profile-build -q "$DATA/$file" -o "$TMP/out.icc" "$@" >/dev/null; } 2>&1)
        awk '{ printf "%.2f\n", $1 + $2 }' <<<"$t"
}

declare -A best
for build in "$@"; do
        build=$(cd "$build" && pwd)
        ninja -C "$build" tools/tinct >&2
        for c in "${CASES[@]}"; do
                read -r name file args <<<"$c"
                min=
                for _ in $(seq "$ROUNDS"); do
                        # shellcheck disable=SC2086 # args are words
                        s=$(cpu_seconds "$build/tools/tinct" "$file" $args)
                        if [ -z "$min" ] || awk -v a="$s" -v b="$min" 'BEGIN { exit !(a < b) }'; then min=$s; fi
                done
                best[$build/$name]=$min
                log "$build: $name $min s"
        done
done

mkdir -p "$RESULTS"
{
        echo "# $(date -u +%FT%TZ) $(uname -m), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); smallest of $ROUNDS"
        for build in "$@"; do
                build=$(cd "$build" && pwd)
                for c in "${CASES[@]}"; do
                        read -r name _ <<<"$c"
                        echo "RESULT profile-build.printer.$name.cpu_s ${best[$build/$name]} # ${build##*/}"
                done
        done
        if [ $# -gt 1 ]; then
                first=$(cd "$1" && pwd) last=$(cd "${!#}" && pwd)
                for c in "${CASES[@]}"; do
                        read -r name _ <<<"$c"
                        awk -v a="${best[$first/$name]}" -v b="${best[$last/$name]}" -v n="$name" \
                                'BEGIN { printf "RESULT profile-build.printer.%s.speedup %.2f\n", n, a / b }'
                done
        fi
} | tee "$RESULTS/profile-build.txt"
