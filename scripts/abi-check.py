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
                           and the names (issue 15): every name in the
                           map, every symbol LIB.so exports and every
                           global symbol libxprt.a defines starts with
                           lx_, and no dynamic symbol of the libraries a
                           program links beside us (Debian's libnfs.so.13,
                           libtirpc.so.3, libibverbs.so.1, librdmacm.so.1,
                           liburcu*.so.8; read with nm -D now) starts with
                           lx_ or is one of ours
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
# Every symbol of ours starts with PREFIX: libtirpc exports xprt_* and
# rpc_*, libnfs rpc_*, nfs_*, nfs3_*, mount_* (unversioned: when we
# exported nfs3_{access,create,link,...}_async too, a program linked
# -lxprt -lnfs bound libnfs's own calls to ours), libibverbs ibv_*,
# librdmacm rdma_*.
PREFIX = "lx_"
# The libraries a tool links beside libxprt, by soname; each must be
# installed (scripts/deps.sh) for the check to pass.
NEIGHBOURS = ("libnfs.so.13", "libtirpc.so.3", "libibverbs.so.1",
              "librdmacm.so.1", "liburcu.so.8", "liburcu-cds.so.8",
              "liburcu-common.so.8", "liburcu-bp.so.8", "liburcu-mb.so.8",
              "liburcu-memb.so.8", "liburcu-qsbr.so.8",
              "liburcu-signal.so.8")


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
    for path in sorted(glob.glob(os.path.join(TOP, "include/libxprt/*.h")) +
                       glob.glob(os.path.join(TOP, "include/libxprt/proto/*.h"))):
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
    for path in glob.glob(os.path.join(TOP, "include/libxprt/*.h")) + glob.glob(
            os.path.join(TOP, "include/libxprt/proto/*.h")):
        with open(path) as f:
            names |= set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", strip(f.read())))
    return names


def archive_globals(lib):
    """{name: nm type} of the global symbols libxprt.a (beside LIB)
    defines; None without it."""
    a = os.path.join(os.path.dirname(lib), "libxprt.a")
    if not os.path.exists(a):
        return None
    out = subprocess.run(["nm", "-g", "--defined-only", a],
                         capture_output=True, text=True, check=True)
    return {f[2]: f[1] for f in (l.split() for l in out.stdout.splitlines())
            if len(f) == 3}


def archive_functions(lib):
    """Global functions libxprt.a (beside LIB) defines; empty without it."""
    return {n for n, t in (archive_globals(lib) or {}).items() if t == "T"}


def find_soname(soname):
    """Path of an installed shared library, from ldconfig's cache, else
    the usual Debian directories."""
    try:
        out = subprocess.run(["ldconfig", "-p"], capture_output=True,
                             text=True).stdout
    except OSError:
        out = ""
    for line in out.splitlines():
        name, _, path = line.strip().partition(" => ")
        if name.split(" ")[0] == soname and os.path.exists(path):
            return path
    for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
              "/usr/lib64", "/usr/lib", "/lib"):
        if os.path.exists(os.path.join(d, soname)):
            return os.path.join(d, soname)
    return None


def neighbour_symbols():
    """{soname: set of defined dynamic symbols}, and the errors for the
    libraries that are not installed."""
    res, errs = {}, []
    for so in NEIGHBOURS:
        path = find_soname(so)
        if not path:
            errs.append(f"{so} is not installed: cannot check that our "
                        "names stay clear of it (scripts/deps.sh)")
            continue
        out = subprocess.run(["nm", "-D", "--defined-only", path],
                             capture_output=True, text=True, check=True)
        res[so] = {f[2].partition("@")[0] for f in
                   (l.split() for l in out.stdout.splitlines())
                   if len(f) >= 3}
    return res, errs


def name_errors(lib, mapped, syms):
    """The prefix rule: ours start with PREFIX, theirs never do."""
    errs = []
    errs += [f"{n}: in libxprt.map without the {PREFIX} prefix"
             for n in sorted(mapped) if not n.startswith(PREFIX)]
    errs += [f"{n}: exported by {os.path.basename(lib)} without the "
             f"{PREFIX} prefix" for n in sorted(syms)
             if not n.startswith(PREFIX)]
    glob_ = archive_globals(lib)
    if glob_ is None:
        errs.append(f"no libxprt.a beside {lib}: its global symbols are "
                    "unchecked")
        glob_ = {}
    errs += [f"{n}: a global symbol ({t}) of libxprt.a without the "
             f"{PREFIX} prefix (make it static or name it {PREFIX}...)"
             for n, t in sorted(glob_.items()) if not n.startswith(PREFIX)]
    theirs, e = neighbour_symbols()
    errs += e
    ours = set(syms) | set(glob_)
    for so, names in sorted(theirs.items()):
        errs += [f"{n}: {so} exports a name with our prefix {PREFIX}"
                 for n in sorted(names) if n.startswith(PREFIX)]
        errs += [f"{n}: ours, and also exported by {so}"
                 for n in sorted(names & ours) if not n.startswith(PREFIX)]
    return errs, len(theirs), len(glob_)


def map_nodes():
    """{node: {names}} of libxprt.map's version nodes, in order: the
    first release's LIBXPRT_0, then one node per release that added
    symbols (NAME { global: ...; } PARENT;)."""
    with open(MAP) as f:
        src = re.sub(r"#[^\n]*", "", f.read())
    nodes = {}
    for m in re.finditer(r"([\w.]+)\s*\{\s*global:(.*?)(?:local:[^}]*)?\}",
                         src, flags=re.S):
        nodes[m.group(1)] = {s.strip() for s in m.group(2).split(";")
                             if s.strip()}
    if NODE not in nodes:
        sys.exit(f"abi-check: {MAP}: no {NODE} {{ global: ... }} node")
    return nodes


def in_map():
    return set().union(*map_nodes().values())


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "--with-symbol-versions",
                          lib], capture_output=True, text=True, check=True)
    node_of = {n: node for node, names in map_nodes().items()
               for n in names}
    syms, bad = set(), []
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) < 3 or f[1] not in "TDRBVW":
            continue
        name, _, ver = f[2].partition("@")
        if name in map_nodes():
            continue  # a version node's own definition
        syms.add(name)
        want = node_of.get(name, NODE)
        if ver.lstrip("@") != want:
            bad.append(f"{name} is exported without version {want}")
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
    nerrs, nlibs, nglob = name_errors(sys.argv[1], mapped, syms)
    errs += nerrs
    for e in errs:
        print("abi-check: " + e, file=sys.stderr)
    if errs:
        return 1
    print(f"abi-check: {len(syms)} symbols exported under "
          f"{', '.join(map_nodes())}, as the "
          f"headers declare; they and the {nglob} globals of libxprt.a "
          f"start with {PREFIX}, which none of {nlibs} neighbour "
          "libraries exports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
