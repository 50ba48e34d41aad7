#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stores ArgyllCMS's answers for the tests that set tinct profile-build beside it
# (tests/data/argyll/README): runs cli-profile-build, cli-printer-profile and
# cli-profile-build-chart with TINCT_ARGYLL_RECORD=1, which makes every test generate its
# readings (targen, fakeread) into tests/data/argyll/ and compute every Argyll answer
# (colprof, scanin, profcheck, xicclu) into tests/data/argyll/answers.json, with the
# installed Argyll's version. Run it after an Argyll upgrade, or after changing a test's
# inputs; then commit tests/data/argyll. Needs a plain (not sanitized) build directory,
# BUILD (default build), set up and built.
# Usage: tests/cli/argyll-answers.sh [BUILD]
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
unset TINCT_ARGYLL_CACHE
TINCT_ARGYLL_RECORD=1 meson test -C "$build" --print-errorlogs --num-processes 1 \
        cli-profile-build cli-printer-profile cli-profile-build-chart
git status --short tests/data/argyll
