#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct gamut on corpus profiles, against figures worked out by hand from the primaries
(shoelace areas): sRGB's triangle is 0.11205 in xy, Display P3's 0.152, Adobe RGB's 0.15115,
BT.2020's 0.2118665; sRGB lies inside the other three, so its coverage of each is the ratio
of areas. Also: the SVG is well-formed XML with the locus, four references and one polygon
per file; a non-RGB or broken file is an error (exit 1) that spares the others.
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
    r = subprocess.run([tinct, "gamut"], capture_output=True, text=True)
    if r.returncode != 2:
        failures.append("no file is a usage error (exit 2)")

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
