#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Issue 27: the worst wait of another client while a printer's vendor profiles arrive.

One printer (Debian's ippeveprinter on 127.0.0.1, no DNS-SD) offers 16 profiles of 4 MB in
printer-icc-profiles (a valid sRGB profile from the corpus with a private tag that pads it to
4 MB, each with its own bytes), served by a web server of this script. Debian's cupsd gets a
raw queue for it; tinctd (the build given, --fetch-helper) asks the printer and parses the 16
profiles. Meanwhile another client calls GetProfiles in a closed loop on its own connection;
its worst and median wait are reported, for the time from lpadmin until the 16th
ProfileAdded, and for as long again with nothing happening (the floor).

    bench/bench-printer.py BUILD [ROUNDS]     (root: cupsd; prints RESULT lines)

Not a test: a figure never fails anything (bench/README.md)."""

import os
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "compat"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "harness"))

N_PROFILES = 16
PROFILE_SIZE = 4000000  # 4 MB: 16 of them stay under tinct-fetch's 64 MiB reply
UUID = "6b2f1e3d-8c4a-4d5e-9f60-1a2b3c4d5e6f"


def padded_profile(base, size, seed):
    """base with one more tag ('tnct', private), so that the file is size bytes: every tag
    offset moves by the new entry's 12 bytes (ICC.1:2010 §7.3: the tag table)."""
    count = struct.unpack(">I", base[128:132])[0]
    table_end = 132 + 12 * count
    entries = []
    for i in range(count):
        sig, off, length = struct.unpack(">4sII", base[132 + 12 * i:144 + 12 * i])
        entries.append((sig, off + 12, length))
    body = base[table_end:]
    start = table_end + 12 + len(body)
    start += -start % 4
    pad = size - start
    entries.append((b"tnct", start, pad))
    out = bytearray(base[:128]) + struct.pack(">I", count + 1)
    for sig, off, length in entries:
        out += struct.pack(">4sII", sig, off, length)
    out += body
    out += b"\0" * (start - len(out))
    filler = (b"tinct-bench-%d " % seed) * (pad // 16 + 1)
    out += filler[:pad]
    out[0:4] = struct.pack(">I", len(out))
    out[84:100] = b"\0" * 16  # no Profile ID: it would have to cover the new bytes
    return bytes(out)


def closed_loop(address, stop, waits):
    from gi.repository import Gio
    conn = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)
    while not stop.is_set():
        t0 = time.monotonic()
        conn.call_sync("org.freedesktop.ColorManager", "/org/freedesktop/ColorManager",
                       "org.freedesktop.ColorManager", "GetProfiles", None, None, Gio.DBusCallFlags.NONE, 120000, None)
        waits.append(time.monotonic() - t0)
    conn.close_sync(None)


def measure(address, until):
    """The other client's waits (s) while until() has not returned."""
    stop, waits = threading.Event(), []
    t = threading.Thread(target=closed_loop, args=(address, stop, waits))
    t.start()
    try:
        until()
    finally:
        stop.set()
        t.join()
    return waits


SLOW = 0.020  # a wait this long is counted: the worst alone is mostly the busy machine's


def stats(waits):
    s = sorted(waits)
    return max(s) * 1000, s[len(s) // 2] * 1000, len(s), sum(1 for w in s if w >= SLOW)


def one_round(build, rnd):
    os.environ["TINCTD"] = os.path.join(build, "src", "daemon", "tinctd")
    import compat
    from cups_env import Cupsd, Ippeveprinter, ProfileServer, Signals
    base = open(compat.icc("colord-data--sRGB.icc"), "rb").read()
    files = {"p%02d.icc" % i: padded_profile(base, PROFILE_SIZE, i + 100 * rnd) for i in range(N_PROFILES)}
    fetch = os.path.join(build, "src", "fetch", "tinct-fetch")
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", fetch]) as env:
        server = ProfileServer(files)
        printer = cupsd = None
        try:
            printer = Ippeveprinter(env, UUID, [("stationery-%02d" % i, server.base + "p%02d.icc" % i)
                                                for i in range(N_PROFILES)])
            cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
            conn = compat.connect(env)
            signals = Signals(conn)
            t0 = time.monotonic()

            def arrive():
                from gi.repository import GLib
                cupsd.lp("lpadmin", "-p", "Bench", "-E", "-v", printer.uri, "-m", "raw")
                ctx = GLib.MainContext.default()
                wake = GLib.timeout_add(200, lambda: True)
                deadline = time.monotonic() + 600
                try:
                    while sum(1 for member, _ in signals.seen if member == "ProfileAdded") < N_PROFILES:
                        if time.monotonic() > deadline:
                            raise AssertionError("the printer's profiles did not all arrive: %r" % signals.seen)
                        ctx.iteration(True)
                finally:
                    GLib.source_remove(wake)
            during = measure(env.address, arrive)
            took = time.monotonic() - t0
            idle = measure(env.address, lambda: time.sleep(took))
            return during, idle, took
        finally:
            for p in (cupsd, printer):
                if p:
                    p.stop()
            server.stop()


def main():
    build = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    worst, floor = [], []
    for rnd in range(rounds):
        during, idle, took = one_round(build, rnd)
        d, i = stats(during), stats(idle)
        worst.append(d[0])
        floor.append(i[0])
        print("round %d: 16 profiles of 4 MB in %.2f s; other client's GetProfiles: worst %.1f ms, median %.1f ms "
              "(%d calls, %d of 20 ms or more); with nothing arriving: worst %.1f ms, median %.1f ms (%d calls, %d of "
              "20 ms or more)" % (rnd + 1, took, d[0], d[1], d[2], d[3], i[0], i[1], i[2], i[3]), flush=True)
    print("RESULT printer.vendor16x4MB.getprofiles.worst_ms %.1f" % max(worst))
    print("RESULT printer.idle.getprofiles.worst_ms %.1f" % max(floor))


if __name__ == "__main__":
    main()
