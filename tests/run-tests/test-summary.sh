#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scripts/test-summary.py, the closing line of ./run-tests, on meson test logs made here:
# skipped tests are counted and shown, expected failures pass, a missing log and a failed
# build are failures, and the exit status says whether anything failed.
# Usage: test-summary.sh SOURCE_ROOT
set -u
summary="$1/scripts/test-summary.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failures=0
expect() { # want-output want-status command...
        local want=$1 want_rc=$2 out rc
        shift 2
        out=$("$@" 2>&1); rc=$?
        out=$(printf '%s\n' "$out" | tail -1)
        if [ "$out" != "$want" ] || [ "$rc" != "$want_rc" ]; then
                echo "FAIL: ${*:2}: got '$out' (exit $rc), want '$want' (exit $want_rc)"
                failures=$((failures + 1))
        fi
}
line() { printf '{"name": "tinct:%s / %s", "stdout": "\\"result\\": \\"OK\\"", "result": "%s"}\n' "$1" "$2" "$3"; }
{ line unit a OK; line unit b OK; line bus c SKIP; line bus d EXPECTEDFAIL; } >"$tmp/plain.json"
{ line unit a OK; line bus c FAIL; line bus e TIMEOUT; line bus f SKIP; } >"$tmp/bad.json"
expect "3 passed, 0 failed, 1 skipped" 0 "$summary" "$tmp/plain.json"
expect "4 passed, 2 failed, 2 skipped" 1 "$summary" "$tmp/plain.json" "$tmp/bad.json"
expect "3 passed, 1 failed, 1 skipped" 1 "$summary" "$tmp/plain.json" "$tmp/missing.json"
expect "3 passed, 1 failed, 1 skipped" 1 "$summary" --failed 1 "$tmp/plain.json"
echo "$failures failed"
[ "$failures" -eq 0 ]
