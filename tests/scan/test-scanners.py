#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Scanners end to end (docs/scanners.md) with tinctd on a private bus (tests/harness):
SANE's real `test` backend and Debian's real sane-airscan, in a private SANE_CONFIG_DIR.
No scanner is attached to a test machine, so two stand-ins are used, and said so here:
  - escl-server.py stands in for a network scanner: an eSCL server on 127.0.0.1 that
    sane-airscan is configured to statically (airscan.conf [devices], no mDNS); it answers
    ScannerCapabilities with a UUID, or garbage, or nothing at all;
  - libsane-tincthang.so.1 stands in for a SANE backend that hangs, libsane-tinctusb.so.1
    for the backend of a USB scanner (both loaded by libsane's dll backend from
    LD_LIBRARY_PATH), and a fake udev tree (--sysfs-root) for the USB scanner itself.
Checked: SANE test devices (vendor Noname) skipped unless --sane-test-devices; the sane-<model>
and escl-<uuid> devices and their properties; `tinct rescan-scanners` (returns when done, exit
0 when a configured scanner does not answer); the scanner gone when its server stops, its hard
profile kept in the store and back with the same id when the server returns on another port;
scan settings as qualifiers (GetProfileForQualifiers, `tinct lookup`); garbage XML, a silent
server and a hung backend: a log line, the daemon answering, nothing stored lost; a udev
event rescans; a USB scanner udev has is one device (udev's), SANE's when udev has none;
one scanner whose MakeAndModel is not UTF-8 costs nobody else their device; a flood of Rescan
calls from nobody starts at most LIMIT_SCANNER_RESCANS_PER_MINUTE helpers a minute (counted
by the stand-in scanner: the helper's requests) and every caller gets an answer.
argv: tinct, the hang backend, the USB backend, escl-server.py."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import dbus

import scan_common
from harness import TinctEnv
from scan_common import Bus, EsclServer, check, sane_config

TINCT, HANG_BACKEND, USB_BACKEND, scan_common.ESCL_SERVER = sys.argv[1:5]
CORPUS = os.environ.get("TINCT_CORPUS_DIR", "")
SRGB = os.path.join(CORPUS, "icc", "colord-data--sRGB.icc")
T61 = os.path.join(CORPUS, "icc", "colord-tests--ibm-t61.icc")
UUID, ESCL_ID, CM, CM_PATH = scan_common.UUID, scan_common.ESCL_ID, scan_common.CM, scan_common.CM_PATH


def rescan(env, rc=0):
    return scan_common.rescan(TINCT, env, rc)


def daemon_env(tmp, conf, ld_path=None):
    os.environ["SANE_CONFIG_DIR"] = conf
    if ld_path:
        os.environ["LD_LIBRARY_PATH"] = ld_path
    else:
        os.environ.pop("LD_LIBRARY_PATH", None)


def test_test_backend_and_escl():
    print("SANE test devices and an eSCL scanner; offline and back on another port")
    tmp = tempfile.mkdtemp(prefix="tinct-scan-", dir="/tmp")
    os.chmod(tmp, 0o755)
    server = EsclServer()
    try:
        conf = sane_config(tmp, ["test", "airscan"], [("Office", server.url)])
        daemon_env(tmp, conf)
        # Without --sane-test-devices: colord's rule, vendor Noname is skipped.
        with TinctEnv(polkit="allow", extra_args=["--sane-discovery"]) as env:
            rescan(env)
            b = Bus(env)
            check(b.scanners() == [ESCL_ID], "only the eSCL scanner without --sane-test-devices: %s" % b.scanners())

        with TinctEnv(polkit="allow", profiles=[SRGB, T61],
                      extra_args=["--sane-discovery", "--sane-test-devices"]) as env:
            r = rescan(env)
            check("Scanners: 2" in r.stdout, "rescan-scanners counts two scanners: %r" % r.stdout)
            b = Bus(env)
            check(b.scanners() == [ESCL_ID, "sane-frontend-tester"], "both scanners: %s" % b.scanners())
            p = b.props(b.device("sane-frontend-tester"))
            check((p["Kind"], p["Vendor"], p["Model"], p["Serial"], p["Mode"]) ==
                  ("scanner", "Noname", "frontend-tester", "test:0", "physical"),
                  "sane device: Kind, Vendor, Model, Serial = SANE name, Mode: %s" %
                  [str(p[k]) for k in ("Kind", "Vendor", "Model", "Serial", "Mode")])
            e = b.props(b.device(ESCL_ID))
            check((e["Kind"], e["Serial"], e["Model"], e["Vendor"], e["Format"]) ==
                  ("scanner", server.url, "Tinct Test eSCL Scanner", "Tinct", "Source.ColorMode.Resolution"),
                  "eSCL device: Serial = base URL, Model from MakeAndModel, Format: %s" %
                  [str(e[k]) for k in ("Kind", "Serial", "Model", "Vendor", "Format")])

            # Scan settings as qualifiers: two profiles for two settings, as a scan app asks.
            mgr = b.mgr
            platen = mgr.CreateProfile("scan-platen-color-300", "normal",
                                       {"Filename": os.path.join(env.profile_dir, os.path.basename(SRGB)),
                                        "Qualifier": "Platen.Color.300dpi"})
            adf = mgr.CreateProfile("scan-adf-gray-600", "normal",
                                    {"Filename": os.path.join(env.profile_dir, os.path.basename(T61)),
                                     "Qualifier": "ADF.Gray.600dpi"})
            dev = dbus.Interface(b.conn.get_object(CM, b.device(ESCL_ID)), CM + ".Device")
            dev.AddProfile("hard", platen)
            dev.AddProfile("hard", adf)
            got = dev.GetProfileForQualifiers(["Platen.Color.300dpi"])
            check(got == platen, "GetProfileForQualifiers(Platen.Color.300dpi) is the platen profile")
            got = dev.GetProfileForQualifiers(["ADF.Gray.600dpi"])
            check(got == adf, "GetProfileForQualifiers(ADF.Gray.600dpi) is the ADF profile")
            r = env.run([TINCT, "lookup", "--json", ESCL_ID, "Platen.Color.300dpi"])
            doc = json.loads(r.stdout) if r.returncode == 0 else {}
            check(doc.get("matched") == "Platen.Color.300dpi" and
                  doc.get("profile", {}).get("ProfileId") == "scan-platen-color-300",
                  "tinct lookup shows the platen profile: %s%s" % (r.stdout[:300], r.stderr))
            r = env.run([TINCT, "lookup", ESCL_ID, "ADF.Gray.600dpi"])
            check(r.returncode == 0 and "scan-adf-gray-600" in r.stdout, "tinct lookup, text: %r" % r.stdout[:300])

            # The scanner goes offline: the device goes, its stored choice stays.
            server.stop()
            r = rescan(env)
            check("Not answering: airscan:e0:Office: cannot connect" in r.stdout,
                  "an unanswering scanner is reported, exit 0: %r" % r.stdout)
            check(b.scanners() == ["sane-frontend-tester"], "the offline scanner's device went: %s" % b.scanners())

            # Back on another port: same id, same profiles.
            server = EsclServer()
            sane_config(tmp, ["test", "airscan"], [("Office", server.url)])
            rescan(env)
            path = b.device(ESCL_ID)
            check(path is not None, "the scanner is back with the same id")
            if path:
                e = b.props(path)
                check(str(e["Serial"]) == server.url, "its Serial is the new base URL")
                check(sorted(b.profile_ids(path)) == ["scan-adf-gray-600", "scan-platen-color-300"],
                      "its profiles came back: %s" % b.profile_ids(path))
                dev = dbus.Interface(b.conn.get_object(CM, path), CM + ".Device")
                check(dev.GetProfileForQualifiers(["Platen.Color.300dpi"]) == platen, "and the qualifier lookup")

            # The SANE configuration as it is now: without the test backend, its device goes.
            sane_config(tmp, ["airscan"], [("Office", server.url)])
            rescan(env)
            check(b.scanners() == [ESCL_ID], "a backend taken out of dll.conf: its device went: %s" % b.scanners())
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def test_bad_scanners():
    print("garbage XML, a silent scanner, a hung backend")
    tmp = tempfile.mkdtemp(prefix="tinct-scan-", dir="/tmp")
    os.chmod(tmp, 0o755)
    good, garbage, silent = EsclServer(), EsclServer("garbage", UUID), EsclServer("silent")
    try:
        lib = os.path.join(tmp, "lib")
        os.mkdir(lib, 0o755)
        shutil.copy(HANG_BACKEND, os.path.join(lib, "libsane-tincthang.so.1"))
        os.chmod(os.path.join(lib, "libsane-tincthang.so.1"), 0o755)
        devices = [("Good", good.url), ("Garbage", garbage.url), ("Silent", silent.url)]
        conf = sane_config(tmp, ["airscan"], devices)
        # The hanging backend's directory is on the daemon's library path from the start;
        # it hangs only once dll.conf names it.
        daemon_env(tmp, conf, lib)
        with TinctEnv(polkit="allow", profiles=[SRGB], extra_args=["--sane-discovery", "--sane-timeout", "3"]) as env:
            r = rescan(env)
            b = Bus(env)
            check(b.scanners() == [ESCL_ID], "only the good scanner is a device: %s" % b.scanners())
            check("Not answering: airscan:e1:Garbage: ScannerCapabilities is not a capabilities document" in r.stdout,
                  "garbage XML is reported: %r" % r.stdout)
            check("Not answering: airscan:e2:Silent: no answer" in r.stdout, "a silent scanner is reported: %r" % r.stdout)
            srgb = b.mgr.FindProfileByFilename(os.path.join(env.profile_dir, os.path.basename(SRGB)))
            dbus.Interface(b.conn.get_object(CM, b.device(ESCL_ID)), CM + ".Device").AddProfile("hard", srgb)

            # A backend that hangs: the helper is killed after --sane-timeout, the daemon
            # answers meanwhile, and the devices stay as they were.
            sane_config(tmp, ["airscan", "tincthang"], devices)
            proc = subprocess.Popen([TINCT, "rescan-scanners"], env=env._env(), text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            check(len(b.mgr.GetDevices()) == 1, "the daemon answers while a rescan runs")
            out, err = proc.communicate()
            check(proc.returncode == 1 and "did not finish in 3 s" in err,
                  "rescan-scanners says the helper was killed (exit 1): %d %r" % (proc.returncode, err))
            path = b.device(ESCL_ID)
            check(path is not None and len(b.profile_ids(path)) == 1,
                  "after the hang the scanner is still there with its profile")
            env.restart()
            b = Bus(env)
            rescan(env, rc=1)  # the configuration still names the hanging backend
            check(b.device(ESCL_ID) is None, "a daemon whose only listing hung has no scanner yet")
            sane_config(tmp, ["airscan"], devices)
            rescan(env)
            path = b.device(ESCL_ID)
            check(path is not None and len(b.profile_ids(path)) == 1,
                  "the backend gone: the scanner and its stored profile are back")
    finally:
        for s in (good, garbage, silent):
            s.stop()
        os.environ.pop("LD_LIBRARY_PATH", None)
        shutil.rmtree(tmp, ignore_errors=True)


def fake_usb_device(root, syspath, chr, attrs, props):
    """A USB device in a fake udev tree, as tests/bus/test-udev.c makes them."""
    d = root + syspath
    os.makedirs(d)
    for k, v in attrs.items():
        with open(os.path.join(d, k), "w") as f:
            f.write(v + "\n")
    os.symlink("../../../../../../bus/usb", os.path.join(d, "subsystem"))
    with open(os.path.join(d, "uevent"), "w") as f:
        f.write("DEVTYPE=usb_device\nDEVNAME=bus/usb/%03d/%03d\n" % (int(attrs["busnum"]), int(attrs["devnum"])))
    os.makedirs(os.path.join(root, "sys", "dev", "char"), exist_ok=True)
    os.symlink("../../.." + syspath, os.path.join(root, "sys", "dev", "char", chr))
    tmp = os.path.join(root, "run", "udev", "data", ".#c" + chr)
    with open(tmp, "w") as f:
        f.write("I:1234567\n" + "".join("E:%s\n" % p for p in props))
    os.rename(tmp, os.path.join(root, "run", "udev", "data", "c" + chr))


def test_hotplug():
    print("a udev event (a fake tree's database file) rescans")
    from gi.repository import Gio, GLib
    tmp = tempfile.mkdtemp(prefix="tinct-scan-", dir="/tmp")
    os.chmod(tmp, 0o755)
    tinctd = os.environ["TINCTD"]
    try:
        root = os.path.join(tmp, "root")
        data = os.path.join(root, "run", "udev", "data")
        os.makedirs(data)
        conf = sane_config(tmp, [])
        lib = os.path.join(tmp, "lib")
        os.mkdir(lib, 0o755)
        shutil.copy(USB_BACKEND, os.path.join(lib, "libsane-tinctusb.so.1"))
        os.chmod(os.path.join(lib, "libsane-tinctusb.so.1"), 0o755)
        daemon_env(tmp, conf, lib)
        # The harness passes --no-udev; a fake tree's hotplug needs it gone (as test-udev.c does).
        wrapper = os.path.join(tmp, "tinctd")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nfor a; do shift; [ "$a" = --no-udev ] || set -- "$@" "$a"; done\n'
                    'exec \'%s\' "$@"\n' % tinctd)
        os.chmod(wrapper, 0o755)
        os.environ["TINCTD"] = wrapper
        with TinctEnv(polkit="allow", extra_args=["--sysfs-root", root, "--sane-discovery",
                                                  "--sane-test-devices"]) as env:
            r = rescan(env)  # the start-up listing is done: the next one is the event's
            check("Scanners: 0" in r.stdout, "no scanner configured yet: %r" % r.stdout)
            conn = Gio.DBusConnection.new_for_address_sync(
                env.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
            loop = GLib.MainLoop()
            added = []

            def on_added(_c, _s, _p, _i, _m, params):
                added.append(params[0])
                loop.quit()
            conn.signal_subscribe(None, CM, "DeviceAdded", CM_PATH, None, Gio.DBusSignalFlags.NONE, on_added)
            conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                           None, None, Gio.DBusCallFlags.NONE, -1, None)  # the match is in place
            sane_config(tmp, ["test"])
            # A USB device (not a scanner udev knows) appears in the fake tree: SANE's rescan.
            fake_usb_device(root, "/sys/devices/pci0000:00/0000:00:14.0/usb3/3-2", "189:263",
                            {"busnum": "3", "devnum": "8", "bDeviceClass": "00"}, ["ID_VENDOR=Some"])
            GLib.timeout_add_seconds(120, loop.quit)  # a failsafe only: the signal ends the wait
            loop.run()
            b = Bus(env)
            check(added and b.device("sane-frontend-tester") == added[0],
                  "DeviceAdded for the SANE device after the event: %s" % added)

            # A USB scanner both udev and SANE see: one device, udev's.
            usb = "/sys/devices/pci0000:00/0000:00:14.0/usb3/3-1"
            added.clear()
            sane_config(tmp, ["tinctusb"])
            fake_usb_device(root, usb, "189:262", {"busnum": "3", "devnum": "7", "bDeviceClass": "00"},
                            ["ID_VENDOR=Epson", "ID_MODEL=Perfection_V39", "libsane_matched=yes"])
            # udev's device comes with its event (the fake tree's watcher debounces it): wait for it.
            timed_out = []
            GLib.timeout_add_seconds(120, lambda: timed_out.append(1) or loop.quit())  # failsafe only
            while b.device("sysfs-Epson-Perfection_V39") not in added and not timed_out:
                loop.run()
            rescan(env)
            check(b.scanners() == ["sysfs-Epson-Perfection_V39"],
                  "a USB scanner udev and SANE both see is udev's device only: %s" % b.scanners())
            # udev's gone (another bus address now): SANE's device is made.
            with open(os.path.join(root + usb, "devnum"), "w") as f:
                f.write("8\n")
            rescan(env)
            check(b.scanners() == ["sane-Perfection_V39", "sysfs-Epson-Perfection_V39"],
                  "at another address it is SANE's too: %s" % b.scanners())
            p = b.props(b.device("sane-Perfection_V39"))
            check((str(p["Vendor"]), str(p["Model"]), str(p["Serial"])) ==
                  ("Epson", "Perfection V39", "tinctusb:libusb:003:007"),
                  "the SANE device's Vendor, Model (with spaces), Serial: %s" %
                  [str(p[k]) for k in ("Vendor", "Model", "Serial")])
            conn.close_sync(None)
    finally:
        os.environ["TINCTD"] = tinctd
        os.environ.pop("LD_LIBRARY_PATH", None)
        shutil.rmtree(tmp, ignore_errors=True)


UUID2 = "urn:uuid:11111111-2222-4333-8444-555555555555"
UUID3 = "urn:uuid:66666666-7777-4888-9999-aaaaaaaaaaaa"


def escl_id(uuid):
    return "escl-" + uuid[len("urn:uuid:"):].lower()


def test_one_bad_scanner():
    print("one scanner whose MakeAndModel is not UTF-8 among good ones: all are found")
    tmp = tempfile.mkdtemp(prefix="tinct-scan-", dir="/tmp")
    os.chmod(tmp, 0o755)
    servers = [EsclServer(), EsclServer("latin1", UUID3), EsclServer(uuid=UUID2)]
    try:
        # The bad one between the good ones, as sane-airscan lists them in order.
        conf = sane_config(tmp, ["airscan"], [("Good", servers[0].url), ("Latin", servers[1].url),
                                              ("Other", servers[2].url)])
        daemon_env(tmp, conf)
        with TinctEnv(polkit="allow", extra_args=["--sane-discovery"]) as env:
            r = rescan(env)
            b = Bus(env)
            want = sorted([ESCL_ID, escl_id(UUID2), escl_id(UUID3)])
            found = b.scanners()
            print("    scanners found with one bad one present: %d of %d" % (len(found), len(want)))
            check(found == want, "every scanner is a device, the bad one's too: %s" % found)
            check("Scanners: 3" in r.stdout, "rescan-scanners counts three: %r" % r.stdout)
            path = b.device(escl_id(UUID3))
            if path:
                m = str(b.props(path)["Model"])
                check(m == "Tinct Caf\ufffd Scanner", "the byte that is not UTF-8 is U+FFFD in its Model: %r" % m)
    finally:
        for srv in servers:
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def limit(name):
    """A bound of src/shared/tinct-limits.h, read from the source tree beside this test."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "shared", "tinct-limits.h")
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[0] == "#define" and p[1] == name:
                return int(p[2])
    raise RuntimeError("%s not in tinct-limits.h" % name)


# The flood, run as nobody: CALLS Rescan calls on one connection, IN_FLIGHT at a time;
# prints the answers' scanner counts and the errors as JSON.
FLOOD = r"""
import json, sys
from gi.repository import Gio, GLib
calls, in_flight = int(sys.argv[1]), int(sys.argv[2])
conn = Gio.DBusConnection.new_for_address_sync(sys.argv[3], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                                               Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
loop = GLib.MainLoop()
state = {"sent": 0, "done": 0, "answers": [], "errors": []}
def send():
    state["sent"] += 1
    conn.call("org.freedesktop.ColorManager", "/org/tinct/Scanners", "org.tinct.Scanners1", "Rescan", None,
              GLib.VariantType("(ua(ss))"), Gio.DBusCallFlags.NONE, 300000, None, on_reply)
def on_reply(c, res):
    try:
        state["answers"].append(c.call_finish(res).unpack()[0])
    except GLib.Error as e:
        state["errors"].append(e.message)
    state["done"] += 1
    if state["sent"] < calls:
        send()
    elif state["done"] == calls:
        loop.quit()
for _ in range(in_flight):
    send()
loop.run()
print(json.dumps({"answers": state["answers"], "errors": state["errors"]}))
"""


def test_rescan_flood():
    print("a flood of Rescan calls from nobody: helper runs per minute bounded, every caller answered")
    tmp = tempfile.mkdtemp(prefix="tinct-scan-", dir="/tmp")
    os.chmod(tmp, 0o755)
    log = os.path.join(tmp, "requests.log")
    server = EsclServer(log=log)
    calls, in_flight = 200, 8
    per_minute = limit("LIMIT_SCANNER_RESCANS_PER_MINUTE")
    try:
        conf = sane_config(tmp, ["airscan"], [("Office", server.url)])
        daemon_env(tmp, conf)
        t0 = time.monotonic()
        with TinctEnv(polkit="deny", extra_args=["--sane-discovery"]) as env:
            r = env.run([sys.executable, "-c", FLOOD, str(calls), str(in_flight), env.address], as_user="nobody",
                        timeout=900)
            elapsed = time.monotonic() - t0
            got = json.loads(r.stdout) if r.returncode == 0 else {"answers": [], "errors": [r.stderr[-500:]]}
            check(len(got["answers"]) == calls and not got["errors"],
                  "every one of %d callers got an answer: %d answers, errors %s" %
                  (calls, len(got["answers"]), got["errors"][:3]))
            check(set(got["answers"]) == {1}, "each answer counts the one scanner: %s" % sorted(set(got["answers"])))
            # The helper's own requests (tinct's User-Agent, not sane-airscan's) to the
            # scanner: one per run.
            with open(log) as f:
                runs = sum(1 for line in f if line.startswith("/eSCL/ScannerCapabilities\t") and
                           "tinct" in line.split("\t", 1)[1].lower())
            bound = per_minute * (int(elapsed // 60) + 1)
            print("    helper runs: %d for %d calls in %.1f s (bound %d: %d a minute)" %
                  (runs, calls, elapsed, bound, per_minute))
            check(1 <= runs <= bound, "helper runs within the bound: %d <= %d" % (runs, bound))
            check(b_daemon_answers(env), "the daemon answers after the flood")
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def b_daemon_answers(env):
    try:
        Bus(env).mgr.GetDevices()
        return True
    except dbus.DBusException:
        return False


test_test_backend_and_escl()
test_bad_scanners()
test_hotplug()
test_one_bad_scanner()
test_rescan_flood()
scan_common.finish()
