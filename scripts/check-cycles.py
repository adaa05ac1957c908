#!/usr/bin/env python3
"""No two files of a folder call into each other (make check).

    check-cycles.py OBJDIR [--base DIR]... DIR...

For each DIR (a source folder such as xprt or bench/engine) it reads the
objects OBJDIR/DIR/*.o with nm; a DIR ending in /** (bench/**) takes
every object under the folder, subfolders included, as one program, so
that no two files of the whole tree (bench/engine and bench/backends/*)
call into each other either: a file depends on another when it uses
(an undefined symbol) a function or object the other defines.  Two files
that depend on each other are a circle that makes neither readable
alone, and so is any longer loop (a strongly connected component of the
dependency graph); each is printed with the symbols that close it.
Calls through function pointers (the hooks the layers hand down) are not
symbol references and so are not dependencies: that is the point.

The same pass checks that the library (xprt rpc nfs3 p9 url) prints nothing
itself (it has the log hook): no object of the folders refers to stdio's printing or
to stderr/stdout; messages go to the hook of the client's options
(lx_xprt_log()).

A --base DIR (xprt/blocks) holds building blocks: its objects may use
nothing that an object of any other DIR defines, and its sources may
include no header of another library folder, so a block can be read,
tested and reused without the layers above it.

Exit status: 0 when no folder has a circle or a print, 1 otherwise, 2
usage.
"""
import collections
import glob
import os
import subprocess
import sys

DEFINED = set("TDBRGSVW") | set("C")
LIBRARY = {"xprt", "rpc", "nfs3", "p9", "url"}  # the folders that must not print
PRINTS = {"printf", "fprintf", "vprintf", "vfprintf", "dprintf", "perror",
          "puts", "fputs", "putchar", "fputc", "putc", "fwrite", "stderr",
          "stdout", "__printf_chk", "__fprintf_chk", "__vfprintf_chk",
          "__vprintf_chk", "__dprintf_chk", "psignal", "warn", "warnx",
          "err", "errx", "error"}


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, undefs = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            undefs.add(name)
        elif kind in DEFINED:
            defs.add(name)
    return defs, undefs


def graph(objs):
    syms = {o: symbols(o) for o in objs}
    owner = {}
    for o, (defs, _) in syms.items():
        for s in defs:
            owner[s] = o
    edges = collections.defaultdict(dict)
    for o, (_, undefs) in syms.items():
        for s in sorted(undefs):
            t = owner.get(s)
            if t and t != o:
                edges[o].setdefault(t, []).append(s)
    return edges


def sccs(nodes, edges):
    """Tarjan's algorithm, iteratively; components of more than one node."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, {}))))]
        index[root] = low[root] = n[0]
        n[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = n[0]
                n[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(edges.get(w, {})))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def base_uses_above(objdir, bases, dirs):
    """Symbols and headers that a building block takes from above it."""
    bad = 0
    above = set()
    for d in dirs:
        d = d[:-3] if d.endswith("/**") else d
        for o in glob.glob(os.path.join(objdir, d, "**", "*.o"),
                           recursive=True):
            if not any(os.path.relpath(o, objdir).startswith(b + "/")
                       for b in bases):
                above.add(o)
    owner = {}
    for o in above:
        for s in symbols(o)[0]:
            owner[s] = o
    for b in bases:
        for o in sorted(glob.glob(os.path.join(objdir, b, "*.o"))):
            src = os.path.relpath(o, objdir)[:-2] + ".c"
            used = sorted(s for s in symbols(o)[1] if s in owner)
            for s in used[:3]:
                bad += 1
                print(f"{src} (a building block) uses {s} of "
                      f"{os.path.relpath(owner[s], objdir)[:-2]}.c")
        for src in sorted(glob.glob(os.path.join(b, "*.[ch]"))):
            with open(src) as f:
                for n, line in enumerate(f, 1):
                    line = line.strip()
                    if not line.startswith('#include "'):
                        continue
                    inc = line.split('"')[1]
                    lib = inc.split("/")[0] in LIBRARY
                    if lib and not inc.startswith(b + "/"):
                        bad += 1
                        print(f"{src}:{n}: a building block includes {inc}")
    return bad


def main(argv):
    args, bases = [], []
    it = iter(argv[1:])
    for a in it:
        if a == "--base":
            bases.append(next(it, "").rstrip("/"))
        else:
            args.append(a)
    if len(args) < 2 or args[0].startswith("-") or "" in bases:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    objdir, dirs, bad, nobj = args[0], args[1:], 0, 0
    bad += base_uses_above(objdir, bases, dirs)
    for d in dirs:
        tree = d.endswith("/**")
        if tree:
            d = d[:-3]
            objs = sorted(glob.glob(os.path.join(objdir, d, "**", "*.o"),
                                    recursive=True))
            # an object whose source has moved away is stale, not a file
            objs = [o for o in objs if os.path.exists(
                os.path.relpath(o, objdir)[:-2] + ".c")]
        else:
            objs = sorted(glob.glob(os.path.join(objdir, d, "*.o")))
        if not objs:
            print(f"check-cycles: no objects in {objdir}/{d} (build first)",
                  file=sys.stderr)
            return 2
        nobj += len(objs)
        for o in objs if d in LIBRARY else ():
            used = sorted(symbols(o)[1] & PRINTS)
            if used:
                bad += 1
                print(f"{os.path.join(d, os.path.basename(o)[:-2])}.c "
                      f"prints by itself ({', '.join(used)}): use "
                      "lx_xprt_log()")
        edges = graph(objs)
        name = lambda o: os.path.relpath(o, objdir)[:-2] + ".c"
        for comp in sccs(objs, edges):
            bad += 1
            if len(comp) == 2:
                a, b = comp
                print(f"{name(a)} <-> {name(b)}: "
                      f"{name(a)} uses {', '.join(edges[a][b][:3])}; "
                      f"{name(b)} uses {', '.join(edges[b][a][:3])}")
                continue
            print("loop of " + str(len(comp)) + " files: " +
                  ", ".join(name(o) for o in comp))
            for a in comp:
                for b in comp:
                    if b in edges.get(a, {}):
                        print(f"    {name(a)} -> {name(b)}: "
                              f"{', '.join(edges[a][b][:3])}")
    if bad:
        print(f"check-cycles: {bad} circle(s) or print(s)", file=sys.stderr)
        return 1
    print(f"check-cycles: no file calls back into a caller, none prints, "
          f"no building block uses what is above it "
          f"({len(dirs)} folders, {nobj} objects)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
