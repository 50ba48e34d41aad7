#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct's bus verbs against a private daemon (tests/harness/harness.py).

'session' runs what an administrator would: a printer, two profiles with qualifiers, soft
and hard mappings, the CUPS fallback lookup (`tinct lookup`) and the multi-qualifier call,
make-default, property setters, an inhibition held and released with Ctrl-C, a sensor
reading, deletes. Each step checks the text output and the --json document (parsed with
json, values and types compared). 'errors' checks the error contract: the daemon's D-Bus
error name and message on stderr with exit 1; usage errors exit 2 without a daemon call.
'virtual' runs `tinct create-virtual-device` on files (imported as disk profiles, or the
daemon's own profile of that file) and on profile ids, across a daemon restart, and its
errors (missing file, malformed ICC, unknown kind, existing device, no daemon, a refused
AddProfile rolled back).

argv[1] is the tinct binary (meson passes it)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import traceback

from harness import TinctEnv, daemon_kind

TINCT = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("TINCT", "tinct")
CORPUS = os.environ.get("TINCT_CORPUS_DIR", "")
SRGB = os.path.join(CORPUS, "icc", "colord-data--sRGB.icc")
CMYK = os.path.join(CORPUS, "icc", "libgs-common--default_cmyk.icc")  # output-device, no dmnd/dmdd
T61 = os.path.join(CORPUS, "icc", "colord-tests--ibm-t61.icc")  # dmnd "IBM France", dmdd "ThinkPad T61"
M = "/org/freedesktop/ColorManager"
DEV = "cups-Test-Printer"
DEV_PATH = M + "/devices/cups_Test_Printer"
P1 = "Test-Printer-RGB.Glossy.600dpi"
P1_PATH = M + "/profiles/Test_Printer_RGB_Glossy_600dpi"
P2 = "Test-Printer-RGB.."
P2_PATH = M + "/profiles/Test_Printer_RGB__"


def check_eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def tinct(env, *args, rc=0):
    r = env.run([TINCT] + list(args))
    print("    $ tinct %s -> %d" % (" ".join(args), r.returncode), flush=True)
    if r.returncode != rc:
        raise AssertionError("tinct %s: exit %d, want %d\nstdout: %s\nstderr: %s"
                             % (" ".join(args), r.returncode, rc, r.stdout, r.stderr))
    return r


def tinct_json(env, *args):
    r = tinct(env, *args, "--json")
    try:
        return json.loads(r.stdout)
    except ValueError as e:
        raise AssertionError("tinct %s --json: not JSON (%s):\n%s" % (" ".join(args), e, r.stdout))


def text_objects(out):
    """The text form: 'Object Path: P', then '  Key: value' lines; continuation lines (array
    items, further metadata entries) are indented deeper. One dict per object; arrays and
    dictionaries as lists of their lines."""
    objs, key = [], None
    for line in out.splitlines():
        if line.startswith("Object Path: "):
            objs.append({"Object Path": line[len("Object Path: "):]})
            key = None
        elif objs and line.startswith("  ") and not line.startswith("   "):
            key, _, v = line[2:].partition(":")
            v = v.strip()
            objs[-1][key] = [v] if v else []
        elif objs and key and line.startswith("   "):
            objs[-1][key].append(line.strip())
    # single-line scalars as strings
    for o in objs:
        for k, v in o.items():
            if isinstance(v, list) and len(v) == 1 and k not in ("Profiles", "Metadata", "Warnings",
                                                                 "ProfilingInhibitors", "Capabilities"):
                o[k] = v[0]
            elif isinstance(v, list) and not v and k not in ("Profiles", "Metadata", "Warnings",
                                                             "ProfilingInhibitors", "Capabilities"):
                o[k] = ""
    return objs


def text_fields(out):
    """Leading 'Key: value' lines before the first object (lookup, status, readings)."""
    d = {}
    for line in out.splitlines():
        if line.startswith("Object Path: ") or line.startswith(" "):
            break
        k, _, v = line.partition(":")
        d[k] = v.strip()
    return d


def one_text(out, what):
    objs = text_objects(out)
    check_eq(len(objs), 1, "%s: objects in the text output" % what)
    return objs[0]


def session():
    profiles = [SRGB] if os.path.exists(SRGB) else []
    with TinctEnv(polkit="allow", dummy_sensor=True, profiles=profiles) as env:
        st = tinct_json(env, "status")
        check(isinstance(st["daemon"]["DaemonVersion"], str) and st["daemon"]["DaemonVersion"],
              "status: DaemonVersion")
        check_eq((st["devices"], st["profiles"], st["sensors"]), (0, len(profiles), 1), "status counts")
        t = text_fields(tinct(env, "status").stdout)
        check_eq((t["Devices"], t["Profiles"], t["Sensors"]), ("0", str(len(profiles)), "1"),
                 "status text counts")
        check_eq(t["DaemonVersion"], st["daemon"]["DaemonVersion"], "status text version")

        # a printer and two profiles, as CUPS registers them
        o = one_text(tinct(env, "create-device", DEV, "normal", "printer").stdout, "create-device")
        check_eq(o["Object Path"], DEV_PATH, "create-device path")
        check_eq((o["DeviceId"], o["Kind"], o["Scope"], o["Owner"]), (DEV, "printer", "normal", "0"),
                 "create-device text")
        d = tinct_json(env, "find-device", DEV)
        check_eq(d["object_path"], DEV_PATH, "find-device object_path")
        check_eq((d["DeviceId"], d["Kind"], d["Scope"], d["Mode"]), (DEV, "printer", "normal", "unknown"),
                 "find-device properties")
        check(d["Owner"] == 0 and type(d["Owner"]) is int, "Owner is the number 0")
        check(d["Enabled"] is True and d["Embedded"] is False, "Enabled/Embedded are booleans")
        check(type(d["Created"]) is int and d["Created"] > 10**15, "Created is µs as a number")
        check_eq(d["Profiles"], [], "no profiles yet")
        check_eq(d["ProfilingInhibitors"], [], "no inhibitors")
        check(isinstance(d["Metadata"], dict) and "OwnerCmdline" in d["Metadata"],
              "Metadata is an object with OwnerCmdline")

        for pid, q in ((P1, "RGB.Glossy.600dpi"), (P2, "RGB..")):
            p = tinct_json(env, "create-profile", pid, "normal")
            check_eq((p["ProfileId"], p["Scope"]), (pid, "normal"), "create-profile --json")
            tinct(env, "profile-set-property", pid, "Qualifier", q)
        # JSON escaping: control characters escaped, UTF-8 passed through, round trip exact
        tricky = 'tab\there "quoted" back\\slash \x01\x1f caf\u00e9 \u65e5\u672c \U0001f5a8'
        tinct(env, "profile-set-property", P1_PATH, "Note", tricky)
        p1 = tinct_json(env, "find-profile", P1)
        check_eq(p1["Qualifier"], "RGB.Glossy.600dpi", "profile-set-property Qualifier")
        check_eq(p1["Metadata"]["Note"], tricky, "metadata round trip through JSON")
        raw = tinct(env, "find-profile", "--json", P1).stdout
        check("\\t" in raw and "\\u0001" in raw and "\u65e5" in raw, "escapes and raw UTF-8 in the JSON")
        o = one_text(tinct(env, "find-profile", P1).stdout, "find-profile text")
        check_eq(o["Qualifier"], "RGB.Glossy.600dpi", "find-profile text Qualifier")
        check_eq(o["Metadata"], ["Note=" + tricky.replace("\t", "\\t").replace("\x01", "\\x01")
                                 .replace("\x1f", "\\x1f")], "text metadata, controls escaped")

        # P1 soft (automatic) by id, P2 hard (user's choice, colormgr's default) by path
        tinct(env, "device-add-profile", "--soft", DEV, P1)
        tinct(env, "device-add-profile", DEV, P2_PATH)
        tinct(env, "device-add-profile", DEV, P2, rc=1)  # already added

        # CUPS fallback list: the hard RGB.. wins at RGB.*.* over the soft exact match
        lk = tinct_json(env, "lookup", DEV, "RGB.Glossy.600dpi")
        check_eq(lk["qualifiers"], ["RGB.Glossy.600dpi", "RGB.Glossy.*", "RGB.*.600dpi", "RGB.*.*", "*"],
                 "lookup fallback list")
        check_eq((lk["device"], lk["matched"], lk["relation"]), (DEV_PATH, "RGB.*.*", "hard"), "lookup match")
        check_eq((lk["profile"]["object_path"], lk["profile"]["ProfileId"]), (P2_PATH, P2), "lookup profile")
        r = tinct(env, "lookup", DEV_PATH, "RGB.Glossy.600dpi")
        t = text_fields(r.stdout)
        check_eq((t["Matched"], t["Relation"], t["Device"]), ("RGB.*.*", "hard", DEV_PATH), "lookup text")
        check_eq(t["Qualifiers"], "RGB.Glossy.600dpi RGB.Glossy.* RGB.*.600dpi RGB.*.* *", "lookup text list")
        check_eq(one_text(r.stdout, "lookup")["Object Path"], P2_PATH, "lookup text profile")
        # Gray has no profile: only '*' matches
        lk = tinct_json(env, "lookup", DEV, "Gray..")
        check_eq(lk["qualifiers"], ["Gray..", "Gray..*", "Gray.*.", "Gray.*.*", "*"], "Gray.. fallbacks")
        check_eq(lk["matched"], "*", "Gray.. falls back to *")

        # one qualifier: the soft exact match; several in one call: the hard pass goes first
        p = tinct_json(env, "device-get-profile-for-qualifier", DEV, "RGB.Glossy.600dpi")
        check_eq(p["object_path"], P1_PATH, "single qualifier")
        p = tinct_json(env, "device-get-profile-for-qualifier", DEV, "RGB.Glossy.600dpi", "RGB.*.*")
        check_eq(p["object_path"], P2_PATH, "two qualifiers in one call")
        o = one_text(tinct(env, "device-get-profile-for-qualifier", DEV, "RGB.Glossy.*").stdout, "dgpfq")
        check_eq(o["Object Path"], P1_PATH, "device-get-profile-for-qualifier text")

        # make P1 the default: it becomes hard and first, and the exact query wins
        tinct(env, "device-make-profile-default", DEV, P1)
        check_eq(tinct_json(env, "device-get-default-profile", DEV)["object_path"], P1_PATH, "default")
        check_eq(one_text(tinct(env, "device-get-default-profile", DEV).stdout, "default")["Object Path"],
                 P1_PATH, "default (text)")
        check_eq(tinct_json(env, "find-device", DEV)["Profiles"], [P1_PATH, P2_PATH], "Profiles order")
        lk = tinct_json(env, "lookup", DEV, "RGB.Glossy.600dpi")
        check_eq((lk["matched"], lk["relation"], lk["profile"]["object_path"]),
                 ("RGB.Glossy.600dpi", "hard", P1_PATH), "lookup after make-default")

        # property setters (the daemon normalises) and enabled
        tinct(env, "device-set-model", DEV, "LaserJet Printer")
        tinct(env, "device-set-vendor", DEV, "HP")
        tinct(env, "device-set-serial", DEV, "usb://HP/LJ?serial=XYZ123")
        tinct(env, "device-set-enabled", DEV, "FALSE")
        d = tinct_json(env, "find-device-by-property", "Serial", "XYZ123")
        check_eq((d["Model"], d["Vendor"], d["Serial"], d["Enabled"]),
                 ("LaserJet", "Hewlett Packard", "XYZ123", False), "setters")
        o = one_text(tinct(env, "find-device", DEV).stdout, "find-device text")
        check_eq((o["Model"], o["Enabled"], o["Profiles"]), ("LaserJet", "false", [P1_PATH, P2_PATH]),
                 "find-device text after setters")
        tinct(env, "device-set-enabled", DEV, "true")

        # kinds and lists
        check_eq([x["object_path"] for x in tinct_json(env, "get-devices-by-kind", "printer")["devices"]],
                 [DEV_PATH], "get-devices-by-kind printer")
        check_eq(tinct_json(env, "get-devices-by-kind", "display"), {"devices": []}, "no displays")
        check_eq([x["DeviceId"] for x in tinct_json(env, "get-devices")["devices"]], [DEV], "get-devices")
        check_eq([o["Object Path"] for o in text_objects(tinct(env, "get-devices").stdout)], [DEV_PATH],
                 "get-devices text")
        ids = [x["ProfileId"] for x in tinct_json(env, "get-profiles")["profiles"]]
        check(P1 in ids and P2 in ids and len(ids) == 2 + len(profiles), "get-profiles: %r" % ids)
        check_eq(len(text_objects(tinct(env, "get-profiles").stdout)), len(ids), "get-profiles text")
        if profiles and not env.is_colord:  # colord's GetStandardSpace bug (colord §16.2)
            s = tinct_json(env, "get-standard-space", "srgb")
            check_eq((s["Metadata"]["STANDARD_space"], s["IsSystemWide"]), ("srgb", True), "srgb")
            f = tinct_json(env, "find-profile-by-filename", os.path.basename(SRGB))
            check_eq(f["object_path"], s["object_path"], "find-profile-by-filename")
            check(type(f["Created"]) is int and type(f["HasVcgt"]) is bool, "profile number/bool types")
        sensors = tinct_json(env, "get-sensors")["sensors"]
        check_eq([x["SensorId"] for x in sensors], ["dummy"], "get-sensors")
        check(sensors[0]["Capabilities"][0] == "lcd" and sensors[0]["Locked"] is False, "sensor props")
        check(isinstance(sensors[0]["Options"], dict), "Options a{sv} as an object")

        # an inhibition held by a running tinct: lookups fail until it ends with Ctrl-C
        e = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.address)
        inh = subprocess.Popen([TINCT, "device-inhibit", DEV], env=e, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            line = inh.stdout.readline()
            check("inhibited" in line, "device-inhibit says it holds: %r" % line)
            check_eq(tinct_json(env, "find-device", DEV)["ProfilingInhibitors"].__len__(), 1, "inhibitor")
            r = tinct(env, "lookup", DEV, "RGB.Glossy.600dpi", rc=1)
            check("org.freedesktop.ColorManager.Device.Profiling" in r.stderr, "Profiling: %r" % r.stderr)
            inh.send_signal(signal.SIGINT)
            check_eq(inh.wait(timeout=30), 0, "device-inhibit exit status after Ctrl-C")
        finally:
            if inh.poll() is None:
                inh.kill()
                inh.wait()
            inh.stdout.close()
            inh.stderr.close()
        check_eq(tinct_json(env, "find-device", DEV)["ProfilingInhibitors"], [], "inhibitor released")
        tinct(env, "device-inhibit", DEV, "1")  # a timed one ends by itself
        check_eq(tinct_json(env, "lookup", DEV, "RGB.Glossy.600dpi")["matched"], "RGB.Glossy.600dpi",
                 "lookup works again")

        # sensor reading: lock, sample, unlock (the dummy answers after 2 s)
        rd = tinct_json(env, "get-sensor-reading", "lcd")["readings"]
        check_eq(len(rd), 1, "one reading")
        want = (0.027599, 0.030403, 0.055636)
        for k, w in zip("xyz", want):
            check(type(rd[0][k]) is float and abs(rd[0][k] - w) < 0.01, "reading %s = %r" % (k, rd[0][k]))
        check_eq((rd[0]["capability"], rd[0]["sensor"]["SensorId"], rd[0]["sensor"]["Locked"]),
                 ("lcd", "dummy", False), "reading: sensor unlocked afterwards")
        t = text_fields(tinct(env, "get-sensor-reading", "ambient").stdout)
        check_eq((t["SensorId"], t["Capability"], float(t["X"])), ("dummy", "ambient", 7.7), "ambient text")

        # deletes
        tinct(env, "delete-profile", P2)
        r = tinct(env, "find-profile", P2, rc=4)
        check("org.freedesktop.ColorManager.NotFound" in r.stderr, "deleted profile is NotFound")
        check_eq(tinct_json(env, "find-device", DEV)["Profiles"], [P1_PATH], "deleted profile left the device")
        tinct(env, "delete-profile", P1_PATH)
        tinct(env, "delete-device", DEV)
        r = tinct(env, "find-device", DEV, rc=4)
        check("org.freedesktop.ColorManager.NotFound" in r.stderr, "deleted device is NotFound")
        check_eq(tinct_json(env, "get-devices"), {"devices": []}, "no devices left")
        check_eq(tinct(env, "get-devices").stdout, "", "get-devices text with no devices")
        check_eq(tinct_json(env, "status")["devices"], 0, "status after deletes")


def expect_error(env, name, *args):
    """The daemon's error on stderr and the exit status tinct(1) gives it: NotFound 4,
    refusals 5, everything else 1."""
    rc = 4 if name.endswith("ColorManager.NotFound") else 5 if name.endswith("FailedToAuthenticate") else 1
    r = tinct(env, *args, rc=rc)
    line = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    check(line.startswith("tinct: " + name + ": ") and len(line) > len("tinct: " + name + ": "),
          "tinct %s: stderr %r, want '%s: message'" % (" ".join(args), r.stderr, name))
    check_eq(r.stdout, "", "nothing on stdout for a failed %s" % args[0])


def errors():
    with TinctEnv(polkit="allow") as env:
        NF = "org.freedesktop.ColorManager.NotFound"
        expect_error(env, NF, "find-device", "no-such-device")
        expect_error(env, NF, "find-device", "--json", "no-such-device")
        expect_error(env, NF, "find-profile", "no-such-profile")
        expect_error(env, NF, "find-device-by-property", "XRANDR_name", "nowhere")
        expect_error(env, NF, "find-profile-by-filename", "/no/such.icc")
        expect_error(env, NF, "get-standard-space", "srgb")
        expect_error(env, NF, "device-add-profile", "no-such-device", "no-such-profile")
        expect_error(env, NF, "delete-device", "no-such-device")
        expect_error(env, NF, "device-get-default-profile", "no-such-device")
        expect_error(env, NF, "lookup", "no-such-device", "RGB.Plain.300dpi")
        expect_error(env, "org.freedesktop.ColorManager.InputInvalid", "get-devices-by-kind", "unknown")
        expect_error(env, "org.freedesktop.ColorManager.InputInvalid", "create-device", "x", "forever", "printer")
        tinct(env, "create-device", "err-dev", "normal", "printer")
        expect_error(env, "org.freedesktop.ColorManager.AlreadyExists", "create-device", "err-dev", "normal", "printer")
        expect_error(env, "org.freedesktop.ColorManager.Device.NothingMatched",
                     "device-get-profile-for-qualifier", "err-dev", "RGB.Plain.300dpi", "*")
        expect_error(env, "org.freedesktop.ColorManager.Device.NothingMatched", "lookup", "err-dev", "RGB.a.b")
        r = tinct(env, "device-get-default-profile", "err-dev", rc=1)
        check("has no profiles" in r.stderr, "no default profile: %r" % r.stderr)
        r = tinct(env, "get-sensor-reading", rc=1)  # no --create-dummy-sensor here
        check("no sensors" in r.stderr, "no sensors: %r" % r.stderr)
        # usage errors: exit 2, no bus needed
        for args in (["get-devices", "extra"], ["find-device"], ["create-device", "a", "b"],
                     ["get-profiles", "--bogus"], ["device-add-profile", "--soft"],
                     ["device-make-profile-default", "--soft", "a", "b"],
                     ["lookup", "err-dev", "RGB.Glossy"], ["device-set-enabled", "err-dev", "maybe"],
                     ["device-inhibit", "err-dev", "soon"], ["get-sensor-reading", "rainbow"],
                     ["no-such-verb"]):
            r = env.run([TINCT] + args, env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"})
            check_eq(r.returncode, 2, "usage error exit for %r (stderr %r)" % (args, r.stderr))
            check(r.stderr != "", "usage error explained for %r" % args)
        r = env.run([TINCT, "lookup", "--help"])
        check(r.returncode == 0 and "Usage: tinct lookup" in r.stdout, "--help")
        # no daemon reachable: exit 3 with a message
        r = env.run([TINCT, "get-devices"], env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"})
        check(r.returncode == 3 and r.stderr.startswith("tinct: "), "no bus: %r %r" % (r.returncode, r.stderr))


def icc_checksum(env, path):
    return tinct_json(env, "icc-info", path)["checksum"]


def copy_to(env, src, name):
    d = os.path.join(env.tmp, "proofing")
    os.makedirs(d, mode=0o755, exist_ok=True)
    dst = os.path.join(d, name)
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    return dst


def counts(env):
    st = tinct_json(env, "status")
    return st["devices"], st["profiles"]


def virtual():
    if daemon_kind() == "colord":
        print("    (skipped on colord: no disk-scope profiles, colord §4)")
        return
    with TinctEnv(polkit="allow", profiles=[SRGB],
                  polkit_deny=["org.freedesktop.color-manager.modify-device"]) as env:
        # a file the daemon does not know: imported as a disk profile, then the device
        press = copy_to(env, CMYK, "press.icc")
        ck = icc_checksum(env, press)
        dev_id, prof_id = "virtual-icc-" + ck, "icc-" + ck
        before = counts(env)
        d = tinct_json(env, "create-virtual-device", press)
        check_eq((d["DeviceId"], d["Mode"], d["Kind"], d["Scope"], d["Colorspace"]),
                 (dev_id, "virtual", "printer", "disk", "cmyk"), "virtual device properties")
        check_eq(d["object_path"], M + "/devices/virtual_icc_" + ck, "virtual device path")
        check_eq((d["Model"], d["Vendor"]), ("Artifex CMYK SWOP Profile", ""), "Model from the title, no vendor")
        p = tinct_json(env, "find-profile", prof_id)
        check_eq(d["Profiles"], [p["object_path"]], "the profile is assigned")
        check_eq((p["Scope"], p["Filename"], p["Colorspace"]), ("disk", press, "cmyk"), "imported as a disk profile")
        check_eq(counts(env), (before[0] + 1, before[1] + 1), "one device and one profile more")
        lk = tinct_json(env, "lookup", dev_id, "CMYK.Plain.300dpi")
        check_eq((lk["relation"], lk["profile"]["object_path"]), ("hard", p["object_path"]), "hard, and it resolves")

        # the same profile again, by another path or by id: the same device id, refused
        for arg in (copy_to(env, CMYK, "press-copy.icc"), prof_id, p["object_path"]):
            r = tinct(env, "create-virtual-device", arg, rc=1)
            check("'%s' already exists" % dev_id in r.stderr and r.stdout == "", "exists: %r" % r.stderr)
        check_eq(counts(env), (before[0] + 1, before[1] + 1), "nothing changed by the refused runs")
        check_eq(tinct_json(env, "find-device", dev_id)["Mode"], "virtual", "not promoted to physical")

        # a file in the profile directory: the daemon's own profile, no import; text output
        srgb = env.daemon_filename(os.path.join(env.profile_dir, os.path.basename(SRGB)))
        sp = tinct_json(env, "find-profile-by-filename", srgb)
        o = one_text(tinct(env, "create-virtual-device", os.path.join(env.profile_dir, os.path.basename(SRGB)),
                           "display").stdout, "create-virtual-device text")
        check_eq((o["DeviceId"], o["Kind"], o["Mode"], o["Colorspace"], o["Profiles"]),
                 ("virtual-" + sp["ProfileId"], "display", "virtual", "rgb", [sp["object_path"]]),
                 "virtual device for a system profile")
        check_eq(counts(env)[1], before[1] + 1, "a known file is not imported again")

        # vendor and model from the ICC's dmnd/dmdd tags
        t = tinct_json(env, "create-virtual-device", copy_to(env, T61, "t61.icc"), "camera")
        check_eq((t["Kind"], t["Vendor"], t["Model"]), ("camera", "IBM", "ThinkPad T61"), "dmnd/dmdd")

        # by id, a profile the daemon will not keep: works, with a note on stderr
        tinct(env, "create-profile", "proof-temporary", "normal")
        r = tinct(env, "create-virtual-device", "--json", "proof-temporary", "scanner")
        check("note:" in r.stderr and "register" in r.stderr, "note about the profile's scope: %r" % r.stderr)
        check_eq(json.loads(r.stdout)["DeviceId"], "virtual-proof-temporary", "device for a profile id")

        # restart: the devices and their mappings are back at the same paths
        n_dev = counts(env)[0]
        env.restart()
        check_eq(counts(env)[0], n_dev, "every virtual device survived")
        d2 = tinct_json(env, "find-device", dev_id)
        check_eq((d2["object_path"], d2["Mode"], d2["Kind"], d2["Colorspace"], d2["Profiles"]),
                 (d["object_path"], "virtual", "printer", "cmyk", d["Profiles"]), "after the restart")
        lk = tinct_json(env, "lookup", dev_id, "CMYK.Plain.300dpi")
        check_eq((lk["relation"], lk["profile"]["object_path"]), ("hard", p["object_path"]), "resolves after restart")
        check_eq(tinct_json(env, "find-device", "virtual-proof-temporary")["Profiles"], [],
                 "the normal profile is gone, the device stays")
        r = tinct(env, "create-virtual-device", press, rc=1)
        check("already exists" in r.stderr, "still refused after the restart")

        # errors; nothing is left behind by any of them
        before = counts(env)
        r = tinct(env, "create-virtual-device", os.path.join(env.tmp, "no-such.icc"), rc=1)
        check("cannot read" in r.stderr and "No such file" in r.stderr and r.stdout == "", "missing: %r" % r.stderr)
        r = tinct(env, "create-virtual-device", "missing.icm", rc=1)
        check("cannot read missing.icm" in r.stderr, "missing relative file: %r" % r.stderr)
        bad = os.path.join(env.tmp, "proofing", "bad.icc")
        with open(bad, "wb") as f:
            f.write(open(CMYK, "rb").read()[:100])
        r = tinct(env, "create-virtual-device", bad, rc=1)
        check("not a usable ICC profile" in r.stderr and r.stdout == "", "malformed: %r" % r.stderr)
        expect_error(env, "org.freedesktop.ColorManager.NotFound", "create-virtual-device", "no-such-profile-id")
        check_eq(counts(env), before, "failed runs leave nothing")
        # AddProfile refused (modify-device denied for nobody): the new device and profile go again
        bluish = copy_to(env, os.path.join(CORPUS, "icc", "colord-data--Bluish.icc"), "bluish.icc")
        r = env.run([TINCT, "create-virtual-device", bluish, "display"], as_user="nobody")
        check(r.returncode == 5 and "FailedToAuthenticate" in r.stderr and r.stdout == "",
              "refused AddProfile: %r" % r.stderr)
        check_eq(counts(env), before, "a refused AddProfile is rolled back (device and imported profile)")
        tinct(env, "create-profile", "proof-root", "normal")
        r = env.run([TINCT, "create-virtual-device", "proof-root"], as_user="nobody")
        check(r.returncode == 5 and "FailedToAuthenticate" in r.stderr, "refused AddProfile: %r" % r.stderr)
        check_eq(counts(env), (before[0], before[1] + 1), "only the device is rolled back, not a profile it found")
        # usage errors (exit 2) and no daemon (exit 3)
        nobus = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"}
        for args in (["create-virtual-device"], ["create-virtual-device", press, "printer", "extra"],
                     ["create-virtual-device", press, "plotter"], ["create-virtual-device", press, "unknown"]):
            r = env.run([TINCT] + args, env=nobus)
            check_eq(r.returncode, 2, "usage error exit for %r (stderr %r)" % (args, r.stderr))
        r = env.run([TINCT, "create-virtual-device", press, "plotter"], env=nobus)
        check("unknown device kind 'plotter'" in r.stderr, "kind explained: %r" % r.stderr)
        r = env.run([TINCT, "create-virtual-device", press], env=nobus)
        check(r.returncode == 3 and r.stderr.startswith("tinct: ") and r.stdout == "",
              "no daemon: %r %r" % (r.returncode, r.stderr))


def remove_and_install():
    """device-remove-profile takes a profile off a device (and its mapping: a new device of
    that id gets nothing back); profile-install-system-wide copies a profile's file into
    the daemon's state directory, a second time refused with the daemon's error"""
    with TinctEnv(polkit="allow") as env:
        src = copy_to(env, SRGB, "to-install.icc")
        tinct(env, "create-device", "cups-Remove", "normal", "printer")
        env.run(["gdbus", "call", "--system", "-d", "org.freedesktop.ColorManager", "-o", M, "-m",
                 "org.freedesktop.ColorManager.CreateProfile", "rm-prof", "normal", "{'Filename': '%s'}" % src],
                check=True)
        tinct(env, "device-add-profile", "cups-Remove", "rm-prof")
        check_eq(len(tinct_json(env, "find-device", "cups-Remove")["Profiles"]), 1, "profile added")
        tinct(env, "device-remove-profile", "cups-Remove", "rm-prof")
        check_eq(tinct_json(env, "find-device", "cups-Remove")["Profiles"], [], "profile removed")
        r = env.run([TINCT, "device-remove-profile", "cups-Remove", "rm-prof"])
        check(r.returncode in (1, 4), "removing it again fails: exit %d" % r.returncode)
        check("ProfileDoesNotExist" in r.stderr or "NotFound" in r.stderr, "removing it again: %r" % r.stderr)
        tinct(env, "delete-device", "cups-Remove")
        tinct(env, "create-device", "cups-Remove", "normal", "printer")
        check_eq(tinct_json(env, "find-device", "cups-Remove")["Profiles"], [], "the mapping went with it")

        tinct(env, "profile-install-system-wide", "rm-prof")
        installed = os.path.join(env.state_dir, "icc", "to-install.icc")
        check(os.path.exists(installed), "installed into the state directory")
        with open(installed, "rb") as a, open(src, "rb") as b:
            check(a.read() == b.read(), "the same bytes")
        r = tinct(env, "profile-install-system-wide", "rm-prof", rc=1)
        check("FailedToWrite" in r.stderr, "a second install is refused: %r" % r.stderr)
        tinct(env, "profile-install-system-wide", rc=2)


def sensors_and_import():
    """colormgr's sensor-lock (held by a running tinct until Ctrl-C: another reading is
    refused meanwhile), sensor-set-options (the dummy then reads what was set),
    get-spectral-reading (the daemon's NoSupport, exit 1), dump (the store as JSON, in a file
    of the current directory and on stdout), and import-profile, whose copy lands in
    $XDG_DATA_HOME/icc and which waits for a session agent: none (exit 1, the copy stays),
    then one played by this test (CreateProfile with the copy's Filename; scope normal, as
    gdbus leaves the bus at once and a temp profile would go with it)."""
    with TinctEnv(polkit="allow", dummy_sensor=True) as env:
        e = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.address)
        lock = subprocess.Popen([TINCT, "sensor-lock"], env=e, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            check("Locked /org/freedesktop/ColorManager/sensors/" in lock.stdout.readline(), "sensor-lock locked")
            check("until Ctrl-C" in lock.stdout.readline(), "sensor-lock holds")
            check_eq(tinct_json(env, "get-sensors")["sensors"][0]["Locked"], True, "Locked while held")
            r = tinct(env, "get-sensor-reading", rc=1)
            check("AlreadyLocked" in r.stderr, "another reading refused: %r" % r.stderr)
            lock.send_signal(signal.SIGINT)
            check_eq(lock.wait(timeout=60), 0, "sensor-lock exit after Ctrl-C")
        finally:
            if lock.poll() is None:
                lock.kill()
        check_eq(tinct_json(env, "get-sensors")["sensors"][0]["Locked"], False, "unlocked afterwards")
        tinct(env, "sensor-lock", "1")  # a timed one ends by itself

        # the dummy reports its sRGB sample as XYZ: more red raises X, and the old value restores it
        before = tinct_json(env, "get-sensor-reading", "lcd")["readings"][0]
        tinct(env, "sensor-set-options", "sample[red]", "0.25")
        rd = tinct_json(env, "get-sensor-reading", "lcd")["readings"][0]
        check(rd["x"] > before["x"], "the option took: x %r -> %r" % (before["x"], rd["x"]))
        tinct(env, "sensor-set-options", "sample[red]", "0.1")
        rd = tinct_json(env, "get-sensor-reading", "lcd")["readings"][0]
        check_eq((rd["x"], rd["y"], rd["z"]), (before["x"], before["y"], before["z"]), "the default sample again")
        expect_error(env, "org.freedesktop.ColorManager.Sensor.NoSupport", "sensor-set-options", "colour", "red")
        check_eq(tinct_json(env, "get-sensors")["sensors"][0]["Locked"], False, "unlocked after a refused option")
        expect_error(env, "org.freedesktop.ColorManager.Sensor.NoSupport", "get-spectral-reading")
        r = env.run([TINCT, "get-spectral-reading", "lcd"])
        check_eq(r.returncode, 2, "lcd is not a spectral capability")

        # dump: the daemon is stopped first (its store is then complete and unlocked)
        tinct(env, "create-device", "dump-dev", "disk", "printer")
        env.stop_daemon()
        cwd = os.path.join(env.tmp, "dump-here")
        os.mkdir(cwd)
        r = env.run([TINCT, "dump", "--state-dir", env.state_dir], cwd=cwd)
        check_eq(r.returncode, 0, "dump: %s" % r.stderr)
        files = os.listdir(cwd)
        check(len(files) == 1 and files[0].startswith("tinct-") and files[0].endswith(".json"), "dump file %r" % files)
        with open(os.path.join(cwd, files[0])) as f:
            check_eq(f.read(), r.stdout, "file and stdout agree")
        check("dump-dev" in [d["id"] for d in json.loads(r.stdout)["devices"]], "the disk device is in the dump")
        env.start_daemon()

        data_home = os.path.join(env.tmp, "data-home")
        xdg = {"XDG_DATA_HOME": data_home}
        r = env.run([TINCT, "import-profile", SRGB, "1"], env=xdg)
        copy = os.path.join(data_home, "icc", os.path.basename(SRGB))
        check(r.returncode == 1 and "no session agent registered it" in r.stderr, "no agent: %r" % r.stderr)
        check(os.path.exists(copy), "the copy stays for the next session")
        os.unlink(copy)
        imp = subprocess.Popen([TINCT, "import-profile", "--json", SRGB, "60"], env=dict(e, **xdg), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            line = imp.stderr.readline()
            check(("Copied to %s" % copy) in line, "import-profile says where it copied: %r" % line)
            env.run(["gdbus", "call", "--system", "-d", "org.freedesktop.ColorManager", "-o", M, "-m",
                     "org.freedesktop.ColorManager.CreateProfile", "icc-imported", "normal",
                     "{'Filename': '%s'}" % copy], check=True)
            out, err = imp.communicate(timeout=60)
            check_eq(imp.returncode, 0, "import-profile found it (%s)" % err)
            check_eq(json.loads(out)["Filename"], copy, "the profile shown is the copy")
        finally:
            if imp.poll() is None:
                imp.kill()
        r = env.run([TINCT, "import-profile", os.path.join(env.tmp, "nothing.icc")], env=xdg)
        check(r.returncode == 1 and "cannot read" in r.stderr, "missing file: %r" % r.stderr)


def main():
    failed = 0
    tests = (session, errors, virtual, remove_and_install, sensors_and_import)
    for t in tests:
        print("test %s" % t.__name__, flush=True)
        try:
            t()
            print("ok %s" % t.__name__, flush=True)
        except Exception:
            failed += 1
            traceback.print_exc()
            print("FAIL %s" % t.__name__, flush=True)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
