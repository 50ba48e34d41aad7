#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct gamut on corpus profiles, against figures worked out by hand from the primaries
(shoelace areas): sRGB's triangle is 0.11205 in xy, Display P3's 0.152, Adobe RGB's 0.15115,
BT.2020's 0.2118665; sRGB lies inside the other three, so its coverage of each is the ratio
of areas. Also: the SVG is well-formed XML with the locus, four references and one polygon
per file, named axes, wavelength ticks at least every 20 nm from 460 to 620 nm (labelled as
often), legend boxes that overlap neither each other nor the plot, the profiles' triangles
where their primaries are in xy (default) or u'v' (--uv, read back through the axis ticks);
--uv without --svg is a usage error; a non-RGB or broken file is an error (exit 1) that
spares the others.
Usage: test-gamut.py TINCT CORPUS_DIR"""

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

tinct, corpus = sys.argv[1], sys.argv[2]
icc = lambda n: os.path.join(corpus, "icc", n)  # noqa: E731
SRGB, ADOBE = icc("colord-data--sRGB.icc"), icc("colord-data--AdobeRGB1998.icc")
AREA = {"sRGB": 0.11205, "Display P3": 0.152, "Adobe RGB": 0.15115, "BT.2020": 0.2118665}
failures = []


def near(got, want, eps, what):
    ok = abs(got - want) <= eps
    print("    %s: %s = %.6f (want %.6f ± %g)" % ("ok" if ok else "FAIL", what, got, want, eps))
    if not ok:
        failures.append(what)


r = subprocess.run([tinct, "gamut", "--json", SRGB, ADOBE], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
res = json.loads(r.stdout)["gamuts"]
srgb, adobe = res[0]["against"], res[1]["against"]
# The profiles' primaries are the standards' to 4 decimals, hence 0.002.
for ref in ("Display P3", "Adobe RGB", "BT.2020"):
    near(srgb[ref]["coverage_xy"], AREA["sRGB"] / AREA[ref], 0.002, "sRGB covers %s (xy)" % ref)
near(srgb["sRGB"]["coverage_xy"], 1, 0.002, "sRGB covers sRGB")
near(srgb["sRGB"]["coverage_uv"], 1, 0.002, "sRGB covers sRGB (u'v')")
near(adobe["sRGB"]["coverage_xy"], 1, 0.002, "Adobe RGB covers sRGB")
near(adobe["sRGB"]["relative_xy"], AREA["Adobe RGB"] / AREA["sRGB"], 0.003, "Adobe RGB's size against sRGB (xy)")
# u'v' figures: the triangles mapped by u' = 4x/(-2x+12y+3), v' = 9y/(-2x+12y+3).
def uv(p):
    d = -2 * p[0] + 12 * p[1] + 3
    return (4 * p[0] / d, 9 * p[1] / d)
def area(t):
    (a, b), (c, d), (e, f) = t
    return abs(a * d - c * b + c * f - e * d + e * b - a * f) / 2
S = [uv(p) for p in ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06))]
A = [uv(p) for p in ((0.64, 0.33), (0.21, 0.71), (0.15, 0.06))]
near(adobe["sRGB"]["relative_uv"], area(A) / area(S), 0.003, "Adobe RGB's size against sRGB (u'v')")
near(srgb["Adobe RGB"]["coverage_uv"], area(S) / area(A), 0.003, "sRGB covers Adobe RGB (u'v')")

NS = "{http://www.w3.org/2000/svg}"


def check(ok, what):
    print("    %s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def by_class(root, tag, cls):
    return [e for e in root.iter(NS + tag) if e.get("class") == cls]


def largest_gap(nms, lo, hi):
    """The widest step between marks in [lo, hi], the ends included."""
    marks = sorted(set([lo - 100] + [n for n in nms if lo <= n <= hi] + [hi + 100]))
    inner = [n for n in marks if lo <= n <= hi]
    if not inner:
        return hi - lo + 1
    return max([inner[0] - lo, hi - inner[-1]] + [b - a for a, b in zip(inner, inner[1:])])


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_diagram(root, kind):
    """The parts a reader needs, in the diagram's own coordinates (kind xy or uv)."""
    check(root.get("data-diagram") == kind, "%s: the diagram says it is %s" % (kind, kind))
    names = sorted(e.text for e in by_class(root, "text", "axis-label"))
    want = ["u′", "v′"] if kind == "uv" else ["x", "y"]
    check(names == want, "%s: axes named %s (got %s)" % (kind, want, names))
    ticks = [int(e.get("data-nm")) for e in by_class(root, "line", "wavelength-tick")]
    labels = [int(e.text) for e in by_class(root, "text", "wavelength-label")]
    check(largest_gap(ticks, 460, 620) <= 10, "%s: a wavelength tick every 10 nm, 460-620 (%s)" % (kind, ticks))
    check(largest_gap(labels, 460, 620) <= 20, "%s: a label at least every 20 nm, 460-620 (%s)" % (kind, labels))
    frame = by_class(root, "rect", "plot-frame")[0]
    plot = [float(frame.get(k)) for k in ("x", "y")]
    plot += [plot[0] + float(frame.get("width")), plot[1] + float(frame.get("height"))]
    boxes = []
    for e in by_class(root, "rect", "legend-box"):
        x, y, w, h = (float(e.get(k)) for k in ("x", "y", "width", "height"))
        boxes.append((x, y, x + w, y + h))
    check(len(boxes) == 2 + 4 + 2, "%s: legend rows for the locus, the white, 4 references, 2 files" % kind)
    check(not any(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]),
          "%s: legend boxes do not overlap" % kind)
    check(not any(overlap(a, plot) for a in boxes), "%s: the legend is outside the plot" % kind)
    width, height = float(root.get("width")), float(root.get("height"))
    check(all(0 <= b[0] and b[2] <= width and 0 <= b[1] and b[3] <= height for b in boxes),
          "%s: the legend is inside the picture (%g x %g)" % (kind, width, height))
    # Diagram coordinates back from the tick labels 0.0 and 0.1 of each axis.
    tx = {e.text: float(e.get("data-at")) for e in by_class(root, "text", "tick-x")}
    ty = {e.text: float(e.get("data-at")) for e in by_class(root, "text", "tick-y")}
    sx, sy = tx["0.1"] - tx["0.0"], ty["0.1"] - ty["0.0"]
    to_diagram = lambda px, py: ((px - tx["0.0"]) / sx * 0.1,  # noqa: E731
                                 (py - ty["0.0"]) / sy * 0.1)
    polys = root.findall(NS + "polygon")
    srgb = [to_diagram(*map(float, p.split(","))) for p in polys[5].get("points").split()]
    want = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
    if kind == "uv":
        want = [uv(p) for p in want]
    err = max(abs(a - b) for g, w in zip(srgb, want) for a, b in zip(g, w))
    check(err < 0.002, "%s: the sRGB profile's triangle at its primaries (error %.4f)" % (kind, err))
    locus = [to_diagram(*map(float, p.split(","))) for p in polys[0].get("points").split()]
    check(len(locus) >= 81, "%s: the locus has a point at least every 5 nm (%d)" % (kind, len(locus)))
    green = (0.0743, 0.8338) if kind == "xy" else uv((0.0743, 0.8338))
    check(min(abs(a - green[0]) + abs(b - green[1]) for a, b in locus) < 0.002,
          "%s: the locus passes 520 nm's chromaticity" % kind)


with tempfile.TemporaryDirectory() as tmp:
    svg = os.path.join(tmp, "gamut.svg")
    broken = os.path.join(tmp, "broken.icc")
    with open(broken, "wb") as f:
        f.write(b"not a profile" * 20)
    r = subprocess.run([tinct, "gamut", SRGB, broken, ADOBE, "--svg", svg], capture_output=True, text=True)
    print("    exit %d, stderr: %s" % (r.returncode, r.stderr.strip()))
    if r.returncode != 1 or "broken.icc" not in r.stderr or r.stdout.count("primaries (xy)") != 2:
        failures.append("a broken file is an error that spares the others")
    root = ET.parse(svg).getroot()
    polygons = root.findall("{http://www.w3.org/2000/svg}polygon")
    if len(polygons) != 1 + 4 + 2:
        failures.append("SVG: %d polygons, want locus + 4 references + 2 profiles" % len(polygons))
    check_diagram(root, "xy")
    # A long file name with markup characters: the legend shortens it and the XML escapes it.
    long_name = os.path.join(tmp, "a-profile-with-a-very-long-file-name-for-the-legend <&>.icc")
    with open(ADOBE, "rb") as src, open(long_name, "wb") as dst:
        dst.write(src.read())
    r = subprocess.run([tinct, "gamut", SRGB, long_name, "--uv", "--svg", svg], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("--uv --svg: exit %d %s" % (r.returncode, r.stderr))
    check_diagram(ET.parse(svg).getroot(), "uv")
    r = subprocess.run([tinct, "gamut", SRGB, "--uv"], capture_output=True, text=True)
    if r.returncode != 2 or "--svg" not in r.stderr:
        failures.append("--uv without --svg is a usage error: %d %r" % (r.returncode, r.stderr))
    r = subprocess.run([tinct, "gamut"], capture_output=True, text=True)
    if r.returncode != 2:
        failures.append("no file is a usage error (exit 2)")

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
