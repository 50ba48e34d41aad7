# SPDX-License-Identifier: GPL-2.0-or-later
"""Private-bus test environment for tinct's Python tests (tests/compat/).

Starts, in a fresh temporary directory: a private dbus-daemon of type "system"
(tests/harness/dbus-system.conf.in), optionally the fake polkit authority
(tests/harness/fake-polkit.py), and the daemon under test with its state and profile
directories inside the temporary directory. The machine's system bus and
/var/lib/colord are never used.

    from harness import TinctEnv

    with TinctEnv(polkit='allow', profile_dirs=[...], extra_args=[...]) as env:
        env.address          # DBUS_SYSTEM_BUS_ADDRESS of the private bus
        env.state_dir        # --state-dir of the daemon
        env.profile_dir      # first profile directory (created empty unless given)
        env.polkit_log       # file with one line per CheckAuthorization request
        env.polkit_requests()  # that file parsed: list of dicts (action, kind, name, ...)
        env.restart()        # SIGTERM the daemon, require exit status 0, start it again
        r = env.run(['colormgr', 'get-devices'])            # as root
        r = env.run(['colormgr', 'get-devices'], as_user='nobody')
        # r is a subprocess.CompletedProcess (text mode, stdout/stderr captured)
        env.is_colord        # True when TINCT_TEST_DAEMON=colord
        env.daemon_filename(path)  # where the daemon sees a file of env.profile_dir

Constructor arguments:
    polkit        None (no authority on the bus), 'allow', 'deny', 'error' or 'silent'
    polkit_deny   action ids to deny while allowing others (mode 'allow')
    profile_dirs  directories passed as --profile-dir (default: one empty temp dir)
    profiles      files copied into the first profile directory before the start
    extra_args    further daemon arguments (e.g. ['--create-dummy-sensor'])
    sysfs_root    a fake tree for the daemon's discovery (--sysfs-root) instead of none
                  (--no-udev); tinctd only
    dummy_sensor  shorthand for '--create-dummy-sensor'
    timeout       seconds allowed for each start-up step (default 60)

Environment:
    TINCTD             path of the tinctd binary (set by meson for its tests)
    TINCT_TEST_DAEMON  'tinctd' (default) or 'colord': run Debian's /usr/libexec/colord
                       instead, inside a private mount namespace (unshare -m) where the
                       state dir is bind-mounted over /var/lib/colord and the first
                       profile dir over /usr/share/color/icc. colord has no
                       --state-dir/--profile-dir; tests needing tinct-only behaviour
                       should check env.is_colord and skip.
    TINCT_COLORD       path of colord (default /usr/libexec/colord)
    TINCT_TEST_VERBOSE if set, the daemon gets --verbose
Everything waits on events (readiness lines, NameOwnerChanged, pipe EOF on child exit)
with a deadline; nothing sleeps for a fixed time.
"""

import ctypes
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))
CONF_TEMPLATE = os.path.join(HARNESS_DIR, "dbus-system.conf.in")
FAKE_POLKIT = os.path.join(HARNESS_DIR, "fake-polkit.py")
SYSTEM_PYTHON = "/usr/bin/python3"   # has dbus-python; pyenv shims may not
# The unprivileged test user, looked up by name (uid 65534 on Debian, but not everywhere).
NOBODY_UID = pwd.getpwnam("nobody").pw_uid
NOBODY_GID = pwd.getpwnam("nobody").pw_gid
BUS_NAME = "org.freedesktop.ColorManager"

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # children must not outlive a crashed test
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


# A command run as nobody. The kernel clears the parent-death signal when the uid changes, so
# setpriv sets it again after the change (--pdeathsig): without that a process of nobody's
# outlives a test that died (tinct-session did, issue 27).
AS_NOBODY = ["setpriv", "--reuid=%d" % NOBODY_UID, "--regid=%d" % NOBODY_GID, "--clear-groups",
             "--pdeathsig", "SIGTERM"]


class HarnessError(RuntimeError):
    pass


def _read_line(fd, deadline, what):
    """Read from fd until a newline or EOF, waiting at most until deadline."""
    buf = b""
    while b"\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            raise HarnessError("timed out waiting for %s" % what)
        r, _, _ = select.select([fd], [], [], left)
        if not r:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            raise HarnessError("%s: EOF before a complete line (process died?) got %r"
                               % (what, buf))
        buf += chunk
    return buf.split(b"\n", 1)[0].decode()


def daemon_kind():
    return os.environ.get("TINCT_TEST_DAEMON", "tinctd")


class TinctEnv:
    def __init__(self, polkit=None, polkit_deny=(), profile_dirs=None, profiles=(),
                 extra_args=(), dummy_sensor=False, timeout=60, sysfs_root=None):
        if polkit not in (None, "allow", "deny", "error", "silent"):
            raise ValueError("polkit mode %r" % polkit)
        self.polkit_mode = polkit
        self.polkit_deny = list(polkit_deny)
        self._profile_dirs_arg = list(profile_dirs) if profile_dirs is not None else None
        self._profiles = list(profiles)
        self.extra_args = list(extra_args)
        if dummy_sensor:
            self.extra_args.append("--create-dummy-sensor")
        self.timeout = timeout
        self.sysfs_root = sysfs_root
        self.is_colord = daemon_kind() == "colord"
        self.tmp = None
        self.address = None
        self.bus_proc = None
        self.polkit_proc = None
        self.daemon_proc = None
        self._daemon_pipe = None

    # ---- context manager -------------------------------------------------------------
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

    # ---- set-up ----------------------------------------------------------------------
    def start(self):
        # /tmp rather than $TMPDIR: the directory must be reachable by uid 65534
        self.tmp = tempfile.mkdtemp(prefix="tinct-test-", dir="/tmp")
        os.chmod(self.tmp, 0o755)
        self.state_dir = os.path.join(self.tmp, "state")
        os.mkdir(self.state_dir, 0o755)
        self.home_nobody = os.path.join(self.tmp, "home-nobody")
        os.mkdir(self.home_nobody, 0o755)
        os.chown(self.home_nobody, NOBODY_UID, NOBODY_GID)
        if self._profile_dirs_arg is None:
            d = os.path.join(self.tmp, "icc")
            os.mkdir(d, 0o755)
            self.profile_dirs = [d]
        else:
            self.profile_dirs = self._profile_dirs_arg
        self.profile_dir = self.profile_dirs[0] if self.profile_dirs else None
        for f in self._profiles:
            shutil.copy(f, self.profile_dir)
        self.polkit_log = os.path.join(self.tmp, "polkit.log")
        open(self.polkit_log, "w").close()

        self._start_bus()
        if self.polkit_mode:
            self._start_polkit()
        self._start_daemon()

    def _env(self):
        env = dict(os.environ)
        env["DBUS_SYSTEM_BUS_ADDRESS"] = self.address
        # The daemon follows the cupsd of this socket, never the machine's: nothing listens
        # there unless a test starts its own cupsd with its root at <tmp>/cups.
        env["CUPS_SERVER"] = os.path.join(self.tmp, "cups", "cups.sock")
        return env

    def _start_bus(self):
        sock_dir = os.path.join(self.tmp, "bus")
        os.mkdir(sock_dir, 0o755)
        conf = os.path.join(self.tmp, "dbus-system.conf")
        with open(CONF_TEMPLATE) as f:
            text = f.read()
        with open(conf, "w") as f:
            f.write(text.replace("@LISTEN@", "unix:path=%s/system_bus_socket" % sock_dir))
        r, w = os.pipe()
        try:
            self.bus_proc = subprocess.Popen(
                ["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + conf,
                 "--print-address=%d" % w],
                pass_fds=[w], preexec_fn=_die_with_parent, stdin=subprocess.DEVNULL)
            os.close(w)
            w = -1
            self.address = _read_line(r, time.monotonic() + self.timeout, "dbus-daemon address")
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)
        os.chmod(os.path.join(sock_dir, "system_bus_socket"), 0o777)

    def _start_polkit(self):
        cmd = [SYSTEM_PYTHON, FAKE_POLKIT, self.polkit_mode, "--log", self.polkit_log]
        for a in self.polkit_deny:
            cmd += ["--deny", a]
        self.polkit_proc = subprocess.Popen(cmd, env=self._env(), stdout=subprocess.PIPE,
                                            stdin=subprocess.DEVNULL,
                                            preexec_fn=_die_with_parent)
        line = _read_line(self.polkit_proc.stdout.fileno(),
                          time.monotonic() + self.timeout, "fake-polkit READY")
        if line != "READY":
            raise HarnessError("fake-polkit said %r" % line)

    def _daemon_cmd(self, ready_fd):
        if self.is_colord:
            colord = os.environ.get("TINCT_COLORD", "/usr/libexec/colord")
            args = list(self.extra_args)
            if os.environ.get("TINCT_TEST_VERBOSE"):
                args.append("--verbose")
            # $1 state dir, $2 profile dir; everything else goes to colord
            script = ('set -e; mount --bind "$1" /var/lib/colord; '
                      'if [ -n "$2" ]; then mount --bind "$2" /usr/share/color/icc; '
                      'else mount -t tmpfs tmpfs /usr/share/color/icc; fi; '
                      'for d in /usr/local/share/color/icc /var/lib/color/icc; do '
                      '[ -d "$d" ] && mount -t tmpfs tmpfs "$d"; done; '
                      'shift 2; exec "$@"')
            return ["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script,
                    "sh", self.state_dir, self.profile_dir or "", colord] + args
        tinctd = os.environ.get("TINCTD")
        if not tinctd:
            raise HarnessError("TINCTD is not set (meson sets it; or set "
                               "TINCT_TEST_DAEMON=colord)")
        # --no-udev: the machine's own displays and USB devices are not the test's (the C
        # harness does the same; tests of discovery give a fake tree).
        discovery = ["--sysfs-root", self.sysfs_root] if self.sysfs_root else ["--no-udev"]
        cmd = os.environ.get("TINCT_DAEMON_WRAPPER", "").split() + [
            tinctd, "--state-dir", self.state_dir] + discovery + ["--ready-fd", str(ready_fd)]
        for d in self.profile_dirs:
            cmd += ["--profile-dir", d]
        if os.environ.get("TINCT_TEST_VERBOSE"):
            cmd.append("--verbose")
        return cmd + self.extra_args

    def _start_daemon(self):
        # One pipe serves both as --ready-fd and as a death notice: the daemon keeps the
        # write end open until it exits, so EOF means it died.
        r, w = os.pipe()
        try:
            # own process group: colord spawns helpers (colord-sane) that must go with it
            self.daemon_proc = subprocess.Popen(self._daemon_cmd(w), env=self._env(),
                                                pass_fds=[w], stdin=subprocess.DEVNULL,
                                                preexec_fn=_die_with_parent,
                                                process_group=0)
            os.close(w)
            w = -1
            deadline = time.monotonic() + self.timeout
            if self.is_colord:
                self._wait_name_owned(r, deadline)
            else:
                line = _read_line(r, deadline, "tinctd READY=1 on --ready-fd")
                if line != "READY=1":
                    raise HarnessError("tinctd wrote %r on its ready fd" % line)
        finally:
            if w >= 0:
                os.close(w)
        self._daemon_pipe = r

    def _wait_name_owned(self, death_fd, deadline):
        """colord has no readiness fd: wait for NameOwnerChanged of its bus name."""
        from gi.repository import Gio, GLib
        conn = Gio.DBusConnection.new_for_address_sync(
            self.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        ctx = GLib.MainContext.new()
        ctx.push_thread_default()
        state = {"done": False, "err": None}
        try:
            def on_owner(_c, _s, _p, _i, _sig, params, _u):
                if params.unpack()[2]:
                    state["done"] = True
            sub = conn.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus",
                                        "NameOwnerChanged", "/org/freedesktop/DBus",
                                        BUS_NAME, Gio.DBusSignalFlags.NONE, on_owner, None)
            has = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "NameHasOwner",
                                 GLib.Variant("(s)", (BUS_NAME,)), None,
                                 Gio.DBusCallFlags.NONE, -1, None).unpack()[0]
            if has:
                state["done"] = True

            def on_death(*_a):
                state["err"] = "daemon exited before owning %s" % BUS_NAME
                return False
            ch = GLib.IOChannel.unix_new(death_fd)
            src = GLib.io_create_watch(ch, GLib.IOCondition.IN | GLib.IOCondition.HUP)
            src.set_callback(on_death)
            src.attach(ctx)
            while not state["done"] and not state["err"]:
                left = deadline - time.monotonic()
                if left <= 0:
                    state["err"] = "timed out waiting for %s" % BUS_NAME
                    break
                t = GLib.timeout_source_new(int(left * 1000) + 1)
                t.set_callback(lambda *_a: False)
                t.attach(ctx)
                ctx.iteration(True)
                t.destroy()
            src.destroy()
            conn.signal_unsubscribe(sub)
            if state["done"]:
                # one round trip: colord answers only after its start-up work
                conn.call_sync(BUS_NAME, "/org/freedesktop/ColorManager",
                               "org.freedesktop.DBus.Peer", "Ping", None, None,
                               Gio.DBusCallFlags.NONE, int(self.timeout * 1000), None)
        finally:
            ctx.pop_thread_default()
            conn.close_sync(None)
        if state["err"]:
            raise HarnessError(state["err"])

    # ---- operations ------------------------------------------------------------------
    def daemon_alive(self):
        return self.daemon_proc is not None and self.daemon_proc.poll() is None

    def stop_daemon(self):
        """SIGTERM the daemon and return its exit status (negative = killed by signal)."""
        p = self.daemon_proc
        if p is None:
            return None
        self.daemon_proc = None
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                raise HarnessError("daemon did not exit within %ds of SIGTERM" % self.timeout)
        try:
            os.killpg(p.pid, signal.SIGKILL)  # leftovers of its process group
        except ProcessLookupError:
            pass
        if self._daemon_pipe is not None:
            os.close(self._daemon_pipe)
            self._daemon_pipe = None
        return p.returncode

    def start_daemon(self):
        """Start the daemon again after stop_daemon()."""
        self._start_daemon()

    def restart(self):
        rc = self.stop_daemon()
        ok = (0,) if not self.is_colord else (0, -signal.SIGTERM)
        if rc not in ok:
            raise HarnessError("daemon exited with status %r on SIGTERM" % rc)
        self._start_daemon()

    def run(self, cmd, as_user=None, check=False, timeout=None, env=None, **kw):
        """Run a client with DBUS_SYSTEM_BUS_ADDRESS pointing at the private bus."""
        e = self._env()
        if env:
            e.update(env)
        if as_user in (None, "root"):
            full = list(cmd)
        elif as_user == "nobody":
            full = AS_NOBODY + list(cmd)
            e["HOME"] = self.home_nobody
            e["USER"] = e["LOGNAME"] = "nobody"
            kw.setdefault("cwd", self.home_nobody)
        else:
            raise ValueError("as_user %r" % as_user)
        return subprocess.run(full, env=e, text=True, capture_output=True, check=check,
                              timeout=timeout or self.timeout, stdin=subprocess.DEVNULL,
                              **kw)

    def polkit_requests(self):
        out = []
        with open(self.polkit_log) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if len(p) >= 6:
                    out.append({"action": p[0], "kind": p[1], "name": p[2],
                                "flags": int(p[3]), "cancellation_id": p[4],
                                "sender": p[5]})
        return out

    def daemon_filename(self, path):
        """The path under which the daemon sees a file placed in env.profile_dir."""
        if self.is_colord and self.profile_dir and path.startswith(self.profile_dir + "/"):
            return "/usr/share/color/icc/" + path[len(self.profile_dir) + 1:]
        return path

    # ---- tear-down -------------------------------------------------------------------
    def stop(self):
        try:
            self.stop_daemon()
        except HarnessError as e:
            print("harness: %s" % e, file=sys.stderr)
        for p in (self.polkit_proc, self.bus_proc):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.polkit_proc is not None and self.polkit_proc.stdout:
            self.polkit_proc.stdout.close()
        self.polkit_proc = self.bus_proc = None
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None
