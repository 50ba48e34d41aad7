#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct verify with a sensor that is not a virtual display: it shows its own patches in a
window on X11 (docs/verify.md, "Where the patches come from"), here on Xvfb.

The instrument is a stand-in, as this machine has no colorimeter: tinctd
--dummy-sensor-x11 DISPLAY (tests only) makes the dummy sensor read the pixel at the centre
of that X screen, where a colorimeter would be held, and turn it into XYZ through its
virtual display's profile (the corpus's ThinkPad T61). So what the "sensor" reads is what
the window put on the screen, and the dummy refuses simulate-patch meanwhile (checked).

* The same device first through the virtual display (simulate-patch), then through the
  window: exit 0, the same measured Lab per patch (within 0.01) and ΔE00 mean < 0.01
  against the truth.
* The window is gone afterwards (xwininfo -root -tree), also when the sensor failed half-way
  (a stand-in whose X display does not exist: exit 1, the reason said).
* Interrupted (SIGINT) while the plain dummy (2 s a reading) measures: it says where to hold
  the instrument, the window is a centred square on the output, then exit 1, the window
  gone, the sensor unlocked, nothing stored.
* Without $DISPLAY a sensor that is not a virtual display is refused: exit 1, a clear
  message, nothing stored.
argv[1] is the tinct binary."""

import json
import os
import selectors
import signal
import subprocess
import sys
import time
import types

from harness import TinctEnv
from session_env import Xvfb

TINCT = sys.argv[1]
CORPUS = os.environ.get("TINCT_CORPUS_DIR", "")
T61 = os.path.join(CORPUS, "icc", "colord-tests--ibm-t61.icc")
failures = []


def check(cond, what):
    print("    %s: %s" % ("ok" if cond else "FAIL", what), flush=True)
    if not cond:
        failures.append(what)


def run(env, *args, rc=0, display=None):
    r = env.run([TINCT] + list(args), env={"DISPLAY": display or ""})
    if rc is not None and r.returncode != rc:
        check(False, "tinct %s: exit %d, want %d: %s%s" % (" ".join(args), r.returncode, rc, r.stdout, r.stderr))
    return r


def gdbus(env, *args):
    return env.run(["gdbus", "call", "--system", "-d", "org.freedesktop.ColorManager"] + list(args), check=True)


def make_display(env):
    """xrandr-Screen, profiled with the truth, on Xvfb's RandR output "screen"."""
    run(env, "create-device", "xrandr-Screen", "normal", "display")
    gdbus(env, "-o", "/org/freedesktop/ColorManager", "-m", "org.freedesktop.ColorManager.CreateProfile",
          "truth-profile", "normal", "{'Filename': '%s'}" % T61)
    run(env, "device-add-profile", "xrandr-Screen", "truth-profile", rc=None)  # after a restart: stored
    dev = json.loads(run(env, "find-device", "xrandr-Screen", "--json").stdout)["object_path"]
    gdbus(env, "-o", dev, "-m", "org.freedesktop.ColorManager.Device.SetProperty", "XRANDR_name", "screen")


def windows(x):
    r = subprocess.run(["xwininfo", "-root", "-tree", "-display", x.display], capture_output=True, text=True,
                       timeout=60, check=True)
    return [line for line in r.stdout.splitlines() if "tinct verify" in line]


def metadata(env):
    return json.loads(run(env, "find-device", "xrandr-Screen", "--json").stdout)["Metadata"]


# Xvfb needs only a deadline from the environment; it runs before the daemon that reads it.
with Xvfb(types.SimpleNamespace(timeout=60)) as x, \
        TinctEnv(polkit="allow", extra_args=["--dummy-sensor-display", T61]) as env:
    print("through the virtual display (simulate-patch):")
    make_display(env)
    virtual = json.loads(run(env, "verify", "xrandr-Screen", "--json").stdout)
    check(virtual["mean"] < 0.01, "virtual display: ΔE00 mean %.4f" % virtual["mean"])

    print("through a window on the X screen, read by the stand-in:")
    env.extra_args += ["--dummy-sensor-x11", x.display]
    env.restart()
    make_display(env)
    r = run(env, "verify", "xrandr-Screen", rc=1)
    # The virtual display's result came back from the store; the refusal leaves it.
    check("$DISPLAY is not set" in r.stderr and metadata(env).get("TINCT_verify_date") == virtual["date"],
          "no $DISPLAY: exit 1, nothing stored: %r" % r.stderr.strip())
    screen = json.loads(run(env, "verify", "xrandr-Screen", "--json", display=x.display).stdout)
    check(len(screen["patches"]) == 27 and screen["stored"], "measured 27 patches, stored")
    worst = max(abs(a - b) for p, q in zip(virtual["patches"], screen["patches"])
                for a, b in zip(p["measured_lab"], q["measured_lab"]))
    check(worst < 0.01, "the same measured Lab as the virtual display (off by %.4f at most)" % worst)
    check(screen["mean"] < 0.01 and screen["max"] < 0.05,
          "against the truth: ΔE00 mean %.4f, max %.4f" % (screen["mean"], screen["max"]))
    check(metadata(env).get("TINCT_verify_date") == screen["date"], "the result is on the device")
    check(windows(x) == [], "no window left: %r" % windows(x))
    print("    measured: virtual mean %.4f max %.4f; window mean %.4f max %.4f" %
          (virtual["mean"], virtual["max"], screen["mean"], screen["max"]), flush=True)

    opts = json.loads(run(env, "get-sensors", "--json").stdout)["sensors"][0]["Options"]
    check(opts.get("simulate-x11") == x.display, "Options name the X screen the stand-in reads: %r" % opts)
    r = run(env, "sensor-set-options", "simulate-patch", "0.5,0.5,0.5", rc=1)
    check("NoSupport" in r.stderr and "reads the X screen" in r.stderr,
          "the stand-in refuses simulate-patch: %r" % r.stderr.strip())

    print("a sensor that fails while the window is up:")
    env.extra_args[-1] = ":2147483647"  # an X display nobody serves
    env.restart()
    make_display(env)
    r = run(env, "verify", "xrandr-Screen", rc=1, display=x.display)
    check("cannot open the X display" in r.stderr, "exit 1 with the reason: %r" % r.stderr.strip())
    check(windows(x) == [], "no window left: %r" % windows(x))

    print("interrupted (SIGINT) while measuring with a sensor that is not a stand-in:")
    # The plain dummy: 2 s a reading, so the window is up long enough to be seen.
    env.extra_args = ["--create-dummy-sensor"]
    env.restart()
    make_display(env)
    p = subprocess.Popen([TINCT, "verify", "xrandr-Screen"], env=dict(env._env(), DISPLAY=x.display),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        hold = ""
        deadline = time.monotonic() + env.timeout
        with selectors.DefaultSelector() as sel:
            sel.register(p.stderr, selectors.EVENT_READ)
            while "Hold the instrument" not in hold and sel.select(max(0, deadline - time.monotonic())):
                line = p.stderr.readline()
                if not line:
                    break
                hold = line
        check("middle of output screen: 27 patches" in hold, "it says where to hold the instrument: %r" % hold)
        shown = windows(x)
        # Xvfb's 1024x768 output "screen": a square of 3/4 of 768, centred.
        check(len(shown) == 1 and "576x576+224+96" in shown[0], "the window on the screen: %r" % shown)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=env.timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    check(p.returncode == 1 and "interrupted" in err, "exit %d: %r" % (p.returncode, err.strip()))
    check(windows(x) == [], "no window left: %r" % windows(x))
    sensors = json.loads(run(env, "get-sensors", "--json").stdout)["sensors"]
    check(sensors[0]["Locked"] is False, "the sensor is unlocked")
    check(metadata(env).get("TINCT_verify_date") == screen["date"], "nothing stored")

if failures:
    print("FAILED: %d check(s)" % len(failures))
    sys.exit(1)
print("all checks passed")
