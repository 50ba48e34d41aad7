#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tinct's --json documents against docs/json.md, and tinct's command-line parser.

'documents' runs every read verb with --json against a private daemon (tests/harness) holding a
printer, profiles (one a file in the profile directory), a mapping and the dummy sensor, and
the offline ones on the corpus, and checks each document against SCHEMA below, which mirrors
docs/json.md: required keys, no others (for daemon objects: no others on tinctd), and types.
It also checks that every verb whose help offers --json has a schema here, and that the read
verbs all take it.

'parser' checks the one option parser (tools/tinct.c): an unknown option is exit 2 naming the
verb, wherever it stands; an option the verb does not take is exit 2; too few or too many
arguments print the verb's synopsis (exit 2); `tinct VERB --help` is exit 0 with the synopsis,
for every verb; options after arguments work; `--` passes an argument that starts with '-';
offline verbs never connect to the bus (a listening socket stands in for it and must see no
connection) and bus verbs exit 3 when there is no bus.

argv[1] is the tinct binary, argv[2] the corpus directory (meson passes both)."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback

from harness import TinctEnv, daemon_kind

TINCT = sys.argv[1]
CORPUS = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("TINCT_CORPUS_DIR", "")
SRGB = os.path.join(CORPUS, "icc", "colord-data--sRGB.icc")
ADOBE = os.path.join(CORPUS, "icc", "colord-data--AdobeRGB1998.icc")
HDR_EDID = os.path.join(CORPUS, "edid", "ACR06CF-A5F33CEC3D2A.bin")  # CTA-861 with HDR and colorimetry
NOBUS = {"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"}

# ---- the schema (docs/json.md) -------------------------------------------------------
S, I, N, B, NULL, ANY = "string", "integer", "number", "boolean", "null", "any"


class Alt:
    """One of several types."""
    def __init__(self, *types):
        self.types = types


class Map:
    """An object with any keys, every value of one type."""
    def __init__(self, t):
        self.t = t


class Tuple:
    """An array of a fixed length."""
    def __init__(self, *types):
        self.types = types


class Obj:
    """An object with exactly these keys (open: others allowed too)."""
    def __init__(self, keys, open=False):
        self.keys, self.open = keys, open


def opt(t):
    return Alt(t, NULL)


STRICT_OBJECTS = daemon_kind() != "colord"  # colord may have properties of its own
DEVICE = Obj({"object_path": S, "DeviceId": S, "Kind": S, "Model": S, "Vendor": S, "Serial": S,
              "Colorspace": S, "Mode": S, "Format": S, "Scope": S, "Seat": S, "Created": I,
              "Modified": I, "Owner": I, "Enabled": B, "Embedded": B, "Profiles": [S],
              "ProfilingInhibitors": [S], "Metadata": Map(S)}, open=not STRICT_OBJECTS)
PROFILE = Obj({"object_path": S, "ProfileId": S, "Title": S, "Qualifier": S, "Format": S, "Kind": S,
               "Colorspace": S, "Filename": S, "Scope": S, "Owner": I, "Created": I, "HasVcgt": B,
               "IsSystemWide": B, "Warnings": [S], "Metadata": Map(S)}, open=not STRICT_OBJECTS)
SENSOR = Obj({"object_path": S, "SensorId": S, "Kind": S, "State": S, "Mode": S, "Serial": S, "Model": S,
              "Vendor": S, "Native": B, "Embedded": B, "Locked": B, "Capabilities": [S], "Options": Map(ANY),
              "Metadata": Map(S)}, open=not STRICT_OBJECTS)
LUMINANCE = opt(Obj({"code": I, "cd_m2": N}))
CTA = Obj({
    "blocks": I, "revision": I, "malformed": B,
    "hdr_static_metadata": opt(Obj({
        "eotfs": [S],
        "eotf_flags": Obj({"traditional_sdr": B, "traditional_hdr": B, "pq": B, "hlg": B}),
        "static_metadata_descriptors": [S], "max_luminance": LUMINANCE,
        "max_frame_avg_luminance": LUMINANCE, "min_luminance": LUMINANCE})),
    "colorimetry": opt([S]),
    "colorimetry_flags": opt(Obj({k: B for k in ("xvYCC601", "xvYCC709", "sYCC601", "opYCC601", "opRGB",
                                                 "BT2020cYCC", "BT2020YCC", "BT2020RGB", "DCI-P3", "ICtCp",
                                                 "ST2113RGB")})),
    "hdmi_vsdb": B, "hdmi_forum_vsdb": B, "hdr10plus_vsvdb": B, "dolby_vision_vsvdb": B, "data_blocks": [S]})
XY = Obj({c: Tuple(N, N) for c in ("red", "green", "blue", "white")})
RAW10 = Obj({c: Tuple(I, I) for c in ("red", "green", "blue", "white")})
FIGURES = Obj({"coverage_xy": N, "relative_xy": N, "coverage_uv": N, "relative_uv": N})

SCHEMA = {
    "device": DEVICE,
    "profile": PROFILE,
    "devices": Obj({"devices": [DEVICE]}),
    "profiles": Obj({"profiles": [PROFILE]}),
    "sensors": Obj({"sensors": [SENSOR]}),
    "status": Obj({"daemon": Obj({"DaemonVersion": S, "SystemVendor": S, "SystemModel": S},
                                 open=not STRICT_OBJECTS),
                   "devices": I, "profiles": I, "sensors": I}),
    "lookup": Obj({"device": S, "qualifiers": [S], "matched": opt(S), "relation": S, "profile": PROFILE}),
    "doctor": Obj({"devices": [Obj({"device_id": S, "object_path": S, "kind": S, "ok": B, "enabled": B,
                                    "inhibited": B, "profile": opt(S), "filename": opt(S),
                                    "relation": opt(S), "findings": [S]})]}),
    "readings": Obj({"readings": [Obj({"sensor": SENSOR, "capability": S, "x": N, "y": N, "z": N})]}),
    "spectra": Obj({"spectra": [Obj({"sensor": SENSOR, "capability": S, "start_nm": N, "end_nm": N,
                                     "values": [N]})]}),
    "edid-info": Obj({
        "schema": S, "tool": S, "fatal_error": NULL, "md5": S, "edid_version": S, "manufacturer": S,
        "product_code": I, "serial_number": I, "serial_string": opt(S), "model_name": opt(S),
        "alphanumeric_strings": [S], "week": opt(I), "year": opt(I), "model_year": opt(I),
        "display_type": S, "gamma": opt(N), "gamma_in_extension": B, "chromaticity": XY,
        "chromaticity_raw10": RAW10, "checksum": S, "checksum_valid": B, "extension_blocks_declared": I,
        "extension_blocks_found": I,
        "blocks": [Obj({"index": I, "type": S, "checksum": S, "checksum_valid": B})],
        "all_checksums_valid": B, "cta": opt(CTA), "displayid_versions": [S]}),
    "icc-info": Alt(
        Obj({"file": S, "error": NULL, "checksum": S, "description": opt(S), "title": opt(S),
             "copyright": opt(S), "manufacturer": opt(S), "model": opt(S), "kind": S, "colorspace": S,
             "has_vcgt": B, "created": I, "tags_ignored": I, "metadata": Map(S), "warnings": [S]}),
        Obj({"file": S, "error": S, "errno": I})),
    "verify": Obj({"device": S, "profile": S, "date": S, "mean": N, "max": N, "stored": B,
                   "patches": [Obj({"name": S, "rgb": Tuple(N, N, N), "expected_lab": Tuple(N, N, N),
                                    "measured_lab": Tuple(N, N, N), "measured_xyz": Tuple(N, N, N),
                                    "de2000": N})]}),
    "gamut": Obj({"gamuts": [Obj({"file": S, "primaries_xy": Tuple(Tuple(N, N), Tuple(N, N), Tuple(N, N)),
                                  "against": Obj({r: FIGURES for r in ("sRGB", "Display P3", "Adobe RGB",
                                                                       "BT.2020")})})]}),
}

# Which document each verb that takes --json prints.
VERB_DOCUMENT = {
    "status": "status", "get-devices": "devices", "get-devices-by-kind": "devices", "get-profiles": "profiles",
    "get-sensors": "sensors", "find-device": "device", "find-device-by-property": "device",
    "find-profile": "profile", "find-profile-by-filename": "profile", "get-standard-space": "profile",
    "create-device": "device", "create-profile": "profile", "create-virtual-device": "device",
    "import-profile": "profile", "device-get-default-profile": "profile",
    "device-get-profile-for-qualifier": "profile", "lookup": "lookup", "doctor": "doctor",
    "get-sensor-reading": "readings", "get-spectral-reading": "spectra", "edid-info": "edid-info",
    "icc-info": "icc-info", "gamut": "gamut", "verify": "verify",
}


def type_errors(v, t, where):
    """What is wrong with v as a t, as a list of messages (empty: it fits)."""
    if isinstance(t, str):
        ok = {S: isinstance(v, str), I: type(v) is int, N: type(v) in (int, float), B: type(v) is bool,
              NULL: v is None, ANY: True}[t]
        return [] if ok else ["%s: %r is not a %s" % (where, v, t)]
    if isinstance(t, Alt):
        tried = [type_errors(v, x, where) for x in t.types]
        if any(not e for e in tried):
            return []
        # the errors of an alternative of the right kind say more than "is not a null"
        deeper = [e for e in tried if not (len(e) == 1 and e[0].startswith(where + ": ") and " is not a" in e[0])]
        return min(deeper or tried, key=len)
    if isinstance(t, (list, Tuple)):
        if not isinstance(v, list):
            return ["%s: %r is not an array" % (where, v)]
        if isinstance(t, Tuple):
            if len(v) != len(t.types):
                return ["%s: %d items, want %d" % (where, len(v), len(t.types))]
            return [e for i, (x, tt) in enumerate(zip(v, t.types)) for e in type_errors(x, tt, "%s[%d]" % (where, i))]
        return [e for i, x in enumerate(v) for e in type_errors(x, t[0], "%s[%d]" % (where, i))]
    if not isinstance(v, dict):
        return ["%s: %r is not an object" % (where, v)]
    if isinstance(t, Map):
        return [e for k, x in v.items() for e in type_errors(x, t.t, "%s.%s" % (where, k))]
    errors = ["%s: no key %r" % (where, k) for k in t.keys if k not in v]
    if not t.open:
        errors += ["%s: undocumented key %r" % (where, k) for k in v if k not in t.keys]
    return errors + [e for k, tt in t.keys.items() if k in v for e in type_errors(v[k], tt, "%s.%s" % (where, k))]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def check_eq(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


covered = set()  # verbs whose document was checked


def run(env, args, rc=0, extra_env=None):
    if env is not None:
        r = env.run([TINCT] + list(args), env=extra_env)
    else:
        r = subprocess.run([TINCT] + list(args), capture_output=True, text=True, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, **(extra_env or {})), timeout=120)
    print("    $ tinct %s -> %d" % (" ".join(args), r.returncode), flush=True)
    if rc is not None and r.returncode != rc:
        raise AssertionError("tinct %s: exit %d, want %d\nstdout: %s\nstderr: %s"
                             % (" ".join(args), r.returncode, rc, r.stdout[:2000], r.stderr[:2000]))
    return r


def document(env, verb, *args, rc=0, extra_env=None, nonempty=None):
    """Runs `tinct VERB ARGS --json`, checks the document against the verb's schema; returns it.
    nonempty: a list key that must hold items (so the item schema is exercised)."""
    r = run(env, [verb] + list(args) + ["--json"], rc=rc, extra_env=extra_env)
    check(r.stdout.endswith("}\n") and not r.stdout.endswith("\n\n"), "%s: one document and a newline" % verb)
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        raise AssertionError("tinct %s --json: not JSON (%s):\n%s" % (verb, e, r.stdout[:2000]))
    errors = type_errors(doc, SCHEMA[VERB_DOCUMENT[verb]], verb)
    if errors:
        raise AssertionError("tinct %s --json does not fit docs/json.md:\n  %s" % (verb, "\n  ".join(errors[:20])))
    if nonempty:
        check(len(doc[nonempty]) > 0, "%s: %s is empty, so its items were not checked" % (verb, nonempty))
    covered.add(verb)
    return doc


def overview_verbs():
    """(verb, arguments) of every verb line of `tinct --help`: '  verb ARGS  summary', or
    '  verb ARGS' alone when long (the summary then on the next line). The arguments without
    the overview's [OPTIONS...] (the verb's own help names them)."""
    out = run(None, ["--help"]).stdout
    verbs = []
    for line in out.splitlines():
        m = re.match(r"^  ([a-z][a-z-]*)(?: (.*?))?(?:  +\S.*)?$", line)
        if m:
            verbs.append((m.group(1), (m.group(2) or "").replace("[OPTIONS...]", "").strip()))
    return verbs


def usage_of(text):
    """The usage of a help or error text: from 'Usage:' to the blank line or the end, the
    continuation lines of a long one joined."""
    lines = text[text.index("Usage: "):].split("\n\n")[0]
    return " ".join(lines.split())


def verb_help(verb):
    r = run(None, [verb, "--help"], extra_env=NOBUS)
    check_eq(r.stderr, "", "%s --help: nothing on stderr" % verb)
    return r.stdout


def copy_to(env, src, name):
    d = os.path.join(env.tmp, "json-files")
    os.makedirs(d, mode=0o755, exist_ok=True)
    dst = os.path.join(d, name)
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    return dst


def documents():
    with TinctEnv(polkit="allow", dummy_sensor=True, profiles=[SRGB]) as env:
        dev = document(env, "create-device", "cups-Json", "normal", "printer")
        check_eq(dev["DeviceId"], "cups-Json", "create-device")
        document(env, "create-profile", "json-prof", "normal")
        run(env, ["profile-set-property", "json-prof", "Qualifier", "RGB.Plain.300dpi"])
        run(env, ["device-add-profile", "cups-Json", "json-prof"])
        run(env, ["device-set-model", "cups-Json", "JsonModel"])

        document(env, "status")
        document(env, "get-devices", nonempty="devices")
        document(env, "get-devices-by-kind", "printer", nonempty="devices")
        check_eq(document(env, "get-devices-by-kind", "display"), {"devices": []}, "an empty list")
        document(env, "get-profiles", nonempty="profiles")
        document(env, "get-sensors", nonempty="sensors")
        document(env, "find-device", "cups-Json")
        document(env, "find-device-by-property", "Model", "JsonModel")
        document(env, "find-profile", "json-prof")
        document(env, "find-profile-by-filename", os.path.basename(SRGB))
        if not env.is_colord:  # colord's GetStandardSpace bug (colord §16.2)
            document(env, "get-standard-space", "srgb")
        document(env, "device-get-default-profile", "cups-Json")
        document(env, "device-get-profile-for-qualifier", "cups-Json", "RGB.Plain.300dpi", "*")
        lk = document(env, "lookup", "cups-Json", "RGB.Plain.300dpi")
        check_eq(lk["matched"], "RGB.Plain.300dpi", "lookup matched")
        document(env, "doctor", nonempty="devices")
        document(env, "doctor", "cups-Json", nonempty="devices")
        document(env, "get-sensor-reading", nonempty="readings")
        # The dummy sensor has no spectra (NoSupport, exit 1): the document lists none.
        r = run(env, ["get-spectral-reading", "--json"], rc=None)
        check(r.returncode in (0, 1), "get-spectral-reading: exit %d" % r.returncode)
        document(env, "get-spectral-reading", rc=r.returncode)
        if not env.is_colord:  # disk-scope profiles are tinct's (colord §4)
            document(env, "create-virtual-device", copy_to(env, ADOBE, "proof.icc"), "printer")

        # import-profile: this test plays the session agent (as in test-cli-bus.py)
        data_home = os.path.join(env.tmp, "data-home")
        e = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=env.address, XDG_DATA_HOME=data_home)
        imp = subprocess.Popen([TINCT, "import-profile", ADOBE, "60", "--json"], env=e, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            line = imp.stderr.readline()
            copy = os.path.join(data_home, "icc", os.path.basename(ADOBE))
            check(("Copied to %s" % copy) in line, "import-profile copied: %r" % line)
            env.run(["gdbus", "call", "--system", "-d", "org.freedesktop.ColorManager", "-o",
                     "/org/freedesktop/ColorManager", "-m", "org.freedesktop.ColorManager.CreateProfile",
                     "icc-json-import", "normal", "{'Filename': '%s'}" % copy], check=True)
            out, err = imp.communicate(timeout=60)
            check_eq(imp.returncode, 0, "import-profile (%s)" % err)
        finally:
            if imp.poll() is None:
                imp.kill()
                imp.wait()
        errors = type_errors(json.loads(out), SCHEMA["profile"], "import-profile")
        check(not errors, "import-profile --json: %s" % errors)
        covered.add("import-profile")

    # verify needs a sensor that can show patches: the dummy's virtual display (tinct's)
    if daemon_kind() != "colord":
        with TinctEnv(polkit="allow", profiles=[SRGB], extra_args=["--dummy-sensor-display", SRGB]) as env:
            run(env, ["create-device", "xrandr-Json", "normal", "display"])
            prof = document(env, "find-profile-by-filename", os.path.basename(SRGB))
            run(env, ["device-add-profile", "xrandr-Json", prof["ProfileId"]])
            doc = document(env, "verify", "xrandr-Json", nonempty="patches")
            check(doc["max"] < 0.05, "verify: the virtual display is its profile (max %.4f)" % doc["max"])

    # offline, on the corpus: every EDID, every ICC file, all RGB profiles in one gamut run
    edids = sorted(os.path.join(CORPUS, "edid", f) for f in os.listdir(os.path.join(CORPUS, "edid"))
                   if f.endswith(".bin"))
    check(HDR_EDID in edids, "the HDR EDID is in the corpus")
    ctas = 0
    for f in edids:
        r = run(None, ["edid-info", f, "--json"], rc=None)
        if r.returncode != 0:
            check(r.returncode == 1 and r.stdout == "", "edid-info %s: exit %d" % (f, r.returncode))
            continue
        doc = json.loads(r.stdout)
        errors = type_errors(doc, SCHEMA["edid-info"], os.path.basename(f))
        check(not errors, "edid-info --json: %s" % errors[:10])
        ctas += doc["cta"] is not None and doc["cta"]["hdr_static_metadata"] is not None
    check(ctas > 0, "some EDIDs had HDR metadata checked")
    covered.add("edid-info")
    iccs = sorted(os.path.join(CORPUS, "icc", f) for f in os.listdir(os.path.join(CORPUS, "icc"))
                  if f.endswith((".icc", ".icm")))
    bad = tempfile.NamedTemporaryFile(suffix=".icc", delete=False)
    bad.write(b"not a profile" * 20)
    bad.close()
    try:
        kinds = set()
        for f in iccs + [bad.name]:
            r = run(None, ["icc-info", "--json", f], rc=None)
            check(r.returncode in (0, 1), "icc-info %s: exit %d" % (f, r.returncode))
            doc = json.loads(r.stdout)
            errors = type_errors(doc, SCHEMA["icc-info"], os.path.basename(f))
            check(not errors, "icc-info --json: %s" % errors[:10])
            check_eq(doc["error"] is None, r.returncode == 0, "icc-info %s: error and exit status agree" % f)
            kinds.add(doc["error"] is None)
        check_eq(kinds, {True, False}, "icc-info: both forms checked")
        covered.add("icc-info")
        r = run(None, ["gamut", "--json", bad.name] + iccs, rc=1)  # the bad file and non-RGB ones fail
        doc = json.loads(r.stdout)
        errors = type_errors(doc, SCHEMA["gamut"], "gamut")
        check(not errors, "gamut --json: %s" % errors[:10])
        check(len(doc["gamuts"]) > 10, "gamut: %d profiles" % len(doc["gamuts"]))
        covered.add("gamut")
    finally:
        os.unlink(bad.name)

    # Every verb that offers --json has a schema and was checked; the read verbs all offer it.
    takes_json = {v for v, _ in overview_verbs() if "[--json]" in verb_help(v).splitlines()[0]}
    check_eq(takes_json, set(VERB_DOCUMENT), "the verbs that take --json")
    expected_skips = {"get-standard-space", "create-virtual-device", "verify"} if daemon_kind() == "colord" else set()
    check_eq(set(VERB_DOCUMENT) - covered, expected_skips, "verbs whose document was not checked")


def no_connection(args, cwd):
    """Runs an offline verb with the system bus address pointing at a listening socket; returns
    the run after checking that nothing connected to it."""
    path = os.path.join(cwd, "bus-socket")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(path)
        s.listen(4)
        r = run(None, args, rc=None, extra_env={"DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + path})
        s.setblocking(False)
        try:
            s.accept()
            raise AssertionError("tinct %s connected to the system bus" % " ".join(args))
        except BlockingIOError:
            pass
        return r
    finally:
        s.close()
        os.unlink(path)


def parser():
    edid = HDR_EDID
    # unknown options name the verb, wherever they stand
    for args, verb in ((["get-devices", "--bogus"], "get-devices"), (["--bogus", "find-device", "x"], "find-device"),
                       (["edid-info", edid, "-Z"], "edid-info"), (["dump", "--no-such-option"], "dump"),
                       (["status", "--json=yes"], "status")):
        r = run(None, args, rc=2, extra_env=NOBUS)
        check(r.stderr.startswith("tinct %s: " % verb) and r.stdout == "", "%s: %r" % (args, r.stderr))
        check(("Usage: tinct %s" % verb) in r.stderr, "%s: the usage line" % args)
    r = run(None, ["get-devices", "--bogus"], rc=2, extra_env=NOBUS)
    check("'--bogus'" in r.stderr, "the option is named: %r" % r.stderr)
    r = run(None, ["--bogus"], rc=2)
    check(r.stderr.startswith("tinct: unknown option '--bogus'"), "no verb: %r" % r.stderr)
    run(None, ["no-such-verb"], rc=2)
    run(None, [], rc=2)

    # options the verb does not take
    for args in (["edid-info", "--soft", edid], ["delete-device", "--json", "x"], ["gamut", "-o", "x", edid],
                 ["find-device", "--state-dir", "/tmp", "x"], ["device-inhibit", "--svg", "o.svg", "x"]):
        r = run(None, args, rc=2, extra_env=NOBUS)
        opt = next(a for a in args if a.startswith("-"))
        verb = next(a for a in args if not a.startswith("-"))
        check(r.stderr.startswith("tinct %s: " % verb) and "is not an option of %s" % verb in r.stderr,
              "%s: %r" % (args, r.stderr))
        check(opt.lstrip("-") in r.stderr.split("\n")[0] or "--output" in r.stderr, "%s names the option" % args)
    r = run(None, ["edid-info", "--soft", edid], rc=2)
    check("only device-add-profile takes it" in r.stderr, "who takes --soft: %r" % r.stderr)
    r = run(None, ["edid-profile", edid], rc=2)
    check("-o OUT is required" in r.stderr, "a required option: %r" % r.stderr)
    r = run(None, ["dump", "--state-dir"], rc=2)
    check("needs a value" in r.stderr, "an option without its value: %r" % r.stderr)

    # argument counts, against the synopsis in the table
    synopsis = dict(overview_verbs())
    for args in (["find-device"], ["find-device", "a", "b"], ["lookup", "dev"], ["create-device", "a", "b"],
                 ["status", "extra"], ["gamut"], ["icc-info", "a", "b"], ["profile-set-property", "a", "b", "c", "d"],
                 ["device-get-profile-for-qualifier", "dev"]):
        r = run(None, args, rc=2, extra_env=NOBUS)
        verb = args[0]
        first = r.stderr.splitlines()[0]
        check(first in ("tinct %s: missing arguments" % verb, "tinct %s: too many arguments" % verb),
              "%s: %r" % (args, r.stderr))
        usage = usage_of(r.stderr)
        check(usage.startswith("Usage: tinct %s " % verb) or usage == "Usage: tinct %s [--json]" % verb,
              "%s: %r" % (args, usage))
        check(usage.endswith(synopsis[verb]) or synopsis[verb] in usage, "%s: synopsis %r in %r" % (args, synopsis[verb], usage))
        check_eq(r.stdout, "", "%s: nothing on stdout" % args)

    # VERB --help for every verb: exit 0, the usage line with the overview's arguments, the options
    verbs = overview_verbs()
    check(len(verbs) >= 40, "%d verbs in the overview" % len(verbs))
    for verb, args in verbs:
        out = verb_help(verb)
        usage = usage_of(out)
        check(usage.startswith("Usage: tinct " + verb), "%s --help: %r" % (verb, usage))
        # The overview shows the positional arguments and required options; the usage the same
        # words in the same order, with the optional options between them.
        words = iter(re.sub(r"\[--[a-z0-9-]+(?: [A-Z]+)?\]", "", usage).split()[2:])
        check(all(w in words for w in args.split()), "%s --help usage %r against the overview's %r" % (verb, usage, args))
        check("\nOptions:\n" in out and "--help" in out, "%s --help lists the options" % verb)
    run(None, ["find-device", "some-id", "--help"], extra_env=NOBUS)  # --help wins over the rest
    r = run(None, ["--help"])
    check(r.stdout.startswith("Usage: tinct VERB"), "tinct --help")

    # read verbs take --json (docs/json.md)
    for verb in ("status", "get-devices", "get-devices-by-kind", "get-profiles", "get-sensors", "find-device",
                 "find-device-by-property", "find-profile", "find-profile-by-filename", "get-standard-space",
                 "device-get-default-profile", "device-get-profile-for-qualifier", "lookup", "doctor",
                 "get-sensor-reading", "get-spectral-reading", "edid-info", "icc-info", "gamut", "create-device",
                 "create-profile", "create-virtual-device", "import-profile"):
        check("[--json]" in usage_of(verb_help(verb)), "%s takes --json" % verb)

    # offline verbs never connect; bus verbs without a bus exit 3
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.icc")
        check_eq(no_connection(["edid-info", edid], tmp).returncode, 0, "edid-info offline")
        check_eq(no_connection(["edid-profile", edid, "-o", out], tmp).returncode, 0, "edid-profile offline")
        check_eq(no_connection(["icc-info", out, "--json"], tmp).returncode, 0, "icc-info offline")
        check_eq(no_connection(["gamut", out, "--svg", os.path.join(tmp, "g.svg")], tmp).returncode, 0,
                 "gamut offline")
        nostore = os.path.join(tmp, "no-store")
        for args in (["export", "--state-dir", nostore], ["dump", "--state-dir", nostore],
                     ["import", "--state-dir", nostore, os.path.join(tmp, "missing.json")]):
            r = no_connection(args, tmp)
            check_eq(r.returncode, 1, "%s fails on the store, not on the bus (%s)" % (args[0], r.stderr))
    for args in (["get-devices"], ["status", "--json"], ["delete-device", "x"], ["doctor"]):
        r = run(None, args, rc=3, extra_env=NOBUS)
        check(r.stderr.startswith("tinct: ") and r.stdout == "", "%s without a bus: %r" % (args, r.stderr))

    # options after the arguments, and -- before an argument that starts with '-'
    with TinctEnv(polkit="allow") as env:
        d = json.loads(run(env, ["create-device", "--json", "--", "-dash-id", "normal", "printer"]).stdout)
        check_eq(d["DeviceId"], "-dash-id", "an id after --")
        d = json.loads(run(env, ["find-device", "--json", "--", "-dash-id"]).stdout)
        check_eq(d["DeviceId"], "-dash-id", "find-device -- -dash-id")
        run(env, ["find-device", "-dash-id"], rc=2)  # without --, it is an option
        run(env, ["find-device", "--", "-dash-id", "--json"], rc=2)  # after --, --json is an argument
        t = run(env, ["find-device", "--", "-dash-id"]).stdout
        check(t.startswith("Object Path: ") and "-dash-id" in t, "text form after --")
        check_eq(run(env, ["find-device", "cups-none-such", "--json"], rc=4).stdout, "", "nothing on stdout for NotFound")
        run(env, ["device-add-profile", "-dash-id", "--soft", "x"], rc=2)  # -dash-id is an option here
        r = run(env, ["device-add-profile", "--soft", "--", "-dash-id", "no-such-profile"], rc=4)
        check("NotFound" in r.stderr, "device-add-profile --soft -- ...: %r" % r.stderr)


def main():
    failed = 0
    tests = (parser, documents)
    for t in tests:
        print("test %s" % t.__name__, flush=True)
        try:
            t()
            print("ok %s" % t.__name__, flush=True)
        except Exception:
            failed += 1
            traceback.print_exc()
            print("FAIL %s" % t.__name__, flush=True)
    print("%d passed, %d failed" % (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
