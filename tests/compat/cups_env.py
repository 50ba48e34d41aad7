# SPDX-License-Identifier: GPL-2.0-or-later
"""A private cupsd for the printer tests, and the manager's signals recorded for waiting.

cupsd runs in the foreground with everything under one directory of the test, listening on a
unix socket only, with DBUS_SYSTEM_BUS_ADDRESS on the test's private bus (its own, and, through
SetEnv, its filters' and backends'). The harness points
tinctd's CUPS_SERVER at <tmp>/cups/cups.sock, so a Cupsd rooted at <tmp>/cups is the one the
daemon follows."""

import http.server
import os
import re
import signal
import socket
import subprocess
import threading
import time

import compat

DEADLINE_S = 120  # a guard against a hang, not a timing expectation


def wait_until(what, predicate):
    """Polls a real condition, bounded by the deadline (no fixed sleep)."""
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)


class Cupsd:
    """cupsd in the foreground with everything under root_dir."""

    def __init__(self, env, root_dir, conf_lines=()):
        self.root = root_dir
        self.sock = os.path.join(root_dir, "cups.sock")
        for d in ("spool", "tmp", "cache", "state"):
            os.makedirs(os.path.join(root_dir, d), exist_ok=True)
        # Filters and backends run as cupsd's User (lp), with TMPDIR=TempDir: without a
        # world-writable TempDir gstoraster stops every job with "Can't create temporary file".
        os.chmod(os.path.join(root_dir, "tmp"), 0o1777)
        with open(os.path.join(root_dir, "cups-files.conf"), "w") as f:
            f.write("ServerRoot {r}\nRequestRoot {r}/spool\nTempDir {r}/tmp\nCacheDir {r}/cache\n"
                    "StateDir {r}/state\nServerBin /usr/lib/cups\nDataDir /usr/share/cups\n"
                    "ErrorLog {r}/error_log\nAccessLog {r}/access_log\nPageLog {r}/page_log\n"
                    "FileDevice Yes\nSystemGroup root\nSandboxing Relaxed\n".format(r=root_dir) +
                    # cupsd gives its filters and backends a fresh environment: without this
                    # (a cups-files.conf directive, ignored in cupsd.conf) a print filter would ask
                    # the machine's system bus for its colord profile, not the test's.
                    "SetEnv DBUS_SYSTEM_BUS_ADDRESS %s\n" % env.address)
        with open(os.path.join(root_dir, "cupsd.conf"), "w") as f:
            # AccessLogLevel all: every request is a line of access_log (requests()).
            f.write("Listen %s\nLogLevel debug\nAccessLogLevel all\nBrowsing No\nDirtyCleanInterval 0\n" % self.sock +
                    "".join(line + "\n" for line in conf_lines) +
                    "<Location />\n  Order allow,deny\n  Allow all\n</Location>\n")
        self.env = env._env()
        self.proc = subprocess.Popen(
            ["cupsd", "-f", "-c", os.path.join(root_dir, "cupsd.conf"),
             "-s", os.path.join(root_dir, "cups-files.conf")],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._wait_ready()

    def log(self):
        try:
            with open(os.path.join(self.root, "error_log")) as f:
                return f.read()[-4000:]
        except OSError:
            return "(no error_log)"

    def requests(self):
        """The IPP operations cupsd answered, in order, as (operation, status) from its
        access_log (one line each: '... "POST / HTTP/1.1" 200 187 CUPS-Get-Printers
        successful-ok'). cupsd writes a line once it has sent the answer."""
        try:
            with open(os.path.join(self.root, "access_log")) as f:
                return [tuple(line.split()[-2:]) for line in f if line.count('"') >= 2 and len(line.split()) >= 2]
        except OSError:
            return []

    def subscribed_and_listed(self):
        """Whether tinctd made its subscription (Create-Printer-Subscriptions) and listed the
        queues after it (the outcome's listing; no other is due meanwhile): from then on, with
        a long --cups-poll, only a signal makes tinctd ask cupsd again."""
        ops = [op for op, _status in self.requests()]
        if "Create-Printer-Subscriptions" not in ops:
            return False
        return "CUPS-Get-Printers" in ops[ops.index("Create-Printer-Subscriptions"):]

    def take_out_of_conf(self, queue):
        """Takes the queue out of printers.conf, as an administrator would while cupsd is
        stopped; returns how many entries went (1)."""
        conf = os.path.join(self.root, "printers.conf")
        with open(conf) as f:
            text = f.read()
        text, n = re.subn(r"<Printer %s>.*?</Printer>\n" % re.escape(queue), "", text, flags=re.S)
        with open(conf, "w") as f:
            f.write(text)
        return n

    def _wait_ready(self):
        # Ready when the scheduler answers on its socket (lpstat -r asks it).
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("cupsd exited (%d): %s\n%s" % (
                    self.proc.returncode, self.proc.stdout.read().decode(errors="replace"), self.log()))
            if os.path.exists(self.sock):
                r = self.lp("lpstat", "-r", check=False)
                if r.returncode == 0 and "is running" in r.stdout:
                    print("    ok: cupsd is running", flush=True)
                    return
            time.sleep(0.05)  # polling a real condition, bounded by the deadline
        raise AssertionError("cupsd did not start: " + self.log())

    def lp(self, tool, *args, check=True):
        r = subprocess.run([tool, "-h", self.sock] + list(args), env=self.env, text=True,
                           capture_output=True, stdin=subprocess.DEVNULL, timeout=DEADLINE_S)
        if check and r.returncode != 0:
            raise AssertionError("%s %s failed: %s%s\n%s" % (tool, " ".join(args), r.stdout, r.stderr, self.log()))
        return r

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Signals:
    """The manager's DeviceAdded/DeviceRemoved/DeviceChanged (with the object path) and every
    PropertiesChanged (with the path it came from), recorded from subscription on."""

    def __init__(self, conn):
        self.conn = conn
        self.seen = []
        self.subs = [
            conn.signal_subscribe(None, compat.IFACE_MANAGER, None, compat.MANAGER_PATH, None, 0,
                                  self._on_signal, None),
            conn.signal_subscribe(None, "org.freedesktop.DBus.Properties", "PropertiesChanged", None, None, 0,
                                  self._on_properties, None),
        ]

    def _on_signal(self, _conn, _sender, _path, _iface, member, params, _data):
        self.seen.append((member, params.unpack()[0] if params.n_children() else None))

    def _on_properties(self, _conn, _sender, path, _iface, member, _params, _data):
        self.seen.append((member, path))

    def mark(self):
        """A point to wait from: wait(..., since=mark) ignores what came before it."""
        return len(self.seen)

    def wait(self, member, obj, since=0):
        from gi.repository import GLib
        ctx = GLib.MainContext.default()
        deadline = time.monotonic() + DEADLINE_S
        wake = GLib.timeout_add(200, lambda: True)  # to look at the deadline now and then
        try:
            while (member, obj) not in self.seen[since:]:
                if time.monotonic() > deadline:
                    raise AssertionError("no %s(%s); seen %r" % (member, obj, self.seen[since:]))
                ctx.iteration(True)
        finally:
            GLib.source_remove(wake)
        print("    ok: %s %s" % (member, obj), flush=True)

    def drain(self):
        """Dispatch what has arrived so far, without waiting."""
        from gi.repository import GLib
        ctx = GLib.MainContext.default()
        while ctx.iteration(False):
            pass


def prop(conn, path, iface, name):
    return compat.call(conn, path, "org.freedesktop.DBus.Properties", "Get", "ss", [iface, name], reply="v")[0]


class ProfileServer:
    """A printer's web server for its profiles on 127.0.0.1: files maps a name to its bytes,
    served as application/vnd.iccprofile (everything else is a 404)."""

    def __init__(self, files):
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args):
                pass

            def do_GET(self):
                body = files.get(self.path.strip("/"))
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "application/vnd.iccprofile" if body is not None else "text/plain")
                body = body if body is not None else b"not here"
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = "http://127.0.0.1:%d/" % self.server.server_address[1]

    def stop(self):
        self.server.shutdown()


class Ippeveprinter:
    """ippeveprinter (Debian's cups-ipp-utils) on 127.0.0.1, a raster (PWG) colour printer
    "Tinct Everywhere" with a printer-uuid and printer-icc-profiles: profiles is a list of
    (profile-name, profile-url). attrs are more lines of the attribute file (without "ATTR "),
    for a test that needs more of a printer (media, resolutions) than identity and profiles.
    spool: a directory (made here) where the printer keeps each document it gets (-k -d).
    dnssd: advertise over DNS-SD (a test with its own avahi-daemon); without it (-r off), a
    queue names its URI."""

    def __init__(self, env, uuid, profiles, attrs=(), spool=None, dnssd=False):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        attr_file = os.path.join(env.tmp, "ippeve-attrs-%d" % self.port)
        with open(attr_file, "w") as f:
            for line in (["uri printer-uuid urn:uuid:%s" % uuid,
                          # Raster only: a printer that took PDF would get a print job without a
                          # raster filter (with -a, ippeveprinter takes its formats from here, not -f).
                          "mimeMediaType document-format-supported image/pwg-raster"] + list(attrs) +
                         ["boolean color-supported true",
                          'text printer-make-and-model "Tinct Everywhere"',
                          "collection printer-icc-profiles " + ",".join(
                              '{ MEMBER name profile-name "%s" MEMBER uri profile-url "%s" }' % (name, url)
                              for name, url in profiles)]):
                f.write("ATTR " + line + "\n")
        args = ["-a", attr_file, "-n", "localhost", "-p", str(self.port)]
        self.spool = spool
        if spool:
            os.mkdir(spool)
            args += ["-k", "-d", spool]
        if not dnssd:
            args += ["-r", "off"]
        self.proc = subprocess.Popen(
            ["ippeveprinter"] + args + ["Tinct Everywhere"],
            env=env._env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

        def listening():
            if self.proc.poll() is not None:
                raise AssertionError("ippeveprinter exited: " + self.proc.stdout.read().decode(errors="replace"))
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) == 0
        wait_until("ippeveprinter", listening)
        self.uri = "ipp://localhost:%d/ipp/print" % self.port
        print("    ok: ippeveprinter at %s" % self.uri, flush=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


def parser_processes(daemon_pid):
    """The daemon's live tinct-parse children (by their parent in /proc/PID/stat)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        head, _, rest = stat.rpartition(")")
        fields = rest.split()
        if head.endswith("(tinct-parse") and len(fields) > 1 and fields[0] != "Z" and int(fields[1]) == daemon_pid:
            found.append(int(name))
    return found


def hung_parsers(daemon_pid):
    """Those looping on a "TINCT-TEST:hang" input: the hook blocks SIGUSR2 before it loops
    (src/sandbox/parse-helper.c), no other parser does."""
    hung = []
    for pid in parser_processes(daemon_pid):
        try:
            with open("/proc/%d/status" % pid) as f:
                blocked = next((int(line.split()[1], 16) for line in f if line.startswith("SigBlk:")), 0)
        except OSError:
            continue
        if blocked >> (signal.SIGUSR2 - 1) & 1:
            hung.append(pid)
    return hung


def hang_input():
    """An input on which a development build's parser loops for ever (docs/sandbox.md)."""
    return b"TINCT-TEST:hang".ljust(36, b"\0") + b"acsp" + b"\0" * 216
