#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Debian's real cupsd registers a printer with the daemon, as on a desktop.

cupsd runs with a private ServerRoot in the test's directory, listening on a unix socket only,
with DBUS_SYSTEM_BUS_ADDRESS on the test's private bus. lpadmin adds a queue whose PPD has
cupsICCProfile lines; cupsd's colord support then creates the device cups-<queue> and one
profile per line (plus its generic ones) and assigns them. The test checks the device, its
profiles, the qualifier fallback a print job's lookup takes, and that lpadmin -x removes the
device. Every step waits for the daemon's signal, not for time. Skips only where cupsd cannot
run (not installed, or not root: cupsd needs root for its own user switch)."""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import Cupsd, Signals, prop  # noqa: E402
import cups_ppd  # noqa: E402

QUEUE = "tinct-test"
GLOSSY = "colord-tests--ibm-t61.icc"
GENERIC = "colord-data--Bluish.icc"



@test
def cups_registers_printer():
    """lpadmin -p with cupsICCProfile lines: cups-<queue>, its profiles, the qualifier
    fallback, removal with lpadmin -x"""
    with compat.TinctEnv(polkit="allow") as env:
        files = os.path.join(env.tmp, "ppd-profiles")
        os.mkdir(files, 0o755)
        glossy, generic = os.path.join(files, "glossy.icc"), os.path.join(files, "generic.icc")
        shutil.copy(compat.icc(GLOSSY), glossy)
        shutil.copy(compat.icc(GENERIC), generic)
        ppd = os.path.join(env.tmp, "tinct-photo.ppd")
        with open(ppd, "w") as f:
            f.write(cups_ppd.ppd("Tinct Photo", [("RGB.Glossy.600dpi/Glossy photo paper", glossy),
                                                 ("RGB../Everything else", generic)]))

        conn = compat.connect(env)
        signals = Signals(conn)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            dev = compat.device_path("cups-" + QUEUE)
            cupsd.lp("lpadmin", "-p", QUEUE, "-E", "-v", "file:///dev/null", "-P", ppd)
            signals.wait("DeviceAdded", dev)

            found = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                                ["cups-" + QUEUE], reply="o")[0]
            check_eq(found, dev, "FindDeviceById(cups-%s)" % QUEUE)
            check_eq(prop(conn, dev, compat.IFACE_DEVICE, "Kind"), "printer", "Kind")
            check_eq(prop(conn, dev, compat.IFACE_DEVICE, "Format"), "ColorSpace.MediaType.Resolution",
                     "Format (the qualifier layout)")
            profiles = prop(conn, dev, compat.IFACE_DEVICE, "Profiles")
            by_qualifier = {prop(conn, p, compat.IFACE_PROFILE, "Qualifier"): p for p in profiles}
            check("RGB.Glossy.600dpi" in by_qualifier and "RGB.." in by_qualifier,
                  "the PPD's two profiles are on the device: %r" % sorted(by_qualifier))
            check_eq(prop(conn, by_qualifier["RGB.Glossy.600dpi"], compat.IFACE_PROFILE, "Filename"), glossy,
                     "glossy profile's file")
            check_eq(prop(conn, by_qualifier["RGB.."], compat.IFACE_PROFILE, "Filename"), generic,
                     "generic profile's file")

            def lookup(q):
                # What a print job asks (cups-filters): the job's qualifier, then one part
                # at a time replaced by "*"; the daemon returns the first that matches.
                c, m, r = q.split(".")
                fallback = [q, "%s.%s.*" % (c, m), "%s.*.%s" % (c, r), "%s.*.*" % c, "*"]
                return compat.call(conn, dev, compat.IFACE_DEVICE, "GetProfileForQualifiers", "as", [fallback],
                                   reply="o")[0]
            check_eq(lookup("RGB.Glossy.600dpi"), by_qualifier["RGB.Glossy.600dpi"], "exact qualifier")
            check_eq(lookup("RGB.Glossy.1200dpi"), by_qualifier["RGB.Glossy.600dpi"],
                     "RGB.Glossy.1200dpi falls back to the glossy profile (RGB.Glossy.*)")
            check_eq(lookup("RGB.Matte.300dpi"), by_qualifier["RGB.."], "RGB.Matte.300dpi falls back to RGB.*.*")

            cupsd.lp("lpadmin", "-x", QUEUE)
            signals.wait("DeviceRemoved", dev)
            compat.expect_dbus_error(
                lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                                    ["cups-" + QUEUE], reply="o"),
                compat.IFACE_MANAGER + ".NotFound", "the device is gone after lpadmin -x")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()


if __name__ == "__main__":
    cups_ppd.main()
