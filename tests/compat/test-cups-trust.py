#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Printers and the console as hostile inputs (docs/printers.md), with Debian's real cupsd on
the private bus and printers of the test's own on 127.0.0.1.

- A vendor profile's id is the daemon's: a console user (nobody, allowed by the fake polkit
  to create profiles) who calls CreateProfileWithFd with the id a printer's vendor profile
  will get, before tinctd fetches it, naming a root-owned file in a directory nobody cannot
  write, is refused; root's cups-<queue> lists the daemon's profile only, the qualifier
  lookup cups-filters makes returns the daemon's file, and after lpadmin -x the root-owned
  file is still there.
- <state>/printers/ holds the files of live queues only, at start and whenever a queue goes,
  and all of them together stay within LIMIT_PRINTER_FILES and LIMIT_PRINTER_FILES_BYTES
  (src/shared/tinct-limits.h): a queue removed while tinctd was down, a printer that answers
  a new printer-uuid at every restart and when its queue's device URI changes, lpadmin -x,
  and printers offering more than the caps.
- A queue taken out of printers.conf while cupsd was stopped loses its device when cupsd is
  back, by cupsd's ServerStarted signal, not a minute later at the safety listing (the test
  sets that listing to an hour).

The printers are not ippeveprinter: ippeveprinter answers one printer-uuid per run and needs
DNS-SD; these tests need a printer whose printer-uuid changes from one answer to the next and
many printers at once. Each is a path of one small IPP responder of this test
(Get-Printer-Attributes over HTTP/1.1 on 127.0.0.1, RFC 8010 encoding), which serves its
profiles from the same host. Skips only where cupsd cannot run (not installed, or not root)."""

import hashlib
import http.server
import os
import re
import stat
import struct
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import Cupsd, Signals, prop, wait_until  # noqa: E402
import cups_ppd  # noqa: E402


def dev(queue):
    return compat.device_path("cups-" + queue)


def devices_of(conn, queue):
    paths = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetDevices", reply="ao")[0]
    return [p for p in paths if prop(conn, p, compat.IFACE_DEVICE, "DeviceId") == "cups-" + queue]


@test
def cupsd_restart_without_queue():
    """a queue cupsd never registered, taken out of printers.conf while cupsd was stopped:
    its device goes when cupsd is back (ServerStarted), with the safety listing an hour away"""
    with compat.TinctEnv(polkit="allow", extra_args=["--cups-poll", "3600"]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        root = os.path.join(env.tmp, "cups")
        cupsd = Cupsd(env, root)
        try:
            cupsd.lp("lpadmin", "-p", "Gone", "-E", "-v", "file:///dev/null")
            signals.wait("DeviceAdded", dev("Gone"))

            # tinctd's subscription and the listing after it: from then on only a signal
            # makes tinctd ask cupsd (the safety listing is an hour away).
            def subscribed_and_listed():
                ops = [op for op, _status in cupsd.requests()]
                if "Create-Printer-Subscriptions" not in ops:
                    return False
                return "CUPS-Get-Printers" in ops[ops.index("Create-Printer-Subscriptions"):]
            wait_until("tinctd's subscription and the listing after it", subscribed_and_listed)
            check(("Create-Printer-Subscriptions", "successful-ok") in cupsd.requests(), "cupsd took the subscription")
            cupsd.stop()
            conf = os.path.join(root, "printers.conf")
            with open(conf) as f:
                text = f.read()
            text, n = re.subn(r"<Printer Gone>.*?</Printer>\n", "", text, flags=re.S)
            check_eq(n, 1, "the queue Gone taken out of printers.conf while cupsd is stopped")
            with open(conf, "w") as f:
                f.write(text)
            check_eq(devices_of(conn, "Gone"), [dev("Gone")], "its device is still there meanwhile")
            mark = signals.mark()
            cupsd = Cupsd(env, root)
            signals.wait("DeviceRemoved", dev("Gone"), since=mark)
            check_eq(devices_of(conn, "Gone"), [], "no cups-Gone once cupsd answered without it")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()


if __name__ == "__main__":
    cups_ppd.main()
