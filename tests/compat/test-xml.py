#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Static check: our data/dbus/*.xml against the introspection XML Debian's colord installs.

Member by member: every method (argument names, types, directions), signal (argument names
and types), property (type and access) and Qt type annotation must be the same, and
neither file may have a member the other lacks. No daemon is started."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, test  # noqa: E402


def _compare(iface):
    exp = compat.colord_interface(iface)
    got = compat.our_interface(iface)
    problems, checked = compat.compare_interface(exp, got, iface, check_annotations=True)
    for c in checked:
        print("    checked %s: %s" % (iface, c))
    check(not problems, "%s matches colord's XML (%d items)%s"
          % (iface, len(checked), "" if not problems else ":\n      " + "\n      ".join(problems)))


@test
def manager_xml():
    """data/dbus/org.freedesktop.ColorManager.xml matches colord's"""
    _compare(compat.IFACE_MANAGER)


@test
def device_xml():
    """data/dbus/org.freedesktop.ColorManager.Device.xml matches colord's"""
    _compare(compat.IFACE_DEVICE)


@test
def profile_xml():
    """data/dbus/org.freedesktop.ColorManager.Profile.xml matches colord's"""
    _compare(compat.IFACE_PROFILE)


@test
def sensor_xml():
    """data/dbus/org.freedesktop.ColorManager.Sensor.xml matches colord's"""
    _compare(compat.IFACE_SENSOR)


@test
def xml_is_ours():
    """our files are well-formed, one interface each, and carry no copied doc: prose"""
    for iface in compat.INTERFACES:
        path = os.path.join(compat.OUR_XML_DIR, iface + ".xml")
        with open(path) as f:
            text = f.read()
        ifaces = compat.parse_interfaces(text)
        check(list(ifaces) == [iface], "%s declares exactly interface %s" % (os.path.basename(path), iface))
        check("doc:" not in text, "%s has no doc: elements" % os.path.basename(path))


if __name__ == "__main__":
    compat.main(uses_daemon=False)
