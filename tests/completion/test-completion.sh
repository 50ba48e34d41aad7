#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion of tinct (data/bash-completion/tinct): verbs from the binary's own
# help, scopes for create-device, files for file verbs. No daemon is needed for these.
# Usage: test-completion.sh COMPLETION_FILE TINCT_BINARY
set -euo pipefail
source "$1"
PATH=$(dirname "$2"):$PATH
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _tinct; echo "${COMPREPLY[*]:-}"; }
expect() { [ "$1" = "$2" ] || { echo "completion: got '$1', want '$2'"; exit 1; }; }
expect "$(complete_words tinct edid-)" "edid-info edid-profile"
expect "$(complete_words tinct create-virtual)" "create-virtual-device"
expect "$(complete_words tinct create-device id t)" "temp"
expect "$(complete_words tinct sensor-)" "sensor-lock sensor-set-options"
expect "$(complete_words tinct get-sensor-reading cr)" "crt"
expect "$(complete_words tinct dump --st)" "--state-dir"
# options come from the verb's own usage line
expect "$(complete_words tinct device-add-profile --)" "--soft --help"
expect "$(complete_words tinct gamut --)" "--json --uv --svg --help"
expect "$(complete_words tinct edid-profile -)" "-o --help"
# a usage too long for one line wraps; its options still complete
expect "$(complete_words tinct profile-build --cop)" "--copyright"
expect "$(complete_words tinct profile-build --ch)" "--chart"
expect "$(complete_words tinct find-device x --j)" "--json"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
touch "$tmp/monitor.icc"
expect "$(complete_words tinct icc-info "$tmp/mon")" "$tmp/monitor.icc"
expect "$(complete_words tinct import-profile "$tmp/mon")" "$tmp/monitor.icc"
touch "$tmp/display.ti3"
expect "$(complete_words tinct profile-build "$tmp/disp")" "$tmp/display.ti3"
expect "$(complete_words tinct gamut --svg "$tmp/mon")" "$tmp/monitor.icc"
expect "$(complete_words tinct export --state-dir "$tmp")" "$tmp"
# Every verb of the help text completes.
n=$(complete_words tinct "" | wc -w)
[ "$n" -ge 30 ] || { echo "only $n verbs complete"; exit 1; }
echo ok
