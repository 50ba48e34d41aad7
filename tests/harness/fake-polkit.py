#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fake polkit authority for tinct's bus and compatibility tests.

The real polkitd cannot decide anything in the test environment: there is no logind
session, so every subject would be "inactive" and get the `allow_any` answer, and the
tests need to choose the answer themselves. This stand-in owns
`org.freedesktop.PolicyKit1` on the private bus given by DBUS_SYSTEM_BUS_ADDRESS and
answers `org.freedesktop.PolicyKit1.Authority.CheckAuthorization` at
`/org/freedesktop/PolicyKit1/Authority` according to its mode. It does not implement
anything else of polkit (no agents, no temporary authorizations, no enumeration).

Usage:
    fake-polkit.py MODE [--deny ACTION]... [--log FILE]

    MODE    allow   every check is authorized          -> (true, false, {})
            deny    every check is refused             -> (false, false, {})
            error   every check fails with the D-Bus error
                    org.freedesktop.PolicyKit1.Error.Failed
            silent  no check is ever answered (the caller must time out)
    --deny ACTION   deny this action id, allow the others (repeatable; implies allow
                    for everything not listed; with MODE deny/error/silent it is moot)
    --log FILE      append one line per request:
                    "<action-id>\t<subject-kind>\t<subject name or pid>\t<flags>\t<cancellation-id>\t<sender>"
                    flushed immediately, so a test can read it right after its call returns.

Prints "READY" on stdout (and flushes) once the name is owned. Exits 0 on SIGTERM/SIGINT.
"""

import argparse
import os
import signal
import sys

import dbus
import dbus.bus
import dbus.service
import dbus.mainloop.glib
from gi.repository import GLib

BUS_NAME = "org.freedesktop.PolicyKit1"
OBJECT_PATH = "/org/freedesktop/PolicyKit1/Authority"
IFACE = "org.freedesktop.PolicyKit1.Authority"


class FailedError(dbus.DBusException):
    _dbus_error_name = "org.freedesktop.PolicyKit1.Error.Failed"


class Authority(dbus.service.Object):
    def __init__(self, bus, mode, deny, log):
        super().__init__(bus, OBJECT_PATH)
        self.mode = mode
        self.deny = set(deny)
        self.log = log
        self.pending = []  # replies never sent in silent mode; kept alive on purpose

    def _record(self, subject, action_id, flags, cancellation_id, sender):
        if not self.log:
            return
        kind = str(subject[0]) if len(subject) > 0 else ""
        details = subject[1] if len(subject) > 1 else {}
        who = ""
        if "name" in details:
            who = str(details["name"])
        elif "pid" in details:
            who = str(int(details["pid"]))
        self.log.write("%s\t%s\t%s\t%u\t%s\t%s\n" % (action_id, kind, who, int(flags),
                                                  cancellation_id, sender))
        self.log.flush()

    @dbus.service.method(IFACE, in_signature="(sa{sv})sa{ss}us", out_signature="(bba{ss})",
                         sender_keyword="sender",
                         async_callbacks=("reply_cb", "error_cb"))
    def CheckAuthorization(self, subject, action_id, details, flags, cancellation_id,
                           sender=None, reply_cb=None, error_cb=None):
        self._record(subject, action_id, flags, cancellation_id, sender)
        if self.mode == "silent":
            self.pending.append((reply_cb, error_cb))
            return
        if self.mode == "error":
            error_cb(FailedError("fake-polkit: configured to fail"))
            return
        authorized = self.mode == "allow" and str(action_id) not in self.deny
        reply_cb(dbus.Struct((dbus.Boolean(authorized), dbus.Boolean(False),
                              dbus.Dictionary({}, signature="ss")),
                             signature="bba{ss}"))

    @dbus.service.method(IFACE, in_signature="s", out_signature="")
    def CancelCheckAuthorization(self, cancellation_id):
        pass


def main():
    parser = argparse.ArgumentParser(description="fake polkit authority for tests")
    parser.add_argument("mode", choices=["allow", "deny", "error", "silent"])
    parser.add_argument("--deny", action="append", default=[], metavar="ACTION")
    parser.add_argument("--log", metavar="FILE")
    args = parser.parse_args()

    if "DBUS_SYSTEM_BUS_ADDRESS" not in os.environ:
        print("fake-polkit: DBUS_SYSTEM_BUS_ADDRESS is not set; refusing to use the "
              "machine's system bus", file=sys.stderr)
        return 2

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    log = open(args.log, "a", buffering=1) if args.log else None
    authority = Authority(bus, args.mode, args.deny, log)  # noqa: F841 (kept alive)

    loop = GLib.MainLoop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, sig, loop.quit)
    bus.call_on_disconnection(lambda _conn: loop.quit())

    r = bus.request_name(BUS_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if r not in (dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER,
                 dbus.bus.REQUEST_NAME_REPLY_ALREADY_OWNER):
        print("fake-polkit: could not own %s (%d)" % (BUS_NAME, r), file=sys.stderr)
        return 1

    sys.stdout.write("READY\n")
    sys.stdout.flush()
    loop.run()
    if log:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
