#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A driverless printer end to end (docs/printers.md), with real components only.

ippeveprinter (Debian's cups-ipp-utils) is the printer on this machine: it advertises a
printer-uuid and, through its -a attribute file, printer-icc-profiles whose URLs a small
HTTP server of this test serves on loopback: two good profiles and five that lie (wrong
content type, garbage, an endless stream, a redirect elsewhere, a 404); and the same server
over TLS (https, a self-signed certificate the test makes with openssl, as printers have):
one good profile, and two lies (an https URL whose server does not speak TLS, an https URL
on another host). It needs DNS-SD: a
private avahi-daemon on the test's private system bus (allow-interfaces=lo, in a private
mount namespace for its pid file). Debian's cupsd makes the queue with lpadmin -m
everywhere; tinctd follows it, has tinct-fetch (--fetch-helper) ask the printer, and
registers the two good profiles as soft profiles with qualifiers from their names. The test
checks the identity metadata, the lookups cups-filters makes, that every lie cost nothing
but itself, that a hard choice comes back when the queue is deleted and made again under
another name.

Then a PDF (written here: three mid-tone DeviceRGB patches) is printed with lp on the queue,
three times; cupsd runs pdftopdf, cups-filters' gstoraster (which asks tinctd over the
private bus, as user lp) and the ipp backend to ippeveprinter, which keeps the raster (-k).
For each job the test reads the filter's own lines in cupsd's error_log ("Calling
GetProfileForQualifiers(...)", "Color Manager: ICC Profile: FILE", Ghostscript's
-sOutputICCProfile) and decodes the kept PWG raster at the patches:
  (b) no choice by the user: the filter asked RGB.Stationery.600dpi (the queue's defaults)
      and applied the printer's vendor profile for plain paper, the file tinctd wrote in
      <state>/printers/;
  (c) a ProfilingInhibit on the device (a calibration tool's): the filter logged "Color
      management disabled by OS.", applied no profile, and the raster holds the PDF's own
      sRGB values;
  (a) the user's hard choice (AddProfile hard of a system profile): the filter applied
      that profile's file over the vendor profiles (docs/colord-behaviour.md §5.4: the
      hard pass comes first).
In each case the raster's colours are exactly those Ghostscript renders from the PDF with
the same file as output profile (or none), and the three rasters differ at every patch.
Skips only where a component is not installed or the test is not root."""

import hashlib
import http.server
import os
import re
import shutil
import ssl
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compat  # noqa: E402
from compat import check, check_eq, test  # noqa: E402
from cups_env import DEADLINE_S, Cupsd, Ippeveprinter, Signals, prop, wait_until  # noqa: E402

UUID = "0d7f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
GLOSSY = "colord-data--Bluish.icc"
PLAIN = "colord-tests--ibm-t61.icc"  # the queue's default paper: its transform shows in the raster
CHOSEN = "colord-data--AdobeRGB1998.icc"
MATTE = "colord-data--sRGB.icc"
LIES = ("wrong-type", "garbage", "endless", "redirect", "missing")
TLS_LIES = ("tls-garbage", "tls-elsewhere")
PATCHES = {"red": (50, 500, 200, 200), "green": (300, 500, 200, 200), "blue": (50, 200, 450, 200)}  # x, y, w, h (pt)
PATCH_RGB = {"red": (0.8, 0.3, 0.2), "green": (0.3, 0.6, 0.4), "blue": (0.4, 0.4, 0.7)}


class Handler(http.server.BaseHTTPRequestHandler):
    """The printer's web server for its profiles, lies included."""
    files = {}

    def log_message(self, *_args):
        pass

    def _send(self, status, ctype, body, length=True):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        name = self.path.strip("/")
        if name in ("glossy.icc", "plain.icc", "matte.icc"):
            self._send(200, "application/vnd.iccprofile", self.files[name])
        elif name == "wrong-type.icc":
            self._send(200, "text/html", self.files["glossy.icc"])
        elif name == "garbage.icc":
            self._send(200, "application/vnd.iccprofile", b"\x00garbage" * 1000)
        elif name == "redirect.icc":
            self.send_response(302)
            self.send_header("Location", "http://192.0.2.1/elsewhere.icc")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif name == "endless.icc":
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.iccprofile")
            self.end_headers()
            chunk = b"\xff" * 65536
            try:
                while True:  # until the client hangs up at its cap
                    self.wfile.write(chunk)
            except OSError:
                pass
        else:
            self._send(404, "text/plain", b"not here")


def https_server(tmp):
    """The printer's profiles over TLS, with a self-signed certificate made here."""
    key, cert = os.path.join(tmp, "printer-key.pem"), os.path.join(tmp, "printer-cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=printer.invalid"], check=True, capture_output=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Avahi:
    """avahi-daemon on the test's private system bus, loopback only. Its pid file lives in
    /run/avahi-daemon, so it runs in a mount namespace of its own with a tmpfs there."""

    def __init__(self, env):
        conf = os.path.join(env.tmp, "avahi-daemon.conf")
        with open(conf, "w") as f:
            f.write("[server]\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=lo\nenable-dbus=yes\n"
                    "ratelimit-interval-usec=0\n[wide-area]\nenable-wide-area=no\n"
                    "[publish]\npublish-workstation=no\npublish-hinfo=no\n[reflector]\n[rlimits]\n")
        script = ('mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon && '
                  'exec avahi-daemon -f "$1" --no-drop-root --no-chroot --no-rlimits --no-proc-title')
        self.proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh", conf],
                                     env=env._env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        conn = compat.connect(env)

        def owned():
            if self.proc.poll() is not None:
                raise AssertionError("avahi-daemon exited: " + self.proc.stdout.read().decode(errors="replace"))
            from gi.repository import Gio, GLib
            try:
                conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                               GLib.Variant("(s)", ("org.freedesktop.Avahi",)), None, Gio.DBusCallFlags.NONE, 5000,
                               None)
                return True
            except GLib.Error:
                return False
        try:
            wait_until("avahi-daemon on the private bus", owned)
        finally:
            conn.close_sync(None)
        print("    ok: avahi-daemon is on the private bus", flush=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


# What the queue's PPD (lpadmin -m everywhere) is made from beyond the launcher's raster format:
# raster resolutions and types, media, colour modes, sides.
PRINTER_ATTRS = ("resolution pwg-raster-document-resolution-supported 300dpi,600dpi",
                 "keyword pwg-raster-document-type-supported sgray_8,srgb_8",
                 "keyword pwg-raster-document-sheet-back normal",
                 "keyword media-supported iso_a4_210x297mm,na_letter_8.5x11in",
                 "keyword media-default iso_a4_210x297mm",
                 "keyword media-type-supported stationery,photographic-glossy",
                 "keyword media-source-supported auto",
                 "collection media-col-default { MEMBER collection media-size { MEMBER integer x-dimension "
                 "21000 MEMBER integer y-dimension 29700 } MEMBER keyword media-type \"stationery\" "
                 "MEMBER keyword media-source \"auto\" }",
                 "keyword print-color-mode-supported auto,color,monochrome",
                 "keyword print-color-mode-default auto",
                 "keyword sides-supported one-sided",
                 "keyword sides-default one-sided",
                 "resolution printer-resolution-supported 600dpi",
                 "resolution printer-resolution-default 600dpi")


def start_printer(env, http_port, https_port):
    """ippeveprinter with the profiles, lies included, advertised over DNS-SD, keeping what
    it prints."""
    http = "http://127.0.0.1:%d/" % http_port
    entries = [("photographic-glossy", http + "glossy.icc"), ("stationery", http + "plain.icc"),
               ("photographic-matte", "https://127.0.0.1:%d/matte.icc" % https_port),
               # TLS to a server that speaks plain HTTP; TLS to a host not the printer's.
               ("tls-garbage", "https://127.0.0.1:%d/garbage.icc" % http_port),
               ("tls-elsewhere", "https://192.0.2.1:%d/matte.icc" % https_port)] + \
              [(lie, http + lie + ".icc") for lie in LIES]
    return Ippeveprinter(env, UUID, entries, attrs=PRINTER_ATTRS, spool=os.path.join(env.tmp, "ippeve-spool"),
                         dnssd=True)


def make_pdf():
    """A one-page A4 PDF written here: three DeviceRGB patches on white, mid-tones rather than
    primaries (a primary outside a profile's gamut is clipped to itself)."""
    content = b" ".join(b"%g %g %g rg %d %d %d %d re f" % (PATCH_RGB[name] + PATCHES[name]) for name in PATCHES)
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << >> >>",
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, o in enumerate(objs):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i + 1, o)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return out


def raster_pixel(data, x_pt, y_pt):
    """The RGB of the first page of a PWG raster (PWG 5102.4) at a point of the PDF (origin at
    the bottom left): header fields are big-endian at fixed offsets, each line group is a
    repeat count then runs (0-127: one pixel n+1 times, 129-255: 257-n literal pixels, 128:
    white to the end of the line)."""
    if data[:4] != b"RaS2":
        raise AssertionError("the kept document is not a PWG raster: %r" % data[:16])
    head = data[4:4 + 1796]

    def u32(off):
        return int.from_bytes(head[off:off + 4], "big")
    dpi_x, dpi_y, width, height, bpp = u32(276), u32(280), u32(372), u32(376), u32(388)
    if bpp != 24:
        raise AssertionError("the kept raster has %d bits per pixel, not 24 (srgb_8)" % bpp)
    row, col = round((842 - y_pt) * dpi_y / 72), round(x_pt * dpi_x / 72)
    pos, y = 4 + 1796, 0
    while y < height:
        repeat = data[pos] + 1
        pos += 1
        line = bytearray()
        while len(line) < width * 3:
            c = data[pos]
            pos += 1
            if c == 128:
                line += b"\xff" * (width * 3 - len(line))
            elif c < 128:
                line += data[pos:pos + 3] * (c + 1)
                pos += 3
            else:
                line += data[pos:pos + 3 * (257 - c)]
                pos += 3 * (257 - c)
        if y <= row < y + repeat:
            return tuple(line[col * 3:col * 3 + 3])
        y += repeat
    raise AssertionError("row %d beyond the raster's %d lines" % (row, height))


class Job:
    """One PDF printed through cupsd, cups-filters and the ipp backend to ippeveprinter:
    the profile the filter logged, the qualifiers it asked for, the colours of the raster
    ippeveprinter kept (-k)."""

    def __init__(self, cupsd, printer, queue, pdf):
        kept_before = set(os.listdir(printer.spool))
        out = cupsd.lp("lp", "-d", queue, pdf).stdout
        m = re.search(r"request id is %s-(\d+)" % re.escape(queue), out)
        check(m, "lp queued the job: " + out.strip())
        self.id = int(m.group(1))
        tag = "[Job %d] " % self.id

        def done():
            log = open(os.path.join(cupsd.root, "error_log"), errors="replace").read()
            for bad in ("Job stopped", "Job aborted", "Job canceled"):
                if tag + bad in log:
                    raise AssertionError("job %d: %s\n%s" % (self.id, bad, cupsd.log()))
            return tag + "Job completed." in log
        wait_until("job %d completed" % self.id, done)
        lines = [line.split(tag, 1)[1] for line in
                 open(os.path.join(cupsd.root, "error_log"), errors="replace").read().splitlines() if tag in line]
        asked = [line for line in lines if line.startswith("Calling GetProfileForQualifiers(")]
        self.qualifiers = asked[0][len("Calling GetProfileForQualifiers("):].rstrip(".)") if asked else None
        self.cm = [line for line in lines if line.startswith("Color Manager: ")]
        icc = [line for line in lines if line.startswith("Color Manager: ICC Profile: ")]
        self.profile = icc[0][len("Color Manager: ICC Profile: "):] if icc else None
        gs = [line for line in lines if line.startswith("Ghostscript command line: ")]
        check_eq(len(gs), 1, "job %d: gstoraster ran Ghostscript once" % self.id)
        self.gs_profile = (re.search(r"-sOutputICCProfile=(\S+)", gs[0]) or [None, None])[1]
        kept = sorted(set(os.listdir(printer.spool)) - kept_before)
        check_eq(len(kept), 1, "job %d: ippeveprinter kept one document" % self.id)
        data = open(os.path.join(printer.spool, kept[0]), "rb").read()
        self.colours = {name: raster_pixel(data, x + w / 2, y + h / 2) for name, (x, y, w, h) in PATCHES.items()}
        print("    ok: job %d on %s: the filter asked %s, applied %s (Ghostscript -sOutputICCProfile=%s); "
              "raster red %r green %r blue %r" % (self.id, queue, self.qualifiers, self.profile, self.gs_profile,
                                                  self.colours["red"], self.colours["green"], self.colours["blue"]),
              flush=True)


def gs_colours(pdf, profile):
    """The patches' colours as Ghostscript itself renders the PDF to RGB with that output
    profile (or its default, sRGB): what the kept raster must hold if the filter applied it."""
    out = subprocess.run(["gs", "-q", "-dSAFER", "-dNOPAUSE", "-dBATCH", "-sstdout=%stderr", "-sDEVICE=ppmraw", "-r72",
                          "-sOutputFile=-"] +
                         (["-sOutputICCProfile=" + profile] if profile else []) + [pdf],
                         capture_output=True, check=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL).stdout
    m = re.match(rb"P6\n(?:#[^\n]*\n)*(\d+) (\d+)\n255\n", out)  # gs writes a comment line
    if not m:
        raise AssertionError("Ghostscript wrote no 8-bit PPM: %r" % out[:40])
    width, pixels = int(m.group(1)), out[m.end():]
    colours = {}
    for name, (x, y, w, h) in PATCHES.items():
        i = (round(842 - y - h / 2) * width + round(x + w / 2)) * 3
        colours[name] = tuple(pixels[i:i + 3])
    return colours


def dev(queue):
    return compat.device_path("cups-" + queue)


def vendor_id(name):
    return "printer-%s-%s" % (hashlib.md5(("uuid:" + UUID).encode()).hexdigest()[:12], name)


def profile_path_of(conn, profile_id):
    return compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileById", "s", [profile_id],
                       reply="o")[0]


def lookup(conn, device, q):
    c, m, r = q.split(".")
    fallback = [q, "%s.%s.*" % (c, m), "%s.*.%s" % (c, r), "%s.*.*" % c, "*"]
    return compat.call(conn, device, compat.IFACE_DEVICE, "GetProfileForQualifiers", "as", [fallback], reply="o")[0]


@test
def driverless_printer():
    """ippeveprinter + avahi + cupsd (lpadmin -m everywhere): identity, vendor profiles and
    their qualifiers, lying profiles, the choice across queues"""
    fetch = os.environ.get("TINCT_FETCH")
    check(fetch and os.access(fetch, os.X_OK), "TINCT_FETCH names tinct-fetch")
    with compat.TinctEnv(polkit="allow", profiles=[compat.icc(CHOSEN)], extra_args=["--fetch-helper", fetch]) as env:
        Handler.files = {"glossy.icc": open(compat.icc(GLOSSY), "rb").read(),
                         "plain.icc": open(compat.icc(PLAIN), "rb").read(),
                         "matte.icc": open(compat.icc(MATTE), "rb").read()}
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        tls_server = https_server(env.tmp)
        conn = compat.connect(env)
        signals = Signals(conn)
        avahi = printer = cupsd = None
        try:
            avahi = Avahi(env)
            printer = start_printer(env, server.server_address[1], tls_server.server_address[1])
            cupsd = Cupsd(env, os.path.join(env.tmp, "cups"),
                          conf_lines=["SetEnv DBUS_SYSTEM_BUS_ADDRESS " + env.address])
            cupsd.lp("lpadmin", "-p", "Photo", "-E", "-v", printer.uri, "-m", "everywhere")
            signals.wait("DeviceAdded", dev("Photo"))
            glossy_path = compat.MANAGER_PATH + "/profiles/" + compat.escape_id(vendor_id("photographic-glossy"))
            plain_path = compat.MANAGER_PATH + "/profiles/" + compat.escape_id(vendor_id("stationery"))
            matte_path = compat.MANAGER_PATH + "/profiles/" + compat.escape_id(vendor_id("photographic-matte"))
            signals.wait("ProfileAdded", glossy_path)
            signals.wait("ProfileAdded", plain_path)
            signals.wait("ProfileAdded", matte_path)

            def device_has(device, path):
                signals.drain()
                return path in prop(conn, device, compat.IFACE_DEVICE, "Profiles")
            wait_until("the vendor profiles on cups-Photo", lambda: device_has(dev("Photo"), glossy_path))
            meta = prop(conn, dev("Photo"), compat.IFACE_DEVICE, "Metadata")
            check_eq(meta.get("PRINTER_uuid"), UUID, "the printer's own printer-uuid as metadata")
            check_eq(meta.get("PRINTER_identity"), "uuid:" + UUID, "its identity")
            check_eq(prop(conn, glossy_path, compat.IFACE_PROFILE, "Qualifier"), "RGB.PhotographicGlossy.*",
                     "the glossy profile's qualifier, from its name")
            check_eq(prop(conn, plain_path, compat.IFACE_PROFILE, "Qualifier"), "RGB.Stationery.*",
                     "the plain paper profile's qualifier")
            fname = prop(conn, glossy_path, compat.IFACE_PROFILE, "Filename")
            check_eq(open(fname, "rb").read(), Handler.files["glossy.icc"], "its file holds the printer's bytes")
            wait_until("the https profile on cups-Photo", lambda: device_has(dev("Photo"), matte_path))
            fname = prop(conn, matte_path, compat.IFACE_PROFILE, "Filename")
            check(open(fname, "rb").read() == Handler.files["matte.icc"],
                  "the profile fetched over https (a self-signed certificate) holds the printer's bytes")
            # What cups-filters asks for a queue set to glossy paper, and to plain paper.
            check_eq(lookup(conn, dev("Photo"), "RGB.PhotographicGlossy.600dpi"), glossy_path,
                     "RGB.PhotographicGlossy.600dpi reaches the glossy profile")
            check_eq(lookup(conn, dev("Photo"), "RGB.Stationery.300dpi"), plain_path,
                     "RGB.Stationery.300dpi reaches the plain paper profile")
            # Every lie cost only itself.
            for lie in LIES + TLS_LIES:
                compat.expect_dbus_error(lambda lie=lie: profile_path_of(conn, vendor_id(lie)),
                                         compat.IFACE_MANAGER + ".NotFound", "no profile from the lie '%s'" % lie)
            check(env.daemon_alive(), "daemon alive after the lies")
            # The printer over ipps (ippeveprinter answers TLS on its port with a certificate of
            # its own): Get-Printer-Attributes over TLS gives the queue the printer's identity.
            cupsd.lp("lpadmin", "-p", "Secure", "-E", "-v", printer.uri.replace("ipp://", "ipps://"), "-m", "raw")
            signals.wait("DeviceAdded", dev("Secure"))
            wait_until("the identity of cups-Secure, asked over ipps",
                       lambda: prop(conn, dev("Secure"), compat.IFACE_DEVICE, "Metadata").get("PRINTER_uuid") == UUID)
            check(matte_path in prop(conn, dev("Secure"), compat.IFACE_DEVICE, "Profiles"),
                  "the ipps queue has the printer's vendor profiles")
            cupsd.lp("lpadmin", "-x", "Secure")
            signals.wait("DeviceRemoved", dev("Secure"))

            ppd = ""
            for d, _dirs, names in os.walk(cupsd.root):
                if "Photo.ppd" in names:
                    ppd = open(os.path.join(d, "Photo.ppd"), errors="replace").read()
            if not ppd:
                log = open(os.path.join(cupsd.root, "error_log"), errors="replace").read().splitlines()
                print("    note: no Photo.ppd:\n      " + "\n      ".join(
                    line for line in log if "PPD" in line or "everywhere" in line.lower())[-3000:], flush=True)
            for key in ("DefaultColorModel", "DefaultMediaType", "DefaultResolution"):
                m = re.search(r"^\*%s: (\S+)" % key, ppd, re.M)
                print("    note: the generated PPD's %s is %s" % (key, m.group(1) if m else "(none)"), flush=True)
            # A PDF printed: cups-filters' gstoraster asks tinctd (the qualifiers of the queue's
            # defaults: plain paper, 600 dpi) and renders with the file it got.
            pdf = os.path.join(env.tmp, "patches.pdf")
            with open(pdf, "wb") as f:
                f.write(make_pdf())
            plain_file = prop(conn, plain_path, compat.IFACE_PROFILE, "Filename")
            vendor = Job(cupsd, printer, "Photo", pdf)
            check_eq(vendor.qualifiers, "RGB.Stationery.600dpi", "the filter asked for the queue's defaults")
            check_eq(vendor.profile, plain_file, "no choice: the filter applied the printer's plain paper profile")
            check_eq(vendor.gs_profile, plain_file, "and gave that file to Ghostscript")
            check_eq(vendor.colours, gs_colours(pdf, plain_file), "the kept raster holds Ghostscript's colours "
                     "with that profile")
            # A calibration tool's inhibitor: the filter applies no profile (sRGB as it is).
            compat.call(conn, dev("Photo"), compat.IFACE_DEVICE, "ProfilingInhibit")
            bare = Job(cupsd, printer, "Photo", pdf)
            compat.call(conn, dev("Photo"), compat.IFACE_DEVICE, "ProfilingUninhibit")
            check_eq(bare.profile, None, "inhibited: the filter applied no profile")
            check("Color Manager: Color management disabled by OS." in bare.cm, "the filter says why")
            check_eq(bare.gs_profile, None, "and gave Ghostscript none")
            check_eq(bare.colours, gs_colours(pdf, None), "the kept raster holds Ghostscript's plain sRGB colours")
            for name, rgb in PATCH_RGB.items():
                check(all(abs(got - round(v * 255)) <= 1 for got, v in zip(bare.colours[name], rgb)),
                      "untransformed, the %s patch is the PDF's colour" % name)
            # The user's hard choice: it wins over the vendor profiles for every job.
            chosen = compat.call(conn, compat.MANAGER_PATH, compat.IFACE_MANAGER, "FindProfileByFilename", "s",
                                 [os.path.basename(compat.icc(CHOSEN))], reply="o")[0]
            compat.call(conn, dev("Photo"), compat.IFACE_DEVICE, "AddProfile", "so", ["hard", chosen])
            chosen_file = prop(conn, chosen, compat.IFACE_PROFILE, "Filename")
            hard = Job(cupsd, printer, "Photo", pdf)
            check_eq(hard.profile, chosen_file, "the user's hard choice: the filter applied its file")
            check_eq(hard.gs_profile, chosen_file, "and gave that file to Ghostscript")
            check_eq(hard.colours, gs_colours(pdf, chosen_file), "the kept raster holds Ghostscript's colours "
                     "with that profile")
            for name in PATCHES:
                check(len({vendor.colours[name], bare.colours[name], hard.colours[name]}) == 3,
                      "the %s patch differs in the three rasters ippeveprinter kept" % name)
            # The queue deleted and made again under another name: the choice comes back.
            cupsd.lp("lpadmin", "-x", "Photo")
            signals.wait("DeviceRemoved", dev("Photo"))
            cupsd.lp("lpadmin", "-p", "Home", "-E", "-v", printer.uri, "-m", "everywhere")
            signals.wait("DeviceAdded", dev("Home"))
            wait_until("the choice back on cups-Home", lambda: device_has(dev("Home"), chosen))
            check_eq(prop(conn, dev("Home"), compat.IFACE_DEVICE, "Profiles")[0], chosen,
                     "the hard choice came back first on the same printer under another queue name")
            check(env.daemon_alive(), "daemon alive")
        finally:
            for p in (cupsd, printer, avahi):
                if p:
                    p.stop()
            server.shutdown()
            tls_server.shutdown()


if __name__ == "__main__":
    for tool in ("cupsd", "lpadmin", "lp", "ippeveprinter", "avahi-daemon", "unshare", "openssl", "gs"):
        if not shutil.which(tool):
            print("%s not installed (scripts/install-deps.sh installs it): skipping" % tool)
            sys.exit(77)
    if os.geteuid() != 0:
        print("cupsd and avahi-daemon need root here: skipping")
        sys.exit(77)
    compat.main()
