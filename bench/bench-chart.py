#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 28: what `tinct profile-build --chart` costs, in CPU seconds, on the images of
tests/cli/test-profile-build-chart.py: CMP Digital Target 4 (570 patches, 1000 x 760),
it8.cht (288, 900 x 700), ColorCheckerSG (140, 900 x 700) and the ColorChecker (24,
900 x 640), each turned, keystoned, blurred and noisy as the test draws them
(tests/cli/chart_render.py) from a real camera profile of the shared corpus (RawTherapee's
Canon EOS 5D) through ArgyllCMS's xicclu. The whole run is timed (reading, finding the
chart, sampling, the fits and their cross-validation, writing): the child's user + system
time, which a busy machine moves far less than the wall time. Each chart is built ROUNDS
times; the median is reported, with the found corners (which a faster finder must not move).

    bench/bench-chart.py BUILD [ROUNDS]     (BUILD: a build directory with tools/tinct;
                                             the corpus from $TINCT_CORPUS or ../shared/corpus)

Not a test: a figure never fails anything (bench/README.md)."""

import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "cli"))
REF = "/usr/share/color/argyll/ref"

import numpy as np  # noqa: E402  (Debian's python3-numpy)
import chart_render as cr  # noqa: E402

# name, layout, width, height, scale, angle, keystone, seed: as the test places them
CHARTS = (("dt4", "CMP_Digital_Target-4", 1000, 760, 0.85, -4, 0.03, 1),
          ("it8", "it8", 900, 700, 0.8, -7, 0.04, 6),
          ("sg", "ColorCheckerSG", 900, 700, 0.8, 8, 0.04, 6),
          ("cc", "ColorChecker", 900, 640, 0.7, 6, 0.04, 1))


def reference(layout, truth, work):
    """The layout's reference (argyll-ref's .cie where it has one, else random surface
    colours as the test makes them) and each patch's device values through the truth."""
    cht = cr.read_cht(os.path.join(REF, layout + ".cht"))
    path = os.path.join(REF, layout + ".cie")
    if os.path.exists(path):
        ref = cr.read_reference(path)
        names = list(ref)
        dev = cr.device_values(truth, [ref[n] for n in names])
        return cht, path, {cr.norm_name(n): d for n, d in zip(names, dev)}
    rng = np.random.default_rng(11)
    n = len(cht[0])
    want = np.stack([rng.uniform(20, 95, n), rng.uniform(-45, 45, n), rng.uniform(-45, 60, n)], axis=1)
    dev = cr.device_values(truth, want.tolist())
    labs = cr.xicclu(["-ff", "-ir", "-pl", truth], dev)  # what the truth says of those values
    path = os.path.join(work, layout + ".cie")
    with open(path, "w") as f:
        f.write("CTI3\nNUMBER_OF_FIELDS 4\nBEGIN_DATA_FORMAT\nSAMPLE_ID LAB_L LAB_A LAB_B\nEND_DATA_FORMAT\n"
                "NUMBER_OF_SETS %d\nBEGIN_DATA\n" % n)
        for p, lab in zip(cht[0], labs):
            f.write("%s %.3f %.3f %.3f\n" % (p[0], *lab))
        f.write("END_DATA\n")
    return cht, path, {cr.norm_name(p[0]): d for p, d in zip(cht[0], dev)}


def cpu_of(args):
    """Runs args; (the child's user + system seconds, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(args, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, r.stdout


def main():
    tinct = os.path.join(os.path.abspath(sys.argv[1]), "tools", "tinct")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    corpus = os.environ.get("TINCT_CORPUS") or os.path.join(HERE, "..", "..", "shared", "corpus")
    truth = os.path.join(corpus, "icc", "rawtherapee-data--Canon_EOS_5D.icc")
    if not os.path.exists(truth):
        sys.exit("no %s: set TINCT_CORPUS to the shared corpus" % truth)
    with tempfile.TemporaryDirectory(prefix="tinct-bench-chart-") as work:
        for name, layout, width, height, scale, angle, keystone, seed in CHARTS:
            cht, ref, colours = reference(layout, truth, work)
            corners = cr.placement(cht[1], width, height, scale, angle, keystone)
            image = os.path.join(work, name + ".tif")
            cr.write_tiff(image, cr.render(cht, colours, width, height, corners, seed=seed))
            times = []
            for _ in range(rounds):
                t, out = cpu_of([tinct, "profile-build", "--chart", os.path.join(REF, layout + ".cht"),
                                 "--reference", ref, image, "-o", os.path.join(work, name + ".icc")])
                times.append(t)
            found = re.search(r"found: (corners .*)", out)
            print("%s (%d patches, %dx%d): %s CPU-s; %s" % (layout, len(cht[0]), width, height,
                                                            " ".join("%.2f" % t for t in times),
                                                            found.group(1) if found else "not found"))
            print("RESULT chart.%s.cpu_s %.2f" % (name, statistics.median(times)))


if __name__ == "__main__":
    main()
