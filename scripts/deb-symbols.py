#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""debian/libxprtN.symbols (N: the SOVERSION) from libxprt.map.

The map is the library's exported ABI (scripts/abi-check.py keeps it
equal to what include/libxprt/*.h declare); the symbols file tells
dpkg-shlibdeps which version of libxprtN a program needs for each symbol
it uses.  A symbol keeps the version it first appeared in (read back
from the current symbols file); a new one gets the VERSION file's.
debian/rules makes dpkg-gensymbols fail on any difference between this
file and the library it builds (DPKG_GENSYMBOLS_CHECK_LEVEL=4).

  deb-symbols.py           rewrite debian/libxprtN.symbols
  deb-symbols.py --check   exit 1 when it is not what the map says
                           (make check-deb runs this first)

A symbol that leaves the map is reported: once a release has shipped,
removing one breaks libxprt.so.N's users (bump SOVERSION, rename the
package); before the first release it is only a change of plan.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP = os.path.join(TOP, "libxprt.map")
VERSION_FILE = os.path.join(TOP, "VERSION")
MAKEFILE = os.path.join(TOP, "Makefile")


def soversion():
    with open(MAKEFILE) as f:
        m = re.search(r"^SOVERSION\s*:=\s*(\S+)", f.read(), re.M)
    if not m:
        sys.exit("deb-symbols: no SOVERSION in the Makefile")
    return m.group(1)


# the symbols file of the library's package, libxprt<SOVERSION>: a new
# soname starts a new file, every symbol at the version that brought it
SYMBOLS = os.path.join(TOP, "debian", f"libxprt{soversion()}.symbols")


def read_map():
    """[(node, [names])] of libxprt.map's version nodes, in order."""
    with open(MAP) as f:
        src = re.sub(r"#[^\n]*", "", f.read())
    nodes = []
    for m in re.finditer(r"([\w.]+)\s*\{\s*global:(.*?)\}\s*[\w.]*\s*;",
                         src, re.S):
        body = m.group(2).split("local:")[0]
        names = [n.strip() for n in body.split(";") if n.strip()]
        bad = [n for n in names if not re.fullmatch(r"[A-Za-z_]\w*", n)]
        if bad:
            sys.exit(f"deb-symbols: {MAP}: not plain names: {bad}")
        nodes.append((m.group(1), sorted(set(names))))
    if not nodes:
        sys.exit(f"deb-symbols: {MAP}: no 'NODE {{ global: ... }};'")
    return nodes


def read_symbols():
    """{symbol@node: minimum version} of the current symbols file."""
    have = {}
    if not os.path.exists(SYMBOLS):
        return have
    with open(SYMBOLS) as f:
        for line in f:
            if line.startswith(" ") and not line.startswith(" |"):
                parts = line.split()
                if len(parts) >= 2:
                    have[parts[0]] = parts[1]
    return have


def render():
    with open(VERSION_FILE) as f:
        version = f.read().strip()
    nodes = read_map()
    have = read_symbols()
    so = soversion()
    out = [
        f"libxprt.so.{so} libxprt{so} #MINVER#",
        "* Build-Depends-Package: libxprt-dev",
    ]
    want = []
    for node, names in nodes:
        want += [f"{node}@{node}"] + [f"{n}@{node}" for n in names]
    for s in want:
        out.append(f" {s} {have.get(s, version)}")
    gone = sorted(set(have) - set(want))
    return "\n".join(out) + "\n", gone


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit(__doc__)
    text, gone = render()
    for s in gone:
        print(f"deb-symbols: {s} is no longer in libxprt.map (after a "
              "release: an ABI break, bump SOVERSION)", file=sys.stderr)
    cur = open(SYMBOLS).read() if os.path.exists(SYMBOLS) else ""
    if check:
        if cur != text:
            print(f"deb-symbols: {SYMBOLS} is not what "
                  "libxprt.map says: run scripts/deb-symbols.py, review "
                  "and commit", file=sys.stderr)
            return 1
        return 0
    if cur != text:
        with open(SYMBOLS, "w") as f:
            f.write(text)
        print(f"deb-symbols: wrote {os.path.relpath(SYMBOLS, TOP)} "
              f"({text.count(chr(10)) - 2} symbols)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
