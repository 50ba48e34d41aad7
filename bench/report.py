#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""bench/report.py RESULTS_DIR: turns raw-tinctd.txt and raw-colord.txt (RESULT lines
from the bench programs) into summary.txt, the side-by-side table with ratios and the
targets, and latency-vs-objects.svg, a hand-written SVG chart of median and p99 latency
against the number of devices for both daemons.

Deliberately not here: any measuring, and any pass/fail verdict on the process exit
status; a missed target is reported in the table, never as an error."""

import math
import re
import os
import sys

CALLS = [
    ("ping", "Peer.Ping (floor)"),
    ("get-devices", "GetDevices"),
    ("find-device", "FindDeviceById"),
    ("gpfq", "GetProfileForQualifiers (5 CUPS)"),
    ("getall", "Properties.GetAll (device)"),
]
LOOKUPS = [c for c in CALLS if c[0] != "ping"]
MUTATIONS = [
    ("create-device", "CreateDevice"),
    ("delete-device", "DeleteDevice"),
    ("create-profile", "CreateProfile"),
    ("add-profile", "Device.AddProfile"),
    ("delete-profile", "DeleteProfile"),
]


def load(path):
    data = {}
    if not os.path.exists(path):
        return data
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 4 and parts[0] == "RESULT":
                # The first figure wins: a later run's fixture lines must not replace it.
                data.setdefault(parts[1], float(parts[2]))
    return data


def sizes_of(*datas):
    found = set()
    for d in datas:
        for k in d:
            if k.startswith("lat.d"):
                found.add(int(k.split(".")[1][1:]))
    return sorted(found)


def clients_of(d, size):
    found = set()
    for k in d:
        if k.startswith("tput.d%d.k" % size):
            found.add(int(k.split(".")[2][1:]))
    return sorted(found)


def fmt(v, unit=""):
    if v is None:
        return "-"
    if unit == "KiB":
        return "%.1f MiB" % (v / 1024)
    if abs(v) >= 1000:
        return "%.0f%s" % (v, unit)
    if abs(v) >= 100:
        return "%.0f%s" % (v, unit)
    if abs(v) >= 10:
        return "%.1f%s" % (v, unit)
    return "%.2f%s" % (v, unit)


def ratio(a, b):
    """b / a, as "×N": how many times a is better when smaller is better."""
    if a is None or b is None or a == 0:
        return "-"
    return "%.2f×" % (b / a)


class Table:
    def __init__(self, title, header):
        self.title = title
        self.header = header
        self.rows = []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def render(self):
        widths = [len(h) for h in self.header]
        for r in self.rows:
            for i, c in enumerate(r):
                widths[i] = max(widths[i], len(c))
        out = [self.title, ""]
        line = lambda cells: "  ".join(
            (c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])) for i, c in enumerate(cells)
        ).rstrip()
        out.append(line(self.header))
        out.append(line(["-" * w for w in widths]))
        for r in self.rows:
            out.append(line(r))
        return "\n".join(out) + "\n"


def main():
    results = sys.argv[1]
    t = load(os.path.join(results, "raw-tinctd.txt"))
    c = load(os.path.join(results, "raw-colord.txt"))
    have_colord = bool(c)
    # Older runs measured the creation costs at the first size only, as mut.<call>.
    sizes0 = sizes_of(t, c)
    for d in (t, c):
        for k in list(d):
            if k.startswith("mut.") and not re.match(r"mut\.d[0-9]+\.", k) and sizes0:
                d.setdefault("mut.d%d.%s" % (sizes0[0], k[4:]), d[k])
    g = lambda d, k: d.get(k)
    out = []
    targets = []

    env = os.path.join(results, "env.txt")
    if os.path.exists(env):
        out.append(open(env).read())
    out.append(
        "Every figure is from the same run, on the same private bus; tinctd and colord are\n"
        "measured one after the other. 'advantage' is how many times tinct is better\n"
        "(colord time / tinct time, tinct rate / colord rate, colord memory / tinct memory);\n"
        "above 1 tinct wins. Latencies are round trips through dbus-daemon as seen by the\n"
        "client, median and p99 (nearest rank) after a warm-up.\n"
    )

    # Startup.
    tab = Table("1. Startup: fork() to the first GetProfiles answer with every profile, and memory then",
                ["profiles / start", "tinctd", "colord", "advantage", "tinctd RSS", "colord RSS", "tinctd HWM",
                 "colord HWM"])
    counts = sorted({int(k.split(".")[2][1:]) for k in list(t) + list(c)
                     if k.startswith("startup.cold.p") and k.endswith(".ms")})
    for n in counts:
        for kind in ("cold", "warm"):
            k = "startup.%s.p%d" % (kind, n)
            tab.add("%d, %s" % (n, kind), fmt(g(t, k + ".ms"), " ms"), fmt(g(c, k + ".ms"), " ms"),
                    ratio(g(t, k + ".ms"), g(c, k + ".ms")),
                    fmt(g(t, k + ".rss"), "KiB"), fmt(g(c, k + ".rss"), "KiB"),
                    fmt(g(t, k + ".hwm"), "KiB"), fmt(g(c, k + ".hwm"), "KiB"))
    out.append(tab.render())
    if counts:
        n = counts[-1]
        warm = g(t, "startup.warm.p%d.ms" % n)
        warm0 = g(t, "startup.warm.p0.ms")
        if warm is not None and warm0 is not None:
            out.append("tinctd warm start per profile: %.1f µs (%d profiles: %.0f ms, 0: %.0f ms)\n"
                       % ((warm - warm0) * 1000 / n, n, warm, warm0))
    # Issue 22, "Start-up with the sandbox": parsing stays in tinct-parse.
    cold5 = g(t, "startup.cold.p5000.ms")
    if cold5 is not None:
        targets.append(("cold start with 5000 profiles < 300 ms, parsing sandboxed", cold5 < 300,
                        "%.1f ms (colord %s)" % (cold5, fmt(g(c, "startup.cold.p5000.ms"), " ms"))))
    warm1, cwarm1 = g(t, "startup.warm.p1000.ms"), g(c, "startup.warm.p1000.ms")
    if warm1 is not None and cwarm1 is not None:
        targets.append(("warm start with 1000 profiles ≥ 25× faster than colord", cwarm1 >= 25 * warm1,
                        "%.1f× (%.1f vs %.0f ms)" % (cwarm1 / warm1, warm1, cwarm1)))

    sizes = sizes_of(t, c)
    base = sizes[0] if sizes else 10

    # Lookups at the smallest size.
    ping = g(t, "lat.d%d.ping.median" % base)
    tab = Table("2. Lookup latency, one client, %d devices x 5 profiles (µs)" % base,
                ["call", "tinctd med", "tinctd p99", "colord med", "colord p99", "advantage (med)",
                 "tinctd / its Ping"])
    for key, label in CALLS:
        k = "lat.d%d.%s" % (base, key)
        tm = g(t, k + ".median")
        # The floor measured alternately with this call (bench-load.c), else the Ping block.
        paired = g(t, k + ".paired-ping.median")
        floor = paired or ping
        rel = "%.2f×" % (tm / floor) if tm and floor else "-"
        tab.add(label, fmt(tm), fmt(g(t, k + ".p99")), fmt(g(c, k + ".median")), fmt(g(c, k + ".p99")),
                ratio(tm, g(c, k + ".median")), rel)
        if key != "ping" and tm and floor:
            targets.append(("%s within 1.2× of Peer.Ping (median, %d devices)" % (label, base),
                            tm / floor <= 1.2, "%.2f× (%s vs %s µs, %s)"
                            % (tm / floor, fmt(tm), fmt(floor),
                               "Ping interleaved with the call" if paired else "Ping measured before")))
    out.append(tab.render())

    # Throughput.
    ks = clients_of(t, base)
    tab = Table("3. Throughput, K clients (threads, one connection each, closed loop), calls/s",
                ["call", "K", "tinctd", "colord", "advantage", "tinctd p99 µs", "colord p99 µs"])
    for key, label in CALLS:
        for k_ in ks:
            k = "tput.d%d.k%d.%s" % (base, k_, key)
            tc, cc = g(t, k + ".cps"), g(c, k + ".cps")
            tab.add(label if k_ == ks[0] else "", k_, fmt(tc), fmt(cc),
                    ratio(cc, tc) if cc else "-", fmt(g(t, k + ".p99")), fmt(g(c, k + ".p99")))
            # Ping is the bus floor, not a lookup: the target is about the lookups.
            if k_ == 8 and key != "ping" and have_colord and tc and cc:
                targets.append(("throughput with 8 clients ≥ 2× colord: %s" % label, tc >= 2 * cc,
                                "%.2f× (%s vs %s calls/s)" % (tc / cc, fmt(tc), fmt(cc))))
    out.append(tab.render())

    # Mutations.
    tab = Table("4. Object creation costs, one client, %d devices (µs)" % base,
                ["call", "tinctd med", "tinctd p99", "colord med", "colord p99", "advantage (med)"])
    for key, label in MUTATIONS:
        k = "mut.d%d.%s" % (base, key)
        tab.add(label, fmt(g(t, k + ".median")), fmt(g(t, k + ".p99")), fmt(g(c, k + ".median")),
                fmt(g(c, k + ".p99")), ratio(g(t, k + ".median"), g(c, k + ".median")))
    out.append(tab.render())
    cd = g(t, "mut.d%d.create-device.median" % base)
    if cd is not None:
        targets.append(("CreateDevice ≤ 200 µs median (%d devices)" % base, cd <= 200,
                        "%s µs (colord %s µs)" % (fmt(cd), fmt(g(c, "mut.d%d.create-device.median" % base)))))
    if len(sizes) > 1 and any(k.startswith("mut.d%d." % sizes[-1]) for k in list(t) + list(c)):
        tab = Table("   The same against the object count: median / p99 (µs)",
                    ["call"] + ["%s %d" % (d, n) for n in sizes for d in ("tinctd", "colord")] + ["tinctd growth"])
        for key, label in MUTATIONS:
            row = [label]
            for n in sizes:
                for d in (t, c):
                    k = "mut.d%d.%s" % (n, key)
                    m, p = g(d, k + ".median"), g(d, k + ".p99")
                    row.append("-" if m is None else "%s / %s" % (fmt(m), fmt(p)))
            row.append(ratio(g(t, "mut.d%d.%s.median" % (sizes[0], key)), g(t, "mut.d%d.%s.median" % (sizes[-1], key))))
            tab.add(*row)
        out.append(tab.render())
        cl = g(t, "mut.d%d.create-device.median" % sizes[-1])
        if cl is not None:
            targets.append(("CreateDevice ≤ 200 µs median (%d devices)" % sizes[-1], cl <= 200,
                            "%s µs (colord %s µs)" % (fmt(cl), fmt(g(c, "mut.d%d.create-device.median" % sizes[-1])))))

    # Scale.
    tab = Table("5. Lookups against the object count: median / p99 (µs), devices x 5 profiles",
                ["call"] + ["%s %d" % (d, n) for n in sizes for d in ("tinctd", "colord")] + ["tinctd growth"])
    for key, label in CALLS:
        row = [label]
        for n in sizes:
            for d in (t, c):
                k = "lat.d%d.%s" % (n, key)
                m, p = g(d, k + ".median"), g(d, k + ".p99")
                row.append("-" if m is None else "%s / %s" % (fmt(m), fmt(p)))
        first, last = g(t, "lat.d%d.%s.median" % (sizes[0], key)), g(t, "lat.d%d.%s.median" % (sizes[-1], key))
        row.append(ratio(first, last) if first and last else "-")
        tab.add(*row)
        if key not in ("get-devices",) and first and last and len(sizes) > 1:
            # GetDevices returns every device: its cost grows with the count by definition.
            # Growth is judged relative to Ping at the same size, so machine noise cancels.
            pf = g(t, "lat.d%d.%s.paired-ping.median" % (sizes[0], key)) or g(t, "lat.d%d.ping.median" % sizes[0])
            pl = g(t, "lat.d%d.%s.paired-ping.median" % (sizes[-1], key)) or g(t, "lat.d%d.ping.median" % sizes[-1])
            if key != "ping" and pf and pl:
                growth = (last - pl) - (first - pf)
                targets.append(("%s latency does not grow with object count (%d → %d devices)"
                                % (label, sizes[0], sizes[-1]),
                                last / first <= 1.1 or growth <= 0.1 * first,
                                "median %s → %s µs (%s); above Ping %s → %s µs"
                                % (fmt(first), fmt(last), ratio(first, last), fmt(first - pf), fmt(last - pl))))
    out.append(tab.render())
    out.append("('tinctd growth' is the median at %d devices divided by the median at %d; GetDevices returns\n"
               "every device, so its cost grows with the count by definition.)\n" % (sizes[-1], sizes[0])
               if sizes else "")
    tab = Table("   Fixture: build time and daemon memory after building it",
                ["devices", "tinctd build", "colord build", "tinctd RSS", "colord RSS", "advantage (RSS)"])
    for n in sizes:
        k = "fixture.d%d" % n
        tab.add(n, fmt(g(t, k + ".build-time"), " s"), fmt(g(c, k + ".build-time"), " s"),
                fmt(g(t, k + ".rss"), "KiB"), fmt(g(c, k + ".rss"), "KiB"), ratio(g(t, k + ".rss"), g(c, k + ".rss")))
    out.append(tab.render())

    # RSS cycles.
    cyc = g(t, "rss.cycles.per-round") or g(c, "rss.cycles.per-round")
    tab = Table("6. Memory across CreateDevice/DeleteDevice cycles (%s per round, after a 200-cycle warm-up)"
                % (fmt(cyc) if cyc else "?"),
                ["", "tinctd RSS", "colord RSS", "tinctd HWM", "colord HWM", "tinctd anon", "colord anon"])
    for stage, label in (("before", "before"), ("after1", "after round 1"), ("after2", "after round 2")):
        k = "rss.cycles.%s" % stage
        tab.add(label, fmt(g(t, k + ".rss"), "KiB"), fmt(g(c, k + ".rss"), "KiB"),
                fmt(g(t, k + ".hwm"), "KiB"), fmt(g(c, k + ".hwm"), "KiB"),
                fmt(g(t, k + ".anon"), "KiB"), fmt(g(c, k + ".anon"), "KiB"))
    for d, name in ((t, "tinctd"), (c, "colord")):
        b, a1, a2 = (g(d, "rss.cycles.%s.rss" % s) for s in ("before", "after1", "after2"))
        if b is not None and a2 is not None and cyc:
            tab.add("growth per cycle, %s" % name, "%.0f B (round 1)" % ((a1 - b) * 1024 / cyc),
                    "%.0f B (round 2)" % ((a2 - a1) * 1024 / cyc), "", "", "", "")
    ct = g(t, "rss.cycles.cycle-time")
    if ct is not None:
        tab.add("one cycle (µs)", fmt(ct), fmt(g(c, "rss.cycles.cycle-time")), "", "", "", "")
    out.append(tab.render())
    b, a1, a2 = (g(t, "rss.cycles.%s.rss" % s) for s in ("before", "after1", "after2"))
    if b is not None and a1 is not None:
        anon = [g(t, "rss.cycles.%s.anon" % s) for s in ("before", "after1", "after2")]
        detail = "%s → %s → %s KiB" % (fmt(b), fmt(a1), fmt(a2))
        if None not in anon:
            detail += " (anonymous memory %s → %s → %s KiB)" % tuple(fmt(x) for x in anon)
        targets.append(("tinctd RSS after %s create/delete cycles equals before" % fmt(cyc), a1 <= b and a2 <= b,
                        detail))

    out.append("7. Targets (reported, not enforced)\n")
    for name, ok, detail in targets:
        out.append("  [%s] %s: %s" % ("met   " if ok else "MISSED", name, detail))
    out.append("")

    with open(os.path.join(results, "summary.txt"), "w") as f:
        f.write("\n".join(out) + "\n")
    with open(os.path.join(results, "latency-vs-objects.svg"), "w") as f:
        f.write(svg(t, c, sizes))


COLOURS = {"ping": "#7f7f7f", "get-devices": "#9467bd", "find-device": "#1f77b4", "gpfq": "#d62728",
           "getall": "#2ca02c"}


def svg(t, c, sizes):
    """Two panels (median, p99): log x = devices, log y = µs; tinctd solid, colord dashed."""
    W, H = 980, 470
    pw, ph = 380, 330
    panels = [("median", 70), ("p99", 70 + pw + 90)]
    top = 60
    vals = [v for d in (t, c) for n in sizes for key, _ in CALLS for s in ("median", "p99")
            for v in [d.get("lat.d%d.%s.%s" % (n, key, s))] if v]
    if not vals or not sizes:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text x="10" y="25">no data</text></svg>\n'
    ylo = 10 ** math.floor(math.log10(min(vals)))
    yhi = 10 ** math.ceil(math.log10(max(vals)))
    xlo, xhi = math.log10(sizes[0]), math.log10(sizes[-1])
    if xhi == xlo:
        xhi = xlo + 1

    def X(x0, n):
        return x0 + (math.log10(n) - xlo) / (xhi - xlo) * pw

    def Y(v):
        return top + ph - (math.log10(v) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * ph

    e = []
    e.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
             'font-family="sans-serif" font-size="12">' % (W, H, W, H))
    e.append('<rect width="100%" height="100%" fill="white"/>')
    e.append('<text x="%d" y="24" font-size="15" text-anchor="middle">Lookup latency against object count '
             '(devices, 5 profiles each): tinctd solid, colord dashed</text>' % (W / 2))
    for stat, x0 in panels:
        e.append('<text x="%d" y="%d" text-anchor="middle" font-size="13">%s (µs, log scale)</text>'
                 % (x0 + pw / 2, top - 10, stat))
        e.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>' % (x0, top, pw, ph))
        dec = ylo
        while dec <= yhi * 1.001:
            y = Y(dec)
            e.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (x0, y, x0 + pw, y))
            e.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (x0 - 5, y + 4, dec))
            for m in (2, 5):
                if dec * m < yhi:
                    y2 = Y(dec * m)
                    e.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#f2f2f2"/>' % (x0, y2, x0 + pw, y2))
            dec *= 10
        for n in sizes:
            x = X(x0, n)
            e.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, top, x, top + ph))
            e.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x, top + ph + 16, n))
        e.append('<text x="%d" y="%d" text-anchor="middle">devices</text>' % (x0 + pw / 2, top + ph + 34))
        for d, dash in ((t, ""), (c, ' stroke-dasharray="6,4"')):
            for key, _ in CALLS:
                pts = [(X(x0, n), Y(d["lat.d%d.%s.%s" % (n, key, stat)])) for n in sizes
                       if d.get("lat.d%d.%s.%s" % (n, key, stat))]
                if not pts:
                    continue
                e.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>'
                         % (COLOURS[key], dash, " ".join("%.1f,%.1f" % p for p in pts)))
                for px, py in pts:
                    e.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px, py, COLOURS[key]))
    ly = top + ph + 52
    lx = 70
    for key, label in CALLS:
        e.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                 % (lx, ly, lx + 22, ly, COLOURS[key]))
        e.append('<text x="%d" y="%d">%s</text>' % (lx + 27, ly + 4, label.replace("&", "&amp;")))
        lx += 30 + 7 * len(label)
    e.append('<text x="70" y="%d" fill="#555">solid: tinctd; dashed: colord; one client, one call at a time, '
             'through a private dbus-daemon</text>' % (ly + 22))
    e.append("</svg>")
    return "\n".join(e) + "\n"


if __name__ == "__main__":
    main()
