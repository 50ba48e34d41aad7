#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct profile-build against ArgyllCMS's colprof, on the same measurements, scored by
Argyll's profcheck (CIEDE2000, -k) on a separate verification chart.

The display is simulated: Debian's `fakeread` looks the patches up in a real measured display
profile (the shared corpus's ThinkPad T61, a matrix profile with per-channel 256-entry curves
and a black offset), which gives the .ti3 a colorimeter run through `dispread` would give.
`targen` makes the training chart (ramps, white and black patches, optimised spread) and a
different verification chart; both are read from the same truth. Then once more with
measurement noise (`fakeread -R`, fixed seed) on the training chart only: the verification
stays exact, so the score says how well each tool recovers the true display from noisy data.

A third case reads a D65 display (DisplayCAL's laptop preset: sRGB-like curves, no black
offset), so that the white is far from D50 and the adaptation ('chad', v2's measured 'wtpt')
matters to profcheck's absolute-colorimetric scores.

The readings and colprof's scores are facts of Argyll's: stored in tests/data/argyll
(argyll.py: made by tests/cli/argyll-answers.sh, computed again when the installed Argyll
differs), so a run fits tinct's profiles only and scores them with profcheck.

Debian's Argyll 2.3.1 cannot read ICC v4 profiles, so profcheck scores tinct's `--v2` output;
the v4 profile must carry the same colorants, 'chad' and curves byte for byte (checked here).

Also: the v4 profile through tinct icc-info --json (display class, RGB, colord metadata, no
warnings), the header versions, 'wtpt' (D50 in v4, the measured white in v2), 'lumi' from
LUMINANCE_XYZ_CDM2, and malformed input: exit status 1, a message naming the problem, no
output file. The figures are measured on every run and printed.
Usage: test-profile-build.py TINCT CORPUS_DIR"""

import json
import os
import re
import shutil
import struct
import sys

from argyll import Answers, Work, stored_inputs, tags as tag_table

tinct, corpus = os.path.abspath(sys.argv[1]), sys.argv[2]
TRUTH = os.path.join(corpus, "icc", "colord-tests--ibm-t61.icc")
TRUTH_D65 = os.path.join(corpus, "icc", "displaycal--laptop.icc")
ARGYLL = ["targen", "fakeread", "colprof", "profcheck"]
missing = [t for t in ARGYLL if not shutil.which(t)]
if missing:
    print("SKIP: ArgyllCMS tools missing (scripts/install-deps.sh installs argyll):", " ".join(missing))
    sys.exit(77)

w = Work("tinct-profile-build-")
work, check, run, profcheck = w.dir, w.check, w.run, w.profcheck


def tags(path):
    """The file's bytes and its tags, signature -> bytes."""
    data, table = tag_table(path)
    return data, {sig: body for sig, (_, body) in table.items()}


def xyz_tag(b):
    assert b[:4] == b"XYZ ", b[:4]
    return [v / 65536.0 for v in struct.unpack(">iii", b[8:20])]


# --- charts and simulated readings (stored in tests/data/argyll/display; made when recording) ---


def make_readings():
    shutil.copy(TRUTH, os.path.join(work, "truth.icc"))
    shutil.copy(TRUTH_D65, os.path.join(work, "truth-d65.icc"))
    w.argyll("targen", "-d3", "-G", "-e8", "-B4", "-s20", "-f200", "train", outputs=["train.ti1"])
    w.argyll("targen", "-d3", "-e4", "-B2", "-g10", "-f300", "-q", "verify", outputs=["verify.ti1"])
    for name in ("noisy", "d65"):
        shutil.copy(os.path.join(work, "train.ti1"), os.path.join(work, name + ".ti1"))
    shutil.copy(os.path.join(work, "verify.ti1"), os.path.join(work, "verify-d65.ti1"))
    run("fakeread", "-S", "1", "truth.icc", "verify")
    run("fakeread", "-S", "2", "truth.icc", "train")
    run("fakeread", "-S", "3", "-R", "1.0", "truth.icc", "noisy")
    run("fakeread", "-S", "1", "truth-d65.icc", "verify-d65")
    run("fakeread", "-S", "2", "truth-d65.icc", "d65")


stored_inputs(w, "display", ["train.ti3", "noisy.ti3", "d65.ti3", "verify.ti3", "verify-d65.ti3"], make_readings)
answers = Answers("display")


def colprof_scores(case, verify):
    """Argyll's answer for a case: colprof -qm -as's profile scored by profcheck."""
    # colprof names its output after the .ti3; give it a copy of its own.
    shutil.copy(os.path.join(work, case + ".ti3"), os.path.join(work, case + "-argyll.ti3"))
    w.argyll("colprof", "-qm", "-as", "-D", "colprof " + case, case + "-argyll", inputs=[case + "-argyll.ti3"],
             outputs=[case + "-argyll.icc"])
    return profcheck(verify + ".ti3", case + "-argyll.icc")


# case: (training .ti3, verification .ti3, what it is)
CASES = {
    "train": ("verify", "T61, exact readings"),
    "noisy": ("verify", "T61, readings with noise (fakeread -R 1.0, seed 3)"),
    "d65": ("verify-d65", "D65 preset display (chad far from identity), exact readings"),
}
results = {}
for case, (verify, what) in CASES.items():
    print("%s:" % what)
    r = run(tinct, "profile-build", case + ".ti3", "-o", case + "-tinct-v2.icc", "--v2",
            "--description", "tinct " + case)
    print("    tinct's own report: " + r.stdout.strip().replace("\n", "\n        "))
    run(tinct, "profile-build", "-q", case + ".ti3", "-o", case + "-tinct.icc")
    res = {"tinct": profcheck(verify + ".ti3", case + "-tinct-v2.icc"),
           "colprof": answers.get(case, ["colprof -qm -as", w.path(case + ".ti3"), w.path(verify + ".ti3")],
                                  lambda: colprof_scores(case, verify))}
    results[case] = res
    for who in ("tinct", "colprof"):
        print("    %-8s verification dE2000: mean %.4f  max %.4f  rms %.4f" %
              (who, res[who]["mean"], res[who]["max"], res[who]["rms"]))
    t, c = res["tinct"], res["colprof"]
    check(t["mean"] <= c["mean"] * 1.10 + 0.05,
          "tinct mean %.4f <= colprof mean %.4f x 1.10 + 0.05" % (t["mean"], c["mean"]))
    check(t["max"] <= c["max"] * 2 + 0.5,
          "tinct max %.4f <= colprof max %.4f x 2 + 0.5" % (t["max"], c["max"]))

    # v4 and v2 differ in the header version and 'wtpt' only.
    d4, t4 = tags(os.path.join(work, case + "-tinct.icc"))
    d2, t2 = tags(os.path.join(work, case + "-tinct-v2.icc"))
    same = all(t4.get(s) == t2.get(s) and s in t4 for s in
               ("rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC", "chad"))
    check(same, "v4 and v2 profiles have the same colorants, curves and chad")

print("measured (verification chart, CIEDE2000 via profcheck -k):")
for case, (verify, what) in CASES.items():
    for who in ("tinct", "colprof"):
        r = results[case][who]
        print("    %-6s %-7s mean %.3f max %.3f" % (case, who, r["mean"], r["max"]))

# --- the written profile ---
print("the v4 profile:")
d4, t4 = tags(os.path.join(work, "train-tinct.icc"))
d2, t2 = tags(os.path.join(work, "train-tinct-v2.icc"))
check(d4[8:10] == b"\x04\x30", "v4 header version 4.3 (got %s)" % d4[8:10].hex())
check(d2[8:10] == b"\x02\x40", "v2 header version 2.4 (got %s)" % d2[8:10].hex())
check(d4[12:16] == b"mntr" and d4[16:20] == b"RGB " and d4[20:24] == b"XYZ ", "display class, RGB, XYZ PCS")
wtpt4 = xyz_tag(t4["wtpt"])
check(all(abs(a - b) < 1e-4 for a, b in zip(wtpt4, (0.9642, 1.0, 0.8249))), "v4 wtpt is D50: %s" % wtpt4)
wtpt2 = xyz_tag(t2["wtpt"])
check(abs(wtpt2[1] - 1) < 1e-4 and abs(wtpt2[0] - 0.9642) > 0.001, "v2 wtpt is the measured white: %s" % wtpt2)
check("chad" in t4 and "desc" in t4 and "cprt" in t4 and "meta" in t4, "chad, desc, cprt and meta present")
check("lumi" not in t4, "no lumi without a luminance")

r = run(tinct, "icc-info", "--json", "train-tinct.icc")
info = json.loads(r.stdout)
md = info["metadata"]
check(info["kind"] == "display-device" and info["colorspace"] == "rgb", "icc-info: display-device, rgb")
check(info["warnings"] == [], "icc-info: no warnings (%s)" % info["warnings"])
check(md.get("DATA_source") == "calib" and md.get("CMF_product") == "tinct"
      and md.get("CMF_binary") == "tinct profile-build" and "CMF_version" in md,
      "metadata DATA_source=calib, CMF_product, CMF_binary, CMF_version")
check(all(("ACCURACY_dE76_" + k) in md for k in ("avg", "max", "rms")), "metadata ACCURACY_dE76_avg/max/rms")
check(info["description"].startswith("Display profile"),
      "default description: %s" % info["description"])
r = run(tinct, "icc-info", "--json", "train-tinct-v2.icc")
info2 = json.loads(r.stdout)
check(info2["description"] == "tinct train" and info2["warnings"] == [], "v2 profile: description, no warnings")

# Deterministic: the same input gives the same bytes.
run(tinct, "profile-build", "-q", "train.ti3", "-o", "again.icc")
check(open(os.path.join(work, "again.icc"), "rb").read() == d4, "same measurements, same bytes")

# 'lumi' from LUMINANCE_XYZ_CDM2 (as dispread writes it), and an absolute-scale file.
text = open(os.path.join(work, "train.ti3")).read()
lum = text.replace('DEVICE_CLASS "DISPLAY"', 'DEVICE_CLASS "DISPLAY"\nKEYWORD "LUMINANCE_XYZ_CDM2"\n'
                   'LUMINANCE_XYZ_CDM2 "116.3 120.0 102.5"\nKEYWORD "NORMALIZED_TO_Y_100"\n'
                   'NORMALIZED_TO_Y_100 "YES"', 1)
open(os.path.join(work, "lum.ti3"), "w").write(lum)
run(tinct, "profile-build", "-q", "lum.ti3", "-o", "lum.icc", "--copyright", "Test copyright")
_, tl = tags(os.path.join(work, "lum.icc"))
check("lumi" in tl and abs(xyz_tag(tl["lumi"])[1] - 120.0) < 0.01, "lumi Y = 120 cd/m² from LUMINANCE_XYZ_CDM2")
info = json.loads(run(tinct, "icc-info", "--json", "lum.icc").stdout)
check(info["copyright"] == "Test copyright", "--copyright")

# Absolute readings (NORMALIZED_TO_Y_100 "NO", cd/m²): the white's luminance becomes 'lumi'.
lines, in_data, tables = [], False, 0
for line in text.split("\n"):
    if line == "END_DATA":
        in_data = False
    if in_data:
        f = line.split()
        line = " ".join(f[:4] + ["%.6f" % (float(v) * 1.2) for v in f[4:7]])
    if line == "BEGIN_DATA":
        tables += 1
        in_data = tables == 1  # the measurements, not the CAL table after them
    lines.append(line)
absolute = "\n".join(lines).replace('DEVICE_CLASS "DISPLAY"', 'DEVICE_CLASS "DISPLAY"\nNORMALIZED_TO_Y_100 "NO"', 1)
open(os.path.join(work, "absolute.ti3"), "w").write(absolute)
run(tinct, "profile-build", "-q", "absolute.ti3", "-o", "absolute.icc")
_, ta = tags(os.path.join(work, "absolute.icc"))
white_y = 1.2 * sum(float(l.split()[5]) for l in text.split("\n") if re.match(r"^\d+ 100 100 100 ", l)) / \
    len([l for l in text.split("\n") if re.match(r"^\d+ 100 100 100 ", l)])
lumi_y = xyz_tag(ta["lumi"])[1] if "lumi" in ta else None
check(lumi_y is not None and abs(lumi_y - white_y) < 0.01,
      "absolute readings: lumi Y = %s cd/m², the white's %.3f" % (lumi_y, white_y))

# --- malformed measurements: exit 1, a clear message, nothing written ---
print("malformed input:")
good = text
bad = {
    "missing-field": (good.replace("XYZ_Z", "XYZ_Q", 1), "no XYZ_Z field"),
    "wrong-count": (good.replace("NUMBER_OF_SETS 200", "NUMBER_OF_SETS 201", 1), "sets of data, NUMBER_OF_SETS is 201"),
    "not-a-number": (re.sub(r"\n2 (\S+) ", r"\n2 abc ", good, count=1), 'RGB_R "abc" is not a number'),
    "short-row": (re.sub(r"\n3 \S+ ", "\n3 ", good, count=1), "NUMBER_OF_FIELDS is 7"),
    "no-end": (good[:good.index("\nEND_DATA\n") + 1], "no END_DATA"),
    "runs-on": (good.replace("\nEND_DATA\n", "\n", 1), "more data than NUMBER_OF_SETS (200) sets"),
    "not-display": (good.replace('DEVICE_CLASS "DISPLAY"', 'DEVICE_CLASS "INPUT"'), "not display measurements"),
    "lab": (good.replace('COLOR_REP "RGB_XYZ"', 'COLOR_REP "RGB_LAB"'), 'expected "RGB_XYZ"'),
    "no-white": (re.sub(r"\n(\d+) 100 100 100 ", r"\n\1 99 100 100 ", good), "no white patch"),
    "binary": ("CTI3\n\0\1\2", "NUL byte"),
    "empty": ("", "empty"),
}
for name, (content, message) in bad.items():
    path = os.path.join(work, "bad-%s.ti3" % name)
    with open(path, "w") as f:
        f.write(content)
    out = os.path.join(work, "bad-%s.icc" % name)
    r = run(tinct, "profile-build", path, "-o", out, ok=False)
    check(r.returncode == 1 and message in r.stderr and not os.path.exists(out),
          "%s: exit %d, %r" % (name, r.returncode, r.stderr.strip()))
huge = os.path.join(work, "huge.ti3")
with open(huge, "wb") as f:
    f.truncate(17 * 1024 * 1024)
r = run(tinct, "profile-build", huge, "-o", "huge.icc", ok=False)
check(r.returncode == 1 and "larger than" in r.stderr and not os.path.exists(os.path.join(work, "huge.icc")),
      "huge file: exit %d, %r" % (r.returncode, r.stderr.strip()))
r = run(tinct, "profile-build", "nonexistent.ti3", "-o", "x.icc", ok=False)
check(r.returncode == 1 and "nonexistent.ti3" in r.stderr, "missing file: exit %d" % r.returncode)
r = run(tinct, "profile-build", "train.ti3", ok=False)
check(r.returncode == 2 and "Usage" in r.stderr, "no -o: usage, exit 2")

# Options that do not apply to what was asked: usage errors (exit 2), nothing written.
print("options that do not apply:")
for opts, message in ((["--ink-limit", "300"], "--ink-limit is for printers"),
                      (["--black", "max"], "--black is for printers"),
                      (["--corners", "1,2,3,4,5,6,7,8"], "--corners is for an input profile from an image"),
                      (["--model", "lut"], "--model is for an input profile from an image")):
    r = run(tinct, "profile-build", "train.ti3", "-o", "x.icc", *opts, ok=False)
    check(r.returncode == 2 and message in r.stderr and "Usage: tinct profile-build" in r.stderr
          and not os.path.exists(os.path.join(work, "x.icc")), "%s on a display's file: exit %d, %r"
          % (opts[0], r.returncode, r.stderr.strip().split("\n")[0]))

w.finish()
