#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A printer's vendor profiles are parsed in the parser processes while the loop serves
everyone else (docs/sandbox.md, "Who waits"): what a printer sends delays no client.

ippeveprinter (Debian's cups-ipp-utils) on 127.0.0.1 offers two profiles in
printer-icc-profiles, served by a web server of this test: a valid one, and one on which a
development build's tinct-parse loops for ever ("TINCT-TEST:hang", docs/sandbox.md). Debian's
cupsd has a raw queue for it; tinctd follows cupsd, has tinct-fetch (--fetch-helper) ask the
printer and parses what it got. While the parser loops on the printer's profile (seen in /proc:
the hook blocks SIGUSR2), another client's GetProfiles and GetDevices are answered (the daemon
once parsed a vendor profile on its loop: nobody was answered until the parse timeout). Once the
test kills the looping process, the valid profile is on the printer's device with its qualifier
and its file holds the printer's bytes, the hanging one is not registered, and the daemon says
why. No timing: the parse cannot end before the kill. Also: a fetch helper that closes its
socket and then lingers (as one a printer's reply took over could) is killed, not waited for,
and the loop answers on (it once blocked in waitpid until the helper ended). Skips where a
component is not installed, as non-root (cupsd), and in builds without the parser's test hooks."""

import hashlib
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import Cupsd, Ippeveprinter, ProfileServer, Signals, hang_input, hung_parsers, prop, wait_until  # noqa: E402

UUID = "5a1e0f2c-7b3d-4c9e-8f10-2d3c4b5a6f70"
PLAIN = "colord-tests--ibm-t61.icc"


def vendor_id(name):
    """The id of a vendor profile of the printer (docs/printers.md): by its identity."""
    return "printer-%s-%s" % (hashlib.md5(("uuid:" + UUID).encode()).hexdigest()[:12], name)


def vendor_path(name):
    return compat.MANAGER_PATH + "/profiles/" + compat.escape_id(vendor_id(name))


@test
def vendor_profile_parse_waits_for_nobody():
    """a printer's profile that hangs the parser: other clients answered, the valid profile registered"""
    fetch = os.environ.get("TINCT_FETCH")
    check(fetch and os.access(fetch, os.X_OK), "TINCT_FETCH names tinct-fetch")
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", fetch, "--parse-timeout", "3600"]) as env:
        plain = open(compat.icc(PLAIN), "rb").read()
        server = ProfileServer({"plain.icc": plain, "hang.icc": hang_input()})
        conn = compat.connect(env)
        other = compat.connect(env)
        signals = Signals(conn)
        printer = cupsd = None
        try:
            printer = Ippeveprinter(env, UUID, [("stationery", server.base + "plain.icc"),
                                                ("photographic-glossy", server.base + "hang.icc")])
            cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
            device = compat.device_path("cups-Photo")
            cupsd.lp("lpadmin", "-p", "Photo", "-E", "-v", printer.uri, "-m", "raw")
            signals.wait("DeviceAdded", device)
            daemon = env.daemon_proc.pid
            wait_until("a parser process looping on the printer's profile", lambda: hung_parsers(daemon))
            # Another client, while the printer's profile is being parsed: answered.
            profiles = compat.call(other, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetProfiles", reply="ao")[0]
            devices = compat.call(other, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetDevices", reply="ao")[0]
            check(device in devices and hung_parsers(daemon),
                  "GetProfiles (%d profiles) and GetDevices answered while the parser loops on the printer's "
                  "profile" % len(profiles))
            for pid in hung_parsers(daemon):
                os.kill(pid, 9)
            signals.wait("ProfileAdded", vendor_path("stationery"))

            def device_has(path):
                signals.drain()
                return path in prop(conn, device, compat.IFACE_DEVICE, "Profiles")
            wait_until("the valid vendor profile on cups-Photo", lambda: device_has(vendor_path("stationery")))
            check_eq(prop(conn, vendor_path("stationery"), compat.IFACE_PROFILE, "Qualifier"), "RGB.Stationery.*",
                     "its qualifier, from its name")
            fname = prop(conn, vendor_path("stationery"), compat.IFACE_PROFILE, "Filename")
            check(open(fname, "rb").read() == plain, "its file holds the printer's bytes")
            compat.expect_dbus_error(
                lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileById", "s",
                                    [vendor_id("photographic-glossy")], reply="o"),
                compat.IFACE_MANAGER + ".NotFound", "no profile from the one that hung the parser")
            check(env.daemon_alive(), "daemon alive")
        finally:
            for p in (cupsd, printer):
                if p:
                    p.stop()
            server.stop()


LINGER = """#!/bin/sh
# A fetch helper that reads the request, says who it is, closes its socket and stays.
read -r line
echo $$ > "%s.tmp" && mv "%s.tmp" "%s"
exec 0<&- 1>&-
exec sleep 3600
"""


@test
def fetch_helper_lingering_after_eof():
    """a fetch helper that closes its socket and stays: killed, and the daemon answers on"""
    helper_dir = tempfile.mkdtemp(prefix="tinct-linger-")  # the helper, before the daemon that runs it
    mark = os.path.join(helper_dir, "pid")
    helper = os.path.join(helper_dir, "linger")
    with open(helper, "w") as f:
        f.write(LINGER % (mark, mark, mark))
    os.chmod(helper, 0o755)
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", helper]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        printer = cupsd = None
        try:
            printer = Ippeveprinter(env, UUID, [])
            cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
            device = compat.device_path("cups-Photo")
            cupsd.lp("lpadmin", "-p", "Photo", "-E", "-v", printer.uri, "-m", "raw")
            signals.wait("DeviceAdded", device)
            wait_until("the helper's pid", lambda: os.path.exists(mark))
            pid = int(open(mark).read())
            # Gone (killed and reaped) only if the daemon's loop went on past its EOF.
            wait_until("the lingering helper ended by the daemon", lambda: not os.path.exists("/proc/%d" % pid))
            devices = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetDevices", reply="ao")[0]
            check(device in devices, "GetDevices answered after the helper's EOF")
            check(env.daemon_alive(), "daemon alive")
        finally:
            for p in (cupsd, printer):
                if p:
                    p.stop()
            if os.path.exists(mark):
                try:
                    os.kill(int(open(mark).read()), 9)
                except (ProcessLookupError, ValueError):
                    pass
            shutil.rmtree(helper_dir, ignore_errors=True)


if __name__ == "__main__":
    for tool in ("cupsd", "lpadmin", "ippeveprinter"):
        if not shutil.which(tool):
            print("%s not installed (scripts/install-deps.sh installs it): skipping" % tool)
            sys.exit(77)
    if os.geteuid() != 0:
        print("cupsd needs root here: skipping")
        sys.exit(77)
    if os.environ.get("TINCT_PARSER_TEST_HOOKS") != "1":
        print("tinct-parse built without parser_test_hooks: skipping")
        sys.exit(77)
    compat.main()
