#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct-session against the daemon, as the user would run it.

Each test starts a private system bus with tinctd (tests/harness/harness.py), a private
session bus run as the session user, nobody (session_env.py), for the X11 tests Xvfb, and
tinct-session as nobody with HOME in the test's temporary directory. What tinct-session
registers is checked through the daemon's bus API; what it puts on the screen is read back
from the X server with x11-probe (plain Xlib/RandR) and xprop, and compared with the ICC
file's own bytes and its vcgt table decoded here from the file. Waits are on events: the
helper's log lines ("Registered ...", "Output screen: applied ..."), the daemon's signals,
process exits; every wait has a generous deadline and nothing sleeps."""

import os
import pwd
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "compat"))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from session_env import SessionBus, SessionHelper, Xvfb  # noqa: E402

from gi.repository import GLib  # noqa: E402

NOBODY = compat.NOBODY_UID
NOBODY_GID = pwd.getpwnam("nobody").pw_gid
BLUISH = compat.icc("colord-data--Bluish.icc")          # has a vcgt
GAMMA5500 = compat.icc("colord-data--Gamma5500K.icc")   # another vcgt
SRGB = compat.icc("colord-data--sRGB.icc")              # none
ADOBE = compat.icc("colord-data--AdobeRGB1998.icc")
EDID = os.path.join(compat.CORPUS_DIR, "edid", "DEL4015-49FE2B318083.bin")
PROBE = os.environ.get("TINCT_X11_PROBE")
TINCT = os.environ.get("TINCT_TOOL")
# The DELL 1907FP of EDID, as all of tinct names it (colord §9.4), after the PNP table every
# component is given (TINCT_PNP_IDS, src/edid-icc): hwdata's vendor name, shortened by the
# vendor quirk, or the PNP id when there is no table.
DELL_WITH_TABLE = "xrandr-Dell-DELL 1907FP-DC32365MAMST"
DELL_WITHOUT_TABLE = "xrandr-DEL-DELL 1907FP-DC32365MAMST"


# ---- helpers ------------------------------------------------------------------------------

def env_():
    return compat.TinctEnv(polkit="allow")


def user_dir(env, *parts):
    return os.path.join(env.home_nobody, *parts)


def make_user_dir(env, path):
    """A directory of the user's, owned by them as it would be."""
    os.makedirs(path, exist_ok=True)
    p = path
    while p.startswith(env.home_nobody + "/"):
        os.chown(p, NOBODY, NOBODY_GID)
        p = os.path.dirname(p)


def profile_by_filename(conn, filename):
    return compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileByFilename",
                       "s", [filename], "o")[0]


def has_profile(conn, filename):
    try:
        profile_by_filename(conn, filename)
        return True
    except GLib.Error:
        return False


def find_device(conn, device_id):
    return compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindDeviceById",
                       "s", [device_id], "o")[0]


def has_device(conn, device_id):
    try:
        find_device(conn, device_id)
        return True
    except GLib.Error:
        return False


def icc_id(path):
    with open(path, "rb") as f:
        data = f.read()
    header_id = data[84:100]
    if any(header_id):
        return "icc-" + header_id.hex()
    import hashlib
    return "icc-" + hashlib.md5(data).hexdigest()


def check_user_profile(conn, path):
    p = profile_by_filename(conn, path)
    props = compat.get_all(conn, p, compat.IFACE_PROFILE)
    check_eq(props["Filename"].unpack(), path, "Filename of %s" % os.path.basename(path))
    check_eq(props["ProfileId"].unpack(), icc_id(path), "its id (icc-<checksum>)")
    check_eq(props["Scope"].unpack(), "temp", "its scope")
    check_eq(props["Owner"].unpack(), NOBODY, "its owner")
    check_eq(props["Metadata"].unpack().get("FILE_checksum"), icc_id(path)[4:], "FILE_checksum")
    return p


def make_default(conn, device, profile):
    compat.call(conn, device, compat.IFACE_DEVICE, "AddProfile", "so", ["hard", profile])
    compat.call(conn, device, compat.IFACE_DEVICE, "MakeProfileDefault", "o", [profile])


def vcgt_table(path):
    """The vcgt of an ICC file (type 0, 3 channels), decoded from its bytes."""
    with open(path, "rb") as f:
        data = f.read()
    (count,) = struct.unpack(">I", data[128:132])
    for i in range(count):
        sig, off, size = struct.unpack(">4sII", data[132 + 12 * i:144 + 12 * i])
        if sig == b"vcgt":
            t = data[off:off + size]
            kind, channels, entries, width = struct.unpack(">IHHH", t[8:18])
            assert kind == 0 and channels == 3 and width in (1, 2)
            fmt = ">%d%s" % (entries, "H" if width == 2 else "B")
            out = []
            for c in range(3):
                vals = struct.unpack(fmt, t[18 + c * entries * width:18 + (c + 1) * entries * width])
                out.append([v if width == 2 else v * 257 for v in vals])
            return out
    return None


def read_gamma(display):
    r = subprocess.run([PROBE, "gamma", "screen"], env=dict(os.environ, DISPLAY=display),
                       capture_output=True, text=True, check=True)
    lines = r.stdout.splitlines()
    n = int(lines[0].split()[1])
    rows = [tuple(int(v) for v in line.split()) for line in lines[1:1 + n]]
    return [[row[c] for row in rows] for c in range(3)]


def check_ramp_linear(display, what):
    g = read_gamma(display)
    n = len(g[0])
    worst = max(abs(g[c][i] - round(i * 65535 / (n - 1))) for c in range(3) for i in range(n))
    check(worst <= 1, "%s: the gamma ramp is linear (%d entries)" % (what, n))


def check_ramp_vcgt(display, path, what):
    g = read_gamma(display)
    table = vcgt_table(path)
    n, m = len(g[0]), len(table[0])
    if n == m:
        check(g == table, "%s: the gamma ramp is the vcgt of %s (%d entries, exactly)"
              % (what, os.path.basename(path), n))
        return
    worst = 0
    for c in range(3):
        for i in range(n):
            x = i * (m - 1) / (n - 1)
            k = min(int(x), m - 2)
            want = table[c][k] + (table[c][k + 1] - table[c][k]) * (x - k)
            worst = max(worst, abs(g[c][i] - want))
    check(worst <= 2, "%s: the gamma ramp samples the vcgt of %s (%d of %d entries)"
          % (what, os.path.basename(path), n, m))


def root_property(display, name):
    """The bytes of a root window property (x11-probe), None when unset; checked against xprop."""
    with tempfile.NamedTemporaryFile() as f:
        r = subprocess.run([PROBE, "property", name, f.name], env=dict(os.environ, DISPLAY=display))
        if r.returncode == 3:
            data = None
        else:
            check_eq(r.returncode, 0, "x11-probe property %s" % name)
            data = open(f.name, "rb").read()
    x = subprocess.run(["xprop", "-root", "-notype", name], env=dict(os.environ, DISPLAY=display),
                       capture_output=True, text=True, check=True).stdout
    if data is None:
        check("not found" in x or "no such atom" in x, "xprop: %s is not set either" % name)
    else:
        values = bytes(int(v) for v in x.split("=", 1)[1].replace("\n", " ").split(","))
        check(values == data, "xprop reads the same %d bytes of %s" % (len(data), name))
    return data


def pnp_cases(tmp):
    """(what, the PNP table, the Dell's id): the tests' own table (tests/data/hwdata) and a
    path in tmp where there is none; never the host's /usr/share/hwdata, installed or not."""
    table = os.path.join(os.environ["TINCT_TEST_DATA_DIR"], "hwdata", "pnp.ids")
    return [("with a PNP table", table, DELL_WITH_TABLE),
            ("without a PNP table", os.path.join(tmp, "no-hwdata", "pnp.ids"), DELL_WITHOUT_TABLE)]


def use_pnp_table(path):
    """Every component this test starts from now on reads this table: the daemon, the helper
    and tinct inherit the variable (they are started with this process's environment)."""
    os.environ["TINCT_PNP_IDS"] = path


def cli_edid_profile(out):
    """`tinct edid-profile` of EDID into out; its 'meta' dictionary."""
    import json
    subprocess.run([TINCT, "edid-profile", EDID, "-o", out], check=True, capture_output=True)
    info = subprocess.run([TINCT, "icc-info", "--json", out], check=True, capture_output=True, text=True)
    return json.loads(info.stdout)["metadata"]


def wait_gone(conn, pred, what):
    rec = compat.SignalRecorder(conn)
    try:
        compat.iterate_until(pred, what)
    finally:
        conn.signal_unsubscribe(rec.sub)


# ---- user profiles --------------------------------------------------------------------------

@test
def command_line():
    """--help and --version answer without any bus; a stray argument is refused."""
    exe = os.environ["TINCT_SESSION"]
    r = subprocess.run([exe, "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and "org.freedesktop.ColorHelper" in r.stdout, "--help")
    r = subprocess.run([exe, "--version"], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.startswith("tinct-session "), "--version")
    r = subprocess.run([exe, "stray"], capture_output=True, text=True)
    check(r.returncode == 1, "a stray argument: exit 1")


@test
def user_profiles():
    """Files already there, written in place, renamed in, invalid, removed, renamed away,
    copies of one profile, a file without .icc, a directory made later, a directory that
    comes with its profile already in it."""
    with env_() as env, SessionBus(env) as bus:
        conn = compat.connect(env)
        icc = user_dir(env, ".local", "share", "icc")
        make_user_dir(env, icc)
        first = os.path.join(icc, "bluish.icc")
        shutil.copy(BLUISH, first)
        helper = SessionHelper(env, bus).start()
        check_user_profile(conn, first)

        # written in place: taken when closed, and not read while open, even when another
        # file's arrival brings a rescan meanwhile
        gamma = os.path.join(icc, "gamma.icc")
        with open(GAMMA5500, "rb") as f:
            data = f.read()
        with open(gamma, "wb") as f:
            f.write(data[:1000])
            f.flush()
            other = os.path.join(icc, "other.icc")
            shutil.copy(ADOBE, os.path.join(env.tmp, "other.icc"))
            os.rename(os.path.join(env.tmp, "other.icc"), other)
            helper.wait_line(r"Registered %s as " % re.escape(other))
            check(not has_profile(conn, gamma), "a file still being written is not registered")
            f.write(data[1000:])
        helper.wait_line(r"Registered %s as " % re.escape(gamma))
        check(not any("Ignoring %s" % gamma in line for line in helper.lines),
              "nor read half-written (no 'Ignoring' line for it)")
        check_user_profile(conn, gamma)
        os.unlink(other)
        helper.wait_line(r"Removed %s " % re.escape(other))

        # renamed into place from a hidden temporary name
        tmp = os.path.join(icc, ".srgb.icc.tmp")
        shutil.copy(SRGB, tmp)
        moved = os.path.join(icc, "srgb.icc")
        os.rename(tmp, moved)
        helper.wait_line(r"Registered %s as " % re.escape(moved))
        check_user_profile(conn, moved)
        check(not has_profile(conn, tmp), "the temporary name was never registered")

        # a hard link (how write_file_atomic() refuses to replace) and a symbolic link: no
        # write happens in the directory, only IN_CREATE
        outside = os.path.join(env.tmp, "outside")
        os.mkdir(outside, 0o755)
        shutil.copy(GAMMA5500.replace("5500", "6500"), os.path.join(outside, "hard.icc"))
        hard = os.path.join(icc, "hard.icc")
        os.link(os.path.join(outside, "hard.icc"), hard)
        os.unlink(os.path.join(outside, "hard.icc"))
        helper.wait_line(r"Registered %s as " % re.escape(hard))
        check_user_profile(conn, hard)
        shutil.copy(compat.icc("colord-data--ProPhotoRGB.icc"), os.path.join(outside, "linked.icc"))
        symlink = os.path.join(icc, "linked.icc")
        os.symlink(os.path.join(outside, "linked.icc"), symlink)
        helper.wait_line(r"Registered %s as " % re.escape(symlink))
        check_user_profile(conn, symlink)
        os.unlink(hard)
        os.unlink(symlink)
        helper.wait_line(r"Removed %s " % re.escape(hard))
        helper.wait_line(r"Removed %s " % re.escape(symlink))

        # an invalid file beside a valid one, in one burst
        garbage = os.path.join(icc, "garbage.icc")
        with open(garbage, "wb") as f:
            f.write(os.urandom(400))
        adobe = os.path.join(icc, "adobe.icm")
        shutil.copy(ADOBE, adobe)
        helper.wait_line(r"Ignoring %s: " % re.escape(garbage))
        helper.wait_line(r"Registered %s as " % re.escape(adobe))
        check(not has_profile(conn, garbage), "the invalid file is no profile")
        check_user_profile(conn, adobe)

        # removed, renamed away
        os.unlink(gamma)
        helper.wait_line(r"Removed %s " % re.escape(gamma))
        check(not has_profile(conn, gamma), "a removed file's profile is gone")
        os.rename(adobe, os.path.join(env.tmp, "adobe-elsewhere.icm"))
        helper.wait_line(r"Removed %s " % re.escape(adobe))
        check(not has_profile(conn, adobe), "a file renamed away: its profile is gone")

        # two copies of one profile: one registered; the other takes over when it goes
        copy1, copy2 = os.path.join(icc, "copy1.icc"), os.path.join(icc, "copy2.icc")
        shutil.copy(ADOBE, copy1)
        shutil.copy(ADOBE, copy2)
        helper.wait_line(r"Registered %s as " % re.escape(copy1))
        helper.wait_line(r"%s is the same profile as %s" % (re.escape(copy2), re.escape(copy1)))
        os.unlink(copy1)
        helper.wait_line(r"Registered %s as " % re.escape(copy2))
        check_user_profile(conn, copy2)

        # no .icc suffix: taken by its 'acsp' signature; a text file is left alone quietly
        plain = os.path.join(icc, "display-profile")
        shutil.copy(GAMMA5500, plain)
        notes = os.path.join(icc, "notes.txt")
        with open(notes, "w") as f:
            f.write("not a profile\n" * 10)
        helper.wait_line(r"Registered %s as " % re.escape(plain))
        check(not has_profile(conn, notes), "a text file is no profile")

        # ~/.color/icc did not exist at the start
        later = user_dir(env, ".color", "icc")
        make_user_dir(env, later)
        late = os.path.join(later, "late.icc")
        shutil.copy(GAMMA5500.replace("5500", "6500"), late)
        helper.wait_line(r"Registered %s as " % re.escape(late))
        check_user_profile(conn, late)

        # ~/.color gone, and back with its icc directory and a profile in it at once (a
        # prepared directory renamed in): no event names the file, it is found all the same
        shutil.rmtree(user_dir(env, ".color"))
        helper.wait_line(r"Removed %s " % re.escape(late))
        prepared = os.path.join(env.tmp, "prepared")
        os.makedirs(os.path.join(prepared, "icc"))
        shutil.copy(compat.icc("colord-data--AppleRGB.icc"), os.path.join(prepared, "icc", "again.icc"))
        for p in (prepared, os.path.join(prepared, "icc"), os.path.join(prepared, "icc", "again.icc")):
            os.chown(p, NOBODY, NOBODY_GID)
        os.rename(prepared, user_dir(env, ".color"))
        again = os.path.join(later, "again.icc")
        helper.wait_line(r"Registered %s as " % re.escape(again))
        check_user_profile(conn, again)

        rc = helper.stop()
        check_eq(rc, 0, "exit status on SIGTERM")
        left = [first, moved, copy2, plain, again]
        wait_gone(conn, lambda: not any(has_profile(conn, p) for p in left),
                  "the daemon to drop the helper's profiles")
        check(True, "its temp profiles went with it")


@test
def import_profile():
    """colormgr import-profile and tinct import-profile succeed with the helper running."""
    with env_() as env, SessionBus(env) as bus:
        conn = compat.connect(env)
        helper = SessionHelper(env, bus).start()
        data_home = user_dir(env, ".local", "share")
        run_env = {"XDG_DATA_HOME": data_home, "G_DEBUG": "fatal-warnings"}
        r = env.run(["colormgr", "import-profile", BLUISH], as_user="nobody", env=run_env)
        check_eq(r.returncode, 0, "colormgr import-profile: exit status (%s)" % r.stderr.strip())
        check_user_profile(conn, os.path.join(data_home, "icc", os.path.basename(BLUISH)))
        verbs = subprocess.run([TINCT, "--help"], capture_output=True, text=True).stdout
        if "import-profile" in verbs:
            r = env.run([TINCT, "import-profile", SRGB], as_user="nobody", env=run_env)
            check_eq(r.returncode, 0, "tinct import-profile: exit status (%s)" % r.stderr.strip())
            check_user_profile(conn, os.path.join(data_home, "icc", os.path.basename(SRGB)))
        else:
            print("    (this tinct has no import-profile verb: not checked)", flush=True)
        check_eq(helper.stop(), 0, "exit status")


@test
def one_per_session():
    """A second instance finds org.freedesktop.ColorHelper taken and exits with status 0;
    the shipped activation file starts one by that name."""
    exe = os.environ["TINCT_SESSION"]
    src = os.path.join(os.path.dirname(os.path.dirname(HERE)), "data", "dbus",
                       "org.freedesktop.ColorHelper.service.in")
    with open(src) as f:
        service = f.read().replace("@libexecdir@", os.path.dirname(os.path.abspath(exe)))
    with env_() as env, SessionBus(env, services={"org.freedesktop.ColorHelper.service": service}) as bus:
        first = SessionHelper(env, bus).start()
        second = SessionHelper(env, bus).start(wait_ready=False)
        second.wait_line(r"org\.freedesktop\.ColorHelper is taken")
        check_eq(second.wait_exit(), 0, "the second instance's exit status")
        check_eq(first.stop(signal.SIGINT), 0, "the first one's, on SIGINT")

        # D-Bus activation by name, as a caller of the ColorHelper interface starts it
        from gi.repository import Gio
        sconn = Gio.DBusConnection.new_for_address_sync(
            bus.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        res = sconn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "StartServiceByName", GLib.Variant("(su)", ("org.freedesktop.ColorHelper", 0)),
                              None, 0, 60000, None).unpack()
        check_eq(res[0], 1, "StartServiceByName: started")
        pid = sconn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "GetConnectionUnixProcessID", GLib.Variant("(s)", ("org.freedesktop.ColorHelper",)),
                              None, 0, 60000, None).unpack()[0]
        uid = sconn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                              "GetConnectionUnixUser", GLib.Variant("(s)", ("org.freedesktop.ColorHelper",)),
                              None, 0, 60000, None).unpack()[0]
        check_eq(uid, NOBODY, "the activated helper runs as the session's user")
        os.kill(pid, signal.SIGTERM)
        state = {"gone": False}

        def on_owner(_c, _s, _p, _i, _n, params, _u):
            if params.unpack()[0] == "org.freedesktop.ColorHelper" and not params.unpack()[2]:
                state["gone"] = True
        sub = sconn.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                     "/org/freedesktop/DBus", None, Gio.DBusSignalFlags.NONE, on_owner, None)
        compat.iterate_until(lambda: state["gone"] or not sconn.call_sync(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
            GLib.Variant("(s)", ("org.freedesktop.ColorHelper",)), None, 0, 60000, None).unpack()[0],
            "the activated helper to leave on SIGTERM")
        sconn.signal_unsubscribe(sub)
        sconn.close_sync(None)


@test
def daemon_restart():
    """When the daemon restarts, the helper registers everything again."""
    with env_() as env, SessionBus(env) as bus, Xvfb(env) as x:
        icc = user_dir(env, ".local", "share", "icc")
        make_user_dir(env, icc)
        path = os.path.join(icc, "bluish.icc")
        shutil.copy(BLUISH, path)
        helper = SessionHelper(env, bus, display=x.display).start()
        env.restart()
        helper.wait_line(r"org\.freedesktop\.ColorManager is on the bus")
        helper.wait_line(r"Registered %s as " % re.escape(path))
        helper.wait_line(r"Output screen: device xrandr-screen")
        conn = compat.connect(env)
        check_user_profile(conn, path)
        check(has_device(conn, "xrandr-screen"), "the display device is back")
        check_eq(helper.stop(), 0, "exit status")


# ---- X11 ------------------------------------------------------------------------------------

@test
def x11_profiles():
    """xrandr-screen appears; its default profile's vcgt is loaded into the CRTC and its bytes
    into _ICC_PROFILE; profiling inhibition loads a linear ramp until released; a profile
    without vcgt gives a linear ramp; the default's file removed: the next profile applies."""
    with env_() as env, SessionBus(env) as bus, Xvfb(env) as x:
        icc = user_dir(env, ".local", "share", "icc")
        make_user_dir(env, icc)
        bluish, srgb = os.path.join(icc, "bluish.icc"), os.path.join(icc, "srgb.icc")
        shutil.copy(BLUISH, bluish)
        shutil.copy(SRGB, srgb)
        # something that is not linear, to see it replaced
        subprocess.run([PROBE, "set-gamma", "screen", "1234"], env=dict(os.environ, DISPLAY=x.display), check=True)
        helper = SessionHelper(env, bus, display=x.display).start()
        conn = compat.connect(env)

        dev = find_device(conn, "xrandr-screen")
        props = compat.get_all(conn, dev, compat.IFACE_DEVICE)
        check_eq(props["Kind"].unpack(), "display", "Kind")
        check_eq(props["Mode"].unpack(), "physical", "Mode")
        check_eq(props["Colorspace"].unpack(), "rgb", "Colorspace")
        check_eq(props["Scope"].unpack(), "temp", "Scope")
        check_eq(props["Owner"].unpack(), NOBODY, "Owner")
        check_eq(props["Metadata"].unpack().get("XRANDR_name"), "screen", "XRANDR_name")
        check(any("Output screen: no profile, linear ramp" in line for line in helper.lines),
              "no profile at the start")
        check_ramp_linear(x.display, "no profile")
        check_eq(root_property(x.display, "_ICC_PROFILE"), None, "_ICC_PROFILE without a profile")

        p_bluish = profile_by_filename(conn, bluish)
        make_default(conn, dev, p_bluish)
        helper.wait_line(r"Output screen: applied %s \(vcgt\)" % re.escape(bluish))
        check_ramp_vcgt(x.display, BLUISH, "Bluish default")
        check(root_property(x.display, "_ICC_PROFILE") == open(BLUISH, "rb").read(),
              "_ICC_PROFILE holds the profile's bytes")

        compat.call(conn, dev, compat.IFACE_DEVICE, "ProfilingInhibit")
        helper.wait_line(r"Output screen: profiling inhibited, linear ramp")
        check_ramp_linear(x.display, "while inhibited")
        compat.call(conn, dev, compat.IFACE_DEVICE, "ProfilingUninhibit")
        helper.wait_line(r"Output screen: applied %s \(vcgt\)" % re.escape(bluish))
        check_ramp_vcgt(x.display, BLUISH, "released")

        p_srgb = profile_by_filename(conn, srgb)
        make_default(conn, dev, p_srgb)
        helper.wait_line(r"Output screen: applied %s \(linear ramp\)" % re.escape(srgb))
        check_ramp_linear(x.display, "sRGB (no vcgt) default")
        check(root_property(x.display, "_ICC_PROFILE") == open(SRGB, "rb").read(),
              "_ICC_PROFILE holds sRGB's bytes")

        os.unlink(srgb)
        helper.wait_line(r"Output screen: applied %s \(vcgt\)" % re.escape(bluish))
        check_ramp_vcgt(x.display, BLUISH, "the default's file removed: the next profile")

        # deleted by someone else while the output is still there: made again
        compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "DeleteDevice", "o", [dev])
        helper.wait_line(r"Output screen: device xrandr-screen was deleted")
        helper.wait_line(r"Output screen: device xrandr-screen$")
        check(has_device(conn, "xrandr-screen"), "the device is back")

        check_eq(helper.stop(), 0, "exit status")
        wait_gone(conn, lambda: not has_device(conn, "xrandr-screen"), "the device to go")
        check(True, "the temp device went with the helper")


@test
def x11_edid_and_existing_device():
    """An EDID appearing on the output (another monitor on the connector) replaces the device:
    the id is then xrandr-<vendor>-<model>-<serial>, the vendor being the PNP table's name
    (xrandr-Dell-...) or, without a table, the PNP id (xrandr-DEL-...); `tinct edid-profile`
    writes that same id with the same table. A device of that id that exists already is used,
    not duplicated, and outlives the helper. Both with the tests' PNP table and without one,
    whatever the host has installed."""
    with compat.TinctEnv(polkit="allow", profiles=[BLUISH]) as env, SessionBus(env) as bus, Xvfb(env) as x:
        import hashlib
        import json
        xenv = dict(os.environ, DISPLAY=x.display)
        ref = json.load(open(EDID.replace(".bin", ".ref.json")))
        conn = compat.connect(env)
        system_copy = os.path.join(env.profile_dir, os.path.basename(BLUISH))
        for i, (what, table, want) in enumerate(pnp_cases(env.tmp)):
            print("    -- %s: %s" % (what, want), flush=True)
            use_pnp_table(table)
            meta = cli_edid_profile(os.path.join(env.tmp, "edid-%d.icc" % i))
            check_eq(meta["MAPPING_device_id"], want, "%s: MAPPING_device_id of tinct edid-profile" % what)

            helper = SessionHelper(env, bus, display=x.display).start()
            if i == 0:
                check(has_device(conn, "xrandr-screen"), "without an EDID: xrandr-screen")
                subprocess.run([PROBE, "set-edid", "screen", EDID], env=xenv, check=True)
                helper.wait_line(r"Output screen: device %s$" % re.escape(want))
                wait_gone(conn, lambda: not has_device(conn, "xrandr-screen"), "xrandr-screen to go")
            else:
                # the EDID is there from the start: named before "Ready"
                check(any(line.endswith("Output screen: device %s" % want) for line in helper.lines),
                      "%s: the helper names the output %s" % (what, want))
            dev = find_device(conn, want)
            props = compat.get_all(conn, dev, compat.IFACE_DEVICE)
            check_eq(props["Vendor"].unpack(), want.split("-")[1], "%s: Vendor" % what)
            check_eq(props["Model"].unpack(), ref["model_name"], "Model")
            check_eq(props["Serial"].unpack(), ref["serial_string"], "Serial")
            check_eq(props["Metadata"].unpack().get("OutputEdidMd5"), hashlib.md5(open(EDID, "rb").read()).hexdigest(),
                     "OutputEdidMd5")
            check_eq(helper.stop(), 0, "exit status")
            wait_gone(conn, lambda: not has_device(conn, want), "the helper's device to go")

            # the daemon's own device of that id (here made by root)
            mine = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateDevice", "ssa{ss}",
                               [want, "temp", {"Kind": "display", "XRANDR_name": "screen"}], "o")[0]
            helper = SessionHelper(env, bus, display=x.display).start()
            check(any("the daemon has device %s already; using it" % want in line for line in helper.lines),
                  "the helper uses the existing device")
            check_eq(find_device(conn, want), mine, "no second device of that id")
            make_default(conn, mine, profile_by_filename(conn, system_copy))
            helper.wait_line(r"Output screen: applied %s \(vcgt\)" % re.escape(system_copy))
            check_ramp_vcgt(x.display, BLUISH, "the existing device's default")
            check_eq(helper.stop(), 0, "exit status")
            check(has_device(conn, want), "a device the helper did not make stays")


@test
def x11_one_name_per_monitor():
    """tinctd (the monitor on a connector of its sysfs tree), tinct-session (the same EDID on
    the X output) and `tinct edid-profile` give one monitor one id, with the tests' PNP table
    (xrandr-Dell-...) and without one (xrandr-DEL-...): the helper takes the daemon's device
    instead of making another, and the profile the CLI made, put in the user's directory,
    maps to that device."""
    if compat.daemon_kind() == "colord":
        print("    (colord: no --sysfs-root; not checked)", flush=True)
        return
    with open(EDID, "rb") as f:
        edid = f.read()
    for case in range(2):
        with tempfile.TemporaryDirectory(prefix="tinct-sysfs-", dir="/tmp") as root:
            what, table, want = pnp_cases(root)[case]
            print("    -- %s: %s" % (what, want), flush=True)
            use_pnp_table(table)    # before the daemon starts: it names the monitor at once
            connector = os.path.join(root, "sys", "class", "drm", "card0-DP-1")
            os.makedirs(connector)
            with open(os.path.join(connector, "status"), "w") as f:
                f.write("connected\n")
            with open(os.path.join(connector, "edid"), "wb") as f:
                f.write(edid)
            with compat.TinctEnv(polkit="allow", sysfs_root=root) as env, SessionBus(env) as bus, Xvfb(env) as x:
                conn = compat.connect(env)
                check(has_device(conn, want), "%s: tinctd names the monitor %s" % (what, want))
                dev = find_device(conn, want)
                check_eq(compat.get_all(conn, dev, compat.IFACE_DEVICE)["Owner"].unpack(), 0, "the daemon's device")

                subprocess.run([PROBE, "set-edid", "screen", EDID], env=dict(os.environ, DISPLAY=x.display), check=True)
                icc = user_dir(env, ".local", "share", "icc")
                make_user_dir(env, icc)
                made = os.path.join(env.tmp, "made.icc")
                check_eq(cli_edid_profile(made)["MAPPING_device_id"], want, "%s: tinct edid-profile's id" % what)
                helper = SessionHelper(env, bus, display=x.display).start()
                check(any("the daemon has device %s already; using it" % want in line for line in helper.lines),
                      "%s: tinct-session uses the daemon's device" % what)
                check_eq(find_device(conn, want), dev, "no second device")

                mapped = os.path.join(icc, "made.icc")
                shutil.copy(made, mapped)
                os.chown(mapped, NOBODY, NOBODY_GID)
                helper.wait_line(r"Registered %s as " % re.escape(mapped))
                profile = check_user_profile(conn, mapped)

                def listed():
                    return profile in compat.get_all(conn, dev, compat.IFACE_DEVICE)["Profiles"].unpack()
                rec = compat.SignalRecorder(conn)
                try:
                    compat.iterate_until(listed, "the CLI's profile on the daemon's device")
                finally:
                    conn.signal_unsubscribe(rec.sub)
                check(True, "%s: the profile of tinct edid-profile maps to the monitor's device" % what)
                check_eq(helper.stop(), 0, "exit status")


@test
def x11_monitor_numbering():
    """_ICC_PROFILE_<n> follows Xinerama's numbering: with a primary monitor before it (a
    RandR 1.5 monitor without outputs), the screen's profile goes to _ICC_PROFILE_1."""
    with env_() as env, SessionBus(env) as bus, Xvfb(env) as x:
        icc = user_dir(env, ".local", "share", "icc")
        make_user_dir(env, icc)
        bluish = os.path.join(icc, "bluish.icc")
        shutil.copy(BLUISH, bluish)
        subprocess.run([PROBE, "add-monitor", "VIRTUAL-1"], env=dict(os.environ, DISPLAY=x.display), check=True)
        helper = SessionHelper(env, bus, display=x.display).start()
        conn = compat.connect(env)
        make_default(conn, find_device(conn, "xrandr-screen"), profile_by_filename(conn, bluish))
        helper.wait_line(r"Output screen: applied %s \(vcgt\)" % re.escape(bluish))
        check(root_property(x.display, "_ICC_PROFILE_1") == open(BLUISH, "rb").read(),
              "_ICC_PROFILE_1 holds the profile")
        check_eq(root_property(x.display, "_ICC_PROFILE"), None, "_ICC_PROFILE (the other monitor's)")
        check_ramp_vcgt(x.display, BLUISH, "the output's own ramp")
        check_eq(helper.stop(), 0, "exit status")


# ---- the harness ---------------------------------------------------------------------------

def processes_left(recorded, timeout=60):
    """Waits (on pidfds, one deadline for all) until the processes recorded as (pid, start
    time: field 22 of its stat) have exited; returns those that have not within timeout,
    killed meanwhile."""
    fds = {}
    for pid, start in recorded:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            with open("/proc/%d/stat" % pid) as f:
                same = f.read().rsplit(")", 1)[1].split()[19] == start
        except FileNotFoundError:
            same = False
        if same:
            fds[fd] = pid
        else:
            os.close(fd)    # another process by now
    deadline = time.monotonic() + timeout
    while fds:
        left = deadline - time.monotonic()
        ready = select.select(list(fds), [], [], max(left, 0))[0]
        if not ready:
            break
        for fd in ready:
            del fds[fd]
            os.close(fd)
    survivors = []
    for fd, pid in fds.items():
        signal.pidfd_send_signal(fd, signal.SIGKILL)
        os.close(fd)
        survivors.append(pid)
    return survivors


@test
def no_process_left():
    """A test that fails leaves no tinct-session and no session bus behind, whether it fails a
    check (its teardown runs) or is killed outright (as meson kills a test that timed out):
    fails-on-purpose.py's tests, run as run-tests runs a test file."""
    script = os.path.join(HERE, "fails-on-purpose.py")
    for name in ("fails_by_check", "killed"):
        with tempfile.TemporaryDirectory() as d:
            pids, log = os.path.join(d, "pids"), os.path.join(d, "log")
            # its output in a file: a process it leaves behind would keep a pipe open
            with open(log, "w+") as out:
                r = subprocess.run([compat.PYTHON, script, name], env=dict(os.environ, TINCT_PIDS_FILE=pids),
                                   stdout=out, stderr=subprocess.STDOUT, timeout=600)
                out.seek(0)
                text = out.read()
            sys.stdout.write("".join("    | %s\n" % line for line in text.splitlines()))
            check(r.returncode == 1 and "0 passed, 1 failed" in text, "%s: reported failed" % name)
            with open(pids) as f:
                recorded = [(int(pid), start) for pid, start in (line.split() for line in f)]
        check_eq(len(recorded), 2, "%s: processes recorded" % name)
        survivors = processes_left(recorded)
        what = dict(zip((pid for pid, _ in recorded), ("tinct-session", "the session bus")))
        check(not survivors, "%s: no process outlives the test (left: %s)"
              % (name, ", ".join("%s (pid %d)" % (what[pid], pid) for pid in survivors) or "none"))


if __name__ == "__main__":
    compat.main()
