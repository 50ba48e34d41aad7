#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The D-Bus fuzzer at scale: CALLS (default 1000000) random calls against tinctd on a private
# bus, half as root and half as nobody, in the developer build (build/, made if missing).
# Prints the call rate, the daemon's RSS after the warm-up and at the end, and SQLite's
# integrity_check of the database afterwards. Usage: fuzz/run-bus-fuzz.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] || meson setup build --werror >/dev/null
ninja -C build tests/bus/fuzz-bus src/daemon/tinctd >/dev/null
export TINCTD=$PWD/build/src/daemon/tinctd TINCT_HARNESS_DIR=$PWD/tests/harness
export TINCT_CORPUS_DIR=${TINCT_CORPUS:-$PWD/../shared/corpus}
exec build/tests/bus/fuzz-bus "${1:-1000000}" 2> >(grep -v '^tinctd\[' >&2)
