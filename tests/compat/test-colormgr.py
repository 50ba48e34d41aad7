#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Debian's colormgr (colord 1.4.6's command-line client) against the daemon.

Every verb that touches devices, profiles, standard spaces or sensors is run and its exit
code and output checked. colormgr is a libcolord program; it runs with
G_DEBUG=fatal-warnings, so a libcolord warning makes it abort (and the test fail).
The 'session' test prints a transcript of a typical admin session."""

import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402

FATAL = {"G_DEBUG": "fatal-warnings", "LC_ALL": "C.UTF-8"}


def cm_env(**kw):
    kw.setdefault("polkit", "allow")
    kw.setdefault("profiles", [compat.icc(n) for n in compat.STANDARD_PROFILES])
    kw.setdefault("dummy_sensor", True)
    return compat.TinctEnv(**kw)


def cm(env, *args, as_user=None, ok=True, transcript=None):
    """Run colormgr; with ok=True/False also check the exit code."""
    r = env.run(["colormgr"] + list(args), as_user=as_user, env=FATAL)
    if transcript is not None:
        transcript.append("$ colormgr %s\n%s%s[exit %d]\n" % (
            " ".join(a if " " not in a else "'%s'" % a for a in args), r.stdout, r.stderr, r.returncode))
    if r.returncode < 0:
        raise AssertionError("colormgr %s killed by signal %d (a fatal libcolord warning?)\n%s"
                             % (" ".join(args), -r.returncode, r.stderr))
    if ok is True and r.returncode != 0:
        raise AssertionError("colormgr %s failed (%d): %s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr))
    if ok is False and r.returncode == 0:
        raise AssertionError("colormgr %s succeeded, expected failure: %s" % (" ".join(args), r.stdout))
    print("    ran: colormgr %s -> %d" % (" ".join(args), r.returncode), flush=True)
    return r


def objects(text):
    """colormgr's 'Key:   value' blocks, one dict per object (blocks start at Object Path)."""
    out = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        k, v = line.split(":", 1)
        k, v = k.strip(), v.strip()
        if k == "Object Path":
            out.append({})
        if out:
            out[-1].setdefault(k, v)
    return out


def one(text, what):
    objs = objects(text)
    check_eq(len(objs), 1, "%s prints one object" % what)
    return objs[0]


@test
def devices_create_list_find():
    """create-device, get-devices, get-devices-by-kind, find-device (id and path),
    find-device-by-property, duplicate create fails"""
    with cm_env() as env:
        r = cm(env, "get-devices")
        check_eq(objects(r.stdout), [], "get-devices with no devices lists nothing")
        r = cm(env, "create-device", "compat-printer", "normal", "printer")
        o = one(r.stdout, "create-device")
        check_eq(o["Object Path"], compat.device_path("compat-printer"), "Object Path")
        check_eq(o["Type"], "printer", "Type")
        check_eq(o["Scope"], "normal", "Scope")
        check_eq(o["Device ID"], "compat-printer", "Device ID")
        check_eq(o["Owner"], "root", "Owner")
        check_eq(o["Enabled"], "Yes", "Enabled")
        check("OwnerCmdline" in o.get("Metadata", ""), "Metadata shows OwnerCmdline")
        cm(env, "create-device", "compat-display", "normal", "display")
        r = cm(env, "get-devices")
        check_eq([x["Device ID"] for x in objects(r.stdout)], ["compat-printer", "compat-display"],
                 "get-devices lists both in creation order")
        r = cm(env, "get-devices-by-kind", "printer")
        check_eq([x["Device ID"] for x in objects(r.stdout)], ["compat-printer"], "get-devices-by-kind printer")
        r = cm(env, "get-devices-by-kind", "webcam")
        check_eq(objects(r.stdout), [], "get-devices-by-kind webcam")
        r = cm(env, "find-device", "compat-display")
        check_eq(one(r.stdout, "find-device")["Type"], "display", "find-device by id")
        cm(env, "device-set-model", "compat-display", "Compat Panel")
        r = cm(env, "find-device-by-property", "Model", "Compat Panel")
        check_eq(one(r.stdout, "find-device-by-property")["Device ID"], "compat-display",
                 "find-device-by-property Model")
        r = cm(env, "find-device-by-property", "XRANDR_name", "nope", ok=False)
        check("does not exist" in r.stdout + r.stderr, "find-device-by-property no match says so")
        r = cm(env, "find-device", "no-such-device", ok=False)
        check("does not exist" in r.stdout + r.stderr, "find-device unknown says so")
        r = cm(env, "create-device", "compat-printer", "normal", "printer", ok=False)
        check("already exists" in r.stdout + r.stderr, "duplicate create-device says 'already exists'")
        r = cm(env, "create-device", "compat-bad", "normal", "toaster", ok=False)


@test
def device_setters():
    """device-set-model/-vendor/-serial/-kind/-enabled; find-device shows the stored values"""
    with cm_env() as env:
        cm(env, "create-device", "compat-dev", "normal", "printer")
        cm(env, "device-set-model", "compat-dev", "LaserJet 4000 Printer")
        cm(env, "device-set-vendor", "compat-dev", "Hewlett-Packard Ltd.")
        cm(env, "device-set-serial", "compat-dev", "usb://HP/LJ?serial=XYZ123")
        o = one(cm(env, "find-device", "compat-dev").stdout, "find-device")
        check_eq(o.get("Model"), "LaserJet 4000", "Model (Printer suffix trimmed)")
        check_eq(o.get("Vendor"), "Hewlett Packard", "Vendor (quirk)")
        check_eq(o.get("Serial"), "XYZ123", "Serial (after ?serial=)")
        cm(env, "device-set-kind", "compat-dev", "scanner")
        o = one(cm(env, "find-device", "compat-dev").stdout, "find-device")
        check_eq(o.get("Type"), "scanner", "Type after device-set-kind")
        cm(env, "device-set-enabled", "compat-dev", "False")
        o = one(cm(env, "find-device", "compat-dev").stdout, "find-device")
        check_eq(o.get("Enabled"), "No", "Enabled after device-set-enabled False")
        cm(env, "device-set-enabled", "compat-dev", "True")
        o = one(cm(env, "find-device", "compat-dev").stdout, "find-device")
        check_eq(o.get("Enabled"), "Yes", "Enabled after device-set-enabled True")
        r = cm(env, "device-set-model", "no-such-device", "x", ok=False)
        check("does not exist" in r.stdout + r.stderr, "device-set-model on an unknown device")


@test
def profiles_create_find_set_delete():
    """create-profile, find-profile, profile-set-property, get-profiles, find-profile-by-filename,
    delete-profile"""
    with cm_env() as env:
        r = cm(env, "get-profiles")
        ids = [x["Profile ID"] for x in objects(r.stdout)]
        srgb = "icc-" + compat.icc_checksum("colord-data--sRGB.icc")
        check(srgb in ids, "get-profiles lists the system sRGB profile (%s)" % ids)
        o = one(cm(env, "create-profile", "compat-prof", "normal").stdout, "create-profile")
        check_eq(o["Object Path"], compat.profile_path("compat-prof"), "Object Path")
        check_eq(o["Profile ID"], "compat-prof", "Profile ID")
        check_eq(o["Scope"], "normal", "Scope")
        check_eq(o["System Wide"], "No", "System Wide")
        cm(env, "profile-set-property", "compat-prof", "Qualifier", "RGB.Plain.300dpi")
        cm(env, "profile-set-property", "compat-prof", "Title", "Compat Profile")
        cm(env, "profile-set-property", "compat-prof", "License", "CC0")
        o = one(cm(env, "find-profile", "compat-prof").stdout, "find-profile")
        check_eq(o.get("Qualifier"), "RGB.Plain.300dpi", "Qualifier after profile-set-property")
        check_eq(o.get("Title"), "Compat Profile", "Title after profile-set-property")
        check("License=CC0" in o.get("Metadata", ""), "Metadata shows License=CC0")
        r = cm(env, "profile-set-property", "compat-prof", "Filename", "/tmp/x.icc", ok=False)
        o = one(cm(env, "find-profile-by-filename", "colord-data--sRGB.icc").stdout, "find-profile-by-filename")
        check_eq(o["Profile ID"], srgb, "find-profile-by-filename (basename)")
        check_eq(o["System Wide"], "Yes", "the system profile is System Wide")
        check_eq(o["Title"], "sRGB", "its Title")
        check_eq(o["Type"], "display-device", "its Type")
        check_eq(o["Colorspace"], "rgb", "its Colorspace")
        r = cm(env, "find-profile-by-filename", "nope.icc", ok=False)
        check("does not exist" in r.stdout + r.stderr, "find-profile-by-filename unknown")
        cm(env, "delete-profile", "compat-prof")
        r = cm(env, "find-profile", "compat-prof", ok=False)
        check("does not exist" in r.stdout + r.stderr, "find-profile after delete-profile")
        cm(env, "delete-profile", "compat-prof", ok=False)


@test(colord_bug="2")
def standard_space():
    """get-standard-space srgb / adobe-rgb from the system profiles' ICC dicts"""
    with cm_env() as env:
        for space, name in (("srgb", "colord-data--sRGB.icc"), ("adobe-rgb", "colord-data--AdobeRGB1998.icc")):
            o = one(cm(env, "get-standard-space", space).stdout, "get-standard-space " + space)
            check_eq(o["Profile ID"], "icc-" + compat.icc_checksum(name), "get-standard-space %s" % space)
        r = cm(env, "get-standard-space", "prophoto-rgb")
        r = cm(env, "get-standard-space", "unknown", ok=False)


@test
def relations_and_qualifiers():
    """device-add-profile (hard), device-make-profile-default, device-get-default-profile,
    device-get-profile-for-qualifier (match, '*' part, no match)"""
    with cm_env() as env:
        cm(env, "create-device", "compat-dev", "normal", "printer")
        for pid, q in (("compat-a", "RGB.Plain.300dpi"), ("compat-b", "RGB.Glossy.600dpi")):
            cm(env, "create-profile", pid, "normal")
            cm(env, "profile-set-property", pid, "Qualifier", q)
        cm(env, "device-add-profile", "compat-dev", "compat-a")
        cm(env, "device-add-profile", compat.device_path("compat-dev"), compat.profile_path("compat-b"))
        o = one(cm(env, "device-get-default-profile", "compat-dev").stdout, "default")
        check_eq(o["Profile ID"], "compat-b", "the later hard profile is the default")
        r = cm(env, "find-device", "compat-dev")
        o = one(r.stdout, "find-device")
        check_eq((o.get("Profile 1"), o.get("Profile 2")), ("compat-b", "compat-a"), "Profile 1/2 order")
        cm(env, "device-make-profile-default", "compat-dev", "compat-a")
        o = one(cm(env, "device-get-default-profile", "compat-dev").stdout, "default")
        check_eq(o["Profile ID"], "compat-a", "default after device-make-profile-default")
        o = one(cm(env, "device-get-profile-for-qualifier", "compat-dev", "RGB.Glossy.600dpi").stdout, "qualifier")
        check_eq(o["Profile ID"], "compat-b", "exact qualifier")
        o = one(cm(env, "device-get-profile-for-qualifier", "compat-dev", "RGB.*.*").stdout, "qualifier")
        check_eq(o["Profile ID"], "compat-a", "RGB.*.* gives the newest matching hard profile")
        o = one(cm(env, "device-get-profile-for-qualifier", "compat-dev", "RGB.*.600dpi").stdout, "qualifier")
        check_eq(o["Profile ID"], "compat-b", "RGB.*.600dpi")
        r = cm(env, "device-get-profile-for-qualifier", "compat-dev", "CMYK.*.*", ok=False)
        check("nothing matched" in r.stdout + r.stderr, "no match says 'nothing matched'")
        r = cm(env, "device-add-profile", "compat-dev", "compat-a", ok=False)
        r = cm(env, "device-add-profile", "compat-dev", "no-such-profile", ok=False)


def _inhibitors(conn, dev):
    return compat.call(conn, dev, "org.freedesktop.DBus.Properties", "Get", "ss",
                       [compat.IFACE_DEVICE, "ProfilingInhibitors"], reply="v")[0]


@test
def device_inhibit():
    """device-inhibit: held until colormgr is killed (waited for through the daemon's
    signals), and with a 1 s timeout"""
    from gi.repository import GLib
    with cm_env() as env:
        cm(env, "create-device", "compat-dev", "normal", "display")
        cm(env, "create-profile", "compat-p", "normal")
        cm(env, "device-add-profile", "compat-dev", "compat-p")
        dev = compat.device_path("compat-dev")
        watch = compat.connect(env)
        rec = compat.SignalRecorder(watch)

        def wait_inhibitors(pred, what):
            while True:
                n = len(rec.signals)
                if pred(_inhibitors(watch, dev)):
                    return
                compat.iterate_until(lambda: len(rec.signals) > n, what)
        p = subprocess.Popen(["colormgr", "device-inhibit", "compat-dev", "0"], env=dict(compat.bus_env(env), **FATAL),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_inhibitors(lambda v: len(v) == 1, "colormgr's inhibitor to appear")
            check(True, "ProfilingInhibitors has colormgr's name")
            r = cm(env, "device-get-profile-for-qualifier", "compat-dev", "*", ok=False)
            check("profiling" in (r.stdout + r.stderr).lower(), "lookups fail while inhibited: %s"
                  % (r.stdout + r.stderr).strip())
        finally:
            p.send_signal(signal.SIGINT)
            p.communicate(timeout=60)
        wait_inhibitors(lambda v: len(v) == 0, "the inhibitor to go when colormgr exits")
        check(True, "inhibitor removed after colormgr was stopped")
        o = one(cm(env, "device-get-profile-for-qualifier", "compat-dev", "*").stdout, "qualifier")
        check_eq(o["Profile ID"], "compat-p", "lookups work again")
        cm(env, "device-inhibit", "compat-dev", "1")
        wait_inhibitors(lambda v: len(v) == 0, "no inhibitor after device-inhibit with a timeout")
        check(True, "no inhibitor left after 'device-inhibit compat-dev 1' returned")
        watch.close_sync(None)
        _ = GLib


@test
def delete_device():
    """delete-device by id and by path; deleting again fails"""
    with cm_env() as env:
        cm(env, "create-device", "compat-d1", "normal", "printer")
        cm(env, "create-device", "compat-d2", "normal", "printer")
        cm(env, "delete-device", "compat-d1")
        cm(env, "delete-device", compat.device_path("compat-d2"))
        check_eq(objects(cm(env, "get-devices").stdout), [], "no devices left")
        r = cm(env, "delete-device", "compat-d1", ok=False)
        check("does not exist" in r.stdout + r.stderr, "delete-device of a deleted device")


@test
def sensors():
    """get-sensors shows the dummy sensor; get-sensor-reading lcd/ambient"""
    with cm_env() as env:
        o = one(cm(env, "get-sensors").stdout, "get-sensors")
        check_eq(o["Object Path"], compat.MANAGER_PATH + "/sensors/dummy", "Object Path")
        check_eq(o.get("Sensor ID"), "dummy", "Sensor ID")
        check_eq(o.get("Type"), "dummy", "Type")
        check_eq(o.get("Vendor"), "Acme Corp", "Vendor")
        check_eq(o.get("Model"), "Dummy Sensor #1", "Model")
        check_eq(o.get("Serial number"), "0123456789a", "Serial number")
        check_eq(o.get("Native"), "Yes", "Native")
        check("Ambient" in o.get("Capabilities", ""), "Capabilities list Ambient")
        r = cm(env, "get-sensor-reading", "lcd")
        lines = [x for x in r.stdout.splitlines() if x.startswith("Color XYZ")]
        check(len(lines) >= 1, "get-sensor-reading printed readings")
        x, y, z = (float(v) for v in lines[0].split(":", 1)[1].split(","))
        for got, exp, axis in ((x, 0.027599, "X"), (y, 0.030403, "Y"), (z, 0.055636, "Z")):
            check(abs(got - exp) < 0.01, "reading %s %.6f ~ %.6f" % (axis, got, exp))
        r = cm(env, "get-sensor-reading", "ambient")
        check("7.7" in r.stdout, "ambient reading shows 7.7 lux: %s" % r.stdout.strip())
        # (colormgr's get-sensors prints "Locked: Yes" for an unlocked sensor, with colord too)


@test
def sensor_virtual_display():
    """tinctd --dummy-sensor-display: sensor-set-options simulate-patch R,G,B (colormgr sends
    the string), then get-sensor-reading gives the XYZ in cd/m² (Argyll's sRGB: lumi 80)"""
    if compat.daemon_kind() == "colord":
        print("    (skipped on colord: tinct's own option)")
        return
    display = compat.icc("argyll-ref--sRGB.icm")
    with cm_env(dummy_sensor=False, extra_args=["--dummy-sensor-display", display]) as env:
        # IEC 61966-2-1's sRGB white (D65) and red, times 80 cd/m²
        for patch, want in (("1,1,1", (76.04, 80.0, 87.13)), ("1,0,0", (32.99, 17.01, 1.55))):
            cm(env, "sensor-set-options", "simulate-patch", patch)
            r = cm(env, "get-sensor-reading", "lcd")
            lines = [x for x in r.stdout.splitlines() if x.startswith("Color XYZ")]
            check(len(lines) >= 1, "get-sensor-reading printed a reading")
            got = [float(v) for v in lines[0].split(":", 1)[1].split(",")]
            for g, w, axis in zip(got, want, "XYZ"):
                check(abs(g - w) < 0.3, "patch %s: %s %.3f ~ %.2f" % (patch, axis, g, w))
        r = cm(env, "sensor-set-options", "simulate-patch", "1,1,2", ok=False)
        check("NoSupport" in r.stdout + r.stderr or "not supported" in r.stdout + r.stderr,
              "a patch outside 0..1 is refused: %s" % (r.stdout + r.stderr).strip())


@test
def nobody_allowed():
    """colormgr as uid 65534, polkit allowing: create-device gets the owner suffix"""
    with cm_env(polkit="allow") as env:
        o = one(cm(env, "create-device", "compat-u", "normal", "display", as_user="nobody").stdout,
                "create-device")
        check_eq(o["Object Path"], compat.device_path("compat-u", 65534, "nobody"),
                 "path has _nobody_65534")
        check_eq(o["Owner"], "nobody", "Owner")
        cm(env, "device-set-model", "compat-u", "Mine", as_user="nobody")
        cm(env, "create-profile", "compat-up", "normal", as_user="nobody")
        cm(env, "device-add-profile", "compat-u", "compat-up", as_user="nobody")
        o = one(cm(env, "get-devices", as_user="nobody").stdout, "get-devices as nobody")
        check_eq(o.get("Model"), "Mine", "nobody sees its own device with the model it set")
        cm(env, "delete-device", "compat-u", as_user="nobody")


@test
def nobody_denied():
    """colormgr as uid 65534, polkit denying: privileged verbs fail, reads work"""
    with cm_env(polkit="deny") as env:
        cm(env, "create-device", "compat-root", "normal", "printer")
        cm(env, "create-profile", "compat-rootp", "normal")
        for args in (("create-device", "compat-u", "normal", "display"),
                     ("create-profile", "compat-up", "normal"),
                     ("device-set-model", "compat-root", "x"),
                     ("device-add-profile", "compat-root", "compat-rootp"),
                     ("device-set-enabled", "compat-root", "False"),
                     ("profile-set-property", "compat-rootp", "Qualifier", "RGB.."),
                     ("delete-device", "compat-root"),
                     ("delete-profile", "compat-rootp")):
            r = cm(env, *args, as_user="nobody", ok=False)
            check("auth" in (r.stdout + r.stderr).lower(), "%s denied: %s" % (args[0], (r.stdout + r.stderr).strip()))
        o = one(cm(env, "find-device", "compat-root", as_user="nobody").stdout, "find-device as nobody")
        check_eq(o["Device ID"], "compat-root", "reads still work")
        check(o.get("Model") is None, "the device was not modified")


@test
def session():
    """a scripted admin session (the transcript is printed): create a device, add two
    profiles, look one up by qualifier with fallback, make the other default, delete"""
    t = []
    with cm_env() as env:
        cm(env, "create-device", "cups-Compat_Printer", "normal", "printer", transcript=t)
        cm(env, "device-set-vendor", "cups-Compat_Printer", "HP", transcript=t)
        cm(env, "device-set-model", "cups-Compat_Printer", "Color LaserJet Printer", transcript=t)
        for pid, q in (("Compat_Printer-RGB.Plain.300dpi", "RGB.Plain.300dpi"),
                       ("Compat_Printer-RGB.Glossy.600dpi", "RGB.Glossy.600dpi")):
            cm(env, "create-profile", pid, "normal", transcript=t)
            cm(env, "profile-set-property", pid, "Qualifier", q, transcript=t)
            cm(env, "device-add-profile", "cups-Compat_Printer", pid, transcript=t)
        # a job for RGB.Glossy.1200dpi: the exact and 'RGB.Glossy.*' steps...
        r = cm(env, "device-get-profile-for-qualifier", "cups-Compat_Printer", "RGB.Glossy.1200dpi",
               ok=False, transcript=t)
        r = cm(env, "device-get-profile-for-qualifier", "cups-Compat_Printer", "RGB.Glossy.*", transcript=t)
        check_eq(one(r.stdout, "lookup")["Profile ID"], "Compat_Printer-RGB.Glossy.600dpi",
                 "fallback RGB.Glossy.* finds the glossy profile")
        cm(env, "device-make-profile-default", "cups-Compat_Printer", "Compat_Printer-RGB.Plain.300dpi",
           transcript=t)
        r = cm(env, "device-get-default-profile", "cups-Compat_Printer", transcript=t)
        check_eq(one(r.stdout, "default")["Profile ID"], "Compat_Printer-RGB.Plain.300dpi", "new default")
        r = cm(env, "find-device", "cups-Compat_Printer", transcript=t)
        o = one(r.stdout, "find-device")
        check_eq((o.get("Vendor"), o.get("Model")), ("Hewlett Packard", "Color LaserJet"), "vendor/model")
        check_eq((o.get("Profile 1"), o.get("Profile 2")),
                 ("Compat_Printer-RGB.Plain.300dpi", "Compat_Printer-RGB.Glossy.600dpi"), "profile order")
        cm(env, "delete-device", "cups-Compat_Printer", transcript=t)
        cm(env, "delete-profile", "Compat_Printer-RGB.Plain.300dpi", transcript=t)
        cm(env, "delete-profile", "Compat_Printer-RGB.Glossy.600dpi", transcript=t)
        r = cm(env, "get-devices", transcript=t)
        check_eq(objects(r.stdout), [], "nothing left")
    print("\n----- colormgr session transcript -----")
    print("\n".join(t))
    print("----- end of transcript -----")


if __name__ == "__main__":
    compat.main()
