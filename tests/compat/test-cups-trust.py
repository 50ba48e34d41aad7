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
import struct
import sys
import threading
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import Cupsd, Signals, prop, wait_until  # noqa: E402
import cups_ppd  # noqa: E402
import ipp_encode  # noqa: E402


def dev(queue):
    return compat.device_path("cups-" + queue)


def devices_of(conn, queue):
    paths = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "GetDevices", reply="ao")[0]
    return [p for p in paths if prop(conn, p, compat.IFACE_DEVICE, "DeviceId") == "cups-" + queue]


# ---- a printer of the test's own -------------------------------------------------------

SMALL_ICC = "argyll-ref--ClayRGB1998.icm"  # 640 bytes: many of them cost little


def padded_icc(base, size):
    """A valid ICC profile of exactly size bytes: base with one more tag (a private
    signature lcms2 skips) holding zeros; the tag table (ICC.1 §7.3) grows by one entry, so
    every offset moves by 12, and the header's size follows (§7.2.2; its profile ID, an MD5
    of the file, is left zero: "not computed")."""
    count = struct.unpack(">I", base[128:132])[0]
    table = base[132:132 + 12 * count]
    body = base[132 + 12 * count:]
    entries = b"".join(struct.pack(">4sII", table[i:i + 4], struct.unpack(">I", table[i + 4:i + 8])[0] + 12,
                                   struct.unpack(">I", table[i + 8:i + 12])[0]) for i in range(0, len(table), 12))
    start = 128 + 4 + 12 * (count + 1) + len(body)
    start += -start % 4
    pad = size - start
    assert pad > 0
    head = bytearray(base[:128])
    head[0:4] = struct.pack(">I", size)
    head[84:100] = bytes(16)
    out = (bytes(head) + struct.pack(">I", count + 1) + entries + struct.pack(">4sII", b"tnct", start, pad) + body)
    out += bytes(start - len(out)) + bytes(pad)
    assert len(out) == size
    return out


class Printers:
    """Many IPP printers on 127.0.0.1, one path each (/ipp/<key>), answering
    Get-Printer-Attributes with a printer-uuid and printer-icc-profiles whose URLs this same
    server serves (/icc/<key>/<name>). A printer made with fickle=True answers a new
    printer-uuid every time it is asked, as the issue's hostile printer did."""

    def __init__(self):
        self.printers = {}
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                key = self.path.split("?")[0].rsplit("/", 1)[-1]
                answer = outer._answer(key, body)
                self.send_response(200 if answer else 404)
                self.send_header("Content-Type", "application/ipp")
                self.send_header("Content-Length", str(len(answer or b"")))
                self.end_headers()
                self.wfile.write(answer or b"")

            def do_GET(self):
                parts = self.path.split("/")  # "", "icc", key, name
                data = None
                with outer.lock:
                    p = outer.printers.get(parts[2]) if len(parts) == 4 and parts[1] == "icc" else None
                    if p:
                        data = dict(p["profiles"]).get(parts[3])
                self.send_response(200 if data else 404)
                self.send_header("Content-Type", "application/vnd.iccprofile")
                self.send_header("Content-Length", str(len(data or b"")))
                self.end_headers()
                self.wfile.write(data or b"")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, key, profiles, fickle=False):
        """profiles: [(profile-name, bytes)]."""
        with self.lock:
            self.printers[key] = {"profiles": list(profiles), "fickle": fickle, "asked": 0, "uuid": None}
        return "ipp://127.0.0.1:%d/ipp/%s" % (self.port, key)

    def asked(self, key):
        """How often the printer answered, and the printer-uuid of its last answer."""
        with self.lock:
            return self.printers[key]["asked"], self.printers[key]["uuid"]

    def _answer(self, key, request):
        with self.lock:
            p = self.printers.get(key)
            if not p:
                return None
            p["asked"] += 1
            p["uuid"] = self.uuid(key, p["asked"] if p["fickle"] else 0)
            uuid, profiles = p["uuid"], [name for name, _data in p["profiles"]]
        base = "http://127.0.0.1:%d/icc/%s/" % (self.port, key)
        return ipp_encode.printer_answer(request, ipp_encode.attr("uri", "printer-uuid", "urn:uuid:" + uuid) +
                                         ipp_encode.attr("text", "printer-make-and-model", "Tinct Hostile") +
                                         ipp_encode.attr("keyword", "media-type-supported", "stationery") +
                                         ipp_encode.icc_profiles([(name, base + name) for name in profiles]))

    @staticmethod
    def uuid(key, n):
        """The printer-uuid of printer key's answer n (always 0 unless fickle)."""
        return "%08x-%04x-4000-8000-%012x" % (zlib.crc32(key.encode()), n, n)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def vendor_id(uuid, name):
    return "printer-%s-%s" % (hashlib.md5(("uuid:" + uuid).encode()).hexdigest()[:12], name)


def printer_files(env):
    """The files of <state>/printers/ (count, bytes)."""
    d = os.path.join(env.state_dir, "printers")
    names = os.listdir(d) if os.path.isdir(d) else []
    return len(names), sum(os.lstat(os.path.join(d, n)).st_size for n in names)


def expect_files(env, count, what):
    n, size = printer_files(env)
    print("    figure: %s: %d files, %d bytes in printers/" % (what, n, size), flush=True)
    check_eq(n, count, "files in printers/ " + what)
    return size


def metadata(conn, queue):
    return prop(conn, dev(queue), compat.IFACE_DEVICE, "Metadata")


def wait_fetched(conn, printers, key, queue, since):
    """tinctd took the printer's answer after since (its count of answers): the device
    shows the uuid of the last one (set after the answer's profiles were registered)."""
    def done():
        asked, uuid = printers.asked(key)
        try:
            return asked > since and metadata(conn, queue).get("PRINTER_uuid") == uuid
        except Exception:
            return False  # the device is not there yet
    wait_until("tinctd's answer from printer %s on cups-%s" % (key, queue), done)
    return printers.asked(key)


SQUAT = """
import os, sys
from gi.repository import Gio, GLib
conn = Gio.DBusConnection.new_for_address_sync(os.environ["DBUS_SYSTEM_BUS_ADDRESS"],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
fd = os.open(sys.argv[2], os.O_RDONLY)
fds = Gio.UnixFDList.new()
fds.append(fd)
try:
    res, _ = conn.call_with_unix_fd_list_sync("org.freedesktop.ColorManager", "/org/freedesktop/ColorManager",
        "org.freedesktop.ColorManager", "CreateProfileWithFd",
        GLib.Variant("(ssha{ss})", (sys.argv[1], "normal", 0, {"Filename": sys.argv[2]})),
        GLib.VariantType.new("(o)"), Gio.DBusCallFlags.NONE, 60000, fds, None)
    print("created " + res.unpack()[0])
except GLib.Error as e:
    print("refused " + (Gio.DBusError.get_remote_error(e) or "") + ": " + e.message)
"""


@test
def vendor_id_squatted():
    """a console user takes the id of a printer's vendor profile before the fetch, naming a
    root-owned file in a directory it cannot write: refused; root's device lists the
    daemon's profile, cups-filters' lookup returns its file, lpadmin -x leaves the root file"""
    printers = Printers()
    plain = open(compat.icc("colord-tests--ibm-t61.icc"), "rb").read()
    uri = printers.add("squatted", [("stationery", plain)])
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", os.environ["TINCT_FETCH"]]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        # Root's file in a directory nobody cannot write; nobody can read it (an fd to pass).
        vault = os.path.join(env.tmp, "vault")
        os.mkdir(vault, 0o755)
        precious = os.path.join(vault, "precious.icc")
        with open(compat.icc("colord-data--AdobeRGB1998.icc"), "rb") as f:
            precious_bytes = f.read()
        with open(precious, "wb") as f:
            f.write(precious_bytes)
        os.chmod(precious, 0o644)
        check(os.stat(vault).st_uid == 0 and not os.stat(vault).st_mode & 0o022, "the file's directory is root's alone")
        # The printer tells anyone its uuid and profile names: the id is computable.
        uuid = Printers.uuid("squatted", 0)
        target = vendor_id(uuid, "stationery")
        r = env.run([compat.PYTHON, "-c", SQUAT, target, precious], as_user="nobody")
        print("    figure: nobody's CreateProfileWithFd(%s, fd and Filename of %s): %s" % (
            target, precious, (r.stdout + r.stderr).strip()), flush=True)
        check(r.stdout.startswith("refused " + compat.IFACE_MANAGER + ".AlreadyExists"),
              "nobody cannot take the id of a printer's vendor profile")
        compat.expect_dbus_error(
            lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "CreateProfile", "ssa{ss}",
                                [vendor_id(uuid, "photographic-glossy"), "temp", {}], reply="o"),
            compat.IFACE_MANAGER + ".AlreadyExists", "nor can root: such ids are the daemon's")
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            cupsd.lp("lpadmin", "-p", "Office", "-E", "-v", uri, "-m", "raw")
            signals.wait("DeviceAdded", dev("Office"))
            wait_fetched(conn, printers, "squatted", "Office", 0)
            own = compat.profile_path(target)
            listed = list(prop(conn, dev("Office"), compat.IFACE_DEVICE, "Profiles"))
            owners = [prop(conn, p, compat.IFACE_PROFILE, "Owner") for p in listed]
            print("    figure: root's cups-Office lists %r, owners %r" % (listed, owners), flush=True)
            check_eq(listed, [own], "root's printer lists the daemon's vendor profile only")
            check_eq(owners, [0], "owned by root")
            fallback = ["RGB.Stationery.600dpi", "RGB.Stationery.*", "RGB.*.600dpi", "RGB.*.*", "*"]
            found = compat.call(conn, dev("Office"), compat.IFACE_DEVICE, "GetProfileForQualifiers", "as", [fallback],
                                reply="o")[0]
            found_file = prop(conn, found, compat.IFACE_PROFILE, "Filename")
            print("    figure: cups-filters' lookup (RGB.Stationery.600dpi) returns %s, Filename %s" % (found, found_file),
                  flush=True)
            check_eq(found, own, "cups-filters' lookup returns the daemon's profile")
            check(found_file.startswith(os.path.join(env.state_dir, "printers") + "/"),
                  "its Filename is the daemon's file in <state>/printers: " + found_file)
            check(open(found_file, "rb").read() == plain, "holding the printer's bytes")
            cupsd.lp("lpadmin", "-x", "Office")
            signals.wait("DeviceRemoved", dev("Office"))
            signals.wait("ProfileRemoved", found)
            survives = os.path.exists(precious) and open(precious, "rb").read() == precious_bytes
            print("    figure: after lpadmin -x the root-owned %s %s" % (precious, "survives" if survives else "is gone"),
                  flush=True)
            check(survives, "root's file is still there, unchanged")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()
            printers.stop()


@test
def vendor_files_follow_queues():
    """<state>/printers/ holds the files of live queues only: a printer answering a new
    printer-uuid at every restart and when its device URI changes, a queue removed while
    tinctd was down, lpadmin -x"""
    printers = Printers()
    plain = open(compat.icc("colord-tests--ibm-t61.icc"), "rb").read()
    glossy = open(compat.icc("colord-data--sRGB.icc"), "rb").read()
    steady_uri = printers.add("steady", [("stationery", plain), ("photographic-glossy", glossy)])
    fickle_uri = printers.add("fickle", [("stationery", plain), ("photographic-glossy", glossy)], fickle=True)
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", os.environ["TINCT_FETCH"]]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            cupsd.lp("lpadmin", "-p", "Steady", "-E", "-v", steady_uri, "-m", "raw")
            cupsd.lp("lpadmin", "-p", "Fickle", "-E", "-v", fickle_uri, "-m", "raw")
            wait_fetched(conn, printers, "steady", "Steady", 0)
            asked, uuid = wait_fetched(conn, printers, "fickle", "Fickle", 0)
            expect_files(env, 4, "two printers of two profiles each")
            # Every restart: the fickle printer answers another printer-uuid, so other ids.
            for i in (1, 2, 3):
                env.restart()
                conn = compat.connect(env)
                asked, uuid = wait_fetched(conn, printers, "fickle", "Fickle", asked)
                wait_fetched(conn, printers, "steady", "Steady", 0)
                expect_files(env, 4, "after restart %d, the fickle printer at its uuid %s" % (i, uuid))
            # Its queue's device URI changes: asked again, another uuid, the old set goes.
            cupsd.lp("lpadmin", "-p", "Fickle", "-v", fickle_uri + "?again")
            asked, uuid = wait_fetched(conn, printers, "fickle", "Fickle", asked)
            expect_files(env, 4, "after the fickle queue's new device URI, uuid %s" % uuid)
            gone = prop(conn, dev("Steady"), compat.IFACE_DEVICE, "Profiles")
            gone_files = [prop(conn, p, compat.IFACE_PROFILE, "Filename") for p in gone]
            # A queue removed while tinctd is down.
            env.stop_daemon()
            cupsd.lp("lpadmin", "-x", "Steady")
            env.start_daemon()
            conn = compat.connect(env)
            asked, uuid = wait_fetched(conn, printers, "fickle", "Fickle", asked)
            expect_files(env, 2, "after a start without the queue Steady removed meanwhile")
            check(not any(os.path.exists(f) for f in gone_files), "Steady's files are gone")
            # lpadmin -x while tinctd runs.
            signals = Signals(conn)
            fickle_profiles = list(prop(conn, dev("Fickle"), compat.IFACE_DEVICE, "Profiles"))
            cupsd.lp("lpadmin", "-x", "Fickle")
            signals.wait("DeviceRemoved", dev("Fickle"))
            for p in fickle_profiles:
                signals.wait("ProfileRemoved", p)
            expect_files(env, 0, "after lpadmin -x of the last queue")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()
            printers.stop()


@test
def vendor_files_capped():
    """all printers' vendor profile files together: LIMIT_PRINTER_FILES (256) and
    LIMIT_PRINTER_FILES_BYTES (128 MiB), each at its edge; a profile beyond is not kept"""
    printers = Printers()
    small = open(compat.icc(SMALL_ICC), "rb").read()
    base = open(compat.icc("colord-tests--ibm-t61.icc"), "rb").read()
    mib = 1024 * 1024
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", os.environ["TINCT_FETCH"]]) as env:
        conn = compat.connect(env)
        cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
        try:
            # Bytes: two printers of 2 x 30 MiB, then one of exactly the 8 MiB left and one more.
            for key, sizes in (("big1", (30, 30)), ("big2", (30, 30)), ("big3", (8,))):
                uri = printers.add(key, [("p%d" % i, padded_icc(base, n * mib)) for i, n in enumerate(sizes)] +
                                   ([("over", small)] if key == "big3" else []))
                cupsd.lp("lpadmin", "-p", key, "-E", "-v", uri, "-m", "raw")
                _asked, uuid = wait_fetched(conn, printers, key, key, 0)
            size = expect_files(env, 5, "printers of 30, 30, 30, 30, 8 MiB and 640 bytes")
            check_eq(size, 128 * mib, "exactly LIMIT_PRINTER_FILES_BYTES")
            check(prop(conn, compat.profile_path(vendor_id(uuid, "p0")), compat.IFACE_PROFILE, "Filename"),
                  "the profile that fills the cap exactly is kept")
            compat.expect_dbus_error(
                lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileById", "s",
                                    [vendor_id(uuid, "over")], reply="o"),
                compat.IFACE_MANAGER + ".NotFound", "the one beyond LIMIT_PRINTER_FILES_BYTES is not")
            for key in ("big1", "big2", "big3"):
                cupsd.lp("lpadmin", "-x", key)
            wait_until("the big printers' files swept", lambda: printer_files(env)[0] == 0)
            # Files: 16 printers of 16 profiles, then one more printer.
            for i in range(16):
                uri = printers.add("many%02d" % i, [("p%02d" % j, small) for j in range(16)])
                cupsd.lp("lpadmin", "-p", "many%02d" % i, "-E", "-v", uri, "-m", "raw")
            for i in range(16):
                wait_fetched(conn, printers, "many%02d" % i, "many%02d" % i, 0)
            expect_files(env, 256, "16 printers offering 16 x 16 profiles")
            uri = printers.add("one-more", [("p00", small)])
            cupsd.lp("lpadmin", "-p", "one-more", "-E", "-v", uri, "-m", "raw")
            _asked, uuid = wait_fetched(conn, printers, "one-more", "one-more", 0)
            expect_files(env, 256, "and one more printer offering one")
            compat.expect_dbus_error(
                lambda: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileById", "s",
                                    [vendor_id(uuid, "p00")], reply="o"),
                compat.IFACE_MANAGER + ".NotFound", "the 257th profile is not kept (LIMIT_PRINTER_FILES)")
            check(env.daemon_alive(), "daemon alive")
        finally:
            cupsd.stop()
            printers.stop()


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

            # From then on only a signal makes tinctd ask cupsd (the safety listing is an
            # hour away).
            wait_until("tinctd's subscription and the listing after it", cupsd.subscribed_and_listed)
            check(("Create-Printer-Subscriptions", "successful-ok") in cupsd.requests(), "cupsd took the subscription")
            cupsd.stop()
            check_eq(cupsd.take_out_of_conf("Gone"), 1, "the queue Gone taken out of printers.conf while cupsd is stopped")
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
