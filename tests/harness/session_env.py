# SPDX-License-Identifier: GPL-2.0-or-later
"""The session side of a test: a private session bus, an Xvfb X server and tinct-session,
beside harness.TinctEnv (the private system bus, fake polkit and tinctd).

    from harness import TinctEnv
    from session_env import SessionBus, Xvfb, SessionHelper

    with TinctEnv(polkit='allow') as env, SessionBus(env) as bus, Xvfb(env) as x:
        helper = SessionHelper(env, bus, display=x.display)
        helper.start()                      # waits for its "Ready" line
        helper.wait_line(r"Registered (.*)")  # the next matching line of its stderr
        helper.stop()                       # SIGTERM (or sig=); returns the exit status

SessionBus runs dbus-daemon --session as the user the session belongs to (uid 65534,
nobody, with env.home_nobody as HOME), as a login session would: what it activates runs as
that user too. Its policy lets any uid connect, so the test (root) can call on it.
Xvfb(env) starts `Xvfb -displayfd`, which picks a free display and says which. SessionHelper
runs tinct-session as nobody with HOME, DBUS_SESSION_BUS_ADDRESS, DBUS_SYSTEM_BUS_ADDRESS and
(when given) DISPLAY set, XDG_DATA_HOME unset (so the default ~/.local/share/icc is used
unless extra_env sets it); a thread collects its stderr lines, which wait_line() searches in
order.

No process outlives its test: a helper the test did not stop is stopped with its SessionBus;
everything run as nobody gets its parent-death signal again after setpriv's uid change
(harness.AS_NOBODY); and compat.main() kills what is left in a test's process group. Environment: TINCT_SESSION names the binary (meson sets it); TINCT_SESSION_WRAPPER, a
command it runs under (run-tests: valgrind's memcheck).

Nothing here sleeps for a fixed time: readiness is a line (the bus address, the display
number, "Ready"), every wait has a deadline.
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time

from harness import (AS_NOBODY, HARNESS_DIR, NOBODY_GID, NOBODY_UID, HarnessError,
                     _die_with_parent, _read_line)

SESSION_CONF_TEMPLATE = os.path.join(HARNESS_DIR, "dbus-session.conf.in")


def user_env(env, extra=None):
    """The environment of a process of the session user (nobody)."""
    e = {k: v for k, v in os.environ.items()
         if k not in ("XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY",
                      "XAUTHORITY")}
    e["DBUS_SYSTEM_BUS_ADDRESS"] = env.address
    e["HOME"] = env.home_nobody
    e["USER"] = e["LOGNAME"] = "nobody"
    if extra:
        e.update(extra)
    return e


def _terminate(p, timeout):
    if p is None or p.poll() is not None:
        return
    p.terminate()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


class SessionBus:
    def __init__(self, env, services=None):
        """services: {file name: text} written as activation files into its service dir."""
        self.env = env
        self.services = dict(services or {})
        self.proc = None
        self.address = None
        self.helpers = []   # SessionHelpers on this bus: stopped with it (see stop())

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        base = os.path.join(self.env.tmp, "session-bus")
        os.mkdir(base, 0o755)
        os.chown(base, NOBODY_UID, NOBODY_GID)
        self.service_dir = os.path.join(self.env.tmp, "session-services")
        os.mkdir(self.service_dir, 0o755)
        for name, text in self.services.items():
            with open(os.path.join(self.service_dir, name), "w") as f:
                f.write(text)
        conf = os.path.join(self.env.tmp, "dbus-session.conf")
        with open(SESSION_CONF_TEMPLATE) as f:
            text = f.read()
        with open(conf, "w") as f:
            f.write(text.replace("@LISTEN@", "unix:path=%s/bus" % base)
                        .replace("@SERVICEDIR@", self.service_dir))
        r, w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                AS_NOBODY + ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + conf,
                             "--print-address=%d" % w],
                pass_fds=[w], env=user_env(self.env), cwd=self.env.home_nobody,
                preexec_fn=_die_with_parent, stdin=subprocess.DEVNULL)
            os.close(w)
            w = -1
            self.address = _read_line(r, time.monotonic() + self.env.timeout,
                                      "session dbus-daemon address")
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)

    def stop(self):
        # A test that failed has not stopped its helpers: they go first, with the bus they
        # belong to, rather than outliving the test.
        for h in self.helpers:
            h.kill()
        self.helpers = []
        _terminate(self.proc, self.env.timeout)
        self.proc = None


class Xvfb:
    def __init__(self, env):
        self.env = env
        self.proc = None
        self.display = None

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        r, w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                ["Xvfb", "-displayfd", str(w), "-nolisten", "tcp", "-noreset",
                 "-screen", "0", "1024x768x24"],
                pass_fds=[w], preexec_fn=_die_with_parent, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.close(w)
            w = -1
            number = _read_line(r, time.monotonic() + self.env.timeout, "Xvfb display number")
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)
        self.display = ":" + number.strip()

    def stop(self):
        _terminate(self.proc, self.env.timeout)
        self.proc = None


class SessionHelper:
    def __init__(self, env, bus, display=None, extra_env=None, args=()):
        self.env = env
        self.exe = os.environ.get("TINCT_SESSION")
        if not self.exe:
            raise HarnessError("TINCT_SESSION is not set (meson sets it)")
        extra = {"DBUS_SESSION_BUS_ADDRESS": bus.address}
        if display:
            extra["DISPLAY"] = display
        extra.update(extra_env or {})
        self.proc_env = user_env(env, extra)
        self.args = list(args)
        self.proc = None
        bus.helpers.append(self)
        self.lines = []
        self.pos = 0
        self._cond = threading.Condition()
        self._eof = False
        self._thread = None

    def start(self, wait_ready=True):
        cmd = AS_NOBODY + os.environ.get("TINCT_SESSION_WRAPPER", "").split() + [self.exe, "--verbose"]
        self.proc = subprocess.Popen(cmd + self.args, env=self.proc_env, cwd=self.env.home_nobody,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        self._thread = threading.Thread(target=self._reader, daemon=True)
        self._thread.start()
        if wait_ready:
            self.wait_line(r"\bReady\b")
        return self

    def _reader(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace").rstrip("\n")
            sys.stderr.write("  | %s\n" % line)
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def wait_line(self, pattern, timeout=None):
        """The match of the first line after the last one matched that matches pattern."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + (timeout or self.env.timeout)
        with self._cond:
            while True:
                while self.pos < len(self.lines):
                    line = self.lines[self.pos]
                    self.pos += 1
                    m = rx.search(line)
                    if m:
                        return m
                if self._eof:
                    raise HarnessError("tinct-session ended before a line matching %r" % pattern)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HarnessError("timed out waiting for a line matching %r" % pattern)
                self._cond.wait(left)

    def wait_exit(self, timeout=None):
        rc = self.proc.wait(timeout=timeout or self.env.timeout)
        if self._thread:
            self._thread.join()
        return rc

    def kill(self):
        """Teardown: SIGTERM, SIGKILL if that is not enough; nothing is checked."""
        if self.proc is None:
            return
        _terminate(self.proc, self.env.timeout)
        if self._thread:
            self._thread.join()
        self.proc.stderr.close()
        self.proc = None

    def stop(self, sig=signal.SIGTERM):
        """Sends sig (SIGTERM); returns the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.wait_exit()
        finally:
            self.proc.stderr.close()
            self.proc = None
