#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct-fetch as its shipped unit runs it (docs/printers.md, docs/sandbox.md), without the
daemon: the printer URI on stdin, the reply on stdout, a small IPP responder of this test on
loopback as the printer (it answers Get-Printer-Attributes with a printer-uuid; the printer
tests with ippeveprinter cover the rest of the exchange).

  unit-filter     as an unprivileged user under tinct-fetch@.service's own SystemCallFilter=
                  (tests/harness/unit-syscalls.py, syscall-allow): the helper confines
                  itself and answers. Without `SystemCallFilter=seccomp` in the unit,
                  libseccomp's probe of seccomp() is refused and the helper said "cannot
                  confine itself (the seccomp filter): Cannot allocate memory".
  each-address    a host name that resolves to two addresses (a private /etc/hosts in a
                  mount namespace: ::1 and 127.0.0.1, as Debian's /etc/hosts names
                  localhost), the printer listening on the one getaddrinfo() gives last: the
                  helper tries each address in turn and reaches it.

Needs root (the mount namespace, and a user to drop to); skips otherwise."""

import http.server
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

HOST_NAME = "tinct-test-printer"
UUID = "urn:uuid:4d2c2a1e-7f3b-4c55-9d0e-2b5c1f6a7e01"
failures = []


def check(cond, msg):
    print(("ok: " if cond else "FAIL: ") + msg, flush=True)
    if not cond:
        failures.append(msg)


def ipp_attr(tag, name, value):
    n, v = name.encode(), value.encode()
    return struct.pack(">BH", tag, len(n)) + n + struct.pack(">H", len(v)) + v


def ipp_reply(request_id):
    return (struct.pack(">BBHI", 2, 0, 0, request_id) + b"\x01" +
            ipp_attr(0x47, "attributes-charset", "utf-8") +
            ipp_attr(0x48, "attributes-natural-language", "en") + b"\x04" +
            ipp_attr(0x45, "printer-uuid", UUID) + b"\x03")


class Printer(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        request_id = struct.unpack(">I", body[4:8])[0] if len(body) >= 8 else 1
        reply = ipp_reply(request_id)
        self.send_response(200)
        self.send_header("Content-Type", "application/ipp")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


def serve(address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    server_class = type("Server", (http.server.ThreadingHTTPServer,), {"address_family": family})
    server = server_class((address, 0), Printer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def unit_syscalls(tmp):
    unit = os.environ["TINCT_FETCH_UNIT_FILE"]
    path = os.path.join(tmp, "syscalls")
    with open(path, "w") as f:
        subprocess.run([sys.executable, os.path.join(os.environ["TINCT_HARNESS_DIR"], "unit-syscalls.py"), unit],
                       stdout=f, check=True)
    return path


def run_helper(uri, syscalls, hosts=None):
    """tinct-fetch as nobody under the unit's filter; with hosts, in a mount namespace whose
    /etc/hosts is that file. Returns (exit status, stdout bytes, stderr text)."""
    helper = [os.environ["TINCT_FETCH"]]
    cmd = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "--",
           os.environ["TINCT_SYSCALL_ALLOW"], syscalls, "--"] + helper
    if hosts:
        cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
               'mount --bind "$0" /etc/hosts && exec "$@"', hosts] + cmd
    # stderr a pipe: the helper sets RLIMIT_FSIZE 0, and a file there would kill it (SIGXFSZ)
    p = subprocess.run(cmd, input=(uri + "\n").encode(), capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def resolve_in(hosts):
    """The order getaddrinfo() gives HOST_NAME with that /etc/hosts: the helper's own."""
    code = ("import socket,sys; print(' '.join(a[4][0] for a in socket.getaddrinfo(sys.argv[1], None, "
            "socket.AF_UNSPEC, socket.SOCK_STREAM)))")
    out = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                          'mount --bind "$0" /etc/hosts && exec "$@"', hosts, sys.executable, "-c", code,
                          HOST_NAME], capture_output=True, text=True, check=True).stdout.split()
    return list(dict.fromkeys(out))


def main():
    for var in ("TINCT_FETCH", "TINCT_SYSCALL_ALLOW", "TINCT_HARNESS_DIR", "TINCT_FETCH_UNIT_FILE"):
        if not os.environ.get(var):
            sys.exit(f"{var} is not set (meson sets it)")
    if os.geteuid() != 0:
        print("skip: needs root (a mount namespace for /etc/hosts, a user to drop to)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        syscalls = unit_syscalls(tmp)
        with open(syscalls) as f:
            check("seccomp" in f.read().split(), "tinct-fetch@.service allows seccomp (the helper's own filter)")

        server = serve("127.0.0.1")
        port = server.server_address[1]
        status, out, err = run_helper(f"ipp://127.0.0.1:{port}/ipp/print", syscalls)
        # Not the exit status: in a sanitizer build LeakSanitizer's exit-time scan is a call
        # the helper's own filter kills (SIGSYS after the reply is written).
        check("cannot confine" not in err and out.startswith(b"TFR1"),
              f"unit-filter: the helper confines itself (status {status}, {err.strip()})")
        check(UUID.encode() in out, "unit-filter: the printer's uuid in the reply")
        server.shutdown()
        server.server_close()

        hosts = os.path.join(tmp, "hosts")
        with open(hosts, "w") as f:
            f.write(f"::1 {HOST_NAME}\n127.0.0.1 {HOST_NAME}\n")
        os.chmod(hosts, 0o644)
        order = resolve_in(hosts)
        check(len(order) == 2, f"each-address: {HOST_NAME} resolves to two addresses ({order})")
        server = serve(order[-1])
        port = server.server_address[1]
        status, out, err = run_helper(f"ipp://{HOST_NAME}:{port}/ipp/print", syscalls, hosts)
        check(b"Connection refused" not in out and UUID.encode() in out,
              f"each-address: {order[0]} refused, the printer reached on {order[-1]} ({out!r}, {err.strip()})")
        server.shutdown()
        server.server_close()
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
