#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every line of `tinct --help` and of `tinct VERB --help`, for every verb the overview
lists, fits in 80 columns (counted in characters, not bytes), as systemd's tools' help does;
and a wrapped overview or usage line still names everything: each verb of the table is in
the overview, and a verb's usage, continuation lines included, names all its options.
Offline: no bus is needed for --help.
Usage: test-help-width.py TINCT"""

import re
import subprocess
import sys

tinct = sys.argv[1]
failures = []


def check(ok, what):
    if not ok:
        print("FAIL: " + what)
        failures.append(what)


def help_text(*args):
    r = subprocess.run([tinct] + list(args) + ["--help"], capture_output=True, text=True,
                       env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"})
    check(r.returncode == 0 and r.stderr == "", "%s --help: exit %d, stderr %r" % (args, r.returncode, r.stderr))
    return r.stdout


def check_width(text, what):
    for n, line in enumerate(text.splitlines(), 1):
        check(len(line) <= 80, "%s, line %d has %d columns: %r" % (what, n, len(line), line))


overview = help_text()
check_width(overview, "tinct --help")
verbs = re.findall(r"^  ([a-z][a-z-]*)", overview, re.M)
check(len(verbs) >= 40, "%d verbs in the overview" % len(verbs))
for verb in verbs:
    text = help_text(verb)
    check_width(text, "tinct %s --help" % verb)
    usage = " ".join(text.split("\n\n")[0].split())  # the usage line, continuations joined
    check(usage.startswith("Usage: tinct %s" % verb), "%s: usage %r" % (verb, usage))
    options = text.split("\nOptions:\n")[1]
    for name in re.findall(r"--([a-z][a-z0-9-]*)", options):
        check(name == "help" or "--" + name in usage or re.search(r"-[a-z] ", usage),
              "%s: --%s listed under Options but not in the usage %r" % (verb, name, usage))
print("%d verbs, %d failed" % (len(verbs), len(failures)))
sys.exit(1 if failures else 0)
