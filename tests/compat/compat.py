# SPDX-License-Identifier: GPL-2.0-or-later
"""Shared helpers for tinct's compatibility tests (tests/compat).

What is here: finding the test harness (tests/harness/harness.py), parsing introspection XML
into comparable form, the corpus paths, and a tiny test runner that runs each test
function in its own child process (libcolord runs with fatal warnings: one warning aborts
the process, and the other tests must still run and be reported).

What is not here: any knowledge of tinctd internals. The tests only talk to the daemon the
way real clients do.
"""

import json
import pwd
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("TINCT_SOURCE_ROOT", os.path.dirname(os.path.dirname(HERE)))
HARNESS_DIR = os.environ.get("TINCT_HARNESS_DIR", os.path.join(SOURCE_ROOT, "tests", "harness"))
COLORD_XML_DIR = os.environ.get("COLORD_XML_DIR", "/usr/share/dbus-1/interfaces")
OUR_XML_DIR = os.environ.get("TINCT_XML_DIR", os.path.join(SOURCE_ROOT, "data", "dbus"))
CORPUS_DIR = os.environ.get("TINCT_CORPUS_DIR",
                            os.path.join(SOURCE_ROOT, "..", "shared", "corpus"))
ICC_DIR = os.path.realpath(os.path.join(CORPUS_DIR, "icc"))
PYTHON = "/usr/bin/python3"

SERVICE = "org.freedesktop.ColorManager"
MANAGER_PATH = "/org/freedesktop/ColorManager"
IFACE_MANAGER = "org.freedesktop.ColorManager"
IFACE_DEVICE = "org.freedesktop.ColorManager.Device"
IFACE_PROFILE = "org.freedesktop.ColorManager.Profile"
IFACE_SENSOR = "org.freedesktop.ColorManager.Sensor"
INTERFACES = [IFACE_MANAGER, IFACE_DEVICE, IFACE_PROFILE, IFACE_SENSOR]

NOBODY_UID = pwd.getpwnam("nobody").pw_uid


def daemon_kind():
    """'tinct' (default) or 'colord' (TINCT_TEST_DAEMON=colord: Debian's real daemon)."""
    return os.environ.get("TINCT_TEST_DAEMON", "tinct")


def escape_id(s):
    """colord's object-path escaping: every byte outside [A-Za-z0-9_] becomes '_'."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        out.append(c if (c.isascii() and (c.isalnum() or c == "_")) else "_")
    return "".join(out)


def device_path(device_id, uid=0, user=None):
    s = device_id if uid == 0 else "%s_%s_%d" % (device_id, user, uid)
    return MANAGER_PATH + "/devices/" + escape_id(s)


def profile_path(profile_id, uid=0, user=None):
    s = profile_id if uid == 0 else "%s_%s_%d" % (profile_id, user, uid)
    return MANAGER_PATH + "/profiles/" + escape_id(s)


# ---------------------------------------------------------------------------------------
# corpus

def icc(name):
    """Absolute path of a corpus ICC file, e.g. icc('colord-tests--ibm-t61.icc')."""
    return os.path.join(ICC_DIR, name)


def icc_ref(name):
    base = name.rsplit(".", 1)[0]
    with open(os.path.join(ICC_DIR, base + ".ref.json")) as f:
        return json.load(f)


def icc_checksum(name):
    """The id colord gives a file: the embedded profile ID, else the MD5 of the file."""
    ref = icc_ref(name)
    pid = (ref.get("header") or {}).get("profile_id") or ""
    if pid and pid != "0" * 32:
        return pid
    return ref["md5"]


def icc_title(name):
    """The title colord shows for a file: the cleaned-up en_US description (colord §4.4)."""
    d = icc_ref(name)["summary"]["description"]["cd_iccdump"]
    if d.startswith("Default, "):
        d = d[len("Default, "):]
    cut = d.find(" (201")
    if cut >= 0:
        d = d[:cut]
    d = d.replace("_", " ")
    for ext in (".icc", ".ICC", ".icm", ".ICM"):
        if d.endswith(ext):
            d = d[:-len(ext)]
            break
    return d


ICC_KIND = {"scnr": "input-device", "mntr": "display-device", "prtr": "output-device",
            "link": "devicelink", "spac": "colorspace-conversion", "abst": "abstract",
            "nmcl": "named-color"}
ICC_COLORSPACE = {"XYZ ": "xyz", "Lab ": "lab", "Luv ": "luv", "YCbr": "ycbcr", "Yxy ": "yxy",
                  "RGB ": "rgb", "GRAY": "gray", "HSV ": "hsv", "CMYK": "cmyk", "CMY ": "cmy"}


def icc_kind(name):
    return ICC_KIND.get(icc_ref(name)["header"]["class"], "unknown")


def icc_colorspace(name):
    return ICC_COLORSPACE.get(icc_ref(name)["header"]["colorspace"], "unknown")


def make_profile_dir(names, root=None):
    """A fresh directory holding copies of some corpus files (for --profile-dir)."""
    d = tempfile.mkdtemp(prefix="tinct-compat-icc-", dir=root)
    os.chmod(d, 0o755)
    for n in names:
        shutil.copy(icc(n), os.path.join(d, n))
        os.chmod(os.path.join(d, n), 0o644)
    return d


# The standard-space profiles the daemon should find in its profile directory.
STANDARD_PROFILES = ["colord-data--sRGB.icc", "colord-data--AdobeRGB1998.icc",
                     "colord-data--ProPhotoRGB.icc"]


# ---------------------------------------------------------------------------------------
# introspection XML

def parse_interfaces(xml_text):
    """{iface: {'methods': {name: [(argname, type, direction)]},
                'signals': {name: [(argname, type)]},
                'properties': {name: (type, access)},
                'annotations': {(member_kind, member, arg or '', name): value}}}"""
    root = ET.fromstring(xml_text)
    out = {}
    for iface in root.iter("interface"):
        d = {"methods": {}, "signals": {}, "properties": {}, "annotations": {}}
        for m in iface:
            kind = m.tag
            name = m.get("name")
            if kind == "method":
                args = []
                for a in m.findall("arg"):
                    args.append((a.get("name"), a.get("type"), a.get("direction", "in")))
                    for an in a.findall("annotation"):
                        d["annotations"][(kind, name, a.get("name"), an.get("name"))] = an.get("value")
                d["methods"][name] = args
            elif kind == "signal":
                args = []
                for a in m.findall("arg"):
                    args.append((a.get("name"), a.get("type")))
                d["signals"][name] = args
            elif kind == "property":
                d["properties"][name] = (m.get("type"), m.get("access"))
            else:
                continue
            for an in m.findall("annotation"):
                d["annotations"][(kind, name, "", an.get("name"))] = an.get("value")
        out[iface.get("name")] = d
    return out


def colord_interface(iface):
    with open(os.path.join(COLORD_XML_DIR, iface + ".xml")) as f:
        return parse_interfaces(f.read())[iface]


def our_interface(iface):
    with open(os.path.join(OUR_XML_DIR, iface + ".xml")) as f:
        return parse_interfaces(f.read())[iface]


def compare_interface(expected, got, what, check_arg_names=True, check_signal_arg_names=True,
                      check_annotations=False):
    """Member-by-member comparison. Returns (list of problems, list of checked items)."""
    problems = []
    checked = []
    for kind in ("methods", "signals", "properties"):
        e, g = expected[kind], got[kind]
        for name in sorted(set(e) - set(g)):
            problems.append("%s: %s %s missing" % (what, kind[:-1], name))
        for name in sorted(set(g) - set(e)):
            problems.append("%s: unexpected %s %s" % (what, kind[:-1], name))
        for name in sorted(set(e) & set(g)):
            ev, gv = e[name], g[name]
            if kind == "properties":
                if ev != gv:
                    problems.append("%s: property %s is %s/%s, expected %s/%s"
                                    % (what, name, gv[0], gv[1], ev[0], ev[1]))
            elif kind == "methods":
                if not check_arg_names:
                    ev = [(None, t, dr) for (_, t, dr) in ev]
                    gv = [(None, t, dr) for (_, t, dr) in gv]
                if ev != gv:
                    problems.append("%s: method %s args %s, expected %s" % (what, name, gv, ev))
            else:
                if not check_signal_arg_names:
                    ev = [t for (_, t) in ev]
                    gv = [t for (_, t) in gv]
                if ev != gv:
                    problems.append("%s: signal %s args %s, expected %s" % (what, name, gv, ev))
            checked.append("%s %s" % (kind[:-1], name))
    if check_annotations:
        ea, ga = expected["annotations"], got["annotations"]
        for k in sorted(set(ea) | set(ga), key=str):
            if ea.get(k) != ga.get(k):
                problems.append("%s: annotation %s is %r, expected %r" % (what, k, ga.get(k), ea.get(k)))
            else:
                checked.append("annotation %s=%s" % ("/".join(x for x in k if x), ea[k]))
    return problems, checked


# ---------------------------------------------------------------------------------------
# environment: the harness (tests/harness/harness.py)

def _harness():
    if HARNESS_DIR not in sys.path:
        sys.path.insert(0, HARNESS_DIR)
    import harness  # noqa: E402  (tests/harness/harness.py)
    return harness


def TinctEnv(**kw):
    """harness.TinctEnv: private bus, optional fake polkit, the daemon under test.
    G_DEBUG (fatal warnings, meant for the libcolord clients) is kept away from the daemon:
    colord is a GLib program and would abort on its own warnings. A test process that
    loaded GLib before this point keeps its fatal-warnings setting."""
    os.environ.pop("G_DEBUG", None)
    return _harness().TinctEnv(**kw)


def run_as(env, cmd, as_user=None, **kw):
    """env.run with captured text output whatever the harness default is."""
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    return env.run(cmd, as_user=as_user, **kw)


def bus_env(env):
    e = dict(os.environ)
    e["DBUS_SYSTEM_BUS_ADDRESS"] = env.address
    e.pop("DBUS_SESSION_BUS_ADDRESS", None)
    return e


# ---------------------------------------------------------------------------------------
# test runner

class Expected(Exception):
    pass


_TESTS = []


def test(fn=None, *, colord_bug=None):
    """Register a test function. colord_bug='9' marks a test that checks a fix tinct
    makes to a known colord bug (colord §16.9): against the real colord it is expected
    to fail and is reported as such, not counted as a failure."""
    def deco(f):
        f.colord_bug = colord_bug
        _TESTS.append(f)
        return f
    if fn is not None:
        return deco(fn)
    return deco


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)
    print("    ok: " + msg, flush=True)


def check_eq(got, expected, what):
    if got != expected:
        raise AssertionError("%s: got %r, expected %r" % (what, got, expected))
    print("    ok: %s = %r" % (what, expected), flush=True)


def _run_one(name, env):
    """One test in a child process of its own process group; whatever the test left behind in
    that group (a helper it started and, failing, could not stop) is killed when it ends. The
    child dies with this runner."""
    p = subprocess.Popen([PYTHON, os.path.abspath(sys.argv[0]), "--one", name], env=env,
                         process_group=0, preexec_fn=_harness()._die_with_parent)
    try:
        # Not reaped yet: while the child is a zombie its group id cannot be anyone else's.
        os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    return p.returncode


def main(argv=None, child_env=None, uses_daemon=True):
    """Run every registered test in its own child process (or one, with --one NAME)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) >= 2 and argv[0] == "--one":
        name = argv[1]
        for f in _TESTS:
            if f.__name__ == name:
                try:
                    f()
                except Exception:
                    traceback.print_exc()
                    sys.stdout.flush()
                    sys.exit(1)
                sys.stdout.flush()
                sys.exit(0)
        print("no such test " + name)
        sys.exit(2)
    only = set(argv)
    env = dict(os.environ)
    if child_env:
        env.update(child_env)
    passed, failed, xfail, xpass = [], [], [], []
    colord = daemon_kind() == "colord"
    if uses_daemon:
        print("daemon under test: %s" % ("colord (/usr/libexec/colord)" if colord
                                          else os.environ.get("TINCTD", "tinctd")), flush=True)
    for f in _TESTS:
        if only and f.__name__ not in only:
            continue
        print("=== %s" % f.__name__, flush=True)
        if f.__doc__:
            print("    (%s)" % " ".join(f.__doc__.split()), flush=True)
        rc = _run_one(f.__name__, env)
        ok = rc == 0
        tag = "PASS" if ok else ("FAIL (killed by signal %d%s)" % (
            -rc, ", a fatal GLib warning?" if -rc in (signal.SIGTRAP, signal.SIGABRT) else "")
            if rc < 0 else "FAIL")
        if colord and f.colord_bug:
            if ok:
                xpass.append(f.__name__)
                tag = "PASS (colord §16.%s not reproduced)" % f.colord_bug
            else:
                xfail.append(f.__name__)
                tag = "expected failure on colord (colord §16.%s: tinct fixes it)" % f.colord_bug
        elif ok:
            passed.append(f.__name__)
        else:
            failed.append(f.__name__)
        print("--- %s: %s" % (f.__name__, tag), flush=True)
    print()
    print("summary: passed: %s" % (" ".join(passed) or "-"))
    print("summary: failed: %s" % (" ".join(failed) or "-"))
    if colord:
        print("summary: colord-bug tests (fixed by tinct) failing on colord as expected: %s"
              % (" ".join(xfail) or "-"))
    print("%d passed, %d failed" % (len(passed) + len(xpass), len(failed)), flush=True)
    sys.exit(1 if failed else 0)


# ---------------------------------------------------------------------------------------
# raw D-Bus (GDBus through python3-gi), for what clients such as cupsd do without libcolord

def connect(env):
    """A private GDBus connection to the test bus."""
    from gi.repository import Gio
    return Gio.DBusConnection.new_for_address_sync(
        env.address,
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def call(conn, path, iface, method, sig=None, args=None, reply=None, fds=None, timeout=60000):
    """Call a daemon method; returns the unpacked reply tuple. Raises GLib.Error."""
    from gi.repository import Gio, GLib
    params = GLib.Variant("(%s)" % sig, tuple(args)) if sig is not None else None
    rtype = GLib.VariantType.new("(%s)" % reply) if reply is not None else None
    if fds is not None:
        fdl = Gio.UnixFDList.new()
        for fd in fds:
            fdl.append(fd)
        res, _out = conn.call_with_unix_fd_list_sync(SERVICE, path, iface, method, params, rtype,
                                                     Gio.DBusCallFlags.NONE, timeout, fdl, None)
    else:
        res = conn.call_sync(SERVICE, path, iface, method, params, rtype,
                             Gio.DBusCallFlags.NONE, timeout, None)
    return res.unpack() if res is not None else ()


def dbus_error_name(err):
    """The remote D-Bus error name of a GLib.Error from a GDBus call (or None)."""
    from gi.repository import Gio
    try:
        return Gio.DBusError.get_remote_error(err)
    except Exception:
        return None


def expect_dbus_error(fn, name, what):
    from gi.repository import GLib
    try:
        fn()
    except GLib.Error as e:
        got = dbus_error_name(e)
        if got != name:
            raise AssertionError("%s: error %s (%s), expected %s" % (what, got, e.message, name))
        print("    ok: %s -> %s" % (what, name), flush=True)
        return e
    raise AssertionError("%s: succeeded, expected error %s" % (what, name))


def get_all(conn, path, iface):
    from gi.repository import GLib
    res = conn.call_sync(SERVICE, path, "org.freedesktop.DBus.Properties", "GetAll",
                         GLib.Variant("(s)", (iface,)), GLib.VariantType.new("(a{sv})"),
                         0, 60000, None)
    d = res.get_child_value(0)
    out = {}
    for i in range(d.n_children()):
        e = d.get_child_value(i)
        out[e.get_child_value(0).get_string()] = e.get_child_value(1).get_variant()
    return out


def introspect(conn, path):
    return call(conn, path, "org.freedesktop.DBus.Introspectable", "Introspect", reply="s")[0]


class SignalRecorder:
    """Records every signal the daemon sends on a connection (in arrival order)."""

    def __init__(self, conn):
        from gi.repository import Gio
        self.conn = conn
        self.signals = []
        self.sub = conn.signal_subscribe(None, None, None, None, None,
                                         Gio.DBusSignalFlags.NONE, self._on, None)

    def _on(self, _c, sender, path, iface, name, params, _u):
        if iface == "org.freedesktop.DBus":
            return
        self.signals.append((path, iface, name, params))

    def names(self):
        return [(p, i, n) for (p, i, n, _v) in self.signals]


def iterate_until(pred, what, timeout=60):
    """Run the default main context until pred() is true. The timeout is a safety net
    against hangs, not a timing threshold."""
    from gi.repository import GLib
    ctx = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    while not pred():
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("timed out waiting for " + what)
        src = GLib.timeout_source_new(int(min(left, 1.0) * 1000) + 1)
        src.set_callback(lambda *_a: False)
        src.attach(ctx)
        ctx.iteration(True)
        src.destroy()


def drain():
    """Dispatch whatever is already queued on the default main context."""
    from gi.repository import GLib
    ctx = GLib.MainContext.default()
    while ctx.pending():
        ctx.iteration(False)
