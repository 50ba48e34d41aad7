#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Introspection of the running daemon against Debian colord's installed XML.

Starts the daemon (with the dummy sensor), makes one device and one profile, then calls
org.freedesktop.DBus.Introspectable.Introspect on the manager, the device, the profile and
the sensor and compares each interface with /usr/share/dbus-1/interfaces: every method
(argument names, types, directions), signal (argument types and names), property (type and
access). Missing or extra members fail. It also checks the standard interfaces, the child
nodes under the manager, and that GetAll returns exactly the introspected properties with
the introspected value types (libcolord unpacks them with type-specific getters)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402

STANDARD = {"org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable",
            "org.freedesktop.DBus.Peer"}


def _setup(env, conn):
    dev = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateDevice",
                      "ssa{ss}", ["compat-introspect-dev", "temp", {"Kind": "display"}],
                      reply="o")[0]
    prof = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile",
                       "ssa{ss}", ["compat-introspect-prof", "temp", {"Qualifier": "RGB.."}],
                       reply="o")[0]
    sensors = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetSensors",
                          reply="ao")[0]
    check(len(sensors) >= 1, "GetSensors lists the dummy sensor (%s)" % sensors)
    return dev, prof, sensors[0]


def _check_object(conn, path, iface, check_types=True):
    import xml.etree.ElementTree as ET
    text = compat.introspect(conn, path)
    root = ET.fromstring(text)
    names = {i.get("name") for i in root.findall("interface")}
    check(STANDARD <= names, "%s has the standard interfaces %s" % (path, sorted(STANDARD)))
    check(iface in names, "%s has interface %s" % (path, iface))
    extra = names - STANDARD - {iface}
    check(not extra, "%s has no other interfaces (extra: %s)" % (path, sorted(extra)))
    got = compat.parse_interfaces(text)[iface]
    exp = compat.colord_interface(iface)
    problems, checked = compat.compare_interface(exp, got, path)
    for c in checked:
        print("    checked %s: %s" % (iface, c))
    check(not problems, "introspection of %s matches colord's %s (%d members)%s"
          % (path, iface, len(checked), "" if not problems else
             ":\n      " + "\n      ".join(problems)))
    # GetAll: the same properties, with the declared types
    props = compat.get_all(conn, path, iface)
    exp_props = {n: t for n, (t, _a) in exp["properties"].items()}
    check_eq(sorted(props), sorted(exp_props), "GetAll(%s) property names on %s" % (iface, path))
    if not check_types:
        return root
    bad = ["%s is %s, declared %s" % (n, v.get_type_string(), exp_props[n])
           for n, v in props.items() if n in exp_props and v.get_type_string() != exp_props[n]]
    check(not bad, "GetAll(%s) value types on %s match the XML%s"
          % (iface, path, "" if not bad else ": " + "; ".join(bad)))
    return root


def _env():
    return compat.TinctEnv(polkit="allow",
                           profiles=[compat.icc(n) for n in compat.STANDARD_PROFILES],
                           dummy_sensor=True)


@test
def manager_introspection():
    """the manager object: org.freedesktop.ColorManager members, children"""
    with _env() as env:
        conn = compat.connect(env)
        dev, prof, sensor = _setup(env, conn)
        root = _check_object(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER)
        children = {n.get("name") for n in root.findall("node")}
        check({"devices", "profiles", "sensors"} <= children,
              "manager introspection lists child nodes devices, profiles, sensors (%s)"
              % sorted(children))
        for sub, obj in (("devices", dev), ("profiles", prof), ("sensors", sensor)):
            import xml.etree.ElementTree as ET
            r = ET.fromstring(compat.introspect(conn, compat.MANAGER_PATH + "/" + sub))
            kids = {n.get("name") for n in r.findall("node")}
            check(obj.rsplit("/", 1)[1] in kids, "%s/%s lists child %s"
                  % (compat.MANAGER_PATH, sub, obj.rsplit("/", 1)[1]))


@test
def device_introspection():
    """a device object: org.freedesktop.ColorManager.Device members and GetAll types"""
    with _env() as env:
        conn = compat.connect(env)
        dev, _prof, _sensor = _setup(env, conn)
        check_eq(dev, compat.device_path("compat-introspect-dev"), "device object path")
        _check_object(conn, dev, compat.IFACE_DEVICE)


@test
def profile_introspection():
    """a profile object: org.freedesktop.ColorManager.Profile members and GetAll types"""
    with _env() as env:
        conn = compat.connect(env)
        _dev, prof, _sensor = _setup(env, conn)
        check_eq(prof, compat.profile_path("compat-introspect-prof"), "profile object path")
        _check_object(conn, prof, compat.IFACE_PROFILE)


@test
def system_profile_introspection():
    """a profile the daemon found in its profile directory"""
    with _env() as env:
        conn = compat.connect(env)
        sid = "icc-" + compat.icc_checksum("colord-data--sRGB.icc")
        path = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileById",
                           "s", [sid], reply="o")[0]
        check_eq(path, compat.profile_path(sid), "path of the discovered sRGB profile")
        _check_object(conn, path, compat.IFACE_PROFILE)


@test
def sensor_introspection():
    """the dummy sensor: org.freedesktop.ColorManager.Sensor members and GetAll types"""
    with _env() as env:
        conn = compat.connect(env)
        _dev, _prof, sensor = _setup(env, conn)
        check_eq(sensor, compat.MANAGER_PATH + "/sensors/dummy", "dummy sensor path")
        _check_object(conn, sensor, compat.IFACE_SENSOR, check_types=False)


@test(colord_bug="9")
def sensor_getall_types():
    """the dummy sensor's GetAll value types match the XML (colord sends Metadata as a{sv})"""
    with _env() as env:
        conn = compat.connect(env)
        _dev, _prof, sensor = _setup(env, conn)
        _check_object(conn, sensor, compat.IFACE_SENSOR)


@test
def unknown_paths_fail():
    """GetAll on a path with no object fails (libcolord relies on it to detect absence)"""
    from gi.repository import GLib
    with _env() as env:
        conn = compat.connect(env)
        for path, iface in ((compat.MANAGER_PATH + "/devices/nope", compat.IFACE_DEVICE),
                            (compat.MANAGER_PATH + "/profiles/nope", compat.IFACE_PROFILE),
                            (compat.MANAGER_PATH + "/sensors/nope", compat.IFACE_SENSOR)):
            try:
                compat.get_all(conn, path, iface)
            except GLib.Error as e:
                check(True, "GetAll(%s) on %s fails (%s)" % (iface, path, compat.dbus_error_name(e)))
            else:
                raise AssertionError("GetAll on %s succeeded" % path)


if __name__ == "__main__":
    compat.main()
