#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's loops of calls, drawn as a newcomer would: one node per module (x.c with its
# x.h), an edge from A to B when A includes B's header or calls (or takes the address of)
# a function or variable B defines. The calls are read from the built objects (`nm`: what
# each object leaves undefined and which object of the same program or library defines
# it), the includes from the sources. A strongly connected component is a loop; this
# check fails on one of more than MAX_FILES modules or one that spans two folders
# (docs/ARCHITECTURE.md, "The daemon's three rooms"). It does not judge the direction of the
# layers: meson's dependencies and the include paths do that.
#
# Usage: check-call-graph.py SOURCE_ROOT BUILD_ROOT [--max-files N] [--show]
import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """src/daemon/registry/manager.c and .h are one node: src/daemon/registry/manager."""
    return os.path.splitext(path)[0]


def read_commands(build):
    with open(os.path.join(build, 'compile_commands.json')) as f:
        return json.load(f)


def source_files(root):
    out = subprocess.run(['git', '-C', root, 'ls-files', '*.c', '*.h'], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return [p for p in out.stdout.split('\n') if p]


def include_edges(root, files):
    """A's file includes "b.h": an edge A → b's module. A header is found beside the file
    first, then by its path from any folder that has it (the tree's names are unique
    where it matters; an ambiguous name links to each candidate in the same top folder)."""
    by_name = defaultdict(list)
    for p in files:
        if p.endswith('.h'):
            by_name[os.path.basename(p)].append(p)
    edges = defaultdict(set)
    for p in files:
        with open(os.path.join(root, p), errors='replace') as f:
            text = f.read()
        here = os.path.dirname(p)
        for inc in INCLUDE.findall(text):
            local = os.path.normpath(os.path.join(here, inc))
            if local in by_name.get(os.path.basename(inc), []):
                targets = [local]
            else:
                cands = [c for c in by_name.get(os.path.basename(inc), []) if c.endswith(inc)]
                same_top = [c for c in cands if c.split('/')[:2] == p.split('/')[:2]]
                targets = same_top or cands
            for t in targets:
                if module_of(t) != module_of(p):
                    edges[module_of(p)].add(module_of(t))
    return edges


def nm_symbols(objs):
    """Every object's defined globals and undefined symbols, in two runs of nm for all."""
    defined, undefined = defaultdict(set), defaultdict(set)
    for flag, into in (('--defined-only', defined), ('--undefined-only', undefined)):
        out = subprocess.run(['nm', '-A', '-g', flag] + objs, capture_output=True, text=True)
        for line in out.stdout.splitlines():
            name, _, rest = line.rpartition(':')
            if not name:
                continue
            fields = rest.split()
            if fields:
                into[name].add(fields[-1])
    return defined, undefined


def call_edges(root, build, files):
    """An object that leaves a symbol undefined which another object defines. A program is
    linked from several libraries (tinctd from its rooms), so a symbol is looked for in the
    same meson target (its objects share a `X.p` folder) first, then anywhere when exactly
    one module defines it (`main` and the tests' own helpers are defined many times)."""
    known = set(files)
    targets = defaultdict(list)
    for c in read_commands(build):
        src = os.path.relpath(os.path.join(c['directory'], c['file']), root)
        if src not in known:
            continue  # generated or outside the tree
        obj = os.path.join(c['directory'], c['output'])
        if os.path.exists(obj):
            targets[os.path.dirname(c['output'])].append((src, obj))
    defined, undefined = nm_symbols(sorted({obj for objs in targets.values() for _, obj in objs}))
    anywhere = defaultdict(set)
    for objs in targets.values():
        for src, obj in objs:
            for sym in defined[obj]:
                anywhere[sym].add(module_of(src))
    edges = defaultdict(set)
    for objs in targets.values():
        definer = {}
        for src, obj in objs:
            for sym in defined[obj]:
                definer[sym] = module_of(src)
        for src, obj in objs:
            for sym in undefined[obj]:
                t = definer.get(sym)
                if not t and len(anywhere.get(sym, ())) == 1:
                    t = next(iter(anywhere[sym]))
                if t and t != module_of(src):
                    edges[module_of(src)].add(t)
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively (the graph is a few hundred nodes)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                comps.append(sorted(comp))
    return comps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('root')
    ap.add_argument('build')
    ap.add_argument('--max-files', type=int, default=3)
    ap.add_argument('--show', action='store_true', help='print every loop, not only the bad ones')
    args = ap.parse_args()
    files = source_files(args.root)
    if files is None:
        print('not a git checkout: skipping')
        return 77
    files = [p for p in files if os.path.exists(os.path.join(args.root, p))]
    edges = include_edges(args.root, files)
    for a, bs in call_edges(args.root, args.build, files).items():
        edges[a] |= bs
    nodes = {module_of(p) for p in files}
    # A header with no .c of its own is an interface, not code: it joins whoever includes it
    # to what it includes (udev-source-backend.h between udev-source.c and its back-ends).
    code = {module_of(p) for p in files if p.endswith('.c')}
    for h in sorted(nodes - code):
        through = edges.pop(h, set())
        for a in [a for a, bs in edges.items() if h in bs]:
            edges[a].discard(h)
            edges[a] |= through - {a}
    nodes = code
    bad = 0
    loops = [c for c in strongly_connected(nodes, edges) if len(c) > 1]
    for comp in sorted(loops, key=len, reverse=True):
        folders = sorted({os.path.dirname(m) for m in comp})
        wrong = len(comp) > args.max_files or len(folders) > 1
        if wrong or args.show:
            print(f'{"BAD " if wrong else ""}loop of {len(comp)} files in {", ".join(folders)}:')
            for m in comp:
                print(f'    {m}  → {", ".join(sorted(os.path.basename(t) for t in edges[m] if t in comp))}')
        bad += wrong
    print(f'{len(loops)} loops, {bad} too large or across folders (at most {args.max_files} files, one folder)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
