#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs the libFuzzer targets of fuzz/ for MINUTES each and prints, per target, the exec
# count, exec/s, coverage (libFuzzer's cov/ft), seed and final corpus sizes (files) and
# crashes found.
#   fuzz/run-fuzzers.sh MINUTES [TARGET...]     (default: every target)
# Sets up (once) a clang build in build-fuzz with ASan+UBSan. Seeds are copied into a work
# directory (FUZZ_WORK, default build-fuzz/fuzz-work/) so the tree is never modified; what a
# run finds stays there: <target>/corpus (grown corpus), <target>/artifacts (crash-*,
# leak-*, timeout-*, oom-* inputs), <target>/log. FUZZ_JOBS targets run at once (default 2,
# niced), the shared corpus is taken from TINCT_CORPUS or ../shared/corpus.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: $0 MINUTES [TARGET...]" >&2; exit 2; }
[ $# -ge 1 ] && [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ] || usage
minutes=$1; shift

all_targets=(edid icc edid-icc dbus-wire json qualifier names parse-reply cgats http)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

corpus=${TINCT_CORPUS:-../shared/corpus}
[ -d "$corpus/edid" ] && [ -d "$corpus/icc" ] || { echo "no shared corpus at $corpus (set TINCT_CORPUS)" >&2; exit 1; }
corpus=$(realpath "$corpus")
work=${FUZZ_WORK:-build-fuzz/fuzz-work}
jobs=${FUZZ_JOBS:-2}

scripts/install-deps.sh --fuzz || exit 1
if [ ! -f build-fuzz/build.ninja ]; then
        CC=clang meson setup build-fuzz -Db_sanitize=address,undefined -Db_lundef=false \
                -Dcorpus_dir="$corpus" >/dev/null || exit 1
fi
ninja -C build-fuzz -j"$jobs" $(printf 'fuzz/fuzz-%s ' "${targets[@]}") >/dev/null \
        || ninja -C build-fuzz -j"$jobs" $(printf 'fuzz/fuzz-%s ' "${targets[@]}") || exit 1

# Seed directories: EDID and ICC use the shared corpus; the EDID→ICC generator starts from
# its own seeds plus every corpus EDID; the rest from fuzz/corpus/<target>.
seeds_of() {
        case $1 in
        edid) echo "$corpus/edid" ;;
        icc) echo "$corpus/icc" ;;
        edid-icc) echo "fuzz/corpus/edid-icc $corpus/edid" ;;
        *) echo "fuzz/corpus/$1" ;;
        esac
}

run_one() { # target
        local t=$1 d=$work/$1
        rm -rf "$d"
        mkdir -p "$d/corpus" "$d/artifacts"
        for s in $(seeds_of "$t"); do
                find "$s" -maxdepth 1 -type f -exec cp -t "$d/corpus" {} +
        done
        find "$d/corpus" -type f | wc -l >"$d/seeds"
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
                nice -n 10 "build-fuzz/fuzz/fuzz-$t" -max_total_time=$((minutes * 60)) \
                -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
                -artifact_prefix="$d/artifacts/" "$d/corpus" >"$d/log" 2>&1
        echo $? >"$d/rc"
}

running=0
for t in "${targets[@]}"; do
        [ -x "build-fuzz/fuzz/fuzz-$t" ] || { echo "unknown target $t" >&2; exit 2; }
        if [ "$running" -ge "$jobs" ]; then
                wait -n
                running=$((running - 1))
        fi
        echo "fuzzing $t for $minutes min ($(date -u +%H:%M:%S))"
        run_one "$t" &
        running=$((running + 1))
done
wait

printf '%-10s %4s %12s %8s %6s %6s %6s %6s %s\n' target min execs exec/s cov ft seeds corpus crashes
status=0
for t in "${targets[@]}"; do
        d=$work/$t
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$d/log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$d/log" | tail -1)
        last=$(grep -E '^#[0-9]+.*cov: ' "$d/log" | tail -1)
        cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
        ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
        size=$(find "$d/corpus" -type f | wc -l)
        crashes=$(find "$d/artifacts" -type f | wc -l)
        printf '%-10s %4s %12s %8s %6s %6s %6s %6s %s\n' "$t" "$minutes" "${execs:-?}" "${rate:-?}" \
                "${cov:-?}" "${ft:-?}" "$(cat "$d/seeds")" "$size" "$crashes"
        if [ "$crashes" -gt 0 ] || [ "$(cat "$d/rc")" != 0 ]; then
                find "$d/artifacts" -type f | sed 's/^/    /'
                status=1
        fi
done
exit $status
