# SPDX-License-Identifier: GPL-2.0-or-later
"""What the scanner tests share (test-scanners.py, test-sane-socket.py): the check list, the
stand-in eSCL scanner (escl-server.py, since no real one is attached to a test machine), a
private SANE configuration, `tinct rescan-scanners`, and the daemon's devices on the bus."""

import os
import subprocess
import sys

import dbus

ESCL_SERVER = None  # escl-server.py's path: the test sets it from its arguments
UUID = "urn:uuid:4509A320-00A0-008F-00B6-002507510EEC"
ESCL_ID = "escl-4509a320-00a0-008f-00b6-002507510eec"
CM = "org.freedesktop.ColorManager"
CM_PATH = "/org/freedesktop/ColorManager"
failures = []


def check(cond, what):
    print("    %s: %s" % ("ok" if cond else "FAIL", what), flush=True)
    if not cond:
        failures.append(what)


def finish():
    """The test's end: its failures listed, and its exit status."""
    if failures:
        print("%d failure(s):" % len(failures))
        for f in failures:
            print("  " + f)
        sys.exit(1)
    print("all passed")


class EsclServer:
    """escl-server.py in a process of its own; the port comes from its first line."""

    def __init__(self, mode="ok", uuid=UUID, log=None):
        self.proc = subprocess.Popen([sys.executable, ESCL_SERVER, "--mode", mode, "--uuid", uuid] +
                                     (["--log", log] if log else []), stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "PORT":
            raise RuntimeError("escl-server said %r" % line)
        self.port = int(line[1])
        self.url = "http://127.0.0.1:%d/eSCL" % self.port

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.proc.stdout.close()


def sane_config(tmp, backends, airscan_devices=()):
    """A private SANE configuration, readable by the helper (it runs as nobody)."""
    d = os.path.join(tmp, "sane.d")
    os.makedirs(d, mode=0o755, exist_ok=True)
    with open(os.path.join(d, "dll.conf"), "w") as f:
        f.write("".join(b + "\n" for b in backends))
    with open(os.path.join(d, "test.conf"), "w") as f:
        f.write("number_of_devices 1\n")
    with open(os.path.join(d, "airscan.conf"), "w") as f:
        f.write("[options]\ndiscovery = disable\n[devices]\n")
        for name, url in airscan_devices:
            f.write('"%s" = %s, eSCL\n' % (name, url))
    for name in os.listdir(d):
        os.chmod(os.path.join(d, name), 0o644)
    return d


def rescan(tinct, env, rc=0):
    r = env.run([tinct, "rescan-scanners"])
    if r.returncode != rc:
        failures.append("tinct rescan-scanners: exit %d, want %d: %s%s" % (r.returncode, rc, r.stdout, r.stderr))
    return r


class Bus:
    def __init__(self, env):
        self.conn = dbus.bus.BusConnection(env.address)
        self.mgr = dbus.Interface(self.conn.get_object(CM, CM_PATH), CM)

    def device(self, dev_id):
        try:
            return str(self.mgr.FindDeviceById(dev_id))
        except dbus.DBusException:
            return None

    def props(self, path):
        return self.conn.get_object(CM, path).GetAll(CM + ".Device", dbus_interface="org.freedesktop.DBus.Properties")

    def scanners(self):
        return sorted(str(self.props(p)["DeviceId"]) for p in self.mgr.GetDevicesByKind("scanner"))

    def profile_ids(self, path):
        return [str(self.conn.get_object(CM, p).Get(CM + ".Profile", "ProfileId",
                                                     dbus_interface="org.freedesktop.DBus.Properties"))
                for p in self.props(path)["Profiles"]]
