#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct-sane-list as a service of its own (docs/scanners.md, "The helper's unit"): tinctd
--sane-socket reaches it on its socket, as under the shipped units.

systemd cannot run here as the service manager (no PID 1 of ours, no private instance for a
test), so its socket activation is done by systemd's own systemd-socket-activate --accept
--inetd, which does for one connection what tinct-sane-list.socket (Accept=yes) and
tinct-sane-list@.service (StandardInput/StandardOutput=socket) do: a fresh helper per
connection, the connection as its stdin and stdout, and an environment of its own, not the
daemon's. The unit's confinement itself is checked offline (tests/unit-files). As in
test-scanners.py, escl-server.py stands in for a network scanner and libsane-tincthang.so.1
for a backend that hangs.

Checked: the daemon's SANE_CONFIG_DIR does not reach the helper (the service's does); the
SANE test device and the eSCL scanner through the socket, with the same properties as from a
child; the socket protocol as tinctd speaks it, and a bad request or none at all gets no
listing; a hung backend: the daemon gives up after --sane-timeout, keeps its devices, and the
helper ends itself (it is not the daemon's to kill); a socket nobody listens on: a clear
error, nothing lost; a listing with one record that is not UTF-8 (a stand-in on the socket,
since a real helper never writes one) costs that record only.
argv: tinct, tinct-sane-list, the hang backend, escl-server.py."""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

import scan_common
from harness import TinctEnv
from scan_common import Bus, EsclServer, check, sane_config

TINCT, SANE_LIST, HANG_BACKEND, scan_common.ESCL_SERVER = sys.argv[1:5]
ESCL_ID = scan_common.ESCL_ID
FAILSAFE = 120  # seconds: only a hung test waits this long; every wait ends on its event


class SocketActivate:
    """systemd-socket-activate serving tinct-sane-list --socket, one helper per connection.
    Its log lines (on stderr) say when it listens and when a helper ended."""

    def __init__(self, path, env):
        cmd = ["systemd-socket-activate", "--accept", "--inetd", "-l", path]
        for k, v in env.items():
            cmd += ["-E", "%s=%s" % (k, v)]
        self.proc = subprocess.Popen(cmd + [SANE_LIST, "--socket"], stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.wait_for(lambda: any(line.startswith("Listening on") for line in self.lines if line)):
            raise RuntimeError("systemd-socket-activate does not listen: %s" % self.lines)

    def _read(self):
        for line in self.proc.stderr:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.lines.append(None)  # it exited
            self.cond.notify_all()

    def wait_for(self, pred):
        """Until pred() holds (True) or systemd-socket-activate exits (False)."""
        with self.cond:
            self.cond.wait_for(lambda: pred() or None in self.lines, FAILSAFE)
            return bool(pred())

    def ended(self, n):
        """Until n helpers have ended in all (its log says so of each); whether they have."""
        return self.wait_for(lambda: self._count(r"Child \d+ died") >= n)

    def all_ended(self):
        """Until every helper it started has ended; whether they have."""
        return self.wait_for(lambda: self._count(r"Child \d+ died") == self._count(r"Spawned .* as PID"))

    def _count(self, pattern):
        return sum(1 for line in self.lines if line and re.match(pattern, line))

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.reader.join()
        self.proc.stderr.close()


def ask(path, request):
    """What tinctd does on the socket: the request line out, the listing in until EOF."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(FAILSAFE)
        s.connect(path)
        if request is not None:
            s.sendall(request)
        s.shutdown(socket.SHUT_WR)
        out = b""
        while True:
            data = s.recv(65536)
            if not data:
                return out.decode("utf-8", "replace")
            out += data


def test_socket():
    tmp = tempfile.mkdtemp(prefix="tinct-scansock-", dir="/tmp")
    os.chmod(tmp, 0o755)
    server = EsclServer()
    activate = None
    try:
        lib = os.path.join(tmp, "lib")
        os.mkdir(lib, 0o755)
        shutil.copy(HANG_BACKEND, os.path.join(lib, "libsane-tincthang.so.1"))
        os.chmod(os.path.join(lib, "libsane-tincthang.so.1"), 0o755)
        conf = sane_config(tmp, ["test", "airscan"], [("Office", server.url)])
        # The daemon's own SANE configuration names no backend: a listing that has devices
        # read the service's (its -E), as a unit's Environment= would give it.
        daemon_conf = os.path.join(tmp, "daemon-sane.d")
        os.mkdir(daemon_conf, 0o755)
        with open(os.path.join(daemon_conf, "dll.conf"), "w"):
            pass
        os.environ["SANE_CONFIG_DIR"] = daemon_conf
        path = os.path.join(tmp, "tinct-sane-list.sock")
        activate = SocketActivate(path, {"SANE_CONFIG_DIR": conf, "LD_LIBRARY_PATH": lib})

        print("the socket protocol, as tinctd speaks it")
        out = ask(path, b"list\t2000\t20000\n")
        lines = out.splitlines()
        check(lines[-1:] == ["end"], "the listing ends with its end record: %r" % out)
        check("sane\ttest:0\tNoname\tfrontend-tester\tvirtual device" in lines, "the SANE test device: %r" % out)
        check(any(line.startswith("escl\tairscan:e0:Office\t%s\t%s\t" % (ESCL_ID[len("escl-"):], server.url))
                  for line in lines), "the eSCL scanner with its UUID, read over the network: %r" % out)
        for bad in (b"nonsense\n", b"list\t0\t5\n", b"list\t5\t6", None):
            out = ask(path, bad)
            check(out == "", "no listing for the request %r: %r" % (bad, out))
        check(activate.ended(5), "a helper per connection, each ended")

        print("tinctd --sane-socket")
        args = ["--sane-discovery", "--sane-test-devices", "--sane-socket", path]
        with TinctEnv(polkit="allow", extra_args=args + ["--sane-timeout", "10"]) as env:
            r = scan_common.rescan(TINCT, env)
            check("Scanners: 2" in r.stdout, "rescan-scanners counts two scanners: %r" % r.stdout)
            b = Bus(env)
            check(b.scanners() == [ESCL_ID, "sane-frontend-tester"], "both scanners: %s" % b.scanners())
            e = b.props(b.device(ESCL_ID))
            check((str(e["Serial"]), str(e["Model"]), str(e["Vendor"])) ==
                  (server.url, "Tinct Test eSCL Scanner", "Tinct"),
                  "the eSCL device's Serial, Model, Vendor as from a child helper: %s" %
                  [str(e[k]) for k in ("Serial", "Model", "Vendor")])

            # A backend that hangs: tinctd cannot kill a helper that is not its child; it
            # closes the connection and keeps its devices, and the helper ends itself.
            sane_config(tmp, ["test", "airscan", "tincthang"], [("Office", server.url)])
            r = scan_common.rescan(TINCT, env, rc=1)
            check("did not finish in 10 s" in r.stderr and "it ends itself" in r.stderr,
                  "rescan-scanners says the listing timed out: %r" % r.stderr)
            check(b.scanners() == [ESCL_ID, "sane-frontend-tester"], "the devices stay: %s" % b.scanners())
            # How many listings came before the hang depends on whether the first rescan
            # found the start-up one running (it shares it): every helper started has ended.
            check(activate.all_ended(), "the hung helper ended itself (its alarm), not left behind")
            sane_config(tmp, ["test", "airscan"], [("Office", server.url)])
            r = scan_common.rescan(TINCT, env)
            check("Scanners: 2" in r.stdout, "the next rescan works: %r" % r.stdout)

        print("a socket nobody listens on")
        activate.stop()
        activate = None
        with TinctEnv(polkit="allow", extra_args=args) as env:
            r = scan_common.rescan(TINCT, env, rc=1)
            check("cannot rescan" in r.stderr, "rescan-scanners fails with a clear error: %r" % r.stderr)
            check(env.daemon_alive(), "the daemon runs on")
    finally:
        if activate:
            activate.stop()
        server.stop()
        os.environ.pop("SANE_CONFIG_DIR", None)
        shutil.rmtree(tmp, ignore_errors=True)


class StandInHelper:
    """A stand-in for the helper on its socket, for what a real one never writes: one
    record that is not UTF-8 between good ones (a helper of another version, a backend that
    wrote into its stdout). Each connection gets the request read and this listing."""

    LISTING = (b"sane\ttest:0\tNoname\tfrontend-tester\tvirtual device\n"
               b"escl\tairscan:e0:Bad\t66666666-7777-4888-9999-aaaaaaaaaaaa\thttp://127.0.0.1:9/eSCL\tCaf\xe9\n"
               b"sane\ttest:1\tNoname\tother-tester\tvirtual device\n"
               b"end\n")

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed: the test is done
            with conn:
                conn.settimeout(FAILSAFE)
                request = b""
                while not request.endswith(b"\n"):
                    data = conn.recv(64)
                    if not data:
                        break
                    request += data
                conn.sendall(self.LISTING)

    def stop(self):
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.thread.join()


def test_unreadable_record():
    print("a listing with one record that is not UTF-8: that record only is skipped")
    tmp = tempfile.mkdtemp(prefix="tinct-scansock-", dir="/tmp")
    os.chmod(tmp, 0o755)
    path = os.path.join(tmp, "stand-in.sock")
    helper = StandInHelper(path)
    try:
        args = ["--sane-discovery", "--sane-test-devices", "--sane-socket", path]
        with TinctEnv(polkit="allow", extra_args=args) as env:
            r = scan_common.rescan(TINCT, env)
            check("Scanners: 2" in r.stdout, "rescan-scanners counts the two readable ones: %r" % r.stdout)
            b = Bus(env)
            check(b.scanners() == ["sane-frontend-tester", "sane-other-tester"],
                  "the records before and after the bad one are devices: %s" % b.scanners())
    finally:
        helper.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if not shutil.which("systemd-socket-activate"):
    print("SKIP: systemd-socket-activate missing (package systemd)")
    sys.exit(77)
test_socket()
test_unreadable_record()
scan_common.finish()
