#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Differential test of `tinct edid-info --json` against the EDID corpus references.

Usage: check-corpus.py TINCT CORPUS_DIR

CORPUS_DIR is the shared corpus root (with an edid/ directory) or the edid/ directory itself.
For every *.bin it runs the tool and compares each field with NAME.ref.json (schema
edid-ref/1, made from Debian's edid-decode; see corpus/README.md). It prints a match rate per
field and exits non-zero on any mismatch in a field we claim to support.

Fields knowingly not compared:
  conformity, warning_lines, failure_lines: these summarise edid-decode's --check conformity
      report (hundreds of rules about timings, audio, range limits). tinct does not
      re-implement that checker; the parser only reports the facts it decodes (checksums,
      declared vs found extension counts, malformed CTA blocks).
  schema, tool: describe the file, not the EDID.
Quirks honoured (corpus/README.md, "Quirks of this edid-decode build"):
  * chromaticity is compared as printed (4 decimals, truncated), which is what we print too;
    chromaticity_raw10 is compared exactly.
  * strings stop at the first NUL, trailing spaces kept: we do the same, compare exactly.
  * fatal_error: the tool must fail (non-zero exit, message on stderr, no stdout); the
    message text itself is edid-decode's and not compared.
  * a CTA block whose DTD offset (byte 2) points past the block (crafted-cta-dtd-offset-
    overflow-*, and one real EDID): edid-decode reads past the CTA block there, so its data
    block list is not data to reproduce. We require cta.malformed instead and compare the
    other fields.
Python 3 standard library only.
"""
import json
import os
import subprocess
import sys

# Top-level fields compared one by one (cta and its sub-fields are expanded below).
FIELDS = [
    "edid_version", "manufacturer", "product_code", "serial_number", "serial_string",
    "model_name", "alphanumeric_strings", "week", "year", "model_year", "display_type",
    "gamma", "gamma_in_extension", "chromaticity", "chromaticity_raw10", "checksum",
    "checksum_valid", "extension_blocks_declared", "extension_blocks_found", "blocks",
    "all_checksums_valid", "displayid_versions",
]
CTA_FIELDS = [
    "blocks", "revision", "data_blocks", "hdmi_vsdb", "hdmi_forum_vsdb", "hdr10plus_vsvdb",
    "dolby_vision_vsvdb", "colorimetry", "colorimetry_flags",
]
HDR_FIELDS = [
    "eotfs", "eotf_flags", "static_metadata_descriptors", "max_luminance",
    "max_frame_avg_luminance", "min_luminance",
]
SKIPPED = ["conformity", "warning_lines", "failure_lines"]


def same(ref, got, field):
    if field == "gamma" and ref is not None and got is not None:
        return round(ref, 2) == round(got, 2)
    if field == "chromaticity" and ref is not None and got is not None:
        return all(abs(a - b) < 1e-9 for k in ref for a, b in zip(ref[k], got.get(k, [])))\
            and set(ref) == set(got)
    if field.endswith("luminance") and ref is not None and got is not None:
        # edid-decode prints cd/m^2 with 3 decimals
        return ref["code"] == got["code"] and abs(ref["cd_m2"] - got["cd_m2"]) < 0.0005 + 1e-9
    return ref == got


def dtd_offset_overflows(path):
    """True when a CTA-861 block's DTD offset (byte 2) lies past its last data byte."""
    with open(path, "rb") as f:
        data = f.read()
    for i in range(128, len(data) - 127, 128):
        if data[i] == 0x02 and data[i + 1] >= 3 and data[i + 2] > 127:
            return True
    return False


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    tinct, corpus = argv[1], argv[2]
    if os.path.isdir(os.path.join(corpus, "edid")):
        corpus = os.path.join(corpus, "edid")
    bins = sorted(f for f in os.listdir(corpus) if f.endswith(".bin"))
    if not bins:
        print(f"no *.bin in {corpus}")
        return 1

    stats = {}          # field -> [matches, compared]
    mismatches = []

    def record(field, ok, name, ref, got):
        s = stats.setdefault(field, [0, 0])
        s[1] += 1
        if ok:
            s[0] += 1
        else:
            mismatches.append(f"{name}: {field}: reference {ref!r}, tinct {got!r}")

    for b in bins:
        name = b[:-4]
        with open(os.path.join(corpus, name + ".ref.json"), encoding="utf-8") as f:
            ref = json.load(f)
        p = subprocess.run([tinct, "edid-info", "--json", os.path.join(corpus, b)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode < 0 or p.returncode > 100:
            record("no_crash", False, name, "exit status 0..100", p.returncode)
            continue
        record("no_crash", True, name, None, None)

        if ref["fatal_error"] is not None:
            ok = p.returncode != 0 and p.stderr.strip() != b"" and p.stdout == b""
            record("fatal_error", ok, name, ref["fatal_error"],
                   f"exit {p.returncode}, stderr {p.stderr.decode(errors='replace').strip()!r}")
            continue
        ok = p.returncode == 0
        record("fatal_error", ok, name, None, p.stderr.decode(errors="replace").strip())
        if not ok:
            continue
        got = json.loads(p.stdout.decode("utf-8"))

        for field in FIELDS:
            record(field, same(ref[field], got.get(field), field), name, ref[field], got.get(field))

        rc, gc = ref["cta"], got.get("cta")
        record("cta", (rc is None) == (gc is None), name, rc is not None, gc is not None)
        if rc is None or gc is None:
            continue
        overflow = dtd_offset_overflows(os.path.join(corpus, b))
        if overflow:
            record("cta.malformed", gc.get("malformed") is True, name, True, gc.get("malformed"))
        for field in CTA_FIELDS:
            if overflow and field == "data_blocks":
                continue
            record("cta." + field, same(rc[field], gc.get(field), field), name, rc[field], gc.get(field))
        rh, gh = rc["hdr_static_metadata"], gc.get("hdr_static_metadata")
        record("cta.hdr_static_metadata", (rh is None) == (gh is None), name, rh is not None, gh is not None)
        if rh is None or gh is None:
            continue
        for field in HDR_FIELDS:
            record("cta.hdr_static_metadata." + field, same(rh[field], gh.get(field), field),
                   name, rh[field], gh.get(field))

    print(f"{len(bins)} EDIDs in {corpus}")
    print(f"{'field':48} {'match':>9}  rate")
    for field, (m, n) in stats.items():
        print(f"{field:48} {m:4}/{n:<4}  {100.0 * m / n:6.2f}%")
    print("not compared: " + ", ".join(SKIPPED) + " (edid-decode's conformity report)")
    if mismatches:
        print(f"\n{len(mismatches)} mismatches:")
        for m in mismatches:
            print("  " + m)
        return 1
    print("all compared fields match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
