#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Corpus comparison for the ICC reader (src/icc/icc-info.c).

Runs `tinct icc-info --json` over every profile in the ICC corpus and compares what it reports
with the references (NAME.ref.json, made from colord's cd-iccdump and the raw bytes; see
shared/corpus/README.md). Prints the match rate per field and fails on any mismatch.

Which files must be rejected:
  * cd-iccdump could not load them (`cd_iccdump.error`);
  * cd-iccdump found no description (colord's daemon refuses such profiles, colord §4.4);
  * cd-iccdump reported the `meta` dict as corrupted (colord fails loads that read the dict);
  * the `meta` dict has a record pointing outside its tag, checked here from the bytes.
    lcms reads such names from whatever lies beyond the tag (cd-iccdump shows a garbage key);
    we refuse them as corrupt. This is the one place we are stricter than colord.
Everything else must load, and then every field below must match.

Python 3 standard library only.
"""

import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import time

EXTENSIONS = ('.icc', '.icm')


def dict_out_of_bounds(data, ref):
    """True when the meta dict has a record that points outside the tag (ICC.1 dictType)."""
    table = ref.get('tag_table') or {}
    for e in table.get('entries') or []:
        if e['sig'] != 'meta' or not e['in_bounds']:
            continue
        tag = data[e['offset']:e['offset'] + e['size']]
        if len(tag) < 16 or tag[:4] != b'dict':
            return True
        count, rec = struct.unpack('>II', tag[8:16])
        if rec not in (16, 24, 32) or 16 + count * rec > len(tag):
            return True
        for i in range(count):
            r = tag[16 + i * rec:16 + (i + 1) * rec]
            for k in range(rec // 8):
                off, size = struct.unpack('>II', r[8 * k:8 * k + 8])
                if off and off + size > len(tag):
                    return True
        return False
    return False


def expected_rejection(data, ref):
    cd = ref.get('cd_iccdump') or {}
    summary = ref.get('summary') or {}
    if cd.get('error'):
        return 'cd-iccdump: ' + cd['error']
    if (summary.get('description') or {}).get('cd_iccdump') is None:
        return 'no description'
    if 'meta' in (summary.get('tag_warnings') or {}):
        return 'corrupt meta dict (cd-iccdump warning)'
    if dict_out_of_bounds(data, ref):
        return 'meta dict record outside its tag'
    return None


def expected_created(ref):
    # cd-iccdump prints no date when GLib refuses the header's (year 0, month 0, ...);
    # colord then reports Created = 0
    date = (ref.get('header') or {}).get('date')
    if not date or not ref['cd_iccdump']['header'].get('date_time'):
        return 0
    y, mo, d, h, mi, s = date
    try:
        # mktime() as the daemon does: local time, DST unknown
        return int(time.mktime((y, mo, d, h, mi, s, 0, 0, -1)))
    except (OverflowError, ValueError):
        return 0


def expected_fields(data, ref):
    cd = ref['cd_iccdump']
    summary = ref['summary']
    header = ref['header']
    pid = header.get('profile_id') or ''
    checksum = pid if pid.strip('0') else hashlib.md5(data).hexdigest()
    return {
        'description': summary['description']['cd_iccdump'],
        'copyright': (summary.get('copyright') or {}).get('cd_iccdump'),
        'kind': cd['header']['profile_kind'],
        'colorspace': cd['header']['colorspace'],
        # what colord sees after lcms dropped unreadable directory entries
        'has_vcgt': any(t.get('sig') == 'vcgt' for t in cd.get('tags') or []),
        'metadata': summary.get('meta') or {},
        'checksum': checksum,
        'created': expected_created(ref),
    }


def run_tinct(tinct, path):
    p = subprocess.run([tinct, 'icc-info', '--json', path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if p.returncode not in (0, 1):
        raise RuntimeError('exit status %d, stderr: %s' % (p.returncode, p.stderr.decode(errors='replace')))
    out = json.loads(p.stdout.decode('utf-8'))
    if (p.returncode == 0) != (out.get('error') is None):
        raise RuntimeError('exit status %d does not agree with the JSON' % p.returncode)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tinct', required=True, help='path to the tinct binary')
    ap.add_argument('--corpus', required=True, help='the ICC corpus directory (corpus/icc)')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()

    if not os.access(args.tinct, os.X_OK):
        print('check-corpus: %s is not built' % args.tinct, file=sys.stderr)
        return 1

    names = sorted(n for n in os.listdir(args.corpus) if n.lower().endswith(EXTENSIONS))
    if not names:
        print('check-corpus: no profiles in %s' % args.corpus, file=sys.stderr)
        return 1

    fields = ['description', 'copyright', 'kind', 'colorspace', 'has_vcgt', 'metadata',
              'checksum', 'created']
    matched = {f: 0 for f in fields}
    compared = {f: 0 for f in fields}
    verdicts = {'ok': 0, 'total': 0}
    failures = []

    for name in names:
        path = os.path.join(args.corpus, name)
        stem = os.path.splitext(name)[0]
        ref_path = os.path.join(args.corpus, stem + '.ref.json')
        if not os.path.exists(ref_path):
            failures.append('%s: no reference' % name)
            continue
        with open(ref_path, encoding='utf-8') as f:
            ref = json.load(f)
        with open(path, 'rb') as f:
            data = f.read()

        try:
            out = run_tinct(args.tinct, path)
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            failures.append('%s: tinct failed: %s' % (name, e))
            verdicts['total'] += 1
            continue

        reject = expected_rejection(data, ref)
        verdicts['total'] += 1
        if reject is not None:
            if out['error'] is None:
                failures.append('%s: loaded, but should be rejected (%s)' % (name, reject))
            else:
                verdicts['ok'] += 1
                if args.verbose:
                    print('%s: rejected as expected (%s): %s' % (name, reject, out['error']))
            continue
        if out['error'] is not None:
            failures.append('%s: rejected (%s), but cd-iccdump loads it' % (name, out['error']))
            continue
        verdicts['ok'] += 1

        want = expected_fields(data, ref)
        for field in fields:
            compared[field] += 1
            if out[field] == want[field]:
                matched[field] += 1
            else:
                failures.append('%s: %s: got %r, want %r' % (name, field, out[field], want[field]))

    print('ICC corpus: %d profiles in %s' % (len(names), args.corpus))
    print('  %-12s %3d/%-3d (%.1f%%)' % ('accept/reject', verdicts['ok'], verdicts['total'],
                                        100.0 * verdicts['ok'] / max(verdicts['total'], 1)))
    for field in fields:
        print('  %-12s %3d/%-3d (%.1f%%)' % (field, matched[field], compared[field],
                                            100.0 * matched[field] / max(compared[field], 1)))
    for line in failures:
        print('MISMATCH ' + line)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
