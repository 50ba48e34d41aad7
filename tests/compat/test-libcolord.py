#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""libcolord (Debian's, through python3-gi) against the daemon: the flows real clients use.

Every test runs in its own process with G_DEBUG=fatal-warnings, as GLib test programs do:
any libcolord warning (an unknown property or signal, a value of the wrong type) aborts
that process and fails the test. Property values are read from libcolord's cache straight
after the synchronous call that changed them: the cache is updated only by
PropertiesChanged, which the daemon must send before its reply (colord §1.2).

Tests marked colord_bug check a fix tinct makes to a colord bug listed in colord §16;
with TINCT_TEST_DAEMON=colord they are expected to fail."""

import json
import os
import subprocess
import sys
import time

if "fatal-warnings" not in os.environ.get("G_DEBUG", ""):
    os.environ["G_DEBUG"] = ",".join(x for x in (os.environ.get("G_DEBUG"), "fatal-warnings") if x)
    os.execv(sys.executable, [sys.executable] + sys.argv)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402

import gi  # noqa: E402
gi.require_version("Colord", "1.0")
from gi.repository import Colord, Gio, GLib, GObject  # noqa: E402

# GLib has read G_DEBUG now: fatal warnings are on for this process. compat.TinctEnv
# removes it from the environment the daemon gets.

TEMP = Colord.ObjectScope.TEMP
NORMAL = Colord.ObjectScope.NORMAL
DISK = Colord.ObjectScope.DISK
HARD = Colord.DeviceRelation.HARD
SOFT = Colord.DeviceRelation.SOFT

ICC_FILES = ["colord-tests--ibm-t61.icc", "colord-data--Bluish.icc", "icc-profiles-free--Gray.icc",
             "libgs-common--default_cmyk.icc", "rawtherapee-data--Canon_EOS_5D.icc",
             "icc-profiles-free--ITULab.icc", "colord-data--x11-colors.icc",
             "krita-data--Gray-D50-elle-V2-g22.icc", "rawtherapee-data--RTv2_sRGB.icc",
             "icc-profiles-free--CineLogCurve.icc"]


# ---------------------------------------------------------------------------------------
# helpers

def lc_env(**kw):
    kw.setdefault("polkit", "allow")
    kw.setdefault("profiles", [compat.icc(n) for n in compat.STANDARD_PROFILES])
    kw.setdefault("dummy_sensor", True)
    return compat.TinctEnv(**kw)


def client(env):
    """libcolord's client on the test bus (libcolord uses the shared system connection)."""
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = env.address
    c = Colord.Client.new()
    c.connect_sync(None)
    return c


def settle():
    """One round trip to the daemon on libcolord's connection, then dispatch: everything
    the daemon sent before this reply has then reached libcolord's cache."""
    conn = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    conn.call_sync(compat.SERVICE, compat.MANAGER_PATH, "org.freedesktop.DBus.Peer", "Ping",
                   None, None, Gio.DBusCallFlags.NONE, -1, None)
    compat.drain()


def cached(getter, expected, what, once=False):
    """The value in libcolord's cache right after a sync call, without any re-fetch.
    once: the getter may be called only once per change (Device.get_profiles() through
    gi empties libcolord's internal array: its annotation says transfer container, but
    libcolord hands out its own array, which the binding then frees)."""
    compat.drain()
    got = getter()
    if got == expected:
        print("    ok: %s = %r (cache)" % (what, expected), flush=True)
        return
    if once:
        raise AssertionError("%s: cache has %r, expected %r" % (what, got, expected))
    settle()
    later = getter()
    if later == expected:
        raise AssertionError("%s: cache had %r after the reply and %r only after a later "
                             "round trip: PropertiesChanged was sent after the method reply"
                             % (what, got, expected))
    raise AssertionError("%s: cache has %r, expected %r (no or wrong PropertiesChanged)"
                         % (what, later, expected))


def expect_error(fn, domain, code, what):
    """fn() must fail with the libcolord error (domain e.g. 'client', code an enum)."""
    try:
        fn()
    except GLib.Error as e:
        if domain not in e.domain or e.code != int(code):
            raise AssertionError("%s: got %s %d (%s), expected %s %s"
                                 % (what, e.domain, e.code, e.message, domain, code))
        print("    ok: %s -> %s %s (%s)" % (what, domain, code.value_nick, e.message), flush=True)
        return e
    raise AssertionError("%s: succeeded, expected %s %s" % (what, domain, code))


def new_device(c, device_id, scope=TEMP, props=None):
    d = c.create_device_sync(device_id, scope, props or {"Kind": "display"}, None)
    d.connect_sync(None)
    return d


def new_profile(c, profile_id, props=None, scope=TEMP):
    p = c.create_profile_sync(profile_id, scope, props or None, None)
    p.connect_sync(None)
    return p


def icc_profile(c, name, scope=TEMP):
    """The GNOME/KDE user-store way: CdIcc loaded from the file, CreateProfileWithFd."""
    icc = Colord.Icc.new()
    icc.load_file(Gio.File.new_for_path(compat.icc(name)), Colord.IccLoadFlags.METADATA | Colord.IccLoadFlags.FALLBACK_MD5, None)
    p = c.create_profile_for_icc_sync(icc, scope, None)
    p.connect_sync(None)
    return p


def kind_str(kind):
    """CD_PROFILE_KIND_DISPLAY_DEVICE -> display-device (libcolord's gir has no to_string)."""
    return kind.value_name[len("CD_PROFILE_KIND_"):].lower().replace("_", "-")


def lookup(device, qualifiers):
    """GetProfileForQualifiers with a list. libcolord's gir annotates the qualifiers as one
    string, so Python cannot pass a list through it; this makes the same call on
    libcolord's own connection (print filters such as cups-filters call it raw, too).
    Returns the object path; raises GLib.Error."""
    conn = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
    return compat.call(conn, device.get_object_path(), compat.IFACE_DEVICE,
                       "GetProfileForQualifiers", "as", [qualifiers], reply="o")[0]


def expect_lookup_error(device, qualifiers, name, what):
    return compat.expect_dbus_error(lambda: lookup(device, qualifiers), name, what)


def paths(objs):
    return [o.get_object_path() for o in objs]


class Events:
    """Collects libcolord's client signals."""

    def __init__(self, c):
        self.log = []
        for sig in ("device-added", "device-removed", "device-changed", "profile-added",
                    "profile-removed", "profile-changed", "sensor-added", "sensor-removed"):
            GObject.Object.connect(c, sig, self._on, sig)  # Client.connect is cd_client_connect

    def _on(self, _client, obj, sig):
        self.log.append((sig, obj.get_object_path()))

    def wait(self, sig, path):
        compat.iterate_until(lambda: (sig, path) in self.log, "%s(%s)" % (sig, path))
        print("    ok: libcolord emitted %s for %s" % (sig, path), flush=True)


# ---------------------------------------------------------------------------------------
# manager

@test
def connect_and_versions():
    """connect; DaemonVersion, SystemVendor, SystemModel are cached non-NULL strings"""
    with lc_env() as env:
        c = client(env)
        check(c.get_connected(), "client connected")
        check(c.get_has_server(), "client sees the server")
        v = c.get_daemon_version()
        check(isinstance(v, str) and len(v) > 0, "DaemonVersion %r is non-empty" % v)
        check(isinstance(c.get_system_vendor(), str), "SystemVendor %r" % c.get_system_vendor())
        check(isinstance(c.get_system_model(), str), "SystemModel %r" % c.get_system_model())


# ---------------------------------------------------------------------------------------
# devices

FULL_PROPS = {"Kind": "printer", "Model": "LaserJet 4000 Printer", "Vendor": "Hewlett-Packard Ltd.",
              "Serial": "usb://HP/LaserJet?serial=XYZ123", "Colorspace": "rgb", "Mode": "physical",
              "Format": "ColorModel.OutputMode.OutputResolution", "Embedded": "",
              "XRANDR_name": "DP-1", "OutputEdidMd5": "0123456789abcdef0123456789abcdef",
              "CompatKey": "compat value"}


def _check_full_device(d, device_id, scope):
    check_eq(d.get_id(), device_id, "DeviceId")
    check_eq(d.get_object_path(), compat.device_path(device_id), "object path")
    check_eq(d.get_kind(), Colord.DeviceKind.PRINTER, "Kind")
    check_eq(d.get_model(), "LaserJet 4000", "Model (printer suffix trimmed)")
    check_eq(d.get_vendor(), "Hewlett Packard", "Vendor (quirk applied)")
    check_eq(d.get_serial(), "XYZ123", "Serial (text after ?serial=)")
    check_eq(d.get_colorspace(), Colord.Colorspace.RGB, "Colorspace")
    check_eq(d.get_mode(), Colord.DeviceMode.PHYSICAL, "Mode")
    check_eq(d.get_format(), FULL_PROPS["Format"], "Format")
    check_eq(d.get_scope(), scope, "Scope")
    check_eq(d.get_owner(), 0, "Owner")
    check_eq(d.get_enabled(), True, "Enabled")
    check_eq(d.get_embedded(), True, "Embedded (any value sets it)")
    check_eq(d.get_profiles(), [], "Profiles")
    check_eq(d.get_profiling_inhibitors(), [], "ProfilingInhibitors")
    md = d.get_metadata()
    for k in ("XRANDR_name", "OutputEdidMd5", "CompatKey"):
        check_eq(md.get(k), FULL_PROPS[k], "Metadata[%s]" % k)
    check("OwnerCmdline" in md, "Metadata has OwnerCmdline (%r)" % md.get("OwnerCmdline"))
    for k in ("Kind", "Model", "Vendor", "Serial", "Colorspace", "Mode", "Format", "Embedded"):
        check(k not in md, "known property %s is not in Metadata" % k)
    now_us = time.time() * 1e6
    created = d.get_created()
    check(abs(created - now_us) < 3600e6, "Created %d is microseconds near now" % created)
    check_eq(d.get_modified(), created, "Modified starts equal to Created")


@test
def device_create_temp():
    """CreateDevice temp with every kind of property; read all back from libcolord"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        d = new_device(c, "compat-printer-temp", TEMP, FULL_PROPS)
        _check_full_device(d, "compat-printer-temp", TEMP)
        ev.wait("device-added", d.get_object_path())


@test
def device_create_normal():
    """CreateDevice normal: same properties; it outlives its creator"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-printer-normal", NORMAL, FULL_PROPS)
        _check_full_device(d, "compat-printer-normal", NORMAL)
        # a normal device made by a process that has left the bus stays
        r = env.run(["colormgr", "create-device", "compat-normal-2", "normal", "scanner"])
        check_eq(r.returncode, 0, "colormgr create-device normal exit code")
        d2 = c.find_device_sync("compat-normal-2", None)
        d2.connect_sync(None)
        check_eq(d2.get_scope(), NORMAL, "normal device of a departed client still there")


@test
def device_create_disk():
    """CreateDevice disk: properties read back now and after a daemon restart"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-printer-disk", DISK, FULL_PROPS)
        _check_full_device(d, "compat-printer-disk", DISK)


@test(colord_bug="7")
def device_disk_survives_restart():
    """a disk device comes back after restart: Kind kept, Mode virtual, Enabled not in Metadata"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-disk-restart", DISK, FULL_PROPS)
        d.set_enabled_sync(False, None)
        env.restart()
        # libcolord's client proxy stays bound to the old daemon's unique name, so find the
        # device over a fresh connection and let libcolord build a new device proxy
        conn = compat.connect(env)
        path = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                           ["compat-disk-restart"], reply="o")[0]
        check_eq(path, compat.device_path("compat-disk-restart"), "same path after restart")
        d2 = Colord.Device.new_with_object_path(path)
        d2.connect_sync(None)
        check_eq(d2.get_scope(), DISK, "Scope after restart")
        check_eq(d2.get_mode(), Colord.DeviceMode.VIRTUAL, "Mode after restart")
        check_eq(d2.get_model(), "LaserJet 4000", "Model after restart")
        check_eq(d2.get_vendor(), "Hewlett Packard", "Vendor after restart")
        check_eq(d2.get_serial(), "XYZ123", "Serial after restart")
        check_eq(d2.get_metadata_item("XRANDR_name"), "DP-1", "Metadata[XRANDR_name] after restart")
        check_eq(d2.get_enabled(), False, "Enabled=false persisted")
        check_eq(d2.get_kind(), Colord.DeviceKind.PRINTER, "Kind after restart")
        check("Enabled" not in d2.get_metadata(), "Enabled does not leak into Metadata (%s)"
              % d2.get_metadata())


@test
def device_temp_removed_with_creator():
    """a temp device disappears (device-removed) when its creating client leaves the bus"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        # colormgr device-inhibit keeps its connection open; create-device exits at once
        r = env.run(["colormgr", "create-device", "compat-temp-gone", "temp", "display"])
        check_eq(r.returncode, 0, "colormgr create-device temp exit code")
        path = compat.device_path("compat-temp-gone")
        # the creator has exited: the device is gone or goes now
        compat.iterate_until(lambda: ("device-removed", path) in ev.log or
                             path not in paths(c.get_devices_sync(None)),
                             "temp device %s to go" % path)
        expect_error(lambda: c.find_device_sync("compat-temp-gone", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindDeviceById of the departed temp device")


@test(colord_bug="9")
def device_set_property_cache():
    """Device.SetProperty: libcolord's cache gets normalised values of the right type"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-setprop", TEMP, {"Kind": "display"})
        d.set_model_sync("Thinkpad Screen Monitor", None)
        cached(d.get_model, "Thinkpad Screen", "Model after set_model (Monitor trimmed)")
        d.set_vendor_sync("HP", None)
        cached(d.get_vendor, "Hewlett Packard", "Vendor after set_vendor('HP')")
        d.set_serial_sync("usb://HP/x?serial=ABC42", None)
        cached(d.get_serial, "ABC42", "Serial after set_serial")
        d.set_property_sync("Embedded", "", None)
        cached(d.get_embedded, True, "Embedded after SetProperty(Embedded, '')")
        d.set_kind_sync(Colord.DeviceKind.CAMERA, None)
        cached(d.get_kind, Colord.DeviceKind.CAMERA, "Kind after set_kind")
        d.set_colorspace_sync(Colord.Colorspace.CMYK, None)
        cached(d.get_colorspace, Colord.Colorspace.CMYK, "Colorspace after set_colorspace")
        d.set_mode_sync(Colord.DeviceMode.VIRTUAL, None)
        cached(d.get_mode, Colord.DeviceMode.VIRTUAL, "Mode after set_mode")
        d.set_property_sync("Format", "ColorSpace.Paper.Resolution", None)
        cached(d.get_format, "ColorSpace.Paper.Resolution", "Format after SetProperty")
        d.set_property_sync("CompatMeta", "x1", None)
        cached(lambda: d.get_metadata_item("CompatMeta"), "x1", "Metadata[CompatMeta]")


@test
def device_set_property_plain():
    """Device.SetProperty of plain strings and metadata reaches libcolord's cache"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-setprop2", TEMP, {"Kind": "printer"})
        d.set_model_sync("Photosmart", None)
        cached(d.get_model, "Photosmart", "Model")
        d.set_vendor_sync("Canon", None)
        cached(d.get_vendor, "Canon", "Vendor")
        d.set_serial_sync("S123", None)
        cached(d.get_serial, "S123", "Serial")
        d.set_property_sync("XRANDR_name", "HDMI-2", None)
        cached(lambda: d.get_metadata_item("XRANDR_name"), "HDMI-2", "Metadata[XRANDR_name]")
        long_key = "k" * 300
        conn = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
        compat.expect_dbus_error(lambda: compat.call(conn, d.get_object_path(), compat.IFACE_DEVICE,
                                                     "SetProperty", "ss", [long_key, "v"]),
                                 "org.freedesktop.ColorManager.InputInvalid", "SetProperty with a 300-byte key")


@test
def device_create_errors():
    """CreateDevice: blank id, missing/unknown kind, bad scope, duplicate id; no ghosts"""
    with lc_env() as env:
        c = client(env)
        expect_error(lambda: c.create_device_sync("", TEMP, {"Kind": "display"}, None), "client",
                     Colord.ClientError.INPUT_INVALID, "blank id")
        expect_error(lambda: c.create_device_sync("compat-nokind", TEMP, None, None), "client",
                     Colord.ClientError.INPUT_INVALID, "no Kind (libcolord sends Kind=unknown)")
        expect_error(lambda: c.create_device_sync("compat-badkind", TEMP, {"Kind": "toaster"}, None),
                     "client", Colord.ClientError.INPUT_INVALID, "Kind toaster")
        expect_error(lambda: c.create_device_sync("compat-badscope", Colord.ObjectScope.UNKNOWN,
                                                  {"Kind": "display"}, None),
                     "client", Colord.ClientError.INPUT_INVALID, "scope unknown")
        expect_error(lambda: c.create_device_sync("compat-longval", TEMP,
                                                  {"Kind": "display", "X": "v" * 5000}, None),
                     "client", Colord.ClientError.INPUT_INVALID, "5000-byte metadata value")
        new_device(c, "compat-dup")
        expect_error(lambda: c.create_device_sync("compat-dup", TEMP, {"Kind": "display"}, None),
                     "client", Colord.ClientError.ALREADY_EXISTS, "duplicate id")
        check_eq(paths(c.get_devices_sync(None)).count(compat.device_path("compat-dup")), 1,
                 "GetDevices lists the device once")


@test(colord_bug="5")
def device_no_ghosts():
    """a failed CreateDevice leaves nothing behind: the id is not found and can be created"""
    with lc_env() as env:
        c = client(env)
        bad = {"compat-nokind": None, "compat-badkind": {"Kind": "toaster"},
               "compat-longval": {"Kind": "display", "X": "v" * 5000},
               "compat-longkey": {"Kind": "display", "k" * 300: "v"}}
        for i, props in bad.items():
            try:
                c.create_device_sync(i, TEMP, props, None)
            except GLib.Error:
                pass
            else:
                raise AssertionError("CreateDevice %s succeeded" % i)
        for i in bad:
            expect_error(lambda: c.find_device_sync(i, None), "client",
                         Colord.ClientError.NOT_FOUND, "no ghost device %s after the failure" % i)
            check_eq(new_device(c, i).get_id(), i, "id %s can be created afterwards" % i)


@test
def device_find_and_kinds():
    """FindDeviceById / ByProperty (XRANDR_name, OutputEdidMd5, Model, Vendor, Serial), GetDevicesByKind"""
    with lc_env() as env:
        c = client(env)
        disp = new_device(c, "xrandr-Compat-Display-1", TEMP,
                          {"Kind": "display", "XRANDR_name": "eDP-1", "OutputEdidMd5": "f09e42aa86585d1bb6687d3c322ed0c1",
                           "Model": "Panel 14", "Vendor": "Compat Vendor", "Serial": "SER-77"})
        prn = new_device(c, "cups-compat", TEMP, {"Kind": "printer"})
        f = c.find_device_sync("xrandr-Compat-Display-1", None)
        check_eq(f.get_object_path(), disp.get_object_path(), "FindDeviceById")
        for key, val in (("XRANDR_name", "eDP-1"), ("OutputEdidMd5", "f09e42aa86585d1bb6687d3c322ed0c1"),
                         ("Model", "Panel 14"), ("Vendor", "Compat Vendor"), ("Serial", "SER-77")):
            f = c.find_device_by_property_sync(key, val, None)
            check_eq(f.get_object_path(), disp.get_object_path(), "FindDeviceByProperty(%s)" % key)
        expect_error(lambda: c.find_device_by_property_sync("XRANDR_name", "nope", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindDeviceByProperty with no match")
        expect_error(lambda: c.find_device_sync("no-such-device", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindDeviceById unknown")
        check_eq(paths(c.get_devices_by_kind_sync(Colord.DeviceKind.DISPLAY, None)),
                 [disp.get_object_path()], "GetDevicesByKind(display)")
        check_eq(paths(c.get_devices_by_kind_sync(Colord.DeviceKind.PRINTER, None)),
                 [prn.get_object_path()], "GetDevicesByKind(printer)")
        check_eq(paths(c.get_devices_by_kind_sync(Colord.DeviceKind.WEBCAM, None)), [],
                 "GetDevicesByKind(webcam)")
        expect_error(lambda: c.get_devices_by_kind_sync(Colord.DeviceKind.UNKNOWN, None), "client",
                     Colord.ClientError.INPUT_INVALID, "GetDevicesByKind(unknown)")
        check_eq(paths(c.get_devices_sync(None)), [disp.get_object_path(), prn.get_object_path()],
                 "GetDevices in creation order")


@test
def device_enabled():
    """SetEnabled false/true; the cached Enabled follows; same state again is a no-op"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-enabled")
        d.set_enabled_sync(False, None)
        cached(d.get_enabled, False, "Enabled after SetEnabled(false)")
        d.set_enabled_sync(False, None)
        cached(d.get_enabled, False, "Enabled after a second SetEnabled(false)")
        d.set_enabled_sync(True, None)
        cached(d.get_enabled, True, "Enabled after SetEnabled(true)")


@test
def device_delete():
    """DeleteDevice: device-removed signal, gone from GetDevices, second delete NotFound"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        d = new_device(c, "compat-delete")
        c.delete_device_sync(d, None)
        ev.wait("device-removed", d.get_object_path())
        check(d.get_object_path() not in paths(c.get_devices_sync(None)), "gone from GetDevices")
        expect_error(lambda: c.delete_device_sync(d, None), "client", Colord.ClientError.NOT_FOUND,
                     "DeleteDevice of a deleted device")


# ---------------------------------------------------------------------------------------
# profiles

def _check_icc_profile(p, name, scope=TEMP):
    ref = compat.icc_ref(name)
    pid = "icc-" + compat.icc_checksum(name)
    check_eq(p.get_id(), pid, "%s: ProfileId (icc-<embedded id or md5>)" % name)
    check_eq(p.get_title(), compat.icc_title(name), "%s: Title" % name)
    check_eq(kind_str(p.get_kind()), compat.icc_kind(name), "%s: Kind" % name)
    check_eq(Colord.colorspace_to_string(p.get_colorspace()), compat.icc_colorspace(name),
             "%s: Colorspace" % name)
    check_eq(p.get_has_vcgt(), bool(ref["summary"]["has_vcgt"]), "%s: HasVcgt" % name)
    check_eq(p.get_filename(), compat.icc(name), "%s: Filename" % name)
    check_eq(p.get_scope(), scope, "%s: Scope" % name)
    check_eq(p.get_owner(), 0, "%s: Owner" % name)
    check_eq(p.get_is_system_wide(), False, "%s: IsSystemWide (client profile)" % name)
    md = p.get_metadata()
    for k, v in (ref["summary"].get("meta") or {}).items():
        check_eq(md.get(k), v, "%s: Metadata[%s] from the ICC dict" % (name, k))
    y, mo, dd, h, mi, s = ref["header"]["date"]
    if y:
        exp = int(time.mktime((y, mo, dd, h, mi, s, 0, 0, -1)))
        check_eq(p.get_created(), exp, "%s: Created (header date as local time)" % name)
    if compat.icc_colorspace(name) == "rgb" and "MAPPING_qualifier" not in md:
        check_eq(p.get_qualifier(), "RGB..", "%s: Qualifier of an RGB profile" % name)
        check_eq(p.get_format(), "ColorSpace..", "%s: Format of an RGB profile" % name)


@test
def profiles_from_icc_fd():
    """create_profile_for_icc (CreateProfileWithFd) for real ICC files; every property"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        for name in ICC_FILES:
            p = icc_profile(c, name)
            _check_icc_profile(p, name)
            check_eq(p.get_metadata_item("FILE_checksum"), compat.icc_checksum(name),
                     "%s: Metadata[FILE_checksum] sent by libcolord" % name)
            ev.wait("profile-added", p.get_object_path())
        check_eq(p.get_warnings(), [], "ibm-t61-like files: Warnings is a list")  # type check


@test
def profiles_via_filename():
    """create_profile with a Filename property (libcolord passes the fd) and raw CreateProfile
    with Filename only (as cupsd does: the daemon opens the file)"""
    with lc_env() as env:
        c = client(env)
        for name in ICC_FILES[:4]:
            pid = "icc-" + compat.icc_checksum(name)
            p = new_profile(c, pid, {"Filename": compat.icc(name)})
            _check_icc_profile(p, name)
            c.delete_profile_sync(p, None)
        conn = compat.connect(env)
        for name in ICC_FILES[4:8]:
            pid = "icc-" + compat.icc_checksum(name)
            path = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile",
                               "ssa{ss}", [pid, "temp", {"Filename": compat.icc(name)}], reply="o")[0]
            p = c.find_profile_sync(pid, None)
            p.connect_sync(None)
            check_eq(p.get_object_path(), path, "%s: FindProfileById gives the created path" % name)
            _check_icc_profile(p, name)


@test
def profile_errors():
    """CreateProfile: blank id, duplicate id, unreadable/invalid files (FailedToRead); no ghosts"""
    with lc_env() as env:
        c = client(env)
        conn = compat.connect(env)

        def create(pid, props):
            return compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile",
                               "ssa{ss}", [pid, "temp", props], reply="o")
        compat.expect_dbus_error(lambda: create("", {}), "org.freedesktop.ColorManager.InputInvalid",
                                 "CreateProfile with a blank id")
        compat.expect_dbus_error(lambda: create("compat-bad1", {"Filename": "/nonexistent/x.icc"}),
                                 "org.freedesktop.ColorManager.Profile.FailedToRead",
                                 "CreateProfile with a missing file")
        compat.expect_dbus_error(lambda: create("compat-bad2", {"Title": "x"}),
                                 "org.freedesktop.ColorManager.InputInvalid",
                                 "CreateProfile with a 1-byte Title")
        compat.expect_dbus_error(lambda: create("compat-bad3", {"k" * 300: "v"}),
                                 "org.freedesktop.ColorManager.InputInvalid",
                                 "CreateProfile with a 300-byte key")
        p = new_profile(c, "compat-dup", {"Qualifier": "RGB.Plain.300dpi"})
        check_eq(p.get_qualifier(), "RGB.Plain.300dpi", "Qualifier")
        expect_error(lambda: c.create_profile_sync("compat-dup", TEMP, None, None), "client",
                     Colord.ClientError.ALREADY_EXISTS, "duplicate profile id")


@test(colord_bug="5")
def profile_no_ghosts():
    """a failed CreateProfile leaves nothing behind: the id can be created afterwards"""
    with lc_env() as env:
        c = client(env)
        conn = compat.connect(env)
        for i, props in (("compat-g1", {"Filename": "/nonexistent/x.icc"}), ("compat-g2", {"Title": "x"}),
                         ("compat-g3", {"k" * 300: "v"})):
            try:
                compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile",
                            "ssa{ss}", [i, "temp", props], reply="o")
            except GLib.Error:
                pass
            else:
                raise AssertionError("CreateProfile %s succeeded" % i)
            expect_error(lambda: c.find_profile_sync(i, None), "client", Colord.ClientError.NOT_FOUND,
                         "no ghost profile %s" % i)
            check_eq(new_profile(c, i).get_id(), i, "id %s can be created afterwards" % i)


# the corpus files that colord's own reader (cd-iccdump, lcms) refuses
BAD_FILES = ["crafted-bad-magic-iccfree-Gray.icc", "crafted-truncated-header-only-colord-AdobeRGB1998.icc",
             "colord-tests--empty.icc", "crafted-tag-count-huge-iccfree-AdobeRGB.icc",
             "crafted-truncated-in-tag-table-iccfree-sRGB.icc"]


@test(colord_bug="14")
def profile_crafted_files_survive():
    """every crafted corpus file through CreateProfileWithFd: success or Profile.FailedToRead,
    and the daemon keeps answering"""
    import glob
    with lc_env() as env:
        conn = compat.connect(env)
        for i, f in enumerate(sorted(glob.glob(os.path.join(compat.ICC_DIR, "crafted-*.ic*")))):
            fd = os.open(f, os.O_RDONLY)
            try:
                compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfileWithFd",
                            "ssha{ss}", ["compat-crafted-%d" % i, "temp", 0, {"Filename": f}],
                            reply="o", fds=[fd])
                outcome = "accepted"
            except GLib.Error as e:
                outcome = compat.dbus_error_name(e)
                check(outcome == "org.freedesktop.ColorManager.Profile.FailedToRead",
                      "%s refused with Profile.FailedToRead (%s)" % (os.path.basename(f), outcome))
            finally:
                os.close(fd)
            compat.call(conn, compat.MANAGER_PATH, "org.freedesktop.DBus.Peer", "Ping")
            check(True, "%s: %s, daemon still answers" % (os.path.basename(f), outcome))


@test(colord_bug="5")
def profile_bad_files():
    """CreateProfile (Filename, daemon reads) and CreateProfileWithFd with broken ICC files:
    Profile.FailedToRead, the daemon survives, the id stays free"""
    with lc_env() as env:
        conn = compat.connect(env)
        for bad in BAD_FILES:
            compat.expect_dbus_error(
                lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile",
                                    "ssa{ss}", ["compat-bad", "temp", {"Filename": compat.icc(bad)}],
                                    reply="o"),
                "org.freedesktop.ColorManager.Profile.FailedToRead", "CreateProfile with %s" % bad)
            fd = os.open(compat.icc(bad), os.O_RDONLY)
            try:
                compat.expect_dbus_error(
                    lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER,
                                        "CreateProfileWithFd", "ssha{ss}",
                                        ["compat-bad", "temp", 0, {"Filename": compat.icc(bad)}],
                                        reply="o", fds=[fd]),
                    "org.freedesktop.ColorManager.Profile.FailedToRead", "CreateProfileWithFd with %s" % bad)
            finally:
                os.close(fd)
        path = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile", "ssa{ss}",
                           ["compat-bad", "temp", {}], reply="o")[0]
        check_eq(path, compat.profile_path("compat-bad"), "the id is still free afterwards")


@test
def profile_set_property():
    """Profile.SetProperty: Qualifier/Format/Colorspace/Title/metadata reach the cache; Filename refused"""
    with lc_env() as env:
        c = client(env)
        p = new_profile(c, "compat-psp", {"Qualifier": "RGB..", "Colorspace": "rgb"})
        check_eq(p.get_qualifier(), "RGB..", "Qualifier at creation")
        check_eq(p.get_colorspace(), Colord.Colorspace.RGB, "Colorspace at creation")
        p.set_property_sync("Qualifier", "CMYK.Glossy.600dpi", None)
        cached(p.get_qualifier, "CMYK.Glossy.600dpi", "Qualifier after SetProperty")
        p.set_property_sync("Format", "ColorModel.MediaType.Resolution", None)
        cached(p.get_format, "ColorModel.MediaType.Resolution", "Format after SetProperty")
        p.set_property_sync("Colorspace", "cmyk", None)
        cached(p.get_colorspace, Colord.Colorspace.CMYK, "Colorspace after SetProperty")
        p.set_property_sync("Title", "Compat Title", None)
        cached(p.get_title, "Compat Title", "Title after SetProperty")
        p.set_property_sync("License", "CC0", None)
        cached(lambda: p.get_metadata_item("License"), "CC0", "Metadata[License]")
        conn = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)

        def sp(k, v):
            return compat.call(conn, p.get_object_path(), compat.IFACE_PROFILE, "SetProperty", "ss", [k, v])
        compat.expect_dbus_error(lambda: sp("Filename", "/tmp/x.icc"),
                                 "org.freedesktop.ColorManager.Profile.PropertyInvalid", "SetProperty(Filename)")
        compat.expect_dbus_error(lambda: sp("Title", "ab"), "org.freedesktop.ColorManager.InputInvalid",
                                 "SetProperty(Title, 2 bytes)")
        cached(p.get_title, "Compat Title", "Title unchanged after the refused SetProperty")


@test
def profile_find():
    """FindProfileById / ByFilename (absolute and basename) / ByProperty (metadata, Filename)"""
    with lc_env() as env:
        c = client(env)
        p = icc_profile(c, "colord-tests--ibm-t61.icc")
        pid = p.get_id()
        check_eq(c.find_profile_sync(pid, None).get_object_path(), p.get_object_path(), "FindProfileById")
        f = c.find_profile_by_filename_sync(compat.icc("colord-tests--ibm-t61.icc"), None)
        check_eq(f.get_object_path(), p.get_object_path(), "FindProfileByFilename(absolute)")
        f = c.find_profile_by_filename_sync("colord-tests--ibm-t61.icc", None)
        check_eq(f.get_object_path(), p.get_object_path(), "FindProfileByFilename(basename)")
        f = c.find_profile_by_property_sync("EDID_md5", "f09e42aa86585d1bb6687d3c322ed0c1", None)
        check_eq(f.get_object_path(), p.get_object_path(), "FindProfileByProperty(EDID_md5)")
        f = c.find_profile_by_property_sync("Filename", compat.icc("colord-tests--ibm-t61.icc"), None)
        check_eq(f.get_object_path(), p.get_object_path(), "FindProfileByProperty(Filename)")
        expect_error(lambda: c.find_profile_sync("icc-nope", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindProfileById unknown")
        expect_error(lambda: c.find_profile_by_filename_sync("/nonexistent.icc", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindProfileByFilename unknown")
        expect_error(lambda: c.find_profile_by_property_sync("EDID_md5", "0", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindProfileByProperty with no match")
        # the system profiles the daemon found
        s = c.find_profile_sync("icc-" + compat.icc_checksum("colord-data--sRGB.icc"), None)
        s.connect_sync(None)
        check_eq(s.get_is_system_wide(), True, "a profile from the profile dir is system-wide")
        check_eq(s.get_title(), "sRGB", "its Title")
        check(s.get_object_path() in paths(c.get_profiles_sync(None)), "GetProfiles lists it")


@test(colord_bug="2")
def standard_space():
    """GetStandardSpace(srgb/adobe-rgb/prophoto-rgb) from the system profiles' ICC dicts"""
    with lc_env() as env:
        c = client(env)
        for space, name in ((Colord.StandardSpace.SRGB, "colord-data--sRGB.icc"),
                            (Colord.StandardSpace.ADOBE_RGB, "colord-data--AdobeRGB1998.icc"),
                            (Colord.StandardSpace.PROPHOTO_RGB, "colord-data--ProPhotoRGB.icc")):
            p = c.get_standard_space_sync(space, None)
            check_eq(p.get_object_path(), compat.profile_path("icc-" + compat.icc_checksum(name)),
                     "GetStandardSpace(%s)" % Colord.standard_space_to_string(space))
            p.connect_sync(None)
            check_eq(p.get_metadata_item("STANDARD_space"), Colord.standard_space_to_string(space),
                     "its Metadata[STANDARD_space]")


@test(colord_bug="21")
def standard_space_not_spoofable():
    """a client profile with a well-known sRGB id and STANDARD_space=srgb does not win"""
    with lc_env() as env:
        c = client(env)
        new_profile(c, "icc-34562abf994ccd066d2c5721d0d68c5d",
                    {"Filename": compat.icc("colord-data--Bluish.icc"), "STANDARD_space": "srgb"})
        new_profile(c, "compat-spoof", {"STANDARD_space": "srgb"})
        p = c.get_standard_space_sync(Colord.StandardSpace.SRGB, None)
        check_eq(p.get_object_path(),
                 compat.profile_path("icc-" + compat.icc_checksum("colord-data--sRGB.icc")),
                 "GetStandardSpace(srgb) is still the system sRGB profile")


@test
def profile_delete():
    """DeleteProfile: profile-removed, removed from the device (its cache updated)"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        d = new_device(c, "compat-pdel")
        p = new_profile(c, "compat-pdel-p", {"Qualifier": "RGB.."})
        d.add_profile_sync(HARD, p, None)
        cached(lambda: paths(d.get_profiles()), [p.get_object_path()], "Profiles after AddProfile", once=True)
        c.delete_profile_sync(p, None)
        cached(lambda: paths(d.get_profiles()), [], "device Profiles after DeleteProfile", once=True)
        ev.wait("profile-removed", p.get_object_path())
        expect_error(lambda: c.find_profile_sync("compat-pdel-p", None), "client",
                     Colord.ClientError.NOT_FOUND, "FindProfileById after delete")


# ---------------------------------------------------------------------------------------
# relations and qualifiers

@test
def relations_and_default_order():
    """AddProfile hard/soft, Profiles order (hard first, newest first), relations, errors,
    MakeProfileDefault, RemoveProfile"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        d = new_device(c, "compat-rel")
        a, b, h1, h2 = (new_profile(c, "compat-rel-" + n, {"Qualifier": "RGB.."}) for n in ("a", "b", "h1", "h2"))
        d.add_profile_sync(SOFT, a, None)
        cached(lambda: paths(d.get_profiles()), paths([a]), "Profiles after soft a", once=True)
        ev.wait("device-changed", d.get_object_path())
        d.add_profile_sync(SOFT, b, None)
        cached(lambda: paths(d.get_profiles()), paths([b, a]), "Profiles after soft b (newest first)", once=True)
        d.add_profile_sync(HARD, h1, None)
        cached(lambda: paths(d.get_profiles()), paths([h1, b, a]), "hard h1 goes before the soft ones", once=True)
        d.add_profile_sync(HARD, h2, None)
        cached(lambda: paths(d.get_profiles()), paths([h2, h1, b, a]), "the later hard h2 comes first", once=True)
        check(d.get_modified() >= d.get_created(), "Modified reset on AddProfile")
        check_eq(d.get_profile_relation_sync(a, None), SOFT, "relation of a")
        check_eq(d.get_profile_relation_sync(h1, None), HARD, "relation of h1")
        expect_error(lambda: d.add_profile_sync(HARD, h1, None), "device",
                     Colord.DeviceError.PROFILE_ALREADY_ADDED, "AddProfile hard twice")
        expect_error(lambda: d.add_profile_sync(SOFT, a, None), "device",
                     Colord.DeviceError.PROFILE_ALREADY_ADDED, "AddProfile soft twice")
        # soft -> hard by AddProfile hard
        d.add_profile_sync(HARD, b, None)
        check_eq(d.get_profile_relation_sync(b, None), HARD, "soft b became hard")
        d.make_profile_default_sync(a, None)
        cached(lambda: paths(d.get_profiles())[0], a.get_object_path(), "MakeProfileDefault(a) puts a first", once=True)
        check_eq(d.get_profile_relation_sync(a, None), HARD, "a became hard")
        d.remove_profile_sync(h2, None)
        cached(lambda: h2.get_object_path() in paths(d.get_profiles()), False, "RemoveProfile(h2)", once=True)
        expect_error(lambda: d.remove_profile_sync(h2, None), "device",
                     Colord.DeviceError.PROFILE_DOES_NOT_EXIST, "RemoveProfile of a removed profile")
        expect_error(lambda: d.get_profile_relation_sync(h2, None), "device",
                     Colord.DeviceError.PROFILE_DOES_NOT_EXIST, "GetProfileRelation of a removed profile")
        expect_error(lambda: d.make_profile_default_sync(h2, None), "device",
                     Colord.DeviceError.PROFILE_DOES_NOT_EXIST, "MakeProfileDefault of a removed profile")
        ghost = Colord.Profile.new_with_object_path(compat.MANAGER_PATH + "/profiles/nope")
        expect_error(lambda: d.add_profile_sync(HARD, ghost, None), "device",
                     Colord.DeviceError.PROFILE_DOES_NOT_EXIST, "AddProfile of a path with no profile")


@test(colord_bug="8")
def make_default_promotes_first():
    """MakeProfileDefault on the first (soft) profile makes it hard"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-mpd")
        a = new_profile(c, "compat-mpd-a", {"Qualifier": "RGB.."})
        d.add_profile_sync(SOFT, a, None)
        d.make_profile_default_sync(a, None)
        check_eq(d.get_profile_relation_sync(a, None), HARD, "relation after MakeProfileDefault")


@test
def edid_profiles_sort_last():
    """a soft calib profile stays ahead of a newer soft DATA_source=edid profile"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-edid-order")
        calib = new_profile(c, "compat-calib", {"DATA_source": "calib"})
        edid = new_profile(c, "compat-edid", {"DATA_source": "edid"})
        d.add_profile_sync(SOFT, calib, None)
        d.add_profile_sync(SOFT, edid, None)
        cached(lambda: paths(d.get_profiles()), paths([calib, edid]), "Profiles: calib before the newer edid", once=True)


CUPS_FALLBACK = ["RGB.Glossy.600dpi", "RGB.Glossy.*", "RGB.*.600dpi", "RGB.*.*", "*"]


@test
def cups_flow():
    """colord §9.5: cupsd's temp profiles and device over raw D-Bus, AddProfile soft, then the
    print filter's qualifier lookups with the fallback list through libcolord"""
    with lc_env() as env:
        c = client(env)
        conn = compat.connect(env)   # plays cupsd; temp objects live as long as conn
        q = "Compat_Queue"
        fmt = "ColorModel.MediaType.Resolution"

        def cp(pid, props):
            return compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile",
                               "ssa{ss}", [pid, "temp", props], reply="o")[0]
        ppd = cp("%s-RGB.Glossy.600dpi" % q, {"Qualifier": "RGB.Glossy.600dpi", "Format": fmt,
                                               "Colorspace": "unknown",
                                               "Filename": compat.icc("libgs-common--srgb.icc")})
        gray = cp("%s-Gray.." % q, {"Qualifier": "Gray..", "Format": fmt, "Colorspace": "gray"})
        rgb = cp("%s-RGB.." % q, {"Qualifier": "RGB..", "Format": fmt, "Colorspace": "rgb"})
        check_eq(gray, compat.profile_path("%s-Gray.." % q), "Gray.. profile path")
        dev = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateDevice", "ssa{ss}",
                          ["cups-" + q, "temp", {"Colorspace": "rgb", "Mode": "physical",
                                                 "Vendor": "HP", "Model": "Compat LaserJet Printer",
                                                 "Serial": "usb://HP/Compat?serial=CUPS42",
                                                 "Format": fmt, "Kind": "printer"}], reply="o")[0]
        check_eq(dev, compat.device_path("cups-" + q), "cups device path")
        for pth in (ppd, gray, rgb):
            compat.call(conn, dev, compat.IFACE_DEVICE, "AddProfile", "so", ["soft", pth])
        # the filter side, through libcolord
        d = c.find_device_sync("cups-" + q, None)
        d.connect_sync(None)
        check_eq(d.get_model(), "Compat LaserJet", "Model")
        check_eq(d.get_serial(), "CUPS42", "Serial")
        check_eq(d.get_profiling_inhibitors(), [], "no inhibitors")
        check_eq(lookup(d, CUPS_FALLBACK), ppd, "RGB.Glossy.600dpi job -> the PPD profile")
        p = Colord.Profile.new_with_object_path(ppd)
        p.connect_sync(None)
        check_eq(p.get_filename(), compat.icc("libgs-common--srgb.icc"), "its Filename")
        check_eq(lookup(d, ["RGB.Plain.300dpi", "RGB.Plain.*", "RGB.*.300dpi", "RGB.*.*", "*"]), rgb, "RGB.Plain.300dpi job falls back to RGB.. via RGB.*.*")
        check_eq(lookup(d, ["Gray..", "Gray..*", "Gray.*.", "Gray.*.*", "*"]), gray, "Gray.. job -> Gray..")
        got = lookup(d, ["CMYK.Plain.300dpi", "CMYK.Plain.*", "CMYK.*.300dpi", "CMYK.*.*", "*"])
        check(got in (ppd, gray, rgb), "CMYK job matches '*' (%s)" % got)
        expect_lookup_error(d, ["CMYK.Plain.300dpi", "CMYK.*.*"],
                            "org.freedesktop.ColorManager.Device.NothingMatched",
                            "no '*' fallback -> NothingMatched")
        # a hard profile wins over the soft ones for '*'
        h = new_profile(c, "compat-cups-hard", {"Qualifier": "CMYK.Plain.300dpi"})
        d.add_profile_sync(HARD, h, None)
        check_eq(lookup(d, CUPS_FALLBACK), h.get_object_path(), "a hard profile matching '*' beats the soft ones")
        # queue removed
        path = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById", "s",
                           ["cups-" + q], reply="o")[0]
        compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "DeleteDevice", "o", [path])
        expect_error(lambda: c.find_device_sync("cups-" + q, None), "client",
                     Colord.ClientError.NOT_FOUND, "device gone after the queue is removed")
        conn.close_sync(None)
        # cupsd left: its temp profiles go
        compat.iterate_until(lambda: gray not in paths(c.get_profiles_sync(None)),
                             "cupsd's temp profiles to go with its connection")
        check(True, "temp profiles removed when their creator left the bus")


@test(colord_bug="11")
def qualifier_matching_rules():
    """GetProfileForQualifiers: '*' parts, missing parts, exact '*' matches empty qualifiers"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-qual", TEMP, {"Kind": "printer"})
        one = new_profile(c, "compat-q-one", {"Qualifier": "RGB"})
        two = new_profile(c, "compat-q-two", {"Qualifier": "RGB.Plain"})
        star = new_profile(c, "compat-q-star", {"Qualifier": "CMYK.*.1200dpi"})
        for p in (one, two, star):
            d.add_profile_sync(SOFT, p, None)
        check_eq(lookup(d, ["RGB"]), one.get_object_path(),
                 "'RGB' matches qualifier 'RGB' (both have one part)")
        check_eq(lookup(d, ["RGB.Plain"]), two.get_object_path(),
                 "'RGB.Plain' matches 'RGB.Plain'")
        check_eq(lookup(d, ["CMYK.Glossy.1200dpi"]),
                 star.get_object_path(), "profile part '*' matches any query part")
        expect_lookup_error(d, ["RGB.Plain.300dpi"], "org.freedesktop.ColorManager.Device.NothingMatched", "'RGB.Plain.300dpi' vs two-part qualifiers")
        expect_lookup_error(d, ["RGB*"], "org.freedesktop.ColorManager.Device.NothingMatched", "no partial globbing ('RGB*')")


@test
def gnome_display_flow():
    """colord §9.5: temp display device with XRANDR_name/OutputEdidMd5, EDID profile soft, the user
    picks a profile (AddProfile hard + MakeProfileDefault), output removed"""
    with lc_env() as env:
        c = client(env)
        ev = Events(c)
        edid_md5 = "f09e42aa86585d1bb6687d3c322ed0c1"
        did = "xrandr-Lenovo Group Limited-LEN-T61-0x00000000"
        d = new_device(c, did, TEMP, {"Kind": "display", "Mode": "physical", "Colorspace": "rgb",
                                      "Vendor": "Lenovo Group Limited", "Model": "T61 Monitor",
                                      "Serial": "0x00000000", "XRANDR_name": "LVDS1",
                                      "OutputPriority": "primary", "OutputEdidMd5": edid_md5,
                                      "Embedded": ""})
        check_eq(d.get_object_path(), compat.device_path(did), "escaped path of an xrandr id")
        check_eq(d.get_vendor(), "Lenovo", "Vendor quirk (Lenovo Group Limited)")
        check_eq(d.get_model(), "T61", "display Model without 'Monitor'")
        check_eq(d.get_embedded(), True, "Embedded")
        ev.wait("device-added", d.get_object_path())
        # the session's user store registers the EDID profile by fd and matches it by EDID_md5
        edid = icc_profile(c, "colord-tests--ibm-t61.icc")
        ev.wait("profile-added", edid.get_object_path())
        check_eq(edid.get_metadata_item("EDID_md5"), edid_md5, "the profile's EDID_md5")
        f = c.find_device_by_property_sync("OutputEdidMd5", edid_md5, None)
        check_eq(f.get_object_path(), d.get_object_path(), "FindDeviceByProperty(OutputEdidMd5)")
        d.add_profile_sync(SOFT, edid, None)
        cached(lambda: paths(d.get_profiles()), paths([edid]), "EDID profile attached soft", once=True)
        ev.wait("device-changed", d.get_object_path())
        # the user picks another profile in Settings
        user = icc_profile(c, "colord-data--Bluish.icc")
        d.add_profile_sync(HARD, user, None)
        d.make_profile_default_sync(user, None)
        cached(lambda: paths(d.get_profiles()), paths([user, edid]), "user's profile first", once=True)
        check_eq(d.get_profile_relation_sync(user, None), HARD, "user's choice is hard")
        check_eq(lookup(d, ["*"]), user.get_object_path(),
                 "GetProfileForQualifiers(*) gives the user's profile")
        # output unplugged
        f = c.find_device_by_property_sync("XRANDR_name", "LVDS1", None)
        c.delete_device_sync(f, None)
        ev.wait("device-removed", d.get_object_path())


@test(colord_bug="9")
def profiling_inhibit():
    """ProfilingInhibit: inhibitors in the cache, lookups fail with Profiling, errors, uninhibit"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-inhibit")
        p = new_profile(c, "compat-inhibit-p", {"Qualifier": "RGB.."})
        d.add_profile_sync(HARD, p, None)
        me = Gio.bus_get_sync(Gio.BusType.SYSTEM, None).get_unique_name()
        d.profiling_inhibit_sync(None)
        expect_lookup_error(d, ["*"], "org.freedesktop.ColorManager.Device.Profiling", "GetProfileForQualifiers while inhibited")
        expect_error(lambda: d.profiling_inhibit_sync(None), "device",
                     Colord.DeviceError.FAILED_TO_INHIBIT, "second ProfilingInhibit by the same sender")
        cached(lambda: d.get_profiling_inhibitors(), [me], "ProfilingInhibitors has our unique name")
        cached(lambda: paths(d.get_profiles()), paths([p]), "Profiles unchanged while inhibited", once=True)
        d.profiling_uninhibit_sync(None)
        cached(lambda: d.get_profiling_inhibitors(), [], "ProfilingInhibitors after uninhibit")
        check_eq(lookup(d, ["*"]), p.get_object_path(),
                 "lookups work again")
        expect_error(lambda: d.profiling_uninhibit_sync(None), "device",
                     Colord.DeviceError.FAILED_TO_UNINHIBIT, "ProfilingUninhibit without an inhibit")


@test
def profiling_inhibit_lookup():
    """ProfilingInhibit blocks GetProfileForQualifiers; the inhibitor leaving the bus lifts it"""
    with lc_env() as env:
        c = client(env)
        d = new_device(c, "compat-inhibit2")
        p = new_profile(c, "compat-inhibit2-p", {"Qualifier": "RGB.."})
        d.add_profile_sync(HARD, p, None)
        other = compat.connect(env)
        compat.call(other, d.get_object_path(), compat.IFACE_DEVICE, "ProfilingInhibit")
        expect_lookup_error(d, ["*"], "org.freedesktop.ColorManager.Device.Profiling", "lookup while another client inhibits")
        other.close_sync(None)

        def lifted():
            try:
                lookup(d, ["*"])
                return True
            except GLib.Error:
                # wait for the next daemon signal before trying again
                n = len(sigs.signals)
                compat.iterate_until(lambda: len(sigs.signals) > n, "a device change signal")
                return False
        watch = compat.connect(env)
        sigs = compat.SignalRecorder(watch)
        compat.iterate_until(lifted, "the inhibit of a departed client to be dropped")
        check(True, "inhibit dropped when the inhibiting client left the bus")


@test(colord_bug="9")
def signals_are_known():
    """every signal the daemon sends during a full flow is one libcolord knows, and every
    PropertiesChanged carries known properties with the introspected types"""
    with lc_env() as env:
        c = client(env)
        watch = compat.connect(env)
        rec = compat.SignalRecorder(watch)
        d = new_device(c, "compat-sig", TEMP, dict(FULL_PROPS))
        p = icc_profile(c, "colord-data--Bluish.icc")
        q = new_profile(c, "compat-sig-q", {"Qualifier": "RGB.."})
        d.add_profile_sync(SOFT, p, None)
        d.add_profile_sync(HARD, q, None)
        d.make_profile_default_sync(p, None)
        d.set_model_sync("Other Printer", None)
        d.set_property_sync("Embedded", "", None)
        d.set_property_sync("CompatMeta", "1", None)
        d.set_enabled_sync(False, None)
        d.profiling_inhibit_sync(None)
        d.profiling_uninhibit_sync(None)
        q.set_property_sync("Qualifier", "RGB.Plain.", None)
        q.set_property_sync("Title", "Compat Q", None)
        q.set_property_sync("License", "CC0", None)
        d.remove_profile_sync(q, None)
        c.delete_profile_sync(q, None)
        s = c.get_sensors_sync(None)[0]
        s.connect_sync(None)
        s.lock_sync(None)
        s.unlock_sync(None)
        c.delete_device_sync(d, None)
        # one round trip on the watching connection: everything sent before is in
        compat.call(watch, compat.MANAGER_PATH, "org.freedesktop.DBus.Peer", "Ping")
        compat.drain()
        known = {
            compat.IFACE_MANAGER: {"DeviceAdded", "DeviceRemoved", "DeviceChanged", "ProfileAdded",
                                   "ProfileRemoved", "ProfileChanged", "SensorAdded", "SensorRemoved",
                                   "SensorChanged"},
            compat.IFACE_DEVICE: {"Changed"}, compat.IFACE_PROFILE: {"Changed"},
            compat.IFACE_SENSOR: {"ButtonPressed"},
            "org.freedesktop.DBus.Properties": {"PropertiesChanged"},
        }
        types = {i: {n: t for n, (t, _a) in compat.colord_interface(i)["properties"].items()}
                 for i in compat.INTERFACES}
        bad = []
        counts = {}
        for (path, iface, name, params) in rec.signals:
            counts[(iface, name)] = counts.get((iface, name), 0) + 1
            if name not in known.get(iface, set()):
                bad.append("unknown signal %s.%s on %s" % (iface, name, path))
                continue
            if name == "PropertiesChanged":
                piface = params.get_child_value(0).get_string()
                changed = params.get_child_value(1)
                inval = params.get_child_value(2)
                if inval.n_children():
                    bad.append("PropertiesChanged on %s invalidates %s" % (path, inval.unpack()))
                for i in range(changed.n_children()):
                    e = changed.get_child_value(i)
                    pname = e.get_child_value(0).get_string()
                    ptype = e.get_child_value(1).get_variant().get_type_string()
                    exp = types.get(piface, {}).get(pname)
                    if exp is None:
                        bad.append("PropertiesChanged on %s: unknown property %s.%s" % (path, piface, pname))
                    elif exp != ptype:
                        bad.append("PropertiesChanged on %s: %s is %s, declared %s" % (path, pname, ptype, exp))
        for k in sorted(counts):
            print("    seen %s.%s x%d" % (k[0], k[1], counts[k]))
        check(counts.get((compat.IFACE_MANAGER, "DeviceAdded")), "DeviceAdded was sent")
        check(counts.get((compat.IFACE_MANAGER, "DeviceChanged")), "DeviceChanged was sent")
        check(counts.get((compat.IFACE_DEVICE, "Changed")), "Device.Changed was sent")
        check(counts.get((compat.IFACE_MANAGER, "ProfileChanged")), "ProfileChanged was sent")
        check(not bad, "all signals known and well-typed%s" % ("" if not bad else ":\n      " + "\n      ".join(bad)))


# ---------------------------------------------------------------------------------------
# sensors

@test
def sensor_dummy():
    """the dummy sensor: properties, Lock, GetSample (waits for the reply event), states,
    ButtonPressed, ambient, SetOptions, Unlock"""
    with lc_env() as env:
        c = client(env)
        sensors = c.get_sensors_sync(None)
        check_eq(len(sensors), 1, "one sensor")
        s = sensors[0]
        s.connect_sync(None)
        check_eq(s.get_object_path(), compat.MANAGER_PATH + "/sensors/dummy", "path")
        check_eq(c.find_sensor_sync("dummy", None).get_object_path(), s.get_object_path(), "FindSensorById")
        check_eq(s.get_id(), "dummy", "SensorId")
        check_eq(s.get_kind(), Colord.SensorKind.DUMMY, "Kind")
        check_eq(s.get_serial(), "0123456789a", "Serial")
        check_eq(s.get_model(), "Dummy Sensor #1", "Model")
        check_eq(s.get_vendor(), "Acme Corp", "Vendor")
        check_eq(s.get_native(), True, "Native")
        check_eq(s.get_embedded(), False, "Embedded")
        check_eq(s.get_locked(), False, "Locked")
        check_eq(s.get_caps(), 126, "Capabilities bitmask (lcd crt printer spot projector ambient)")
        states = []
        buttons = []
        GObject.Object.connect(s, "notify::state", lambda o, _p: states.append(o.get_state()))
        GObject.Object.connect(s, "button-pressed", lambda *_a: buttons.append(1))
        s.lock_sync(None)
        cached(s.get_locked, True, "Locked after Lock")
        expect_error(lambda: s.lock_sync(None), "sensor", Colord.SensorError.ALREADY_LOCKED, "second Lock")
        result = {}

        def done(obj, res, _u=None):
            try:
                result["xyz"] = obj.get_sample_finish(res)
            except GLib.Error as e:
                result["err"] = e
        s.get_sample(Colord.SensorCap.LCD, None, done, None)
        compat.iterate_until(lambda: result, "the GetSample(lcd) reply")
        check("err" not in result, "GetSample(lcd) succeeded (%s)" % result.get("err"))
        xyz = result["xyz"]
        for got, exp, axis in ((xyz.X, 0.027599, "X"), (xyz.Y, 0.030403, "Y"), (xyz.Z, 0.055636, "Z")):
            check(abs(got - exp) < 0.01, "sample %s %.6f ~ %.6f" % (axis, got, exp))
        settle()
        check_eq(states, [Colord.SensorState.MEASURING, Colord.SensorState.IDLE],
                 "State changes during GetSample")
        check_eq(len(buttons), 1, "ButtonPressed once")
        result.clear()
        s.get_sample(Colord.SensorCap.AMBIENT, None, done, None)
        compat.iterate_until(lambda: result, "the GetSample(ambient) reply")
        check("err" not in result, "GetSample(ambient) succeeded")
        check_eq((round(result["xyz"].X, 6), result["xyz"].Y, result["xyz"].Z), (7.7, -1.0, -1.0),
                 "ambient sample")
        opts = {"sample[red]": GLib.Variant("d", 1.0), "sample[green]": GLib.Variant("d", 1.0),
                "sample[blue]": GLib.Variant("d", 1.0)}
        s.set_options_sync(opts, None)
        result.clear()
        s.get_sample(Colord.SensorCap.LCD, None, done, None)
        compat.iterate_until(lambda: result, "the GetSample(lcd) reply after SetOptions")
        check(abs(result["xyz"].Y - 1.0) < 0.01, "white sample Y %.4f ~ 1.0" % result["xyz"].Y)
        expect_error(lambda: s.set_options_sync({"compat": GLib.Variant("d", 1.0)}, None), "sensor",
                     Colord.SensorError.NO_SUPPORT, "SetOptions with an unknown key")
        s.unlock_sync(None)
        cached(s.get_locked, False, "Locked after Unlock")


@test
def sensor_errors():
    """Unlock/GetSample/SetOptions on an unlocked sensor give NotLocked; GetSpectrum NoSupport"""
    with lc_env() as env:
        c = client(env)
        s = c.find_sensor_sync("dummy", None)
        s.connect_sync(None)
        expect_error(lambda: s.unlock_sync(None), "sensor", Colord.SensorError.NOT_LOCKED, "Unlock unlocked")
        expect_error(lambda: s.get_sample_sync(Colord.SensorCap.LCD, None), "sensor",
                     Colord.SensorError.NOT_LOCKED, "GetSample unlocked")
        expect_error(lambda: s.set_options_sync({"sample[red]": GLib.Variant("d", 0.5)}, None), "sensor",
                     Colord.SensorError.NOT_LOCKED, "SetOptions unlocked")
        s.lock_sync(None)
        expect_error(lambda: s.get_spectrum_sync(Colord.SensorCap.SPECTRAL, None), "sensor",
                     Colord.SensorError.NO_SUPPORT, "GetSpectrum on the dummy")
        expect_error(lambda: c.find_sensor_sync("nope", None), "client", Colord.ClientError.NOT_FOUND,
                     "FindSensorById unknown")


# ---------------------------------------------------------------------------------------
# unprivileged callers (uid 65534 through the harness, fake polkit)

def _nobody_scenario(mode):
    """Runs as uid 65534: libcolord calls, one result line each."""
    c = Colord.Client.new()
    c.connect_sync(None)
    out = {}

    def rec(name, fn):
        try:
            v = fn()
            out[name] = ["ok", v]
        except GLib.Error as e:
            out[name] = [e.domain, e.code, e.message]
    rec("get_devices", lambda: paths(c.get_devices_sync(None)))
    rec("find_root_device", lambda: c.find_device_sync("compat-root-dev", None).get_object_path())
    # Scope normal: the checks below are about polkit, which a session's own temp objects skip.
    rec("create_device", lambda: c.create_device_sync("compat-nobody-dev", NORMAL,
                                                      {"Kind": "display"}, None).get_object_path())
    rec("create_profile", lambda: c.create_profile_sync("compat-nobody-prof", NORMAL,
                                                        {"Qualifier": "RGB.."}, None).get_object_path())

    def temp_session():
        td = c.create_device_sync("compat-nobody-temp-dev", TEMP, {"Kind": "display"}, None)
        tp = c.create_profile_sync("compat-nobody-temp-prof", TEMP, {"Qualifier": "RGB.."}, None)
        td.connect_sync(None)
        tp.connect_sync(None)
        td.add_profile_sync(HARD, tp, None)
        td.set_model_sync("Session Model", None)
        tp.set_property_sync("License", "CC0", None)
        c.delete_device_sync(td, None)
        c.delete_profile_sync(tp, None)
        return True
    rec("temp_session", temp_session)
    own_p = own_d = None
    try:
        own_p = c.find_profile_sync("compat-nobody-prof", None)
        own_p.connect_sync(None)
        own_d = c.find_device_sync("compat-nobody-dev", None)
        own_d.connect_sync(None)
    except GLib.Error:
        pass
    if own_p:
        rec("own_profile_set_property", lambda: own_p.set_property_sync("License", "CC0", None))
    d = Colord.Device.new_with_object_path(compat.device_path("compat-root-dev"))
    d.connect_sync(None)
    p = Colord.Profile.new_with_object_path(compat.profile_path("compat-root-prof"))
    p.connect_sync(None)
    rec("find_root_profile", lambda: c.find_profile_sync("compat-root-prof", None).get_object_path())
    rec("lookup", lambda: lookup(d, ["*"]))
    rec("set_model", lambda: d.set_model_sync("Nobody Model", None))
    rec("add_profile", lambda: d.add_profile_sync(HARD, p, None))
    rec("make_default", lambda: d.make_profile_default_sync(p, None))
    rec("set_enabled", lambda: d.set_enabled_sync(False, None))
    rec("inhibit", lambda: d.profiling_inhibit_sync(None))
    rec("profile_set_property", lambda: p.set_property_sync("License", "CC0", None))
    rec("find_sensor", lambda: c.find_sensor_sync("dummy", None).get_object_path())
    s = Colord.Sensor.new_with_object_path(compat.MANAGER_PATH + "/sensors/dummy")
    s.connect_sync(None)
    rec("sensor_lock", lambda: s.lock_sync(None))
    rec("delete_device", lambda: c.delete_device_sync(d, None))
    if own_d:
        rec("own_delete_device", lambda: c.delete_device_sync(own_d, None))
    print("RESULT " + json.dumps(out), flush=True)


def _run_nobody(env, mode):
    c = client(env)
    d = new_device(c, "compat-root-dev")
    p = new_profile(c, "compat-root-prof", {"Qualifier": "RGB.."})
    d.add_profile_sync(SOFT, p, None)
    r = env.run([compat.PYTHON, os.path.abspath(__file__), "--nobody", mode], as_user="nobody",
                env={"G_DEBUG": "fatal-warnings"})
    sys.stdout.write(r.stderr)
    lines = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")]
    check(r.returncode == 0 and lines, "the uid-65534 client ran (exit %d)" % r.returncode)
    return c, d, json.loads(lines[0][7:])


@test
def nobody_allowed():
    """uid 65534 with polkit allowing: privileged calls succeed; its objects get the owner suffix"""
    with lc_env(polkit="allow") as env:
        c, d, res = _run_nobody(env, "allow")
        for k, v in sorted(res.items()):
            print("    %s: %s" % (k, v))
        check_eq(res["create_device"], ["ok", compat.device_path("compat-nobody-dev", 65534, "nobody")],
                 "CreateDevice as nobody: path with _nobody_65534")
        check_eq(res["create_profile"], ["ok", compat.profile_path("compat-nobody-prof", 65534, "nobody")],
                 "CreateProfile as nobody: path with _nobody_65534")
        for k in ("get_devices", "find_root_device", "find_root_profile", "find_sensor", "lookup", "set_model", "add_profile",
                  "make_default", "set_enabled", "inhibit", "own_profile_set_property", "sensor_lock",
                  "own_delete_device"):
            check_eq(res[k][0], "ok", "%s as nobody with polkit allowing" % k)
        reqs = env.polkit_requests()
        acts = {r["action"] for r in reqs}
        print("    polkit was asked: %s" % sorted(acts))
        for a in ("create-device", "create-profile", "modify-device", "modify-profile",
                  "device-inhibit", "sensor-lock", "delete-device"):
            check("org.freedesktop.color-manager." + a in acts, "polkit asked for %s" % a)


@test(colord_bug="22")
def nobody_cannot_touch_others_objects():
    """uid 65534, even with polkit allowing, may not delete root's device nor change root's
    profile (other than its own per-user Title): docs/compatibility.md, row 18"""
    with lc_env(polkit="allow") as env:
        c, d, res = _run_nobody(env, "allow")
        check_eq(res["delete_device"][:2], ["cd_client_error", int(Colord.ClientError.FAILED_TO_AUTHENTICATE)],
                 "DeleteDevice of root's device as nobody")
        check_eq(res["profile_set_property"][0], "cd_profile_error", "Profile.SetProperty(License) of root's profile")
        check("FailedToAuthenticate" in res["profile_set_property"][2] or "another user" in res["profile_set_property"][2],
              "... refused as not authorised: %s" % res["profile_set_property"][2])
        check_eq(paths(c.get_devices_sync(None)).count(compat.device_path("compat-root-dev")), 1,
                 "root's device still there")


@test
def nobody_denied():
    """uid 65534 with polkit denying: privileged calls fail with FailedToAuthenticate in the
    right domain; reads still work"""
    with lc_env(polkit="deny") as env:
        c, d, res = _run_nobody(env, "deny")
        for k, v in sorted(res.items()):
            print("    %s: %s" % (k, v))
        for k in ("get_devices", "find_root_device", "find_root_profile", "find_sensor", "lookup"):
            check_eq(res[k][0], "ok", "%s as nobody works without authorisation" % k)
        fa = {"client": int(Colord.ClientError.FAILED_TO_AUTHENTICATE),
              "device": int(Colord.DeviceError.FAILED_TO_AUTHENTICATE),
              "profile": int(Colord.ProfileError.FAILED_TO_AUTHENTICATE),
              "sensor": int(Colord.SensorError.FAILED_TO_AUTHENTICATE)}
        for k, dom in (("create_device", "client"), ("create_profile", "client"),
                       ("delete_device", "client"), ("set_model", "device"), ("add_profile", "device"),
                       ("make_default", "device"), ("set_enabled", "device"), ("inhibit", "device"),
                       ("profile_set_property", "profile"), ("sensor_lock", "sensor")):
            got = res[k]
            # libcolord reports Profile.SetProperty failures as cd_profile_error INTERNAL with
            # the D-Bus error name in the message
            named = dom == "profile" and "org.freedesktop.ColorManager.Profile.FailedToAuthenticate" in got[-1]
            check(got[0] != "ok" and dom in got[0] and (got[1] == fa[dom] or named),
                  "%s denied with %s FailedToAuthenticate (got %s)" % (k, dom, got))
        if env.is_colord:
            check(res["temp_session"][0] != "ok", "colord asks polkit for temp objects too")
        else:
            check_eq(res["temp_session"][0], "ok", "a session's own temp objects need no polkit (row 50)")
        d.connect_sync(None)
        check_eq(d.get_model(), None, "the root device was not modified")
        check_eq(len(d.get_profiles()), 1, "its profiles are unchanged")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--nobody":
        _nobody_scenario(sys.argv[2])
        sys.exit(0)
    compat.main()
