#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`tinct edid-profile` names the monitor as tinctd and tinct-session do (src/edid-icc,
edid_icc_params_init_named()): the vendor is the name the PNP table gives, through the vendor
quirk, and without a table, or one that does not list the id or cannot be read, the 3-letter PNP
id. The table is the one $TINCT_PNP_IDS names: the tests' tests/data/hwdata/pnp.ids, a file
made here, or a path where there is none; never the host's /usr/share/hwdata, installed or not.
The device id (MAPPING_device_id), EDID_manufacturer, the description and the manufacturer tag
are read back with `tinct icc-info --json`. Offline: no bus.
Usage: test-edid-profile.py TINCT CORPUS_DIR"""

import json
import os
import subprocess
import sys
import tempfile

tinct, corpus = sys.argv[1], sys.argv[2]
TABLE = os.path.join(os.environ["TINCT_TEST_DATA_DIR"], "hwdata", "pnp.ids")
DELL = os.path.join(corpus, "edid", "DEL4015-49FE2B318083.bin")
ACER = os.path.join(corpus, "edid", "ACR06CF-A5F33CEC3D2A.bin")
HP = os.path.join(corpus, "edid", "HWP2820-EC2D66E208FE.bin")
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)


def profile(edid, table, tmp):
    """The metadata, description and manufacturer of edid's profile made with this table."""
    out = os.path.join(tmp, "out.icc")
    env = dict(os.environ, TINCT_PNP_IDS=table, DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent")
    r = subprocess.run([tinct, "edid-profile", edid, "-o", out], env=env, capture_output=True, text=True)
    check(r.returncode == 0 and r.stderr == "", "edid-profile %s: exit %d %r"
          % (os.path.basename(edid), r.returncode, r.stderr))
    info = json.loads(subprocess.run([tinct, "icc-info", "--json", out], env=env, check=True,
                                     capture_output=True, text=True).stdout)
    os.unlink(out)
    return info["metadata"], info["description"], info["manufacturer"]


def expect(edid, table, device_id, vendor, description, what, tmp):
    meta, desc, manufacturer = profile(edid, table, tmp)
    check(meta.get("MAPPING_device_id") == device_id, "%s: MAPPING_device_id %r, expected %r"
          % (what, meta.get("MAPPING_device_id"), device_id))
    check(meta.get("EDID_manufacturer") == vendor and manufacturer == vendor,
          "%s: EDID_manufacturer %r and the manufacturer tag %r, expected %r"
          % (what, meta.get("EDID_manufacturer"), manufacturer, vendor))
    check(desc == description, "%s: description %r, expected %r" % (what, desc, description))
    check(meta.get("EDID_mnft") == os.path.basename(edid)[:3], "%s: EDID_mnft is the PNP id" % what)


with tempfile.TemporaryDirectory() as tmp:
    # the tests' table: hwdata's names, shortened by the vendor quirk where it has one
    expect(DELL, TABLE, "xrandr-Dell-DELL 1907FP-DC32365MAMST", "Dell", "Dell DELL 1907FP",
           "the tests' table, Dell", tmp)
    expect(ACER, TABLE, "xrandr-Acer-VG270U P-51486972", "Acer", "Acer VG270U P",
           "the tests' table, Acer", tmp)
    expect(HP, TABLE, "xrandr-Hewlett Packard-HP v185w-CNT919GBJW", "Hewlett Packard",
           "Hewlett Packard HP v185w", "the tests' table, HP", tmp)

    # no table at all: the PNP id
    missing = os.path.join(tmp, "no-hwdata", "pnp.ids")
    expect(DELL, missing, "xrandr-DEL-DELL 1907FP-DC32365MAMST", "DEL", "DEL DELL 1907FP",
           "no table", tmp)

    # a table that does not list the id, one with CR LF line ends, one that is a directory
    other = os.path.join(tmp, "other.ids")
    with open(other, "w") as f:
        f.write("DELL\tNot the id DEL\nDE\tNor this\nACR\tAcer Technologies\n")
    expect(DELL, other, "xrandr-DEL-DELL 1907FP-DC32365MAMST", "DEL", "DEL DELL 1907FP",
           "a table without DEL", tmp)
    crlf = os.path.join(tmp, "crlf.ids")
    with open(crlf, "w", newline="") as f:
        f.write("ACR\tAcer Technologies\r\nDEL\tDell Inc.\r\n")
    expect(DELL, crlf, "xrandr-Dell-DELL 1907FP-DC32365MAMST", "Dell", "Dell DELL 1907FP",
           "a table with CR LF line ends", tmp)
    expect(DELL, tmp, "xrandr-DEL-DELL 1907FP-DC32365MAMST", "DEL", "DEL DELL 1907FP",
           "a directory named as the table", tmp)

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
