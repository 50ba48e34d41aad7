#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Prints the system calls a unit's SystemCallFilter= lines leave allowed, one per line,
with the groups expanded by the machine's own `systemd-analyze syscall-filter`, so the
harness can run tinctd under the same allow-list the shipped unit gives it.

    unit-syscalls.py UNIT_FILE

Semantics as systemd applies them: the first non-~ line starts an allow-list, later
non-~ lines add to it, ~ lines take away."""
import subprocess
import sys


def groups():
    out = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True,
                         check=True).stdout
    table, current = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            current = line.split()[0]
            table[current] = []
        elif current and line.strip() and not line.strip().startswith("#"):
            table[current].append(line.strip())
    return table


def expand(name, table, seen=None):
    seen = set() if seen is None else seen
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    result = set()
    for member in table.get(name, []):
        result |= expand(member, table, seen)
    return result


def main():
    table = groups()
    allowed = None
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line.startswith("SystemCallFilter="):
            continue
        value = line.split("=", 1)[1]
        deny = value.startswith("~")
        names = set()
        for word in value.lstrip("~").split():
            names |= expand(word, table)
        if deny:
            allowed = (allowed or set()) - names
        else:
            allowed = names if allowed is None else allowed | names
    if not allowed:
        sys.exit("no SystemCallFilter= allow-list in " + sys.argv[1])
    print("\n".join(sorted(allowed)))


main()
