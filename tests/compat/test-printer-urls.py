#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A hostile printer's profile URLs (docs/printers.md, "Profile URLs"): no request injection.

The printer is this test's own, on 127.0.0.1: a small server that answers IPP
Get-Printer-Attributes with printer-icc-profiles whose profile-url values try to reach
beyond their request line: one holds CR LF, an injected field and a second, pipelined
request; one a space; one non-ASCII and `<>` (which a request line cannot carry as they
are, and which must arrive percent-encoded); and one plain good profile. The server answers
each request as a printer would and keeps every byte each connection sent, until the client
closes it. Debian's cupsd (a raw queue on the printer's ipp:// URI) makes tinctd run
tinct-fetch (--fetch-helper, TINCT_FETCH) for the printer, as for any network queue.

The figure is the request lines the printer received, and what they were: before this fix
a URL with CR LF gave the printer an injected field and a second request on the same
connection, and a space a malformed request line; now each connection carries one
well-formed request line, the two hostile URLs are never requested, and the encoded one is
fetched and registered. Skips only where cupsd is not installed or the test is not root."""

import hashlib
import os
import re
import shutil
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import DEADLINE_S, Cupsd, Signals, prop, wait_until  # noqa: E402
import ipp_encode  # noqa: E402

UUID = "5e1c7a90-27b4-4c6e-9d3f-8b2a41c0e7d5"
GOOD = "colord-data--sRGB.icc"
ENCODED = "colord-data--Bluish.icc"
REQUEST_LINE = re.compile(rb"^[A-Z]+ .* HTTP/\d\.\d$")
WELL_FORMED = re.compile(rb"^[A-Z]+ [!-~]+ HTTP/1\.1$")


class HostilePrinter:
    """IPP and the profiles' web server on one port; every connection's bytes are kept."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        base = "http://127.0.0.1:%d/" % self.port
        self.entries = [
            ("crlf", base + "crlf.icc HTTP/1.1\r\nX-Injected: yes\r\n\r\nGET /second.icc"),
            ("space", base + "a space.icc"),
            ("encoded", base + "caf\u00e9<1>.icc"),
            ("good", base + "good.icc"),
        ]
        self.files = {"/good.icc": open(compat.icc(GOOD), "rb").read(),
                      "/caf%C3%A9%3C1%3E.icc": open(compat.icc(ENCODED), "rb").read()}
        self.lock = threading.Lock()
        self.connections = []  # {"data": bytes, "done": bool}
        threading.Thread(target=self._accept, daemon=True).start()
        self.uri = "ipp://127.0.0.1:%d/ipp/print" % self.port

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            record = {"data": b"", "done": False}
            with self.lock:
                self.connections.append(record)
            threading.Thread(target=self._serve, args=(conn, record), daemon=True).start()

    def _answer(self, head, body):
        method, target = head.split(b"\r\n")[0].split(b" ")[:2]
        if method == b"POST":
            ipp = ipp_encode.printer_answer(body, ipp_encode.attr("uri", "printer-uuid", "urn:uuid:" + UUID) +
                                            ipp_encode.icc_profiles(self.entries))
            return b"HTTP/1.1 200 OK\r\nContent-Type: application/ipp\r\nContent-Length: %d\r\n\r\n" % len(ipp) + ipp
        data = self.files.get(target.decode("latin-1"))
        if data is None:
            return b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
        return (b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.iccprofile\r\nContent-Length: %d\r\n\r\n"
                % len(data) + data)

    def _serve(self, conn, record):
        """Answers the first request; then reads on until the client closes, so that
        whatever it sent after that request (a pipelined one) is kept too."""
        data, answered = b"", False
        conn.settimeout(DEADLINE_S)  # a guard against a hang, not a timing expectation
        try:
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
                end = data.find(b"\r\n\r\n")
                if answered or end < 0:
                    continue
                m = re.search(rb"\r\ncontent-length: *(\d+)", data[:end], re.I)
                length = int(m.group(1)) if m else 0
                if len(data) >= end + 4 + length:
                    conn.sendall(self._answer(data[:end], data[end + 4:end + 4 + length]))
                    answered = True
        except OSError:
            pass
        finally:
            conn.close()
            with self.lock:
                record["data"] = data
                record["done"] = True

    def all_done(self):
        with self.lock:
            return all(c["done"] for c in self.connections)

    def figures(self):
        """Request lines seen, over all connections: (connections, request lines, well-formed
        ones, connections with more than one, injected fields, targets)."""
        with self.lock:
            conns = [c["data"] for c in self.connections]
        lines = [[line for line in data.split(b"\r\n") if REQUEST_LINE.match(line)] for data in conns]
        return {
            "connections": len(conns),
            "request_lines": sum(len(x) for x in lines),
            "well_formed": sum(1 for x in lines for line in x if WELL_FORMED.match(line)),
            "pipelined": sum(1 for x in lines if len(x) > 1),
            "injected_fields": sum(data.count(b"\r\nX-Injected:") for data in conns),
            "targets": sorted(line.split(b" ")[1].decode("latin-1") for x in lines for line in x),
        }

    def stop(self):
        self.sock.close()


def vendor_id(name):
    return "printer-%s-%s" % (hashlib.md5(("uuid:" + UUID).encode()).hexdigest()[:12], name)


def vendor_path(name):
    return compat.MANAGER_PATH + "/profiles/" + compat.escape_id(vendor_id(name))


@test
def hostile_profile_urls():
    """profile URLs with CR LF, a space and bytes to encode: one well-formed request line
    per connection, nothing injected, the encoded URL fetched"""
    fetch = os.environ.get("TINCT_FETCH")
    check(fetch and os.access(fetch, os.X_OK), "TINCT_FETCH names tinct-fetch")
    with compat.TinctEnv(polkit="allow", extra_args=["--fetch-helper", fetch]) as env:
        conn = compat.connect(env)
        signals = Signals(conn)
        printer = HostilePrinter()
        cupsd = None
        try:
            cupsd = Cupsd(env, os.path.join(env.tmp, "cups"))
            cupsd.lp("lpadmin", "-p", "Hostile", "-E", "-v", printer.uri, "-m", "raw")
            device = compat.device_path("cups-Hostile")
            signals.wait("DeviceAdded", device)
            # tinct-fetch answers once, after its last request: the good profile then.
            signals.wait("ProfileAdded", vendor_path("good"))
            wait_until("the printer's connections to end", printer.all_done)
            f = printer.figures()
            print("    figure: the printer received %d request lines on %d connections: %d well-formed, "
                  "%d connections with a second (pipelined) request, %d injected fields; targets %s"
                  % (f["request_lines"], f["connections"], f["well_formed"], f["pipelined"], f["injected_fields"],
                     f["targets"]), flush=True)
            check_eq(f["injected_fields"], 0, "injected fields the printer received")
            check_eq(f["pipelined"], 0, "connections that carried a second request")
            check_eq(f["request_lines"], f["connections"], "one request line per connection")
            check_eq(f["well_formed"], f["request_lines"], "well-formed request lines")
            check_eq(f["targets"], sorted(["/ipp/print", "/good.icc", "/caf%C3%A9%3C1%3E.icc"]),
                     "what was asked: the printer, the good profile, the encoded URL")
            signals.wait("ProfileAdded", vendor_path("encoded"))
            for name in ("crlf", "space"):
                compat.expect_dbus_error(
                    lambda name=name: compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileById",
                                                  "s", [vendor_id(name)], reply="o"),
                    compat.IFACE_MANAGER + ".NotFound", "no profile from the '%s' URL" % name)
            check(vendor_path("good") in prop(conn, device, compat.IFACE_DEVICE, "Profiles"),
                  "the good profile is the queue's")
            check(env.daemon_alive(), "daemon alive")
        finally:
            if cupsd:
                cupsd.stop()
            printer.stop()


if __name__ == "__main__":
    if not shutil.which("cupsd") or not shutil.which("lpadmin"):
        print("cupsd not installed (scripts/install-deps.sh installs it): skipping")
        sys.exit(77)
    if os.geteuid() != 0:
        print("cupsd needs root here: skipping")
        sys.exit(77)
    compat.main()
