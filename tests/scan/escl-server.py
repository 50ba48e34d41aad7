#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in for a network scanner: a small eSCL (AirScan) server on 127.0.0.1, since no
real scanner is attached to a test machine. It answers what sane-airscan and tinct-sane-list
ask of a scanner's eSCL base URL: ScannerCapabilities (with pwg:Version, MakeAndModel and
the UUID) and ScannerStatus. It scans nothing.

Usage: escl-server.py [--port N] [--uuid UUID] [--mode ok|garbage|silent|latin1] [--log FILE]
Prints "PORT <n>" on stdout once it listens (the test waits for that line).
  garbage: ScannerCapabilities answers bytes that are not XML
  silent:  connections are accepted and never answered
  latin1:  a well-formed document whose MakeAndModel is Latin-1, not the UTF-8 it declares
  --log:   one line per request appended to FILE: the path and the User-Agent
"""
import argparse
import http.server
import socket
import sys
import threading

CAPS = """<?xml version="1.0" encoding="UTF-8"?>
<scan:ScannerCapabilities xmlns:scan="http://schemas.hp.com/imaging/escl/2011/05/03"
    xmlns:pwg="http://www.pwg.org/schemas/2010/12/sm">
  <pwg:Version>2.63</pwg:Version>
  <pwg:MakeAndModel>Tinct Test eSCL Scanner</pwg:MakeAndModel>
  <pwg:SerialNumber>TS-0001</pwg:SerialNumber>
  <scan:UUID>{uuid}</scan:UUID>
  <scan:AdminURI>http://127.0.0.1/</scan:AdminURI>
  <scan:Platen>
    <scan:PlatenInputCaps>
      <scan:MinWidth>16</scan:MinWidth>
      <scan:MaxWidth>2550</scan:MaxWidth>
      <scan:MinHeight>16</scan:MinHeight>
      <scan:MaxHeight>3508</scan:MaxHeight>
      <scan:MaxScanRegions>1</scan:MaxScanRegions>
      <scan:SettingProfiles>
        <scan:SettingProfile>
          <scan:ColorModes>
            <scan:ColorMode>RGB24</scan:ColorMode>
            <scan:ColorMode>Grayscale8</scan:ColorMode>
          </scan:ColorModes>
          <scan:DocumentFormats>
            <pwg:DocumentFormat>image/jpeg</pwg:DocumentFormat>
            <scan:DocumentFormatExt>image/jpeg</scan:DocumentFormatExt>
          </scan:DocumentFormats>
          <scan:SupportedResolutions>
            <scan:DiscreteResolutions>
              <scan:DiscreteResolution>
                <scan:XResolution>300</scan:XResolution>
                <scan:YResolution>300</scan:YResolution>
              </scan:DiscreteResolution>
            </scan:DiscreteResolutions>
          </scan:SupportedResolutions>
        </scan:SettingProfile>
      </scan:SettingProfiles>
    </scan:PlatenInputCaps>
  </scan:Platen>
</scan:ScannerCapabilities>
"""

STATUS = """<?xml version="1.0" encoding="UTF-8"?>
<scan:ScannerStatus xmlns:scan="http://schemas.hp.com/imaging/escl/2011/05/03"
    xmlns:pwg="http://www.pwg.org/schemas/2010/12/sm">
  <pwg:Version>2.63</pwg:Version>
  <pwg:State>Idle</pwg:State>
</scan:ScannerStatus>
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--uuid", default="urn:uuid:4509A320-00A0-008F-00B6-002507510EEC")
    ap.add_argument("--mode", choices=["ok", "garbage", "silent", "latin1"], default="ok")
    ap.add_argument("--log")
    args = ap.parse_args()

    if args.mode == "silent":
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", args.port))
        srv.listen(16)
        print("PORT", srv.getsockname()[1], flush=True)
        held = []
        while True:
            conn, _ = srv.accept()
            held.append(conn)  # never answered, never closed

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            sys.stderr.write("escl-server: " + (fmt % a) + "\n")

        def send(self, code, body, ctype="text/xml"):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            path = self.path.split("?")[0]
            if args.log:
                with open(args.log, "a") as f:
                    f.write("%s\t%s\n" % (path, self.headers.get("User-Agent", "")))
            if path.endswith("/ScannerCapabilities"):
                if args.mode == "garbage":
                    self.send(200, b"<scan:ScannerCapabilities><scan:UUID>\x00\xff<<</broken")
                elif args.mode == "latin1":
                    caps = CAPS.format(uuid=args.uuid).replace("Tinct Test eSCL Scanner", "Tinct Caf\xe9 Scanner")
                    self.send(200, caps.encode("latin-1"))
                else:
                    self.send(200, CAPS.format(uuid=args.uuid))
            elif path.endswith("/ScannerStatus"):
                self.send(200, STATUS)
            else:
                self.send(404, "not here\n", "text/plain")

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    print("PORT", srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
