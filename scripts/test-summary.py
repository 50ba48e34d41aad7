#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The closing line of ./run-tests: "N passed, N failed, N skipped" over meson's test logs
(meson-logs/*.json, one JSON object per test and line). A skipped test (exit 77) is counted
so that it is seen; a log that is missing or unreadable counts as one failure (meson did not
get as far as running the tests), and so does each --failed given (a build that failed).
Exit status 0 when nothing failed.
Usage: test-summary.py [--failed N] LOG..."""

import json
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
FAILED = {"FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"}
SKIPPED = {"SKIP"}


def main(argv):
    passed = failed = skipped = 0
    if len(argv) >= 2 and argv[0] == "--failed":
        failed += int(argv[1])
        argv = argv[2:]
    for log in argv:
        try:
            with open(log, encoding="utf-8", errors="replace") as f:
                results = [json.loads(line)["result"] for line in f if line.strip()]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print("cannot read the test log %s: %s" % (log, e))
            failed += 1
            continue
        passed += sum(r in PASSED for r in results)
        failed += sum(r in FAILED for r in results)
        skipped += sum(r in SKIPPED for r in results)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
