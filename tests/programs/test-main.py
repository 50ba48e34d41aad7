#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The one main() shape (src/shared/main-func.h) of tinctd, tinct-session and tinct, from the
outside: --version prints the project's version (config.h, the one version macro), --help
exits 0, a bad argument exits 1 (tinctd, tinct-session) or 2 (tinct's usage status) with one
line saying why, and every early exit frees what the command line allocated. The leak part is
checked by the builds it runs in: LeakSanitizer in the sanitizer build (an exit with a leak
fails), and valgrind's memcheck when $TINCT_DAEMON_WRAPPER is set (run-tests' valgrind pass;
a definite leak exits 99). No bus, no state: every path here ends before the daemon opens one.
The confined helpers have the same main() and keep their own exit statuses, which the daemon
reads: tinct-fetch exits 2 without a request line, tinct-sane-list 2 on a bad command line,
each with one line saying why (only the exits before confinement: valgrind cannot follow a
helper past its seccomp filter).
Usage: test-main.py VERSION TINCTD TINCT-SESSION TINCT TINCT-FETCH TINCT-SANE-LIST"""

import os
import subprocess
import sys
import tempfile

version, tinctd, session, tinct, fetch, sane_list = sys.argv[1:7]
wrapper = os.environ.get("TINCT_DAEMON_WRAPPER", "").split()
failures = 0


def run(argv):
    env = dict(os.environ)
    # Never the machine's buses: a path that does not exist, should anything get that far.
    env["DBUS_SYSTEM_BUS_ADDRESS"] = env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + tmp + "/no-bus"
    return subprocess.run(wrapper + argv, capture_output=True, text=True, env=env, timeout=300,
                          stdin=subprocess.DEVNULL)


def check(what, argv, status, stdout=None, stderr=None):
    global failures
    r = run(argv)
    ok = r.returncode == status
    if stdout is not None:
        ok = ok and r.stdout == stdout
    if stderr is not None:
        ok = ok and stderr in r.stderr
    print("%s: %s (exit %d)" % ("ok" if ok else "FAIL", what, r.returncode))
    if not ok:
        print("  argv: %s\n  stdout: %r\n  stderr: %r" % (argv, r.stdout, r.stderr))
        failures += 1


with tempfile.TemporaryDirectory(prefix="tinct-main-") as tmp:
    # Every option that allocates, then the early exit: nothing they hold may leak.
    allocating = ["--state-dir", tmp, "--profile-dir", tmp + "/a", "--profile-dir", tmp + "/b",
                  "--sysfs-root", tmp, "--dummy-sensor-display", tmp + "/display.icc",
                  "--parse-helper", tmp + "/no-parser", "--import-colord", tmp]

    check("tinctd --version", [tinctd, "--version"], 0, stdout="tinctd %s\n" % version)
    check("tinctd --version after allocating options", [tinctd] + allocating + ["--version"], 0,
          stdout="tinctd %s\n" % version)
    check("tinctd --help", [tinctd, "--help"], 0)
    check("tinctd: an unknown option", [tinctd] + allocating + ["--no-such-option"], 1)
    check("tinctd: an argument", [tinctd] + allocating + ["stray"], 1, stderr="Unexpected argument: stray")
    check("tinctd: a bad --ready-fd", [tinctd] + allocating + ["--ready-fd", "x"], 1,
          stderr="Invalid --ready-fd: x")
    check("tinctd: a bad --polkit-timeout", [tinctd] + allocating + ["--polkit-timeout", "0"], 1,
          stderr="Invalid --polkit-timeout: 0")
    # A parser that cannot start: run() has made the registry by then, and frees it. (Under
    # valgrind the failed exec is not seen at start: the daemon gets as far as the bus, which
    # is not there; the exit status and the freeing are the same.)
    check("tinctd: no parser", [tinctd] + allocating + ["--ready-fd", "9"], 1,
          stderr=None if wrapper else tmp + "/no-parser")

    check("tinct-session --version", [session, "--version"], 0, stdout="tinct-session %s\n" % version)
    check("tinct-session: an argument", [session, "stray"], 1, stderr="Unexpected argument: stray")

    check("tinct --version", [tinct, "--version"], 0, stdout="tinct %s\n" % version)
    check("tinct: an unknown verb", [tinct, "no-such-verb"], 2, stderr="unknown verb 'no-such-verb'")

    check("tinct-fetch: no request on stdin", [fetch], 2, stdout="",
          stderr="tinct-fetch[error]: Expected a printer URI and a newline on stdin.")
    check("tinct-sane-list: a bad option", [sane_list, "--no-such-option"], 2, stdout="",
          stderr="tinct-sane-list[error]: Usage: tinct-sane-list [--http-timeout-ms MS] [--socket]")
    check("tinct-sane-list: a bad --http-timeout-ms", [sane_list, "--http-timeout-ms", "0"], 2, stdout="")

print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
