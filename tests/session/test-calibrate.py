#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""colord's calibration helper, org.freedesktop.ColorHelper, as tinct-session serves it.

No instrument can be attached here, so the sensor is the daemon's dummy with a virtual
display (tinctd --dummy-sensor-display TRUTH.icc): it answers each reading with what a
display whose true response is TRUTH.icc emits for the patch the helper shows. That is the
only stand-in; the rest is real: tinctd on a private system bus, a private session bus run
as the user (nobody), Xvfb, tinct-session as nobody, and the client (this test, as GNOME
Settings would be) on the session bus. The calibrated profile is then scored against the
truth on a chart it was not built from: ArgyllCMS's targen + fakeread (the truth's own
answers) and profcheck -k (CIEDE2000). Waits are on signals, each with a deadline."""

import os
import pwd
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compat"))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from session_env import SessionBus, SessionHelper, Xvfb  # noqa: E402

from gi.repository import Gio, GLib  # noqa: E402

TRUTH = compat.icc("colord-tests--ibm-t61.icc")   # a measured laptop panel, matrix/shaper
HELPER = "org.freedesktop.ColorHelper"
IFACE_DISPLAY = "org.freedesktop.ColorHelper.Display"
ERR = "org.freedesktop.ColorHelper."
NOBODY = pwd.getpwnam("nobody")


class Client:
    """The calibration UI's side: calls on the session bus and the signals it receives."""

    def __init__(self, address):
        self.conn = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.signals = []
        self.conn.signal_subscribe(None, IFACE_DISPLAY, None, "/", None, Gio.DBusSignalFlags.NONE,
                                   self._on_signal)
        self.conn.signal_subscribe(None, "org.freedesktop.DBus.Properties", "PropertiesChanged", "/", None,
                                   Gio.DBusSignalFlags.NONE, self._on_signal)

    def _on_signal(self, conn, sender, path, iface, name, params):
        self.signals.append((name, params.unpack()))

    def call(self, method, sig=None, args=None, reply=None):
        params = GLib.Variant("(%s)" % sig, tuple(args)) if sig else None
        res = self.conn.call_sync(HELPER, "/", IFACE_DISPLAY, method, params,
                                  GLib.VariantType.new("(%s)" % reply) if reply else None,
                                  Gio.DBusCallFlags.NONE, 60000, None)
        return res.unpack() if res is not None else ()

    def start(self, device_id, sensor_id, options):
        return self.call("Start", "ssa{sv}", [device_id, sensor_id, options])

    def prop(self, iface, name):
        res = self.conn.call_sync(HELPER, "/", "org.freedesktop.DBus.Properties", "Get",
                                  GLib.Variant("(ss)", (iface, name)), None, Gio.DBusCallFlags.NONE, 60000, None)
        return res.unpack()[0]

    def wait(self, name, timeout=300):
        """The first not yet consumed signal of this name (and every one before it, consumed)."""
        ctx = GLib.MainContext.default()
        expired = []
        source = GLib.timeout_add_seconds(timeout, lambda: expired.append(True) or False)
        try:
            while True:
                for i, (n, args) in enumerate(self.signals):
                    if n == name:
                        seen = self.signals[:i + 1]
                        del self.signals[:i + 1]
                        return args, seen
                if expired:
                    raise AssertionError("no %s signal within %d s" % (name, timeout))
                ctx.iteration(True)
        finally:
            if not expired:
                GLib.source_remove(source)

    def close(self):
        self.conn.close_sync(None)


def options(**kw):
    types = {"Quality": "u", "Whitepoint": "u", "Title": "s", "DeviceKind": "u", "Brightness": "u",
             "Gamma": "d", "SampleDelay": "u"}
    return {k: GLib.Variant(types.get(k, "s"), v) for k, v in kw.items()}


def setup(env, bus, x):
    # Ready comes after the screens are registered: xrandr-screen exists then.
    return SessionHelper(env, bus, display=x.display).start()


def sensor_state(env):
    conn = compat.connect(env)
    s = compat.get_all(conn, "/org/freedesktop/ColorManager/sensors/dummy", compat.IFACE_SENSOR)
    d = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s", ["xrandr-screen"], "o")[0]
    dev = compat.get_all(conn, d, compat.IFACE_DEVICE)
    return s["Locked"].unpack(), list(dev["ProfilingInhibitors"].unpack()), dev


def argyll_missing():
    return [t for t in ("targen", "fakeread", "profcheck") if not shutil.which(t)]


def score(icc_path):
    """CIEDE2000 of icc_path against the truth on 300 patches it was not built from."""
    work = tempfile.mkdtemp(prefix="tinct-calib-check-")
    try:
        shutil.copy(TRUTH, os.path.join(work, "truth.icc"))
        shutil.copy(icc_path, os.path.join(work, "built.icc"))

        def run(*args):
            r = subprocess.run(list(args), cwd=work, capture_output=True, text=True)
            if r.returncode != 0:
                raise AssertionError("%s failed: %s%s" % (" ".join(args), r.stdout, r.stderr))
            return r.stdout
        run("targen", "-d3", "-e4", "-B2", "-g10", "-f300", "-q", "verify")
        run("fakeread", "-S", "1", "truth.icc", "verify")
        out = run("profcheck", "-k", "verify.ti3", "built.icc")
        m = re.search(r"errors\(CIEDE2000\): max\. = ([0-9.]+), avg\. = ([0-9.]+)", out)
        assert m, "unexpected profcheck output:\n" + out
        return float(m.group(2)), float(m.group(1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


@test
def calibrate_virtual_display():
    """Start on xrandr-screen with the dummy's virtual display: InteractionRequired(0), then
    after Resume a linear UpdateGamma, one UpdateSample per patch, Progress up to 100 and
    Finished(0) with ProfileId and ProfilePath; the profile is in the user's ICC dir, owned
    by the user, registered, the device's hard default, with colord's calibration metadata;
    the sensor is unlocked and the device no longer inhibited; the result against the truth."""
    if argyll_missing():
        print("SKIP: ArgyllCMS tools missing:", " ".join(argyll_missing()))
        sys.exit(77)
    with compat.TinctEnv(polkit="allow", extra_args=["--dummy-sensor-display", TRUTH]) as env, \
            SessionBus(env) as bus, Xvfb(env) as x:
        helper = setup(env, bus, x)
        ui = Client(bus.address)
        check_eq(ui.prop("org.freedesktop.ColorHelper", "DaemonVersion") != "", True, "DaemonVersion")
        ui.start("xrandr-screen", "dummy", options(Quality=1, SampleDelay=0, Title="Calibrated screen"))
        (code, message, image), _ = ui.wait("InteractionRequired")
        check_eq(code, 0, "InteractionRequired: attach to the screen (%s)" % message)
        locked, inhibitors, _ = sensor_state(env)
        check(locked and len(inhibitors) == 1, "locked and inhibited while waiting: %r %r" % (locked, inhibitors))
        compat.expect_dbus_error(lambda: ui.start("xrandr-screen", "dummy", {}), ERR + "Internal",
                                 "a second Start while one runs")

        ui.call("Resume")
        (code, details), seen = ui.wait("Finished")
        names = [n for n, _ in seen]
        samples = [a for n, a in seen if n == "UpdateSample"]
        gammas = [a for n, a in seen if n == "UpdateGamma"]
        check_eq(code, 0, "Finished without error (%r)" % (details,))
        check(len(gammas) == 1 and all(abs(r - i / 255) < 1e-9 and r == g == b
                                       for i, (r, g, b) in enumerate(gammas[0][0])), "one linear UpdateGamma")
        check(names.index("UpdateGamma") < names.index("UpdateSample"), "the ramp before the first patch")
        check(len(samples) >= 100 and samples[0] == (1.0, 1.0, 1.0) and samples[1] == (0.0, 0.0, 0.0),
              "%d patches, white then black first" % len(samples))
        check_eq(ui.prop(IFACE_DISPLAY, "Progress"), 100, "Progress at the end")
        check("PropertiesChanged" in names, "Progress announced as it went")

        conn = compat.connect(env)
        profile = details["ProfilePath"]
        props = compat.get_all(conn, profile, compat.IFACE_PROFILE)
        check_eq(props["ProfileId"].unpack(), details["ProfileId"], "ProfileId")
        filename = props["Filename"].unpack()
        icc_dir = os.path.join(env.home_nobody, ".local", "share", "icc")
        check_eq(os.path.dirname(filename), icc_dir, "saved in the user's ICC directory")
        st = os.stat(filename)
        check_eq((st.st_uid, st.st_gid), (NOBODY.pw_uid, NOBODY.pw_gid), "the file is the user's")
        meta = props["Metadata"].unpack()
        for k, v in (("DATA_source", "calib"), ("MAPPING_device_id", "xrandr-screen"), ("Quality", "medium"),
                     ("CMF_binary", "tinct-session"), ("License", "CC0")):
            check_eq(meta.get(k), v, "metadata " + k)
        check_eq(props["Title"].unpack(), "Calibrated screen", "Title from Start's option")
        locked, inhibitors, dev = sensor_state(env)
        check(not locked and not inhibitors, "sensor unlocked and device uninhibited afterwards")
        check_eq(dev["Profiles"].unpack()[0], profile, "the new profile is the device's default")
        # The helper's own verification (docs/verify.md): its patch set measured after the
        # profiling patches, against the new profile, stored on the device.
        dmeta = dev["Metadata"].unpack()
        check(float(dmeta.get("TINCT_profiled_dE2000_mean", "99")) < 0.5
              and float(dmeta.get("TINCT_profiled_dE2000_max", "99")) < 2.0
              and dmeta.get("TINCT_profiled_profile") == details["ProfileId"]
              and dmeta.get("TINCT_profiled_patches") == "27"
              and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", dmeta.get("TINCT_profiled_date", "")),
              "the helper's verification on the device: %r" % {k: v for k, v in dmeta.items() if k.startswith("TINCT")})
        r = compat.call(conn, dev["Profiles"].unpack()[0], "org.freedesktop.DBus.Properties", "Get", "ss",
                        [compat.IFACE_PROFILE, "Filename"], "v")
        check_eq(r[0], filename, "the default's file")
        helper.wait_line(r"Output screen: applied .*%s" % re.escape(os.path.basename(filename)))

        mean, worst = score(filename)
        print("    calibration of the virtual display (%d readings): CIEDE2000 against the truth on 300 "
              "other patches: mean %.3f, max %.3f" % (len(samples), mean, worst), flush=True)
        check(mean < 1.0 and worst < 5.0, "the calibrated profile is close to the truth")
        ui.close()
        check_eq(helper.stop(), 0, "tinct-session exit status")

        # The daemon keeps that verification in its store (docs/verify.md): after a restart of
        # tinctd and of the session, the display, made again by the user's session, has the same
        # keys, so doctor's drift still has its reference. The system's device of that id
        # does not get the user's result.
        env.restart()
        conn = compat.connect(env)
        (system,) = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateDevice", "ssa{ss}",
                                ["xrandr-screen", "normal", {"Kind": "display"}], "o")
        check(not any(k.startswith("TINCT") for k in
                      compat.get_all(conn, system, compat.IFACE_DEVICE)["Metadata"].unpack()),
              "the system's device of that id has none of the user's results")
        compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "DeleteDevice", "o", [system])
        helper = setup(env, bus, x)
        _, _, dev = sensor_state(env)
        again = dev["Metadata"].unpack()
        mine = {k: v for k, v in dmeta.items() if k.startswith("TINCT_profiled_")}
        check(len(mine) == 5 and all(again.get(k) == v for k, v in mine.items()),
              "the helper's verification back after a restart: %r" % {k: v for k, v in again.items()
                                                                      if k.startswith("TINCT")})
        check_eq(helper.stop(), 0, "tinct-session exit status after the restart")


@test
def introspection():
    """The object "/" on the session bus has colord's two ColorHelper interfaces exactly as
    Debian's colord package describes them (org.freedesktop.ColorHelper.xml)."""
    with compat.TinctEnv(polkit="allow") as env, SessionBus(env) as bus:
        helper = SessionHelper(env, bus).start()
        ui = Client(bus.address)
        res = ui.conn.call_sync(HELPER, "/", "org.freedesktop.DBus.Introspectable", "Introspect", None,
                                GLib.VariantType.new("(s)"), Gio.DBusCallFlags.NONE, 60000, None)
        got = compat.parse_interfaces(res.unpack()[0])
        with open(os.path.join(compat.COLORD_XML_DIR, "org.freedesktop.ColorHelper.xml")) as f:
            expected = compat.parse_interfaces(f.read())
        for iface in ("org.freedesktop.ColorHelper", IFACE_DISPLAY):
            check(iface in got, "%s is served" % iface)
            problems, checked = compat.compare_interface(expected[iface], got[iface], iface)
            check(not problems, "; ".join(problems))
            print("    ok: %s: %s" % (iface, ", ".join(checked)), flush=True)
        ui.close()
        check_eq(helper.stop(), 0, "tinct-session exit status")


@test
def refusals_and_cancel():
    """Errors colord-session gives (FailedToFindDevice, FailedToFindSensor, InvalidValue,
    Internal for Resume/Cancel with nothing running), each leaving nothing locked; Cancel in
    the middle of measuring, and a client that leaves, both end the run with Finished(1)
    and release the sensor and the device."""
    with compat.TinctEnv(polkit="allow", extra_args=["--dummy-sensor-display", TRUTH]) as env, \
            SessionBus(env) as bus, Xvfb(env) as x:
        helper = setup(env, bus, x)
        ui = Client(bus.address)
        for dev, sensor, opts, err, what in (
                ("no-such-device", "dummy", {}, "FailedToFindDevice", "unknown device"),
                ("xrandr-screen", "no-such-sensor", {}, "FailedToFindSensor", "unknown sensor"),
                ("xrandr-screen", "dummy", options(Quality=3), "InvalidValue", "Quality 3"),
                ("xrandr-screen", "dummy", options(Whitepoint=500), "InvalidValue", "Whitepoint 500 K"),
                ("xrandr-screen", "dummy", options(Gamma=0.5), "InvalidValue", "Gamma 0.5"),
                ("xrandr-screen", "dummy", options(DeviceKind=3), "InvalidValue", "DeviceKind printer")):
            compat.expect_dbus_error(lambda: ui.start(dev, sensor, opts), ERR + err, what)
        compat.expect_dbus_error(lambda: ui.call("Resume"), ERR + "Internal", "Resume with nothing started")
        compat.expect_dbus_error(lambda: ui.call("Cancel"), ERR + "Internal", "Cancel with nothing started")
        locked, inhibitors, _ = sensor_state(env)
        check(not locked and not inhibitors, "nothing held after the refusals")

        # Cancel while measuring: the sample delay keeps the run in its first patch.
        ui.start("xrandr-screen", "dummy", options(SampleDelay=10000, Unknown="ignored"))
        ui.wait("InteractionRequired")
        ui.call("Resume")
        ui.wait("UpdateSample")
        ui.call("Cancel")
        (code, details), _ = ui.wait("Finished")
        check_eq((code, details.get("ErrorDetails")), (1, "cancelled"), "Finished after Cancel")
        locked, inhibitors, _ = sensor_state(env)
        check(not locked and not inhibitors, "released after Cancel")
        helper.wait_line(r"ignoring option Unknown")

        # A client that leaves the bus cancels its run.
        other = Client(bus.address)
        other.start("xrandr-screen", "dummy", options(SampleDelay=0))
        other.wait("InteractionRequired")
        other.close()
        (code, details), _ = ui.wait("Finished")
        check_eq((code, details.get("ErrorDetails")), (1, "cancelled"), "Finished after the client left")
        locked, inhibitors, _ = sensor_state(env)
        check(not locked and not inhibitors, "released after the client left")
        ui.close()
        check_eq(helper.stop(), 0, "tinct-session exit status")


if __name__ == "__main__":
    compat.main()
