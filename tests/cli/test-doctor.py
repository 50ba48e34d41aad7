#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct doctor against a private daemon (tests/harness/harness.py): a display with the
user's (hard) profile, a printer whose soft profile's file went missing, a disabled display
without a profile, a device being profiled (an inhibition held by a running tinct), and an id
two owners share (root's device and nobody's). Each finding is checked in the text and in
the --json document; one device by id; an unknown device is exit 1.
argv[1] is the tinct binary."""

import json
import os
import shutil
import subprocess
import sys

from harness import TinctEnv

TINCT = sys.argv[1]
CORPUS = os.environ.get("TINCT_CORPUS_DIR", "")
T61 = os.path.join(CORPUS, "icc", "colord-tests--ibm-t61.icc")
SRGB = os.path.join(CORPUS, "icc", "colord-data--sRGB.icc")
failures = []


def check(cond, what):
    print("    %s: %s" % ("ok" if cond else "FAIL", what), flush=True)
    if not cond:
        failures.append(what)


def run(env, *args, rc=0, as_user=None):
    r = env.run([TINCT] + list(args), as_user=as_user)
    if r.returncode != rc:
        failures.append("tinct %s: exit %d, want %d: %s%s" % (" ".join(args), r.returncode, rc, r.stdout, r.stderr))
    return r


def gdbus_create_profile(env, pid, filename):
    env.run(["gdbus", "call", "--system", "-d", "org.freedesktop.ColorManager", "-o", "/org/freedesktop/ColorManager",
             "-m", "org.freedesktop.ColorManager.CreateProfile", pid, "normal", "{'Filename': '%s'}" % filename],
            check=True)


with TinctEnv(polkit="allow") as env:
    gone = os.path.join(env.tmp, "gone.icc")
    shutil.copy(SRGB, gone)
    run(env, "create-device", "xrandr-Mon", "normal", "display")
    run(env, "create-device", "xrandr-Off", "normal", "display")
    run(env, "create-device", "cups-Photo", "normal", "printer")
    run(env, "create-device", "xrandr-Busy", "normal", "display")
    gdbus_create_profile(env, "mon-profile", T61)
    gdbus_create_profile(env, "photo-profile", gone)
    run(env, "device-add-profile", "xrandr-Mon", "mon-profile")
    run(env, "device-add-profile", "--soft", "cups-Photo", "photo-profile")
    run(env, "device-add-profile", "xrandr-Busy", "mon-profile")
    run(env, "device-set-enabled", "xrandr-Off", "false")
    os.unlink(gone)
    run(env, "create-device", "xrandr-Mon", "normal", "display", as_user="nobody")  # the same id, nobody's

    e = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.address)
    inh = subprocess.Popen([TINCT, "device-inhibit", "xrandr-Busy"], env=e, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
    try:
        check("inhibited" in inh.stdout.readline(), "an inhibition is held")
        text = run(env, "doctor").stdout
        print(text)
        doc = json.loads(run(env, "doctor", "--json").stdout)
    finally:
        inh.kill()
        inh.wait()
        inh.stdout.close()

    by_id = {}
    for d in doc["devices"]:
        by_id.setdefault(d["device_id"], d)
    mon, off, photo, busy = (by_id[i] for i in ("xrandr-Mon", "xrandr-Off", "cups-Photo", "xrandr-Busy"))
    check(mon["ok"] and mon["relation"] == "hard" and mon["filename"] == T61, "display: the user's profile, its file")
    check(any("the user chose it (hard)" in f for f in mon["findings"]), "says the user chose it")
    check(any("2 devices have the id xrandr-Mon" in f for f in mon["findings"]), "says the id is shared")
    check(not photo["ok"] and photo["relation"] == "soft", "printer: soft profile, needs attention")
    check(any("is missing" in f and gone in f for f in photo["findings"]), "says the file is missing")
    check(not off["ok"] and not off["enabled"] and off["profile"] is None, "disabled display without profile")
    check(any("disabled" in f for f in off["findings"]) and any("no profile" in f for f in off["findings"]),
          "says disabled and no profile")
    check(busy["inhibited"] and not busy["ok"] and any("being profiled" in f for f in busy["findings"]),
          "says it is being profiled")
    check(any("no EDID" in f for f in mon["findings"]), "display without EDID noted")
    check("needing attention." in text and "xrandr-Off (display)  — needs attention" in text, "text summary")

    one = json.loads(run(env, "doctor", "--json", "cups-Photo").stdout)["devices"]
    check([d["device_id"] for d in one] == ["cups-Photo"], "one device by id")
    r = run(env, "doctor", "cups-Nothing", rc=4)
    check("NotFound" in r.stderr, "unknown device: the daemon's error, exit 4 (not found)")

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
