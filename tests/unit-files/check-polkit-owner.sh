#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The generated polkit policy names the daemon's user as every action's owner: polkitd
# answers CheckAuthorization for another user's subject only to root or to an action's owner,
# and tinctd runs as that user (tinct.service), so an action without it is refused to every
# desktop user whatever the rules say. The booted system test (tests/system) checks the
# answers from the real polkitd.
# Usage: check-polkit-owner.sh BUILT_POLICY DAEMON_USER
set -euo pipefail
policy=$1 user=$2
python3 - "$policy" "$user" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
actions = root.findall("action")
bad = [a.get("id") for a in actions
       if "unix-user:" + sys.argv[2] not in [n.text for n in a.findall("annotate")
                                             if n.get("key") == "org.freedesktop.policykit.owner"]]
if not actions or bad:
    sys.exit(f"{len(actions)} actions; without the owner unix-user:{sys.argv[2]}: {bad}")
print(f"{len(actions)} actions, each owned by unix-user:{sys.argv[2]}")
PY
