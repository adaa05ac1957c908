#!/usr/bin/env python3
"""libxprt's exported ABI is exactly its public headers.

The shared library links with libxprt.map (a version script: everything
not listed is local), so a function the layers share with each other
(lx_xprt_rqtree_insert, lx_p9_rpc, ...) is not part of what users can link
against and can change freely.  This script keeps the three lists in step:

  abi-check.py LIB.so      the functions and objects declared in
                           include/libxprt/*.h, the names in libxprt.map
                           and the symbols LIB.so exports (all under the
                           map's version) must be the same set; and every
                           function of libxprt.a (beside LIB.so) that a
                           header names must be in the map
  abi-check.py --map       print a map for the current headers (after
                           adding a public function: review, then commit)

Exit status: 0 when they agree, 1 with each difference listed.
"""
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP = os.path.join(TOP, "libxprt.map")
NODE = "LIBXPRT_0"


def strip(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    # preprocessor lines with their continuations
    src = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", src, flags=re.M)
    return re.sub(r'extern\s*"C"\s*\{', " ", src)


def declared():
    """Names of the non-inline functions and extern objects in the public
    headers: the top-level declarations that end in a semicolon."""
    names = set()
    for path in sorted(glob.glob(os.path.join(TOP, "include/libxprt/*.h"))):
        with open(path) as f:
            src = strip(f.read())
        depth, cur = 0, ""
        for ch in src:
            if ch == "{":
                depth, cur = depth + 1, ""
            elif ch == "}":
                depth, cur = max(depth - 1, 0), ""
            elif depth:
                continue
            elif ch == ";":
                d = " ".join(cur.split())
                cur = ""
                if not d or d.startswith(("typedef", "static")):
                    continue
                m = re.match(r"[^()]*?\b([A-Za-z_]\w*)\s*\(", d)
                if m:
                    names.add(m.group(1))
                    continue
                m = re.match(r"extern\b[^()]*?\b([A-Za-z_]\w*)\s*(\[.*\])?$",
                             d)
                if m:
                    names.add(m.group(1))
            else:
                cur += ch
    return names


def header_calls():
    """Every name written like a call or a declarator, name(, in the
    public headers (comments and preprocessor lines left out)."""
    names = set()
    for path in glob.glob(os.path.join(TOP, "include/libxprt/*.h")):
        with open(path) as f:
            names |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", strip(f.read())))
    return names


def archive_functions(lib):
    """Global functions libxprt.a (beside LIB) defines; empty without it."""
    a = os.path.join(os.path.dirname(lib), "libxprt.a")
    if not os.path.exists(a):
        return set()
    out = subprocess.run(["nm", "-g", "--defined-only", a],
                         capture_output=True, text=True, check=True)
    return {f[2] for f in (l.split() for l in out.stdout.splitlines())
            if len(f) == 3 and f[1] == "T"}


def in_map():
    with open(MAP) as f:
        src = re.sub(r"#[^\n]*", "", f.read())
    m = re.search(r"global:(.*?)local:", src, flags=re.S)
    if not m:
        sys.exit(f"abi-check: {MAP}: no global: ... local: section")
    return {s.strip() for s in m.group(1).split(";") if s.strip()}


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions",
                          lib], capture_output=True, text=True, check=True)
    syms, bad = set(), []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) < 3 or f[1] not in "TDRBVW":
            continue
        name, _, ver = f[2].partition("@")
        if name == NODE:
            continue  # the version node's own definition
        syms.add(name)
        if ver.lstrip("@") != NODE:
            bad.append(f"{name} is exported without version {NODE}")
    return syms, bad


def diff(what, a, b):
    return [f"{n}: {what}" for n in sorted(a - b)]


def main():
    if sys.argv[1:] == ["--map"]:
        print("# libxprt's exported ABI: every function and object declared"
              "\n# in include/libxprt/*.h, nothing else.  Kept in step by"
              "\n# scripts/abi-check.py (make check-install).")
        print(NODE + " {\nglobal:")
        for n in sorted(declared()):
            print(f"\t{n};")
        print("local:\n\t*;\n};")
        return 0
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    pub, mapped = declared(), in_map()
    syms, errs = exported(sys.argv[1])
    errs += diff("declared in a public header, missing from libxprt.map",
                 pub, mapped)
    errs += diff("in libxprt.map, declared in no public header", mapped, pub)
    errs += diff("in libxprt.map, not defined in the library", mapped, syms)
    errs += diff("exported, not in libxprt.map", syms, mapped)
    # a second opinion that does not parse declarations: a function of the
    # library written name( in a header is public
    errs += diff("a library function named in a public header, missing "
                 "from libxprt.map (a declaration this script misread?)",
                 archive_functions(sys.argv[1]) & header_calls(), mapped)
    for e in errs:
        print("abi-check: " + e, file=sys.stderr)
    if errs:
        return 1
    print(f"abi-check: {len(syms)} symbols exported under {NODE}, as the "
          "headers declare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
