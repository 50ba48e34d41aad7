#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct profile-build --chart LAYOUT --reference REF IMAGE: input profiles from images of a
chart, scored against the truth on colours the profile never saw, beside ArgyllCMS's
scanin + colprof on the very same images.

The camera is simulated (no camera here): a real camera's input profile from the shared
corpus (RawTherapee's Canon EOS 5D, a LUT profile) is the truth. Each chart's reference
values are looked up backwards through it (Argyll's xicclu) to the device RGB the camera
would record, and chart_render.py draws the chart with them: rotated, scaled, with keystone,
blur, vignetting and noise, on a background. tinct and Argyll build from the same file;
both profiles are then scored on another chart's patches (device values from the truth):
CIEDE2000 between each profile's prediction and the truth's, through lcms2 (icc-eval).
Argyll's scores are stored in tests/data/argyll with a hash of the image and the unseen
colours they were made from (argyll.py; tests/cli/argyll-answers.sh makes them): a run
renders the images (once per ./run-tests: the first pass to need an image renders it, the
other loads it), fits and scores tinct's profiles, and runs scanin and colprof only when
the installed Argyll or the rendered image differs from the stored answer's.

Also: bad input (exit status 1, a message that says why, no profile): an image without the
chart, a reference with another patch count, the other edition of the ColorChecker's
values, a truncated image, an image over the size cap; warnings for an image that was
colour-converted (embedded sRGB profile) and for clipped patches; --corners when the chart
is too small to be found. Figures are printed on every run.
Usage: test-profile-build-chart.py TINCT ICC_EVAL CORPUS_DIR"""

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import zlib

from argyll import Answers, Work, sanitized, shared
from cie import ciede2000

tinct, icc_eval, corpus = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
REF = "/usr/share/color/argyll/ref"
TRUTH = os.path.join(corpus, "icc", "rawtherapee-data--Canon_EOS_5D.icc")
SRGB = os.path.join(corpus, "icc", "argyll-ref--sRGB.icm")
missing = [t for t in ("scanin", "colprof", "xicclu") if not shutil.which(t)]
if missing or not os.path.isdir(REF):
    print("SKIP: ArgyllCMS or argyll-ref missing (scripts/install-deps.sh installs them):", " ".join(missing))
    sys.exit(77)
try:
    import numpy as np  # noqa: F401  (Debian's python3-numpy)
    import chart_render as cr
except ImportError as e:
    print("SKIP: python3-numpy missing (scripts/install-deps.sh installs it):", e)
    sys.exit(77)

w = Work("tinct-chart-")
work, check = w.dir, w.check
answers = Answers("chart")
CC, DT4 = os.path.join(REF, "ColorChecker.cht"), os.path.join(REF, "CMP_Digital_Target-4.cht")
CC_CIE, DT4_CIE = os.path.join(REF, "ColorChecker.cie"), os.path.join(REF, "CMP_Digital_Target-4.cie")

# X-Rite's ColorChecker values from November 2014 on (D50 Lab, dark skin to black); the
# argyll-ref file holds the earlier ones.
CC_2014 = [(37.54, 14.37, 14.92), (64.66, 19.27, 17.50), (49.32, -3.82, -22.54), (43.46, -12.74, 22.72),
           (54.94, 9.61, -24.79), (70.48, -32.26, -0.37), (62.73, 35.83, 56.50), (39.43, 10.75, -45.17),
           (50.57, 48.64, 16.67), (30.10, 22.54, -20.87), (71.77, -24.13, 58.19), (71.51, 18.24, 67.37),
           (28.37, 15.42, -49.80), (54.38, -39.72, 32.27), (42.43, 51.05, 28.62), (81.80, 2.67, 80.41),
           (50.63, 51.28, -14.12), (49.57, -29.71, -28.32), (95.19, -1.03, 2.93), (81.29, -0.57, 0.44),
           (66.89, -0.75, -0.06), (50.76, -0.13, 0.14), (35.63, -0.46, -0.48), (20.64, 0.07, -0.46)]


def run(*args):
    return w.run(*args, ok=False)


def evaluate(profile, rgbs):
    text = "".join("%.6f %.6f %.6f\n" % tuple(v) for v in rgbs)
    out = subprocess.run([icc_eval, profile], input=text, capture_output=True, text=True, check=True).stdout
    return [[float(x) for x in line.split()] for line in out.splitlines()]


def colours_for(cht, ref):
    names = list(ref)
    dev = cr.device_values(TRUTH, [ref[n] for n in names])
    return {cr.norm_name(n): d for n, d in zip(names, dev)}


def render(cht, colours, width, height, corners, **kw):
    """cr.render(), made by the first pass of a ./run-tests to ask and loaded by the others
    (argyll.shared): its noise is seeded, so the image is a fact of the arguments (and of
    the renderer and numpy that made it)."""
    with open(cr.__file__, "rb") as f:
        key = hashlib.sha256(f.read())
    key.update(repr((cht, colours, width, height, corners, sorted(kw.items()), np.__version__)).encode())

    def make(tmp):
        img = cr.render(cht, colours, width, height, corners, **kw)
        if tmp:
            np.save(os.path.join(tmp, "image.npy"), img)
        return img, True
    return shared(key.hexdigest(), make, lambda entry: np.load(os.path.join(entry, "image.npy")))


def make_image(name, layout, ref_path, width, height, scale, angle, keystone, fmt="tiff16", seed=1, gain=1.0,
               ref=None, icc=None, centre=(0.5, 0.5)):
    cht = cr.read_cht(layout)
    colours = colours_for(cht, ref or cr.read_reference(ref_path))
    corners = cr.placement(cht[1], width, height, scale, angle, keystone, centre)
    img = render(cht, colours, width, height, corners, seed=seed, gain=gain)
    path = os.path.join(work, name)
    if fmt.startswith("png"):
        cr.write_png(path + ".png", img, bits=int(fmt[3:]))
        cr.write_tiff(path + ".tif", img, bits=int(fmt[3:]))  # the same pixels for scanin
        return path + ".png", path + ".tif", corners
    cr.write_tiff(path + ".tif", img, bits=int(fmt[4:]), icc=icc)
    return path + ".tif", path + ".tif", corners


def build(image, layout, ref, out, *extra):
    r = run(tinct, "profile-build", "--chart", layout, "--reference", ref, image, "-o", out, *extra)
    return r


def argyll(tiff, layout, ref, kind):
    """scanin, then colprof -qm with -as (shaper+matrix) or the default (Lab cLUT)."""
    base = os.path.splitext(tiff)[0]
    r = w.argyll("scanin", "-v", tiff, layout, ref, inputs=[tiff, layout, ref], outputs=[base + ".ti3"], ok=False)
    if r.returncode != 0 or not os.path.exists(base + ".ti3"):
        return None, "scanin failed: " + (r.stdout + r.stderr).strip().splitlines()[-1]
    out = base + "-argyll-%s.icc" % kind
    args = ["colprof", "-qm", "-O", out] + (["-as"] if kind == "matrix" else []) + [base]
    r = w.argyll(*args, inputs=[base + ".ti3"], outputs=[out], ok=False)
    if r.returncode != 0:
        return None, "colprof failed: " + (r.stdout + r.stderr)[-300:]
    return out, None


def unseen(ref_paths):
    """Device values (through the truth's inverse) and the truth's Lab for them."""
    labs = []
    for p in ref_paths:
        labs += list(cr.read_reference(p).values())
    dev = cr.device_values(TRUTH, labs)
    return dev, evaluate(TRUTH, dev)


def score(profile, dev, truth):
    got = evaluate(profile, dev)
    de = [ciede2000(a, b) for a, b in zip(got, truth)]
    return sum(de) / len(de), max(de)


table = []


def case(title, name, layout, ref_path, test_refs, width, height, scale, angle, keystone, fmt, argyll_kind,
         expect_lut=None):
    print("%s: %s" % (name, title))
    image, tiff, _ = make_image(name, layout, ref_path, width, height, scale, angle, keystone, fmt)
    out = os.path.join(work, name + ".icc")
    r = build(image, layout, ref_path, out)
    print("".join("    | " + l + "\n" for l in (r.stdout + r.stderr).splitlines()), end="")
    check(r.returncode == 0 and os.path.exists(out), "tinct builds a profile")
    if r.returncode != 0:
        return
    data = open(out, "rb").read()
    check(data[12:16] == b"scnr" and data[8] == 4, "an ICC v4 input-class (scnr) profile")
    check("self-fit dE2000: mean" in r.stdout and "cross-validated dE2000: mean" in r.stdout,
          "prints the self-fit and cross-validated figures")
    for key in (b"CHART_layout", b"CHART_patches", b"ACCURACY_dE2000_cv_avg", b"ACCURACY_dE2000_self_max"):
        check(key.decode("ascii").encode("utf-16-be") in data or key in data, "metadata has %s" % key.decode())
    if expect_lut is False:
        check("too sparse for a LUT" in r.stdout, "says plainly that 24 patches are too sparse for a LUT")
    if expect_lut:
        check("LUT" in r.stdout and "matrix/shaper" in r.stdout, "compares LUT and matrix/shaper by cross-validation")
    dev, truth = unseen(test_refs)
    t_mean, t_max = score(out, dev, truth)

    def argyll_scores():
        a_prof, why = argyll(tiff, layout, ref_path, argyll_kind)
        if not a_prof:
            return {"why": why}
        a_mean, a_max = score(a_prof, dev, truth)
        return {"mean": a_mean, "max": a_max}

    unseen_text = "".join("%.6f %.6f %.6f\n" % tuple(v) for v in dev + truth)
    a = answers.get(name, ["scanin + colprof -qm " + argyll_kind, tiff, layout, ref_path, unseen_text],
                    argyll_scores)
    row = [title, len(dev), t_mean, t_max]
    if "mean" in a:
        row += [a["mean"], a["max"]]
        check(t_mean <= a["mean"] * 1.05 + 0.05,
              "tinct's mean dE2000 on unseen colours %.3f is no worse than Argyll's %.3f" % (t_mean, a["mean"]))
    else:
        row += [None, None]
        print("    (Argyll: %s)" % a["why"])
    table.append(row)


# --- accuracy against the truth, beside Argyll ---
case("ColorChecker 24, 16-bit TIFF, 6 deg, 4% keystone", "cc", CC, CC_CIE, [DT4_CIE], 900, 640, 0.7, 6, 0.04,
     "tiff16", "matrix", expect_lut=False)
case("ColorChecker 24, 8-bit PNG, -10 deg, 5% keystone, small", "cc-small", CC, CC_CIE, [DT4_CIE], 1000, 700, 0.42,
     -10, 0.05, "png8", "matrix", expect_lut=False)
case("CMP Digital Target 4 (570), 16-bit TIFF, -4 deg, 3% keystone", "dt4", DT4, DT4_CIE,
     [CC_CIE, os.path.join(REF, "ColorCheckerPassport.cie"), os.path.join(REF, "SpyderChecker.cie")],
     1000, 760, 0.85, -4, 0.03, "tiff16", "lut", expect_lut=True)

# --- other layouts of argyll-ref: found and fitted (their references are not in argyll-ref:
# made here, random surface colours through the truth's inverse and back, so that each value
# is what the truth gives for its patch) ---
for layout, angle in (("it8.cht", -7), ("ColorCheckerSG.cht", 8)):
    if sanitized() and layout == "it8.cht":
        # the same finder and fitter as ColorCheckerSG's below; under sanitizers that one
        # proves the memory safety of both, the plain build finds and fits this one too
        print("%s: left to the plain build (no code path of its own)" % layout)
        continue
    print("%s: found and fitted" % layout)
    cht = cr.read_cht(os.path.join(REF, layout))
    rng = np.random.default_rng(11)
    n = len(cht[0])
    want = np.stack([rng.uniform(20, 95, n), rng.uniform(-45, 45, n), rng.uniform(-45, 60, n)], axis=1)
    dev = cr.device_values(TRUTH, want.tolist())
    labs = evaluate(TRUTH, dev)
    ref_path = os.path.join(work, layout + ".cie")
    with open(ref_path, "w") as f:
        f.write("CTI3\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L LAB_A LAB_B\nEND_DATA_FORMAT\n"
                "NUMBER_OF_SETS %d\nBEGIN_DATA\n" % len(labs))
        for p, lab in zip(cht[0], labs):
            f.write("%s %.3f %.3f %.3f\n" % (p[0], *lab))
        f.write("END_DATA\n")
    corners = cr.placement(cht[1], 900, 700, 0.8, angle, 0.04)
    img = render(cht, {cr.norm_name(p[0]): d for p, d in zip(cht[0], dev)}, 900, 700, corners, seed=6)
    image = os.path.join(work, layout + ".tif")
    cr.write_tiff(image, img)
    out = os.path.join(work, layout + ".icc")
    r = build(image, os.path.join(REF, layout), ref_path, out)
    print("".join("    | " + l + "\n" for l in (r.stdout + r.stderr).splitlines()), end="")
    cv = [float(l.split()[3]) for l in r.stdout.splitlines() if l.startswith("cross-validated dE2000: mean")]
    check(r.returncode == 0 and cv and cv[0] < 1.0, "%s: found, cross-validated dE2000 mean below 1" % layout)

print("\nCIEDE2000 on unseen colours (truth: Canon EOS 5D camera profile)")
print("| image | unseen patches | tinct mean | tinct max | Argyll mean | Argyll max |")
print("|---|---|---|---|---|---|")
for row in table:
    print("| %s | %d | %.3f | %.3f | %s | %s |" % (row[0], row[1], row[2], row[3],
                                                  "%.3f" % row[4] if row[4] is not None else "-",
                                                  "%.3f" % row[5] if row[5] is not None else "-"))

# --- bad input ---
print("bad input")


def refused(title, r, out, *words):
    text = r.stderr + r.stdout
    ok = r.returncode == 1 and not os.path.exists(out) and all(w in text for w in words)
    check(ok, "%s: exit 1, no profile, says %s" % (title, " / ".join(repr(w) for w in words)))
    if not ok:
        print("      exit %d: %s" % (r.returncode, text.strip()))


out = os.path.join(work, "bad.icc")
# a wall: a gradient with noise, and a darker square in it (an object, not a chart)
yy, xx = np.mgrid[0:480, 0:640]
blank = np.stack([0.3 + 0.3 * xx / 640, 0.35 + 0.1 * yy / 480, 0.3 * np.ones(xx.shape)], axis=-1)
blank[100:300, 200:420] *= 0.5
blank = np.clip(blank + np.random.default_rng(7).normal(0, 0.003, blank.shape), 0, 1)
cr.write_tiff(os.path.join(work, "blank.tif"), blank)
refused("an image without the chart", build(os.path.join(work, "blank.tif"), CC, CC_CIE, out), out, "not found",
        "--corners")
refused("a reference with another patch count", build(os.path.join(work, "cc.tif"), CC, DT4_CIE, out), out,
        "570 patches", "24", "not this chart's reference")

with open(os.path.join(work, "cc2014.cie"), "w") as f:
    f.write('IT8.7/2\nDESCRIPTOR "ColorChecker 24, values from November 2014"\nNUMBER_OF_FIELDS 4\n'
            'BEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L LAB_A LAB_B\nEND_DATA_FORMAT\nNUMBER_OF_SETS 24\nBEGIN_DATA\n')
    for i, lab in enumerate(CC_2014):
        f.write("%s%02d %.2f %.2f %.2f\n" % ("ABCD"[i // 6], i % 6 + 1, *lab))
    f.write("END_DATA\n")
cc2014 = os.path.join(work, "cc2014.cie")
ref2014 = cr.read_reference(cc2014)
img2014, _, _ = make_image("cc-2014", CC, None, 900, 640, 0.7, 3, 0.02, ref=ref2014, seed=2)
refused("a post-2014 chart against the pre-2014 values", build(img2014, CC, CC_CIE, out), out, "wrong reference",
        "after", "November 2014")
r = build(img2014, CC, cc2014, out)
check(r.returncode == 0, "the same image with the post-2014 values builds")
if os.path.exists(out):
    os.unlink(out)

data = open(os.path.join(work, "cc.tif"), "rb").read()
with open(os.path.join(work, "truncated.tif"), "wb") as f:
    f.write(data[:len(data) * 6 // 10])
refused("a truncated TIFF", build(os.path.join(work, "truncated.tif"), CC, CC_CIE, out), out, "truncated")
data = open(os.path.join(work, "cc-small.png"), "rb").read()
with open(os.path.join(work, "truncated.png"), "wb") as f:
    f.write(data[:len(data) // 2])
refused("a truncated PNG", build(os.path.join(work, "truncated.png"), CC, CC_CIE, out), out, "truncated")

# a header that claims 10000 x 7000 pixels (70 megapixels): refused before any pixel is read
cr.write_tiff(os.path.join(work, "huge.tif"), np.zeros((70, 100, 3)), bits=8, claim=(10000, 7000))
refused("a huge TIFF (70 megapixels)", build(os.path.join(work, "huge.tif"), CC, CC_CIE, out), out, "cap of 60 megapixels")

# a PNG whose header claims 9000 x 8000 (72 megapixels), with only its first row of data
def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


with open(os.path.join(work, "huge.png"), "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 9000, 8000, 8, 2, 0, 0, 0)) +
            png_chunk(b"IDAT", zlib.compress(bytes(1 + 9000 * 3))) + png_chunk(b"IEND", b""))
refused("a huge PNG (72 megapixels)", build(os.path.join(work, "huge.png"), CC, CC_CIE, out), out, "cap of 60 megapixels")

# Options that do not apply to an input profile, or half of --chart/--reference: usage errors
# (exit 2) before any file is read.
for opts, message in ((["--chart", CC, "--reference", CC_CIE, "--ink-limit", "300"],
                       "--ink-limit is for printer profiles"),
                      (["--chart", CC, "--reference", CC_CIE, "--black", "max"], "--black is for printer profiles"),
                      (["--reference", CC_CIE], "needs both --chart LAYOUT.cht and --reference REF"),
                      (["--chart", CC], "needs both --chart LAYOUT.cht and --reference REF")):
    r = run(tinct, "profile-build", os.path.join(work, "no-such-image.tif"), "-o", out, *opts)
    check(r.returncode == 2 and message in r.stderr and "Usage: tinct profile-build" in r.stderr
          and not os.path.exists(out), "%s: exit %d, %r" % (" ".join(o for o in opts if o.startswith("--")),
                                                           r.returncode, r.stderr.strip().split("\n")[0]))

print("warnings")
conv, _, _ = make_image("cc-srgb", CC, CC_CIE, 900, 640, 0.7, 2, 0.01, icc=open(SRGB, "rb").read(), seed=3)
r = build(conv, CC, CC_CIE, out)
check(r.returncode == 0 and "colour-converted" in r.stderr and "without colour management" in r.stderr,
      "an embedded sRGB profile: a warning that the chart must be captured without colour management")
os.path.exists(out) and os.unlink(out)
over, _, _ = make_image("cc-over", CC, CC_CIE, 900, 640, 0.7, 2, 0.01, gain=1.25, seed=4)
r = build(over, CC, CC_CIE, out)
check(r.returncode == 0 and "clipped" in r.stderr and "D1" in r.stderr,
      "an overexposed white patch is reported clipped and left out: " + r.stderr.strip()[:120])
os.path.exists(out) and os.unlink(out)

print("user-given corners")
tiny, _, corners = make_image("cc-tiny", CC, CC_CIE, 1200, 900, 0.2, 4, 0.0, fmt="png16", seed=5,
                              centre=(0.3, 0.6))
refused("a chart too small to be found", build(tiny, CC, CC_CIE, out), out, "not found")
given = ",".join("%.1f,%.1f" % (x + 2, y - 2) for x, y in corners)  # a user's clicks are a little off
r = build(tiny, CC, CC_CIE, out, "--corners", given)
check(r.returncode == 0 and os.path.exists(out), "--corners finds it from the user's four corners")

w.finish("\nall passed")
