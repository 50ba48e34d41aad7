#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct verify and the drift in tinct doctor (docs/verify.md), against a private daemon
(tests/harness/harness.py) whose dummy sensor measures a virtual display (tinctd
--dummy-sensor-display: the stand-in for a real screen and instrument, which this machine
has not). The virtual display's true response is the ThinkPad T61 profile of the corpus.

* A display whose profile is that truth: every patch within rounding (ΔE00 < 0.05).
* A display whose profile is sRGB: the figures say how far the display is from it (mean > 1),
  and the exit status is still 0 (it measured). Each patch's ΔE00 is recomputed here from the
  expected and measured Lab in the document; mean and max from the patches.
* --json: mean, max and patches at the top level (docs/json.md); the result stored in the
  device's Metadata with an ISO 8601 date; --svg draws 2 swatches per patch in the colours
  of the document (checked by parsing the SVG).
* tinct doctor: "measured ΔE X mean on DAY; Y when profiled on DAY" once a verification made
  when profiling is on the device (here set with Device.SetProperty as the calibration
  helper does; the helper itself is tested in tests/session/test-calibrate.py).
* After a restart of tinctd, the devices made again: the results come back from the store
  (the same Metadata keys) and doctor says the same drift; an incomplete or malformed
  result set by hand is not recorded.
* Could not measure: no profile, a printer, an unknown device (exit 4), a daemon whose
  dummy sensor has no virtual display and no $DISPLAY to show patches on: non-zero with a
  clear message, nothing stored.
argv[1] is the tinct binary."""

import json
import os
import re
import sys
import xml.etree.ElementTree as ET

from cie import ciede2000

from harness import TinctEnv

TINCT = sys.argv[1]
CORPUS = os.environ.get("TINCT_CORPUS_DIR", "")
T61 = os.path.join(CORPUS, "icc", "colord-tests--ibm-t61.icc")
SRGB = os.path.join(CORPUS, "icc", "colord-data--sRGB.icc")
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
failures = []


def check(cond, what):
    print("    %s: %s" % ("ok" if cond else "FAIL", what), flush=True)
    if not cond:
        failures.append(what)


def run(env, *args, rc=0):
    r = env.run([TINCT] + list(args))
    if rc is not None and r.returncode != rc:
        failures.append("tinct %s: exit %d, want %d: %s%s" % (" ".join(args), r.returncode, rc, r.stdout, r.stderr))
        print("    FAIL: tinct %s: exit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr), flush=True)
    return r


def gdbus(env, *args):
    return env.run(["gdbus", "call", "--system", "-d", "org.freedesktop.ColorManager"] + list(args), check=True)


def create_profile(env, pid, filename):
    gdbus(env, "-o", "/org/freedesktop/ColorManager", "-m", "org.freedesktop.ColorManager.CreateProfile", pid,
          "normal", "{'Filename': '%s'}" % filename)


def metadata(env, device):
    return json.loads(run(env, "find-device", device, "--json").stdout)["Metadata"]


def check_document(doc, what):
    check(set(doc) == {"device", "profile", "date", "mean", "max", "patches", "stored"},
          "%s: the documented keys: %s" % (what, sorted(doc)))
    check(ISO.match(doc["date"]) is not None, "%s: ISO 8601 date %s" % (what, doc["date"]))
    p = doc["patches"]
    check(len(p) == 27 and p[0]["name"] == "white" and p[0]["rgb"] == [1, 1, 1], "%s: 27 patches, white first" % what)
    worst = max(abs(ciede2000(x["expected_lab"], x["measured_lab"]) - x["de2000"]) for x in p)
    check(worst < 1e-3, "%s: each de2000 is CIEDE2000 of expected and measured (off by %.2g at most)" % (what, worst))
    mean = sum(x["de2000"] for x in p) / len(p)
    check(abs(mean - doc["mean"]) < 1e-3 and abs(max(x["de2000"] for x in p) - doc["max"]) < 1e-3,
          "%s: mean %.4f and max %.4f are the patches'" % (what, doc["mean"], doc["max"]))


with TinctEnv(polkit="allow", extra_args=["--dummy-sensor-display", T61]) as env:
    run(env, "create-device", "xrandr-Exact", "normal", "display")
    run(env, "create-device", "xrandr-Drift", "normal", "display")
    run(env, "create-device", "xrandr-Bare", "normal", "display")
    run(env, "create-device", "cups-Verify", "normal", "printer")
    create_profile(env, "truth-profile", T61)
    create_profile(env, "srgb-profile", SRGB)
    run(env, "device-add-profile", "xrandr-Exact", "truth-profile")
    run(env, "device-add-profile", "xrandr-Drift", "srgb-profile")
    run(env, "device-add-profile", "cups-Verify", "srgb-profile")

    print("a display whose profile is the truth:")
    svg = os.path.join(env.tmp, "exact.svg")
    exact = json.loads(run(env, "verify", "xrandr-Exact", "--json", "--svg", svg).stdout)
    check_document(exact, "exact")
    check(exact["max"] < 0.05 and exact["profile"] == "truth-profile" and exact["stored"],
          "ΔE00 mean %.4f, max %.4f against its own truth; stored" % (exact["mean"], exact["max"]))
    meta = metadata(env, "xrandr-Exact")
    check(meta.get("TINCT_verify_dE2000_mean") == "%.3f" % exact["mean"]
          and meta.get("TINCT_verify_profile") == "truth-profile" and meta.get("TINCT_verify_patches") == "27"
          and meta.get("TINCT_verify_date") == exact["date"], "stored on the device: %r" % meta)
    root = ET.parse(svg).getroot()
    rects = [e for e in root.iter() if e.tag.endswith("rect") and e.get("stroke") == "#888"]
    check(len(rects) == 54, "SVG: expected and measured swatches for 27 patches (%d)" % len(rects))
    black = [int(rects[2].get("fill")[i:i + 2], 16) for i in (1, 3, 5)]
    check(rects[0].get("fill") == "#ffffff" and sum(black) < 40,
          "SVG: white, then the display's black (%s, %s)" % (rects[0].get("fill"), rects[2].get("fill")))
    check("xrandr-Exact" in ET.tostring(root, encoding="unicode"), "SVG: names the device")

    print("a display whose profile is not its own (sRGB):")
    svg = os.path.join(env.tmp, "drift.svg")
    r = run(env, "verify", "xrandr-Drift", "--svg", svg)
    check("dE2000 mean" in r.stdout and "dark skin" in r.stdout, "text report: %s" % r.stdout.strip().split("\n")[-1])
    drift = json.loads(run(env, "verify", "xrandr-Drift", "--json").stdout)
    check_document(drift, "drift")
    check(drift["mean"] > 1.0 and drift["max"] > drift["mean"], "ΔE00 mean %.3f, max %.3f: exit 0 all the same"
          % (drift["mean"], drift["max"]))
    fills = {e.get("fill") for e in ET.parse(svg).getroot().iter() if e.tag.endswith("rect")}
    check("#c62828" in fills, "SVG: a patch above ΔE 3 is drawn red")
    print("    measured: exact mean %.4f max %.4f; against sRGB mean %.3f max %.3f" %
          (exact["mean"], exact["max"], drift["mean"], drift["max"]), flush=True)

    print("tinct doctor:")
    text = run(env, "doctor", "xrandr-Drift").stdout
    day = drift["date"][:10]
    check("measured ΔE %.1f mean on %s; no measurement from when it was profiled" % (drift["mean"], day) in text,
          "before a profiling record: %r" % text)
    # What the calibration helper stores at the end of a run (src/session/calib-run.c).
    dev = json.loads(run(env, "find-device", "xrandr-Drift", "--json").stdout)["object_path"]
    # The date last: it makes the daemon record the result in its store (docs/verify.md).
    for k, v in (("dE2000_mean", "0.300"), ("dE2000_max", "0.900"), ("profile", "srgb-profile"),
                 ("patches", "27"), ("date", "2026-11-02T10:00:00Z")):
        gdbus(env, "-o", dev, "-m", "org.freedesktop.ColorManager.Device.SetProperty", "TINCT_profiled_" + k, v)
    text = run(env, "doctor", "xrandr-Drift").stdout
    want = "measured ΔE %.1f mean on %s; 0.3 when profiled on 2026-11-02" % (drift["mean"], day)
    check(want in text, "drift: %r in %r" % (want, text))
    doc = json.loads(run(env, "doctor", "xrandr-Drift", "--json").stdout)
    check(any(want in f for f in doc["devices"][0]["findings"]), "drift in --json findings")
    text = run(env, "doctor", "xrandr-Bare").stdout
    check("ΔE" not in text, "no verification, no drift sentence")

    print("could not measure:")
    r = run(env, "verify", "xrandr-Bare", rc=1)
    check("has no profile" in r.stderr and "TINCT_verify_date" not in metadata(env, "xrandr-Bare"),
          "no profile: exit 1, nothing stored (%s)"
          % r.stderr.strip())
    r = run(env, "verify", "cups-Verify", rc=1)
    check("measures displays" in r.stderr, "a printer: exit 1, %r" % r.stderr.strip())
    r = run(env, "verify", "no-such-device", rc=4)
    check(r.returncode == 4, "unknown device: exit 4")

    print("after a restart of tinctd (displays are made anew at every start):")
    env.restart()
    run(env, "create-device", "xrandr-Drift", "normal", "display")
    run(env, "create-device", "xrandr-Exact", "normal", "display")
    create_profile(env, "srgb-profile", SRGB)
    run(env, "device-add-profile", "xrandr-Drift", "srgb-profile", rc=None)  # the stored hard mapping may have done it
    text = run(env, "doctor", "xrandr-Drift").stdout
    check(want in text, "drift from the store: %r in %r" % (want, text))
    meta = metadata(env, "xrandr-Exact")
    check(meta.get("TINCT_verify_dE2000_mean") == "%.3f" % exact["mean"] and meta.get("TINCT_verify_date") == exact["date"]
          and meta.get("TINCT_verify_profile") == "truth-profile" and meta.get("TINCT_verify_patches") == "27"
          and not any(k.startswith("TINCT_profiled_") for k in meta), "the last verification back: %r" % meta)
    # A date without a whole result before it is only metadata; a malformed date is not kept.
    dev = json.loads(run(env, "find-device", "xrandr-Exact", "--json").stdout)["object_path"]
    gdbus(env, "-o", dev, "-m", "org.freedesktop.ColorManager.Device.SetProperty", "TINCT_profiled_date",
          "2026-11-03T10:00:00Z")
    gdbus(env, "-o", dev, "-m", "org.freedesktop.ColorManager.Device.SetProperty", "TINCT_verify_date", "yesterday")
    env.restart()
    run(env, "create-device", "xrandr-Exact", "normal", "display")
    meta = metadata(env, "xrandr-Exact")
    check(meta.get("TINCT_verify_date") == exact["date"] and "TINCT_profiled_date" not in meta,
          "neither an incomplete nor a malformed result was recorded: %r" % meta)

with TinctEnv(polkit="allow", dummy_sensor=True) as env:
    run(env, "create-device", "xrandr-Real", "normal", "display")
    create_profile(env, "truth-profile", T61)
    run(env, "device-add-profile", "xrandr-Real", "truth-profile")
    # Without $DISPLAY (or X11) nothing can show the patches to a sensor that is not a
    # virtual display; the window itself is tests/cli/test-verify-x11.py's.
    r = env.run([TINCT, "verify", "xrandr-Real"], env={"DISPLAY": ""})
    check(r.returncode == 1 and "needs the patches on the screen" in r.stderr,
          "a sensor without a virtual display and no $DISPLAY: exit %d, %r" % (r.returncode, r.stderr.strip()))
    check("TINCT_verify_date" not in metadata(env, "xrandr-Real"), "nothing stored")

if failures:
    print("FAILED: %d check(s)" % len(failures))
    sys.exit(1)
print("all checks passed")
