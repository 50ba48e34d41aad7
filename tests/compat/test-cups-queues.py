#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every CUPS queue is a device (docs/printers.md), with Debian's real cupsd on the private bus.

tinctd follows the private cupsd (CUPS_SERVER, set by the harness) and makes cups-<queue> for
queues cupsd does not register itself (a queue without a PPD), follows a change of its device
URI and its removal, a 127-byte name with odd characters, queues added and removed while
tinctd was down, a cupsd that stops (the devices stay, the daemon answers) and comes back
without a queue, and never makes a second device of an id cupsd registers itself (a PPD
queue registered by cupsd, taken over after a tinctd restart). Every step waits for the
daemon's signals. With cupsd's D-Bus notifier (tinctd's subscription, dbus://) and a poll
of an hour, a queue added, changed and removed reaches tinctd by signal, before and after
the subscription's renewal (a lease of 10 s); restarted, stopped or killed, tinctd leaves
cupsd holding one subscription of its own. Skips only where
cupsd cannot run (not installed, or not root)."""

import os
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import Cupsd, Signals, prop, wait_until  # noqa: E402
import cups_ppd  # noqa: E402

PPD = cups_ppd.ppd("Tinct Laser")

# 127 bytes, the longest name cupsd takes, of characters cupsd allows but object paths do not.
ODD = "Ödd~!$%&()*+,-.:;<=>[]^{|}`€"
ODD = ODD + "x" * (127 - len(ODD.encode()))
assert len(ODD.encode()) == 127


def dev(queue):
    return compat.device_path("cups-" + queue)


def find(conn, queue):
    return compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                       ["cups-" + queue], reply="o")[0]


def devices_of(conn, queue):
    """Every device of the id cups-<queue> (there must never be two)."""
    paths = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetDevices", reply="ao")[0]
    return [p for p in paths if prop(conn, p, compat.IFACE_DEVICE, "DeviceId") == "cups-" + queue]


def expect_gone(conn, queue):
    compat.expect_dbus_error(lambda: find(conn, queue), compat.IFACE_MANAGER + ".NotFound",
                             "no device cups-%s" % queue)


@test
def queues_are_devices():
    """a queue without a PPD (cupsd registers none): added, changed, removed; a 127-byte
    name with odd characters"""
    with compat.TinctEnv(polkit="allow") as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            cupsd.lp("lpadmin", "-p", "Plain", "-E", "-v", "file:///dev/null")
            signals.wait("DeviceAdded", dev("Plain"))
            check_eq(find(conn, "Plain"), dev("Plain"), "FindDeviceById(cups-Plain)")
            check_eq(prop(conn, dev("Plain"), compat.IFACE_DEVICE, "Kind"), "printer", "Kind")
            check_eq(prop(conn, dev("Plain"), compat.IFACE_DEVICE, "Serial"), "file:///dev/null",
                     "Serial: the device URI (colord §9.5)")
            check_eq(prop(conn, dev("Plain"), compat.IFACE_DEVICE, "Format"), "ColorModel.MediaType.Resolution",
                     "Format: the qualifier layout of a driverless queue")

            mark = signals.mark()
            cupsd.lp("lpadmin", "-p", "Plain", "-v", "file:///dev/zero")
            signals.wait("PropertiesChanged", dev("Plain"), since=mark)
            check_eq(prop(conn, dev("Plain"), compat.IFACE_DEVICE, "Serial"), "file:///dev/zero",
                     "a changed device URI reaches Serial")

            cupsd.lp("lpadmin", "-p", ODD, "-E", "-v", "file:///dev/null")
            signals.wait("DeviceAdded", dev(ODD))
            check_eq(find(conn, ODD), dev(ODD), "a 127-byte queue name with odd characters")
            check_eq(prop(conn, dev(ODD), compat.IFACE_DEVICE, "DeviceId"), "cups-" + ODD, "its DeviceId, unchanged")

            cupsd.lp("lpadmin", "-x", "Plain")
            signals.wait("DeviceRemoved", dev("Plain"))
            expect_gone(conn, "Plain")
            cupsd.lp("lpadmin", "-x", ODD)
            signals.wait("DeviceRemoved", dev(ODD))
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()


@test
def restarts():
    """queues that came and went while tinctd was down; a cupsd that stops (the devices stay)
    and comes back without a queue; one device for a queue cupsd registers itself"""
    with compat.TinctEnv(polkit="allow") as env:
        ppd = os.path.join(env.tmp, "laser.ppd")
        with open(ppd, "w") as f:
            f.write(PPD)
        conn = compat.connect(env)
        signals = Signals(conn)
        root = os.path.join(env.tmp, "cups")
        cupsd = Cupsd(env, root)
        try:
            cupsd.lp("lpadmin", "-p", "Stays", "-E", "-v", "file:///dev/null")
            cupsd.lp("lpadmin", "-p", "Goes", "-E", "-v", "file:///dev/null")
            cupsd.lp("lpadmin", "-p", "Laser", "-E", "-v", "file:///dev/null", "-P", ppd)
            signals.wait("DeviceAdded", dev("Stays"))
            signals.wait("DeviceAdded", dev("Goes"))
            signals.wait("DeviceAdded", dev("Laser"))
            check_eq(len(devices_of(conn, "Laser")), 1, "one device for the PPD queue cupsd registers")

            env.stop_daemon()
            cupsd.lp("lpadmin", "-x", "Goes")
            cupsd.lp("lpadmin", "-p", "New", "-E", "-v", "file:///dev/null")
            mark = signals.mark()
            env.start_daemon()
            signals.wait("DeviceAdded", dev("New"), since=mark)
            signals.wait("DeviceAdded", dev("Laser"), since=mark)
            expect_gone(conn, "Goes")
            check_eq(find(conn, "Stays"), dev("Stays"), "a queue that stayed is a device again")
            # cupsd does not know tinctd restarted: the Laser device is tinct's now. A new PPD
            # makes cupsd register the queue again (FindDeviceById, DeleteDevice, CreateDevice).
            mark = signals.mark()
            cupsd.lp("lpadmin", "-p", "Laser", "-P", ppd)
            signals.wait("ProfileAdded", compat.MANAGER_PATH + "/profiles/Laser_RGB__", since=mark)
            signals.wait("DeviceChanged", dev("Laser"), since=mark)
            check_eq(len(devices_of(conn, "Laser")), 1, "still one device of cups-Laser after cupsd's own")
            quals = sorted(prop(conn, p, compat.IFACE_PROFILE, "Qualifier")
                           for p in prop(conn, dev("Laser"), compat.IFACE_DEVICE, "Profiles"))
            check("RGB.." in quals, "cupsd's profiles are on the one device: %r" % quals)

            # cupsd stops: its own devices go with it (temp), tinct's stay; the daemon answers.
            cupsd.stop()
            check_eq(find(conn, "Stays"), dev("Stays"), "with cupsd stopped the queue's device stays")
            check(env.daemon_alive(), "daemon alive without cupsd")
            # The queue Stays is removed while cupsd is down (its printers.conf edited).
            check_eq(cupsd.take_out_of_conf("Stays"), 1, "the queue Stays taken out of printers.conf")
            mark = signals.mark()
            cupsd = Cupsd(env, root)
            signals.wait("DeviceRemoved", dev("Stays"), since=mark)
            check_eq(find(conn, "New"), dev("New"), "the other queues' devices are there")
            check_eq(len(devices_of(conn, "Laser")), 1, "one device of cups-Laser after cupsd's restart")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()


@test
def notified():
    """cupsd's D-Bus notifier: with a poll of an hour, a queue added, changed and removed
    with lpadmin reaches tinctd by signal, also after the subscription was renewed"""
    with compat.TinctEnv(polkit="allow", extra_args=["--cups-poll", "3600", "--cups-lease", "10"]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            # tinctd subscribes once cupsd answers, then lists the queues once more and next
            # in an hour: after that listing only a signal can make tinctd ask cupsd again.
            wait_until("tinctd's subscription and the listing after it", cupsd.subscribed_and_listed)
            check(("Create-Printer-Subscriptions", "successful-ok") in cupsd.requests(), "cupsd took the subscription")
            cupsd.lp("lpadmin", "-p", "Signalled", "-E", "-v", "file:///dev/null")
            signals.wait("DeviceAdded", dev("Signalled"))
            # A lease of 10 s is renewed at 5 s; the signals go on after it.
            wait_until("a renewal", lambda: any(op == "Renew-Subscription" for op, _status in cupsd.requests()))
            renewals = [status for op, status in cupsd.requests() if op == "Renew-Subscription"]
            check_eq(renewals[0], "successful-ok", "cupsd renewed tinctd's subscription")
            mark = signals.mark()
            cupsd.lp("lpadmin", "-p", "Signalled", "-v", "file:///dev/zero")
            signals.wait("PropertiesChanged", dev("Signalled"), since=mark)
            check_eq(prop(conn, dev("Signalled"), compat.IFACE_DEVICE, "Serial"), "file:///dev/zero",
                     "the changed device URI, by PrinterModified")
            cupsd.lp("lpadmin", "-x", "Signalled")
            signals.wait("DeviceRemoved", dev("Signalled"))
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()


GET_SUBSCRIPTIONS = """{
  OPERATION Get-Subscriptions
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR naturalLanguage attributes-natural-language en
  ATTR uri printer-uri $uri
  ATTR name requesting-user-name root
  ATTR keyword requested-attributes notify-subscription-id,notify-recipient-uri
  STATUS successful-ok
  STATUS client-error-not-found
  DISPLAY notify-subscription-id
  DISPLAY notify-recipient-uri
}
"""


def dbus_subscriptions(env, cupsd):
    """The ids of the subscriptions cupsd lists (Get-Subscriptions, by ipptool over its
    socket): in the test's cupsd only tinctd makes them, each a dbus:// one."""
    test = os.path.join(env.tmp, "get-subscriptions.test")
    with open(test, "w") as f:
        f.write(GET_SUBSCRIPTIONS)
    uri = "ipp://%s/" % urllib.parse.quote(cupsd.sock, safe="")
    r = subprocess.run(["ipptool", "-t", uri, test], env=cupsd.env, text=True, capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    if r.returncode != 0:
        raise AssertionError("ipptool Get-Subscriptions failed: %s%s" % (r.stdout, r.stderr))
    ids, uris = [], []
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("notify-subscription-id ("):
            ids.append(int(line.split("=")[-1]))
        elif line.startswith("notify-recipient-uri ("):
            uris.append(line.split("=", 1)[-1].strip())
    check_eq(uris, ["dbus://"] * len(ids), "every subscription is a dbus:// one")
    return sorted(ids)


@test
def one_subscription():
    """tinctd restarted three times and killed once: cupsd lists one subscription of
    tinctd's (the earlier ones cancelled at stop or, after the kill, at the next start),
    and queue changes still reach tinctd by signal; none after tinctd stopped"""
    with compat.TinctEnv(polkit="allow", extra_args=["--cups-poll", "3600"]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        made = 0

        def subscribed_again():
            # One more Create-Printer-Subscriptions answered, and the listing after it.
            ops = [op for op, _status in cupsd.requests()]
            creates = [i for i, op in enumerate(ops) if op == "Create-Printer-Subscriptions"]
            return len(creates) > made and "CUPS-Get-Printers" in ops[creates[made]:]
        try:
            wait_until("tinctd's subscription", subscribed_again)
            made += 1
            first = dbus_subscriptions(env, cupsd)
            check_eq(len(first), 1, "one subscription after the start")
            for i in range(3):
                env.restart()
                wait_until("tinctd's subscription after restart %d" % (i + 1), subscribed_again)
                made += 1
                now = dbus_subscriptions(env, cupsd)
                check_eq(len(now), 1, "one subscription after restart %d: %r" % (i + 1, now))
                check(now != first, "a new one, the stopped tinctd's cancelled")
                first = now
            # A kill leaves its subscription: the next tinctd finds and cancels it.
            env.daemon_proc.kill()
            env.daemon_proc.wait()
            check_eq(dbus_subscriptions(env, cupsd), first, "the killed tinctd's subscription stays")
            env.stop_daemon()
            env.start_daemon()
            wait_until("tinctd's subscription after the kill", subscribed_again)
            made += 1
            wait_until("the killed tinctd's subscription cancelled",
                       lambda: ("Cancel-Subscription", "successful-ok") in cupsd.requests())
            now = dbus_subscriptions(env, cupsd)
            check_eq(len(now), 1, "one subscription after the kill: %r" % now)
            check(now != first, "the killed tinctd's one cancelled")
            # Notifications still arrive (a poll of an hour: only a signal brings the queue).
            cupsd.lp("lpadmin", "-p", "AfterKill", "-E", "-v", "file:///dev/null")
            signals.wait("DeviceAdded", dev("AfterKill"))
            check(env.daemon_alive(), "daemon alive")
            env.stop_daemon()
            check_eq(dbus_subscriptions(env, cupsd), [], "no subscription after tinctd stopped")
        finally:
            cupsd.stop()


if __name__ == "__main__":
    cups_ppd.main()
