#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Debian's real cupsd registers a printer with the daemon, as on a desktop.

cupsd runs with a private ServerRoot in the test's directory, listening on a unix socket only,
with DBUS_SYSTEM_BUS_ADDRESS on the test's private bus. lpadmin adds a queue whose PPD has
cupsICCProfile lines; cupsd's colord support then creates the device cups-<queue> and one
profile per line (plus its generic ones) and assigns them. The test checks the device, its
profiles, the qualifier fallback a print job's lookup takes, and that lpadmin -x removes the
device. Every step waits for the daemon's signal, not for time. Skips only where cupsd cannot
run (not installed, or not root: cupsd needs root for its own user switch)."""

import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402

QUEUE = "tinct-test"
GLOSSY = "colord-tests--ibm-t61.icc"
GENERIC = "colord-data--Bluish.icc"
DEADLINE_S = 120  # a guard against a hang, not a timing expectation

PPD = """*PPD-Adobe: "4.3"
*FormatVersion: "4.3"
*FileVersion: "1.0"
*LanguageVersion: English
*LanguageEncoding: ISOLatin1
*PCFileName: "TINCT.PPD"
*Manufacturer: "Tinct"
*Product: "(Tinct Photo)"
*ModelName: "Tinct Photo"
*ShortNickName: "Tinct Photo"
*NickName: "Tinct Photo"
*PSVersion: "(3010.000) 0"
*LanguageLevel: "3"
*ColorDevice: True
*DefaultColorSpace: RGB
*FileSystem: False
*Throughput: "1"
*LandscapeOrientation: Plus90
*TTRasterizer: Type42
*cupsVersion: 2.4
*cupsFilter: "application/vnd.cups-raster 0 -"
*cupsICCProfile RGB.Glossy.600dpi/Glossy photo paper: "{glossy}"
*cupsICCProfile RGB../Everything else: "{generic}"
*OpenUI *PageSize: PickOne
*DefaultPageSize: A4
*PageSize A4/A4: "<</PageSize[595 842]>>setpagedevice"
*CloseUI: *PageSize
*OpenUI *PageRegion: PickOne
*DefaultPageRegion: A4
*PageRegion A4/A4: "<</PageSize[595 842]>>setpagedevice"
*CloseUI: *PageRegion
*DefaultImageableArea: A4
*ImageableArea A4/A4: "0 0 595 842"
*DefaultPaperDimension: A4
*PaperDimension A4/A4: "595 842"
"""


class Cupsd:
    """cupsd in the foreground with everything under root_dir."""

    def __init__(self, env, root_dir):
        self.root = root_dir
        self.sock = os.path.join(root_dir, "cups.sock")
        for d in ("spool", "tmp", "cache", "state"):
            os.makedirs(os.path.join(root_dir, d), exist_ok=True)
        with open(os.path.join(root_dir, "cups-files.conf"), "w") as f:
            f.write("ServerRoot {r}\nRequestRoot {r}/spool\nTempDir {r}/tmp\nCacheDir {r}/cache\n"
                    "StateDir {r}/state\nServerBin /usr/lib/cups\nDataDir /usr/share/cups\n"
                    "ErrorLog {r}/error_log\nAccessLog {r}/access_log\nPageLog {r}/page_log\n"
                    "FileDevice Yes\nSystemGroup root\nSandboxing Relaxed\n".format(r=root_dir))
        with open(os.path.join(root_dir, "cupsd.conf"), "w") as f:
            f.write("Listen %s\nLogLevel debug\nBrowsing No\n"
                    "<Location />\n  Order allow,deny\n  Allow all\n</Location>\n" % self.sock)
        self.env = env._env()
        self.proc = subprocess.Popen(
            ["cupsd", "-f", "-c", os.path.join(root_dir, "cupsd.conf"),
             "-s", os.path.join(root_dir, "cups-files.conf")],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._wait_ready()

    def log(self):
        try:
            with open(os.path.join(self.root, "error_log")) as f:
                return f.read()[-4000:]
        except OSError:
            return "(no error_log)"

    def _wait_ready(self):
        # Ready when the scheduler answers on its socket (lpstat -r asks it).
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("cupsd exited (%d): %s\n%s" % (
                    self.proc.returncode, self.proc.stdout.read().decode(errors="replace"), self.log()))
            if os.path.exists(self.sock):
                r = self.lp("lpstat", "-r", check=False)
                if r.returncode == 0 and "is running" in r.stdout:
                    print("    ok: cupsd is running", flush=True)
                    return
            time.sleep(0.05)  # polling a real condition, bounded by the deadline
        raise AssertionError("cupsd did not start: " + self.log())

    def lp(self, tool, *args, check=True):
        r = subprocess.run([tool, "-h", self.sock] + list(args), env=self.env, text=True,
                           capture_output=True, stdin=subprocess.DEVNULL, timeout=DEADLINE_S)
        if check and r.returncode != 0:
            raise AssertionError("%s %s failed: %s%s\n%s" % (tool, " ".join(args), r.stdout, r.stderr, self.log()))
        return r

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Signals:
    """The manager's DeviceAdded/DeviceRemoved, recorded from subscription on."""

    def __init__(self, conn):
        self.conn = conn
        self.seen = []
        self.sub = conn.signal_subscribe(None, compat.IFACE_MANAGER, None, compat.MANAGER_PATH, None, 0,
                                         self._on_signal, None)

    def _on_signal(self, _conn, _sender, _path, _iface, member, params, _data):
        self.seen.append((member, params.unpack()[0] if params.n_children() else None))

    def wait(self, member, obj):
        from gi.repository import GLib
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + DEADLINE_S
        wake = GLib.timeout_add(200, lambda: True)  # to look at the deadline now and then
        try:
            while (member, obj) not in self.seen:
                if time.monotonic() > deadline:
                    raise AssertionError("no %s(%s); seen %r" % (member, obj, self.seen))
                ctx.iteration(True)
        finally:
            GLib.source_remove(wake)
        print("    ok: %s %s" % (member, obj), flush=True)


def prop(conn, path, iface, name):
    return compat.call(conn, path, "org.freedesktop.DBus.Properties", "Get", "ss", [iface, name], reply="v")[0]


@test
def cups_registers_printer():
    """lpadmin -p with cupsICCProfile lines: cups-<queue>, its profiles, the qualifier
    fallback, removal with lpadmin -x"""
    with compat.TinctEnv(polkit="allow") as env:
        files = os.path.join(env.tmp, "ppd-profiles")
        os.mkdir(files, 0o755)
        glossy, generic = os.path.join(files, "glossy.icc"), os.path.join(files, "generic.icc")
        shutil.copy(compat.icc(GLOSSY), glossy)
        shutil.copy(compat.icc(GENERIC), generic)
        ppd = os.path.join(env.tmp, "tinct-photo.ppd")
        with open(ppd, "w") as f:
            f.write(PPD.format(glossy=glossy, generic=generic))

        conn = compat.connect(env)
        signals = Signals(conn)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            dev = compat.device_path("cups-" + QUEUE)
            cupsd.lp("lpadmin", "-p", QUEUE, "-E", "-v", "file:///dev/null", "-P", ppd)
            signals.wait("DeviceAdded", dev)

            found = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                                ["cups-" + QUEUE], reply="o")[0]
            check_eq(found, dev, "FindDeviceById(cups-%s)" % QUEUE)
            check_eq(prop(conn, dev, compat.IFACE_DEVICE, "Kind"), "printer", "Kind")
            check_eq(prop(conn, dev, compat.IFACE_DEVICE, "Format"), "ColorSpace.MediaType.Resolution",
                     "Format (the qualifier layout)")
            profiles = prop(conn, dev, compat.IFACE_DEVICE, "Profiles")
            by_qualifier = {prop(conn, p, compat.IFACE_PROFILE, "Qualifier"): p for p in profiles}
            check("RGB.Glossy.600dpi" in by_qualifier and "RGB.." in by_qualifier,
                  "the PPD's two profiles are on the device: %r" % sorted(by_qualifier))
            check_eq(prop(conn, by_qualifier["RGB.Glossy.600dpi"], compat.IFACE_PROFILE, "Filename"), glossy,
                     "glossy profile's file")
            check_eq(prop(conn, by_qualifier["RGB.."], compat.IFACE_PROFILE, "Filename"), generic,
                     "generic profile's file")

            def lookup(q):
                # What a print job asks (cups-filters): the job's qualifier, then one part
                # at a time replaced by "*"; the daemon returns the first that matches.
                c, m, r = q.split(".")
                fallback = [q, "%s.%s.*" % (c, m), "%s.*.%s" % (c, r), "%s.*.*" % c, "*"]
                return compat.call(conn, dev, compat.IFACE_DEVICE, "GetProfileForQualifiers", "as", [fallback],
                                   reply="o")[0]
            check_eq(lookup("RGB.Glossy.600dpi"), by_qualifier["RGB.Glossy.600dpi"], "exact qualifier")
            check_eq(lookup("RGB.Glossy.1200dpi"), by_qualifier["RGB.Glossy.600dpi"],
                     "RGB.Glossy.1200dpi falls back to the glossy profile (RGB.Glossy.*)")
            check_eq(lookup("RGB.Matte.300dpi"), by_qualifier["RGB.."], "RGB.Matte.300dpi falls back to RGB.*.*")

            cupsd.lp("lpadmin", "-x", QUEUE)
            signals.wait("DeviceRemoved", dev)
            compat.expect_dbus_error(
                lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                                    ["cups-" + QUEUE], reply="o"),
                compat.IFACE_MANAGER + ".NotFound", "the device is gone after lpadmin -x")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()


if __name__ == "__main__":
    if not shutil.which("cupsd") or not shutil.which("lpadmin"):
        print("cupsd/lpadmin not installed (Debian's cups-daemon, cups-client): skipping")
        sys.exit(77)
    if os.geteuid() != 0:
        print("cupsd needs root (it switches to its own user for filters): skipping")
        sys.exit(77)
    compat.main()
