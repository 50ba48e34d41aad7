#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests that fail on purpose, for test-session.py's no_process_left (never run on their own:
meson does not list this file). Each starts the daemon, a session bus and tinct-session as
nobody (setpriv, as every session test does), writes "<pid> <start time>" of the helper and of
the session bus to $TINCT_PIDS_FILE, and fails: by a failed check, so the test's teardown runs
(fails_by_check), or by SIGKILL, so nothing of the test runs after (killed; meson kills a test
that timed out that way). What must hold afterwards is test-session.py's business."""

import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compat"))
import compat  # noqa: E402
from compat import check, test  # noqa: E402
from session_env import SessionBus, SessionHelper  # noqa: E402


def start_time(pid):
    """Field 22 of /proc/PID/stat: tells this process from a later one with the same pid."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def record(*pids):
    with open(os.environ["TINCT_PIDS_FILE"], "w") as f:
        for pid in pids:
            f.write("%d %s\n" % (pid, start_time(pid)))


@test
def fails_by_check():
    with compat.TinctEnv(polkit="allow") as env, SessionBus(env) as bus:
        helper = SessionHelper(env, bus).start()
        record(helper.proc.pid, bus.proc.pid)
        check(False, "failing on purpose, with tinct-session running")


@test
def killed():
    with compat.TinctEnv(polkit="allow") as env, SessionBus(env) as bus:
        helper = SessionHelper(env, bus).start()
        record(helper.proc.pid, bus.proc.pid)
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    compat.main()
