# SPDX-License-Identifier: GPL-2.0-or-later
"""What the tests that set tinct profile-build beside ArgyllCMS share (test-profile-build.py,
test-printer-profile.py, test-profile-build-chart.py): a work directory with its checks,
profcheck's scores, the tag table of a profile, Argyll's answers on fixed inputs (stored in
the tree), and Argyll's runs (and the chart test's rendered images), whose results are
computed once per ./run-tests and shared between its passes.

Stored answers (tests/data/argyll/, docs in its README): Argyll's figures on fixed inputs
are facts, so a test run fits tinct's profiles only. answers.json holds, per test and case,
what Argyll made of the case's inputs (colprof's profile scored on the verification chart,
scanin + colprof on a chart image), the Argyll version that made them and a hash of the
inputs. Answers.get() returns the stored answer when the installed Argyll is that version
and the inputs hash the same; otherwise it says why and computes the answer afresh with
Argyll (as slow as before; the comparison keeps its meaning). tests/cli/argyll-answers.sh
stores new answers (TINCT_ARGYLL_RECORD=1: every answer computed, the inputs the tests
generate with targen and fakeread written to tests/data/argyll/ too).

The cache: with $TINCT_ARGYLL_CACHE set (run-tests gives each run a new directory), a run
of an Argyll tool is keyed by a hash of the tool's binary (its version), its arguments and
the contents of its input files (less the time a CGATS file says it was written). The first
pass to need it runs the tool and stores the outputs (in a temporary directory renamed into
place, under a lock the other passes wait on); the others copy them. A failed run is not
stored. Without the variable every run is made afresh. Argyll's results are the same in
every pass (plain, sanitizers): running it again would prove nothing new, and its colprof
is most of these tests' time. shared() is that mechanism for any result a test can key by
what it depends on (the chart test's images: a render is seeded, so it is a fact of its
arguments, and rendering them was a third of that test's time)."""

import fcntl
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

_tool_digests = {}
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "argyll")
ANSWERS = os.path.join(DATA, "answers.json")


def _tool_digest(tool):
    if tool not in _tool_digests:
        path = shutil.which(tool) or tool
        with open(path, "rb") as f:
            _tool_digests[tool] = hashlib.sha256(f.read()).digest()
    return _tool_digests[tool]


def shared(digest, make, load):
    """A result made once per ./run-tests and shared between its passes ($TINCT_ARGYLL_CACHE,
    see above), under digest (a hex string of everything it depends on). The first pass to
    ask calls make(tmp), which computes the result, writes it into the new directory tmp and
    returns (result, keep); a kept directory is renamed into place, under a lock the other
    passes wait on, and they call load(directory) instead. A result not kept (a failed run)
    is made again by the next to ask. Without the variable, make(None): the result alone."""
    cache = os.environ.get("TINCT_ARGYLL_CACHE")
    if not cache:
        return make(None)[0]
    entry = os.path.join(cache, digest)
    os.makedirs(cache, exist_ok=True)
    with open(entry + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.isdir(entry):
            tmp = tempfile.mkdtemp(dir=cache, prefix=".new-")
            result, keep = make(tmp)
            if keep:
                os.rename(tmp, entry)
            else:
                shutil.rmtree(tmp)
            return result
    return load(entry)


class Work:
    """A temporary directory the tools run in, and the failed checks."""

    def __init__(self, prefix):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.failures = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def check(self, ok, what):
        print("    %s: %s" % ("ok" if ok else "FAIL", what))
        if not ok:
            self.failures.append(what)

    def run(self, *args, ok=True, stdin=None):
        """A program in the work directory; ok: exit if it fails."""
        r = subprocess.run([str(a) for a in args], cwd=self.dir, capture_output=True, text=True, input=stdin)
        if ok and r.returncode != 0:
            sys.exit("%s failed (%d):\n%s%s" % (" ".join(map(str, args)), r.returncode, r.stdout, r.stderr))
        return r

    def argyll(self, *args, inputs=(), outputs=(), ok=True):
        """An Argyll tool run as run() does, its outputs (paths in the work directory, or
        names in it) from the cache when the same run was made before (see above)."""
        cache = os.environ.get("TINCT_ARGYLL_CACHE")
        if not cache:
            return self.run(*args, ok=ok)
        h = hashlib.sha256(_tool_digest(str(args[0])))
        for a in args:  # the work directory's name differs between passes
            h.update(str(a).replace(self.dir, "@WORK@").encode() + b"\0")
        for name in inputs:  # less the time a CGATS file was written
            with open(self.path(name), "rb") as f:
                h.update(re.sub(rb'\nCREATED "[^"\n]*"', b"", f.read()) + b"\0")

        def make(tmp):
            r = self.run(*args, ok=ok)
            if r.returncode != 0:
                return r, False
            for i, name in enumerate(outputs):
                shutil.copy(self.path(name), os.path.join(tmp, str(i)))
            with open(os.path.join(tmp, "stdout"), "w") as f:
                f.write(r.stdout)
            return r, True

        def load(entry):
            for i, name in enumerate(outputs):
                shutil.copy(os.path.join(entry, str(i)), self.path(name))
            with open(os.path.join(entry, "stdout")) as f:
                return subprocess.CompletedProcess(args, 0, f.read(), "")
        return shared(h.hexdigest(), make, load)

    def profcheck(self, ti3, icc):
        """profcheck -k: the CIEDE2000 max, mean and RMS of a profile on a .ti3."""
        out = self.run("profcheck", "-k", ti3, icc).stdout
        m = re.search(r"errors\(CIEDE2000\): max\. = ([0-9.]+), avg\. = ([0-9.]+), RMS = ([0-9.]+)", out)
        assert m, "unexpected profcheck output:\n" + out
        return {"max": float(m.group(1)), "mean": float(m.group(2)), "rms": float(m.group(3))}

    def finish(self, passed="all checks passed"):
        """Removes the work directory; exit status 1 if a check failed."""
        shutil.rmtree(self.dir)
        if self.failures:
            print("FAILED: %d check(s):\n  %s" % (len(self.failures), "\n  ".join(self.failures)))
            sys.exit(1)
        print(passed)


def tags(path):
    """ICC.1 §7.3: the file's bytes and its tag table, signature -> (offset, bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack(">I", data[128:132])[0]
    out = {}
    for i in range(n):
        sig, off, size = struct.unpack(">4sII", data[132 + 12 * i:144 + 12 * i])
        out[sig.decode("latin-1")] = (off, data[off:off + size])
    return data, out


def sanitized():
    """True in ./run-tests' sanitizer pass (meson sets TINCT_SANITIZED there): what a rerun
    under sanitizers proves nothing new by (Argyll's figures, determinism) runs in the
    plain pass only."""
    return os.environ.get("TINCT_SANITIZED") == "1"


def recording():
    """True when tests/cli/argyll-answers.sh runs the tests to store Argyll's answers."""
    return os.environ.get("TINCT_ARGYLL_RECORD") == "1"


def argyll_version():
    """The installed ArgyllCMS's version, as its tools print it ("Version 2.3.1")."""
    r = subprocess.run(["colprof"], capture_output=True, text=True)
    m = re.search(r"Version (\S+)", r.stdout + r.stderr)
    return m.group(1) if m else None


def _digest(parts):
    """A hash of files (paths, less the time a CGATS file says it was written) and strings."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, str) and os.path.isfile(p):
            with open(p, "rb") as f:
                h.update(re.sub(rb'\nCREATED "[^"\n]*"', b"", f.read()))
        else:
            h.update(str(p).encode())
        h.update(b"\0")
    return h.hexdigest()


class Answers:
    """Argyll's answers for one test, from tests/data/argyll/answers.json (see above)."""

    def __init__(self, test):
        if recording() and sanitized():
            sys.exit("tests/cli/argyll-answers.sh records in a plain build (the sanitizer pass leaves cases out)")
        self.test = test
        self.version = argyll_version()
        try:
            with open(ANSWERS) as f:
                self.stored = json.load(f)
        except FileNotFoundError:
            self.stored = {"argyll": None, "answers": {}}
        self.same_version = self.stored.get("argyll") == self.version
        if not recording() and not self.same_version:
            print("note: ArgyllCMS %s is installed, the stored answers are %s's (tests/data/argyll): Argyll's "
                  "answers are computed again on this run (slow); tests/cli/argyll-answers.sh stores new ones"
                  % (self.version, self.stored.get("argyll")))

    def get(self, case, inputs, compute):
        """Argyll's answer (a JSON value) for case, made by compute() from the files and
        values in inputs, from the store when it holds one for these inputs and this Argyll."""
        key = self.test + "/" + case
        digest = _digest(inputs)
        entry = self.stored["answers"].get(key)
        if not recording() and self.same_version:
            if entry and entry["inputs"] == digest:
                return entry["answer"]
            print("note: %s: %s: Argyll's answer computed again (slow); tests/cli/argyll-answers.sh stores it"
                  % (key, "the inputs differ from the stored answer's" if entry else "no stored answer"))
        answer = compute()
        if recording():
            self._store(key, digest, answer)
        return answer

    def _store(self, key, digest, answer):
        os.makedirs(DATA, exist_ok=True)
        lock = os.open(DATA, os.O_RDONLY | os.O_DIRECTORY)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the three tests may record at once
            try:
                with open(ANSWERS) as f:
                    data = json.load(f)
            except FileNotFoundError:
                data = {}
            if data.get("argyll") != self.version:
                data = {"argyll": self.version, "answers": {}}
            data["made_by"] = "tests/cli/argyll-answers.sh"
            data["answers"][key] = {"inputs": digest, "answer": answer}
            data["answers"] = dict(sorted(data["answers"].items()))
            with open(ANSWERS + ".new", "w") as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.write("\n")
            os.rename(ANSWERS + ".new", ANSWERS)
        finally:
            os.close(lock)


def stored_inputs(w, test, names, make):
    """The input files a test fits (names, in w's directory): copied from tests/data/argyll/TEST/,
    or, when recording, made by make() (targen, fakeread) and stored there."""
    d = os.path.join(DATA, test)
    if recording():
        make()
        os.makedirs(d, exist_ok=True)
        for n in names:
            shutil.copy(w.path(n), os.path.join(d, n))
        return
    for n in names:
        shutil.copy(os.path.join(d, n), w.path(n))
