#!/usr/bin/env python3
"""Per-call cost: client instructions, locked instructions and system
calls per operation (make bench-cost).

usage: scripts/bench-cost.py BUILDDIR [--only ID,ID...] [--no-rdma]
                                      (BUILDDIR: build/plain)
       scripts/bench-cost.py --guard BUILDDIR    (make check-cost)
       scripts/bench-cost.py --self-test
       scripts/bench-cost.py --list
  env: N1, N2 (operation counts, default 2000 and 12000), REPS (pairs
       of runs per tool and workload, default 3: the median is reported),
       ONE_REPS (the same for the workloads with one call in flight,
       whose counts do not move from pair to pair: default 1),
       XPRT_RUN_DIR (servers' run dir, default BUILDDIR/bench-cost-run),
       RDMA_N1, RDMA_N2, RDMA_STRACE_N2, RDMA_REPS (the guest's: 200,
       1200, 700, 1), RDMA_COST_BUDGET (the boot's, 480 s),
       RDMA_ALL_MODES=1 (also the READ rows of the two other registration
       modes, per-I/O and the cache: ~2 minutes more), COST_BASELINE
       (--guard: another baseline file)

Starts ganesha (NFSv3, with rpcbind when none runs) and diod (9P2000.L)
on free loopback ports through tests/servers/servers.sh, puts a 64 MiB
file in both exports, then runs every workload REPS times at N1 and at N2
operations under `valgrind --tool=callgrind` and under `strace -f -c`.
Per operation (of each tool's REPS pairs the median one; every pair's
figure is in the JSON):

  Ir/op        (Ir(N2) - Ir(N1)) / (N2 - N1), whole-program totals of all
               threads, user space only (callgrind does not see the
               kernel): start-up, warm-up and teardown cancel;
  copy/op      the same difference of the inclusive cost of the
               user-space copy routines (memcpy, memmove, mempcpy and
               their variants, e.g. __memmove_avx_unaligned_erms),
               parsed from the callgrind output files;
  beyond copy  Ir/op - copy/op;
  locked/op    the same difference of the locked instructions executed
               (lock-prefixed read-modify-writes, xchg with memory,
               mfence/lfence/sfence), counted per instruction from the
               callgrind runs (--dump-instr=yes) against objdump -d of
               each object (scripts/callgrind_locked.py): the library's
               code (libxprt, libtirpc, libnfs; the plain 9P loop's own),
               then libc's apart ("lib + libc");
  syscalls/op  the same difference of strace -f -c's call counts.

Our side: the small programs on the public API in perf/cost/ (library
only), each in both execution modes (threaded, and --mode caller:
LX_XPRT_MODE_CALLER, ids *_caller; TCP only, as the mode is), nfs3-bench,
p9-bench and mem-bench (library + bench engine).  The peers: libtirpc clnt_call (perf/peers/peer_tirpc_null.c), libnfs's async
API (peer_libnfs) and a plain C 9P loop (peer_p9), in their exact count
modes (--count).  Then, when the tests/rdma guest can boot, the same
measurement inside it over Soft-RoCE (tests/rdma/bench-cost-guest.sh).

--guard is the regression guard of make check: BUILDDIR/tests/cost/
cost-guard (the synchronous NULL, and 4 KiB READs 16 in flight) against
the fake in-process server of tests/unit, under callgrind with a file per
thread, the fake server's threads left out; fails when a figure is more
than 20 % above tests/cost/baseline.txt; prints the locked instructions
per call too (not checked).  About 6 seconds.

Prints the table and the top functions by self cost per operation of our
workloads; writes BUILDDIR/bench-cost.json and BUILDDIR/bench-cost.md,
and keeps the raw files in BUILDDIR/bench-cost/.
Exit status: 0 when every run worked, 1 otherwise, 2 usage.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict

import callgrind_locked

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N1 = int(os.environ.get("N1", "2000"))
N2 = int(os.environ.get("N2", "12000"))
REPS = int(os.environ.get("REPS", "3"))
ONE_REPS = int(os.environ.get("ONE_REPS", "1"))
WARMUP = 1000   # operations before the counted ones, where a program has it
TOPN = 8

# The user-space copy routines: glibc's memcpy/memmove/mempcpy, their
# _chk forms and every ifunc variant (__memmove_avx_unaligned_erms...).
COPY_RE = re.compile(r"^_*(memcpy|memmove|mempcpy)([_@.].*)?$")


def log(msg):
    print(f"[bench-cost {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr,
          flush=True)


# ---------------------------------------------------------------- parsing
class Profile:
    """One callgrind output file: Ir by function, by object, and calls;
    with --dump-instr=yes also by instruction, for the locked count."""

    def __init__(self):
        self.summary = 0
        self.self_ir = defaultdict(int)      # function -> self Ir
        self.obj_ir = defaultdict(int)       # ELF object -> self Ir
        self.calls = defaultdict(int)        # (caller, callee) -> incl. Ir
        # (object, function, address) -> self Ir, with --dump-instr=yes
        self.instr = defaultdict(int)
        self.fnmin = {}     # (object, function) -> lowest address run
        self.fn_file = {}   # (object, function) -> its source file
        self._locked = None

    def locked(self):
        """Locked instructions executed per (object, function), counted
        by scripts/callgrind_locked.py; empty without instruction-level
        data."""
        if self._locked is None:
            self._locked = callgrind_locked.locked_by_function(self.instr,
                                                               self.fnmin)
        return self._locked

    def inclusive(self, names):
        """Inclusive Ir of a set of functions taken together (calls
        between them counted once, recursion not twice)."""
        names = set(names)
        ir = sum(self.self_ir[f] for f in names)
        ir += sum(c for (f, g), c in self.calls.items()
                  if f in names and g not in names)
        return ir

    def copy_ir(self):
        return self.inclusive(f for f in self.self_ir if COPY_RE.match(f))


_KIND = {"fn": "fn", "cfn": "fn", "ob": "ob", "cob": "ob", "fl": "fl",
         "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl"}
_NAME_RE = re.compile(r"\((\d+)\)(?: (.*))?$")


def parse_callgrind(text):
    """Parse callgrind's output format (one part, threads together):
    compressed names "(id) name" / "(id)", relative positions, calls=
    lines whose next cost line is the call's inclusive cost; with an
    "instr" position, the self cost per instruction address."""
    p = Profile()
    names = {}
    npos, ev = 1, 0
    fn = ob = cfn = fl = None
    in_call = False
    instr, addr = None, 0   # the instr position's index, its last value

    def name(kind, val):
        m = _NAME_RE.match(val)
        if not m:
            return val
        key = (kind, m.group(1))
        if m.group(2) is not None:
            names[key] = m.group(2)
        return names.get(key, val)

    for line in text.splitlines():
        if not line:
            continue
        c = line[0]
        if c.isdigit() or c in "+-*":
            toks = line.split()
            cost = int(toks[npos + ev]) if len(toks) > npos + ev else 0
            if instr is not None:
                addr = _position(toks[instr], addr)
            if in_call:
                p.calls[(fn, cfn)] += cost
                in_call = False
            else:
                p.self_ir[fn] += cost
                p.obj_ir[ob] += cost
                if instr is not None:
                    p.instr[(ob, fn, addr)] += cost
                    if p.fnmin.get((ob, fn), addr) >= addr:
                        p.fnmin[(ob, fn)] = addr
            continue
        key, sep, val = line.partition("=")
        if sep and key in _KIND:
            v = name(_KIND[key], val)
            if key == "fn":
                fn = v
                p.fn_file.setdefault((ob, fn), fl)
            elif key == "fl":
                fl = v
            elif key == "cfn":
                cfn = v
            elif key == "ob":
                ob = v
        elif sep and key == "calls":
            in_call = True
        elif line.startswith("positions:"):
            pos = line.split()[1:]
            npos = len(pos)
            instr = pos.index("instr") if "instr" in pos else None
        elif line.startswith("events:"):
            evs = line.split()[1:]
            ev = evs.index("Ir") if "Ir" in evs else 0
        elif line.startswith("summary:") or line.startswith("totals:"):
            p.summary = max(p.summary, int(line.split()[1 + ev]))
    return p


def _position(tok, last):
    """One subposition of a cost line: absolute (an address 0x...
    hexadecimal, else decimal), +N / -N decimal from the previous cost
    line's (a calls= line's target does not move it), or * for the
    same (checked against --compress-pos=no output of the same run)."""
    if tok == "*":
        return last
    if tok[0] in "+-":
        return last + int(tok)
    return int(tok, 0)


def parse_strace(text):
    """strace -c table -> {syscall: calls} (the total row left out)."""
    calls = {}
    dashes = 0
    for line in text.splitlines():
        if line.startswith("------"):
            dashes += 1
            continue
        if dashes != 1:
            continue
        toks = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(toks) >= 5 and toks[3].isdigit():
            calls[toks[-1]] = calls.get(toks[-1], 0) + int(toks[3])
    return calls


def per_op(a, b, n1, n2):
    return (b - a) / (n2 - n1)


# ------------------------------------------------------- locked instructions
# Which code is "the library" of a workload, for its locked/op column:
# ours, libxprt.so, or libxprt's sources where a program links it
# statically (nfs3-bench, p9-bench, mem-bench, the cost guard); a peer,
# its library's object (or, for the plain C 9P loop, the program).
# glibc's libc.so (pthread mutexes and condition variables, malloc) is
# counted apart, in its own figure: what the library asks of it, not the
# library's own.
LIB_DIRS_RE = re.compile(r"^(xprt|rpc|nfs3|p9|url|include/libxprt)/")


def libxprt_code(ob, fl):
    """True for code of libxprt: its shared object, or a function whose
    source file is one of its sources (a static link)."""
    if os.path.basename(ob or "").startswith("libxprt.so"):
        return True
    fl = fl or ""
    if fl.startswith(TOP + "/"):
        fl = fl[len(TOP) + 1:]
    return bool(LIB_DIRS_RE.match(fl))


def object_code(prefix):
    """The predicate for a library object whose file name starts with
    @prefix (libtirpc.so, libnfs.so; a program's own name)."""
    return lambda ob, fl: os.path.basename(ob or "").startswith(prefix)


def libc_code(ob, fl):
    return os.path.basename(ob or "").startswith("libc.so")


def locked_split(p, lib):
    """(library, libc, {object: n}, {(object, function): n}) of the
    locked instructions a run executed; @lib as libxprt_code()."""
    in_lib = in_libc = 0
    by_obj = defaultdict(int)
    by_fn = p.locked()
    for (ob, fn), n in by_fn.items():
        by_obj[ob] += n
        if lib(ob, p.fn_file.get((ob, fn))):
            in_lib += n
        elif libc_code(ob, None):
            in_libc += n
    return in_lib, in_libc, by_obj, by_fn


def summarise_locked(p1, p2, n1, n2, lib):
    """The locked/op figures of a pair of runs (instruction-level)."""
    l1, c1, o1, f1 = locked_split(p1, lib)
    l2, c2, o2, f2 = locked_split(p2, lib)
    r = {"locked_per_op": per_op(l1, l2, n1, n2),
         "libc_locked_per_op": per_op(c1, c2, n1, n2)}
    objs = {o: per_op(o1.get(o, 0), o2.get(o, 0), n1, n2)
            for o in set(o1) | set(o2)}
    r["locked_by_object_per_op"] = [
        [os.path.basename(o or "?"), round(v, 2)]
        for o, v in sorted(objs.items(), key=lambda x: -x[1])
        if abs(v) >= 0.005]
    fns = {f: per_op(f1.get(f, 0), f2.get(f, 0), n1, n2)
           for f in set(f1) | set(f2)}
    r["top_locked_per_op"] = [
        [f"{fn} ({os.path.basename(ob or '?')})", round(v, 2)]
        for (ob, fn), v in sorted(fns.items(), key=lambda x: -x[1])[:TOPN]
        if abs(v) >= 0.005]
    return r


def summarise(p1, p2, s1, s2, n1, n2, ours, sn=None, lib=None):
    """Per-operation figures of one workload from its four runs (the
    strace pair at the counts @sn when they differ from @n1, @n2); the
    locked instructions too when the callgrind runs have them and @lib
    says which code is the library's."""
    sn1, sn2 = sn or (n1, n2)
    r = {"ir": {"n1": p1.summary, "n2": p2.summary},
         "ir_per_op": per_op(p1.summary, p2.summary, n1, n2)}
    c1, c2 = p1.copy_ir(), p2.copy_ir()
    r["copy_per_op"] = per_op(c1, c2, n1, n2)
    r["beyond_copy_per_op"] = r["ir_per_op"] - r["copy_per_op"]
    if s1 is not None:
        t1, t2 = sum(s1.values()), sum(s2.values())
        r["syscalls"] = {"n1": t1, "n2": t2}
        r["syscalls_per_op"] = per_op(t1, t2, sn1, sn2)
        by = {k: per_op(s1.get(k, 0), s2.get(k, 0), sn1, sn2)
              for k in set(s1) | set(s2)}
        r["syscalls_by_name_per_op"] = {
            k: round(v, 3) for k, v in sorted(by.items(), key=lambda x: -x[1])
            if abs(v) >= 0.005}
    if lib and p2.instr:
        r.update(summarise_locked(p1, p2, n1, n2, lib))
    if ours:
        fns = {f: per_op(p1.self_ir.get(f, 0), p2.self_ir[f], n1, n2)
               for f in p2.self_ir}
        r["top_self_per_op"] = [[f, round(v, 1)] for f, v in sorted(
            fns.items(), key=lambda x: -x[1])[:TOPN]]
        objs = {o: per_op(p1.obj_ir.get(o, 0), p2.obj_ir[o], n1, n2)
                for o in p2.obj_ir}
        r["by_object_per_op"] = [[os.path.basename(o or "?"), round(v, 1)]
                                 for o, v in sorted(objs.items(),
                                                    key=lambda x: -x[1])
                                 if v >= 1]
    return r


# ---------------------------------------------------------------- workloads
class W:
    """One measured program: id, the table's wording, its command."""

    def __init__(self, wid, side, what, cmd, server=None, one=False,
                 lib=None, mode="threaded"):
        self.id, self.side, self.what, self.cmd = wid, side, what, cmd
        # the library's code, for the locked count (libxprt_code())
        self.lib = lib or (libxprt_code if side == "ours" else None)
        # ours: the library's execution mode (enum lx_xprt_mode), "-"
        # where there is no client (mem-bench); peers: "-"
        self.mode = mode if side == "ours" else "-"
        # one call in flight: a pair counts the same to the instruction
        # every time (measured: 3 pairs equal within 0.1 %), so ONE_REPS
        # pairs; only batching (several in flight) moves a count
        self.one = one
        # (RDMA) a command started in the guest before each run and
        # stopped after it: the peer's server side
        self.server = server


def workloads(build, env):
    b = os.path.abspath(build)
    cost = os.path.join(b, "bench", "cost")
    bench = os.path.join(b, "bench")
    peers = os.path.join(b, "bench", "peers")
    host = env["XPRT_NFS_HOST"]
    nfs, mnt = env["XPRT_NFS_PORT"], env["XPRT_MNT_PORT"]
    d_host, d_port = env["XPRT_DIOD_HOST"], env["XPRT_DIOD_PORT"]
    aname = env["XPRT_DIOD_ANAME"]
    w = str(WARMUP)
    lib_nfs = ["-p", nfs, "-m", mnt, "-w", w]
    lib_p9 = ["-p", d_port, "-a", aname, "-w", w]
    nb = [os.path.join(bench, "nfs3-bench"), "--server", f"{host}:{nfs}",
          "--mount-port", mnt, "--export", env["XPRT_NFS_EXPORT"],
          "--eta", "never"]
    pb = [os.path.join(bench, "p9-bench"), "--server", f"{d_host}:{d_port}",
          "--aname", aname, "--eta", "never"]
    rd = ["--rw", "randread", "--bs", "4k", "--filename", "bench64m.dat",
          "--size", "64m"]
    ln = [os.path.join(peers, "peer_libnfs"), "--nfsport", nfs,
          "--mountport", mnt, "--depth", "16", "--warmup-count", w]
    p9 = [os.path.join(peers, "peer_p9"), "--warmup-count", w]
    p9f = [d_host, d_port, aname, "bench64m.dat"]
    tirpc = [os.path.join(peers, "peer_tirpc_null"), "--host", host,
             "--port", nfs, "--warmup-count", w]
    tirpc_lib = object_code("libtirpc.so")
    libnfs_lib = object_code("libnfs.so")
    # the plain C 9P loop has no library: its own code is the protocol's
    p9_lib = object_code("peer_p9")
    ws = [
        W("a.lib", "ours", "nfs3-null (lx_nfs3_null())",
          lambda n: [os.path.join(cost, "nfs3-null"), *lib_nfs,
                     "-n", str(n), host],
          one=True),
        W("a.tirpc_sys", "peer", "libtirpc clnt_call, AUTH_SYS",
          lambda n: [*tirpc, "--auth", "sys", "--count", str(n)],
          one=True, lib=tirpc_lib),
        W("a.tirpc_none", "peer", "libtirpc clnt_call, AUTH_NONE",
          lambda n: [*tirpc, "--auth", "none", "--count", str(n)],
          one=True, lib=tirpc_lib),
        W("b.lib", "ours", "nfs3-null-async -d 16 (lx_nfs3_null_async())",
          lambda n: [os.path.join(cost, "nfs3-null-async"), *lib_nfs,
                     "-d", "16", "-n", str(n), host]),
        W("b.bench", "ours", "nfs3-bench --rw null --iodepth 16",
          lambda n: [*nb, "--rw", "null", "--iodepth", "16",
                     "--number_ios", str(n)]),
        W("b.libnfs", "peer", "libnfs async (rpc_nfs3_null_async)",
          lambda n: [*ln, "--mode", "null", "--count", str(n)],
          lib=libnfs_lib),
        W("c.lib", "ours", "nfs3-read -d 16 (lx_nfs3_read_buf_async())",
          lambda n: [os.path.join(cost, "nfs3-read"), *lib_nfs, "-d", "16",
                     "-f", "bench64m.dat", "-n", str(n), host]),
        W("c.bench", "ours", "nfs3-bench --rw randread --bs 4k --iodepth 16",
          lambda n: [*nb, *rd, "--iodepth", "16", "--number_ios", str(n)]),
        W("c.libnfs", "peer", "libnfs async (nfs_pread_async)",
          lambda n: [*ln, "--mode", "randread", "--file", "/bench64m.dat",
                     "--count", str(n)],
          lib=libnfs_lib),
        W("d1.lib", "ours", "p9-read -d 1 (lx_p9_read())",
          lambda n: [os.path.join(cost, "p9-read"), *lib_p9, "-d", "1",
                     "-n", str(n), d_host],
          one=True),
        W("d1.bench", "ours", "p9-bench --rw randread --bs 4k --iodepth 1",
          lambda n: [*pb, *rd, "--iodepth", "1", "--number_ios", str(n)],
          one=True),
        W("d1.p9", "peer", "plain C 9P loop (peer_p9 --depth 1)",
          lambda n: [*p9, "--depth", "1", "--count", str(n), *p9f],
          one=True, lib=p9_lib),
        W("d16.lib", "ours", "p9-read -d 16 (lx_p9_read_async())",
          lambda n: [os.path.join(cost, "p9-read"), *lib_p9, "-d", "16",
                     "-n", str(n), d_host]),
        W("d16.bench", "ours", "p9-bench --rw randread --bs 4k --iodepth 16",
          lambda n: [*pb, *rd, "--iodepth", "16", "--number_ios", str(n)]),
        W("d16.p9", "peer", "plain C 9P loop (peer_p9 --depth 16)",
          lambda n: [*p9, "--depth", "16", "--count", str(n), *p9f],
          lib=p9_lib),
        W("e.mem", "ours", "mem-bench --rw randread --bs 4k --iodepth 16",
          lambda n: [os.path.join(bench, "mem-bench"), "--rw", "randread",
                     "--bs", "4k", "--iodepth", "16", "--number_ios", str(n),
                     "--eta", "never"],
          mode="-"),
    ]
    # each perf/cost program's row again with the client caller-driven
    # (--mode caller: LX_XPRT_MODE_CALLER, the main thread runs the loop)
    out = []
    for x in ws:
        out.append(x)
        if x.id.endswith(".lib"):
            out.append(caller_mode(x))
    return out


def caller_mode(w):
    """@w, a perf/cost program's workload, with the client caller-driven:
    id WID_caller, --mode caller added after the program's name."""
    prog, _, api = w.what.partition(" (")
    return W(w.id + "_caller", w.side, f"{prog} --mode caller ({api}",
             lambda n: [w.cmd(n)[0], "--mode", "caller", *w.cmd(n)[1:]],
             one=w.one, lib=w.lib, mode="caller")


# table rows: (row, ours id, peer id or None); the mode column is ours'
ROWS = [
    ("(a) NFSv3 NULL, synchronous, library", "a.lib", "a.tirpc_sys"),
    ("(a) NFSv3 NULL, synchronous, library", "a.lib_caller", "a.tirpc_sys"),
    ("(a) same, peer with AUTH_NONE", "a.lib", "a.tirpc_none"),
    ("(b) NFSv3 NULL, 16 in flight, library", "b.lib", "b.libnfs"),
    ("(b) NFSv3 NULL, 16 in flight, library", "b.lib_caller", "b.libnfs"),
    ("(b) NFSv3 NULL, 16 in flight, nfs3-bench", "b.bench", "b.libnfs"),
    ("(c) READ 4 KiB random, 16 in flight, library", "c.lib", "c.libnfs"),
    ("(c) READ 4 KiB random, 16 in flight, library", "c.lib_caller",
     "c.libnfs"),
    ("(c) READ 4 KiB random, 16 in flight, nfs3-bench", "c.bench",
     "c.libnfs"),
    ("(d1) 9P Tread 4 KiB, 1 in flight, library", "d1.lib", "d1.p9"),
    ("(d1) 9P Tread 4 KiB, 1 in flight, library", "d1.lib_caller", "d1.p9"),
    ("(d1) 9P Tread 4 KiB, 1 in flight, p9-bench", "d1.bench", "d1.p9"),
    ("(d16) 9P Tread 4 KiB, 16 in flight, library", "d16.lib", "d16.p9"),
    ("(d16) 9P Tread 4 KiB, 16 in flight, library", "d16.lib_caller",
     "d16.p9"),
    ("(d16) 9P Tread 4 KiB, 16 in flight, p9-bench", "d16.bench", "d16.p9"),
    ("(e) mem-bench randread 4 KiB, 16 deep", "e.mem", None),
]


# ---------------------------------------------------------------- RDMA
# In the tests/rdma guest (Soft-RoCE, the kernel nfsd with an RDMA
# listener, everything under TCG): fewer operations, valgrind ~10 s to
# start there.  The floor is a plain verbs Send/Receive ping-pong of our
# own (perf/peers/peer_verbs.c) in event mode (it sleeps on the
# completion channel, as our transport does with its default
# busy_poll_us 0), client side counted, same message sizes.  perftest's
# ib_send_lat -e is not the floor: its differenced count also
# charges it the end-of-run statistics (qsort() of one latency sample
# per round trip, ~320 Ir each) and its loop varies with the boot; its
# rows run on request (RDMA_EXTRA).
RN1 = int(os.environ.get("RDMA_N1", "200"))
RN2 = int(os.environ.get("RDMA_N2", "1200"))
# strace (ptrace) is the slow part under TCG: 500 operations apart suffice
# for counts that are whole numbers per call
RSN2 = int(os.environ.get("RDMA_STRACE_N2", "700"))
# callgrind pairs in the guest: event-mode verbs under TCG vary by about
# +-10 % from pair to pair (how often a poll finds the completion there
# already), but each pair costs ~25 s there; 1 keeps make bench-cost
# under 10 minutes, RDMA_REPS=3 shows the spread
RREPS = int(os.environ.get("RDMA_REPS", "1"))
R_WARMUP = 100
GUEST_IP = "10.0.2.15"   # tests/rdma/run-vm.sh: RDMAVM_IP
RDMA_IMAGE = os.path.join(TOP, ".cache", "rdmavm-cost")
RDMA_EXTRA_PKGS = "perftest strace"
RDMA_EXTRA_BINS = "/usr/bin/ib_send_lat /usr/bin/strace"
RDMA_BUDGET = int(os.environ.get("RDMA_COST_BUDGET", "480"))
# the READ rows of the registration modes that are not the default and
# perftest's ib_send_lat: not the budgeted rows, and what keeps make
# bench-cost under 10 minutes when left out (RDMA_ALL_MODES=1, or --only,
# runs them)
RDMA_EXTRA = {"r.read.lib", "r.read.lib_cache", "r.perftest64",
              "r.perftest4k"}
RDMA_ALL_MODES = os.environ.get("RDMA_ALL_MODES", "") not in ("", "0")


def rdma_workloads(build, rbin):
    cost = os.path.join(os.path.abspath(build), "bench", "cost")
    ip, w = GUEST_IP, str(R_WARMUP)
    lib = ["-t", "rdma", "-m", "20048", "-w", w]
    nb = [os.path.join(rbin, "nfs3-bench"), "--server", f"{ip}:20049",
          "--transport", "rdma", "--mount-port", "20048", "--export",
          "/export", "--eta", "never"]
    rd = ["--rw", "randread", "--bs", "4k", "--filename", "bench16m.dat",
          "--size", "16m"]
    lat = ["ib_send_lat", "-d", "rxe0", "-x", "1", "-e"]
    pv = [os.path.join(os.path.abspath(build), "bench", "peers",
                       "peer_verbs"), "--warmup-count", w]

    def pv_w(wid, size):
        return W(wid, "peer",
                 f"peer_verbs --size {size} (plain verbs Send/Receive "
                 "ping-pong, event mode)",
                 lambda n: [*pv, "--size", size, "--count", str(n), ip],
                 server=lambda n: [pv[0], "--server", "--size", size])

    def lat_w(wid, size):
        # its server: the same command without the address
        return W(wid, "peer", f"ib_send_lat -e -s {size} (perftest)",
                 lambda n: [*lat, "-s", size, "-n", str(n), ip],
                 server=lambda n: [*lat, "-s", size, "-n", str(n)])
    return [
        W("r.null.lib", "ours", "nfs3-null -t rdma (lx_nfs3_null())",
          lambda n: [os.path.join(cost, "nfs3-null"), *lib, "-n", str(n),
                     ip]),
        W("r.null.bench", "ours",
          "nfs3-bench --transport rdma --rw null --iodepth 1",
          lambda n: [*nb, "--rw", "null", "--iodepth", "1",
                     "--number_ios", str(n)]),
        pv_w("r.floor64", "64"),
        W("r.read.lib_win", "ours",
          "nfs3-read -t rdma -d 1 -r window (lx_nfs3_read(); buffers "
          "registered once, a memory window per READ: the default)",
          lambda n: [os.path.join(cost, "nfs3-read"), *lib, "-r", "window",
                     "-d", "1", "-f", "bench16m.dat", "-n", str(n), ip]),
        W("r.read.bench", "ours",
          "nfs3-bench --transport rdma --rw randread --bs 4k --iodepth 1 "
          "(memory windows)",
          lambda n: [*nb, *rd, "--iodepth", "1", "--number_ios", str(n)]),
        pv_w("r.floor4k", "4096"),
        # the other registration modes and perftest last, and only with
        # RDMA_ALL_MODES=1 or --only (RDMA_EXTRA)
        lat_w("r.perftest64", "64"),
        lat_w("r.perftest4k", "4096"),
        W("r.read.lib", "ours",
          "nfs3-read -t rdma -d 1 -r per-io (lx_nfs3_read(); per-I/O "
          "registration)",
          lambda n: [os.path.join(cost, "nfs3-read"), *lib, "-r", "per-io",
                     "-d", "1", "-f", "bench16m.dat", "-n", str(n), ip]),
        W("r.read.lib_cache", "ours",
          "nfs3-read -t rdma -d 1 -r cache (lx_nfs3_read(); registration "
          "cache)",
          lambda n: [os.path.join(cost, "nfs3-read"), *lib, "-r", "cache",
                     "-d", "1", "-f", "bench16m.dat", "-n", str(n), ip]),
    ]


RDMA_ROWS = [
    ("(r) NFSv3 NULL over RDMA, 1 in flight, library", "r.null.lib",
     "r.floor64"),
    ("(r) NFSv3 NULL over RDMA, 1 in flight, nfs3-bench", "r.null.bench",
     "r.floor64"),
    ("(r) READ 4 KiB over RDMA, 1 in flight, library, per-I/O reg.",
     "r.read.lib", "r.floor4k"),
    ("(r) READ 4 KiB over RDMA, 1 in flight, library, memory windows",
     "r.read.lib_win", "r.floor4k"),
    ("(r) READ 4 KiB over RDMA, 1 in flight, library, reg. cache (unsafe)",
     "r.read.lib_cache", "r.floor4k"),
    ("(r) READ 4 KiB over RDMA, 1 in flight, nfs3-bench, memory windows",
     "r.read.bench", "r.floor4k"),
    # the floor beside perftest's (RDMA_ALL_MODES=1 or --only)
    ("(r) the floor, 64 B, against perftest", "r.floor64", "r.perftest64"),
    ("(r) the floor, 4 KiB, against perftest", "r.floor4k", "r.perftest4k"),
]


def rdma_part(rn, only):
    """Boot the guest once and measure the RDMA workloads; returns
    ({id: result}, status) where status says what ran or why not."""
    ws = [w for w in rdma_workloads(rn.build, rn.rdma_bin)
          if (w.id in only if only else
              RDMA_ALL_MODES or w.id not in RDMA_EXTRA)]
    if not ws:
        return {}, "skipped: not selected (--only)"
    if subprocess.run([os.path.join(TOP, "scripts/deps.sh"), "--check",
                       "rdma"], capture_output=True).returncode:
        return {}, ("skipped: the RDMA guest's packages are missing "
                    "(scripts/deps.sh rdma)")
    if not os.path.isdir("/usr/libexec/valgrind"):
        return {}, "skipped: no /usr/libexec/valgrind to share with the guest"
    for b in ("nfs3-bench",):
        if not os.access(os.path.join(rn.rdma_bin, b), os.X_OK):
            return {}, f"skipped: {rn.rdma_bin}/{b} not built (make rdma-tools)"
    env = dict(os.environ, RDMAVM_DIR=RDMA_IMAGE,
               EXTRA_PKGS=(os.environ.get("EXTRA_PKGS", "") + " " +
                           RDMA_EXTRA_PKGS).strip(),
               EXTRA_BINS=(os.environ.get("EXTRA_BINS", "") + " " +
                           RDMA_EXTRA_BINS).strip())
    debs = os.path.join(TOP, ".cache", "rdmavm", "debs")
    if not os.path.isdir(os.path.join(RDMA_IMAGE, "debs")) and \
            os.path.isdir(debs):
        # the packages check-rdma already fetched: hard links
        os.makedirs(RDMA_IMAGE, exist_ok=True)
        subprocess.run(["cp", "-al", debs, RDMA_IMAGE + "/"])
    log(f"RDMA: guest image with perftest and strace ({RDMA_IMAGE})")
    img_log = os.path.join(rn.raw, "rdma-image.log")
    with open(img_log, "w") as lf:
        if subprocess.run([os.path.join(TOP, "tests/rdma/build-image.sh")],
                          env=env, stdout=lf, stderr=subprocess.STDOUT,
                          timeout=900).returncode:
            return {}, f"skipped: the guest image did not build ({img_log})"
    out = os.path.join(rn.raw, "rdma")
    os.makedirs(out, exist_ok=True)
    vg = os.path.join(rn.raw, "valgrind.bin")
    shutil.copy2(shutil.which("valgrind.bin") or "/usr/bin/valgrind.bin", vg)
    plan = os.path.join(out, "plan.tsv")
    with open(plan, "w") as f:
        for w in ws:
            runs = [("callgrind", n, rep) for rep in range(1, RREPS + 1)
                    for n in (RN1, RN2)] + [("strace", RN1, 1),
                                            ("strace", RSN2, 1)]
            for tool, n, rep in runs:
                cmd = w.cmd(n)
                srv = " ".join(w.server(n)) if w.server else "-"
                f.write(f"{w.id}.n{n}.r{rep}.{tool}\t{tool}\t{srv}\t"
                        f"{' '.join(cmd)}\n")
    log(f"RDMA: booting the guest for {len(ws)} workloads at "
        f"{RN1} and {RN2} operations (budget {RDMA_BUDGET} s)")
    t0 = time.time()
    vm_log = os.path.join(out, "guest.log")
    with open(vm_log, "w") as lf:
        rc = subprocess.run(
            [os.path.join(TOP, "tests/rdma/run-vm.sh"), "--no-build", "-t",
             str(RDMA_BUDGET), "-s", "/usr/libexec/valgrind",
             "-e", f"BENCH_COST_VALGRIND={vg}",
             os.path.join(TOP, "tests/rdma/bench-cost-guest.sh"), plan, out],
            env=env, stdout=lf, stderr=subprocess.STDOUT).returncode
    res = {}

    def read(tag):
        with open(os.path.join(out, tag)) as f:
            return f.read()

    for w in ws:
        cg = [[f"{w.id}.n{n}.r{rep}.callgrind" for n in (RN1, RN2)]
              for rep in range(1, RREPS + 1)]
        stt = [f"{w.id}.n{n}.r1.strace" for n in (RN1, RSN2)]
        pairs = []
        try:
            ok = all(read(t + ".rc").strip() == "0"
                     for t in sum(cg, []) + stt)
            for t1, t2 in cg:
                p1, p2 = parse_callgrind(read(t1)), parse_callgrind(read(t2))
                ok = ok and p1.summary > 0 and p2.summary > 0
                pairs.append((per_op(p1.summary, p2.summary, RN1, RN2), p1,
                              p2))
            st = [parse_strace(read(t)) for t in stt]
        except (OSError, ValueError, IndexError):
            ok = False
        if not ok:
            rn.failed.append(w.id)
            log(f"RDMA: {w.id}: a run failed (logs in {out})")
            continue
        pairs.sort(key=lambda x: x[0])
        _, p1, p2 = pairs[len(pairs) // 2]
        r = summarise(p1, p2, st[0], st[1], RN1, RN2, w.side == "ours",
                      (RN1, RSN2))
        r["ir_per_op_pairs"] = [round(x[0], 1) for x in pairs]
        r.update(what=w.what, side=w.side, mode=w.mode,
                 cmd=" ".join(w.cmd(RN2)), transport="rdma")
        res[w.id] = r
        log(f"{w.id:16s} {r['ir_per_op']:9.1f} Ir/op (beyond copy "
            f"{r['beyond_copy_per_op']:.1f}), {r['syscalls_per_op']:.2f} "
            f"syscalls/op")
    status = (f"measured in the guest in {time.time() - t0:.0f} s "
              f"(run-vm.sh exit {rc}, log {vm_log})")
    if rc:
        log(f"RDMA: guest run failed, exit {rc} (log {vm_log})")
    return res, status


# ---------------------------------------------------------------- running
def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                env[k] = v.strip("'")
    return env


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        return out.splitlines()[0].strip() if out else "?"
    except OSError:
        return "?"


class Runner:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.raw = os.path.join(self.build, "bench-cost")
        self.run_dir = os.path.abspath(os.environ.get(
            "XPRT_RUN_DIR", os.path.join(self.build, "bench-cost-run")))
        self.failed = []
        variant = os.path.basename(self.build)
        self.rdma_bin = os.path.join(
            os.path.dirname(self.build),
            "rdma" if variant == "plain" else f"rdma-{variant}")

    def up(self):
        env = dict(os.environ, XPRT_GANESHA_SHARE_RPCBIND="1")
        log(f"starting ganesha and diod in {self.run_dir}")
        r = subprocess.run([os.path.join(TOP, "tests/servers/servers.sh"),
                            "up", self.run_dir], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("bench-cost: servers.sh up failed:\n" + r.stderr[-2000:])
        self.env = read_env(os.path.join(self.run_dir, "servers.env"))
        for d in (self.env["XPRT_NFS_EXPORT_DIR"],
                  self.env["XPRT_DIOD_EXPORT_DIR"]):
            f = os.path.join(d, "bench64m.dat")
            if not (os.path.exists(f) and os.path.getsize(f) == 64 << 20):
                with open(f, "wb") as out:
                    out.write(os.urandom(64 << 20))
            with open(f, "rb") as inp:
                while inp.read(1 << 20):
                    pass  # into the page cache

    def down(self):
        subprocess.run([os.path.join(TOP, "tests/servers/servers.sh"),
                        "down", self.run_dir], capture_output=True)

    def run(self, tag, cmd, timeout=600):
        """Run one command; True when it exited 0 (its output kept)."""
        logf = os.path.join(self.raw, tag + ".log")
        with open(logf, "w") as lf:
            lf.write("$ " + " ".join(cmd) + "\n")
            lf.flush()
            try:
                rc = subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL,
                                    timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        if rc != 0:
            log(f"FAILED ({rc}): {' '.join(cmd)} (log: {logf})")
        return rc == 0

    def callgrind(self, w, n, rep):
        tag = f"{w.id}.n{n}.r{rep}.callgrind"
        out = os.path.join(self.raw, tag)
        # --dump-instr=yes: the count per instruction, for the locked one
        cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes",
               f"--callgrind-out-file={out}", *w.cmd(n)]
        if not self.run(tag, cmd):
            return None
        with open(out) as f:
            return parse_callgrind(f.read())

    def strace(self, w, n, rep):
        tag = f"{w.id}.n{n}.r{rep}.strace"
        out = os.path.join(self.raw, tag)
        if not self.run(tag, ["strace", "-f", "-c", "-o", out, *w.cmd(n)]):
            return None
        with open(out) as f:
            return parse_strace(f.read())

    def measure(self, w):
        """REPS callgrind pairs and REPS strace pairs of one workload; the
        figures of the median pair of each.  None when a run failed."""
        t0 = time.time()
        reps = ONE_REPS if w.one else REPS
        pairs = []
        for rep in range(1, reps + 1):
            p1, p2 = self.callgrind(w, N1, rep), self.callgrind(w, N2, rep)
            if p1 is None or p2 is None:
                return None
            pairs.append((per_op(p1.summary, p2.summary, N1, N2), p1, p2))
        spairs = []
        for rep in range(1, reps + 1):
            s1, s2 = self.strace(w, N1, rep), self.strace(w, N2, rep)
            if s1 is None or s2 is None:
                return None
            spairs.append((per_op(sum(s1.values()), sum(s2.values()), N1,
                                  N2), s1, s2))
        spairs.sort(key=lambda x: x[0])
        _, s1, s2 = spairs[len(spairs) // 2]
        pairs.sort(key=lambda x: x[0])
        _, p1, p2 = pairs[len(pairs) // 2]
        r = summarise(p1, p2, s1, s2, N1, N2, w.side == "ours", lib=w.lib)
        r["ir_per_op_pairs"] = [round(x[0], 1) for x in pairs]
        r["syscalls_per_op_pairs"] = [round(x[0], 3) for x in spairs]
        r.update(what=w.what, side=w.side, mode=w.mode,
                 cmd=" ".join(w.cmd(N2)), seconds=round(time.time() - t0, 1))
        lo, hi = pairs[0][0], pairs[-1][0]
        log(f"{w.id:12s} {r['ir_per_op']:9.1f} Ir/op [{lo:.1f}-{hi:.1f}] "
            f"(beyond copy {r['beyond_copy_per_op']:.1f}), "
            f"{r['syscalls_per_op']:.2f} syscalls/op, locked/op "
            f"{fmt_locked(r)}  [{r['seconds']} s]")
        return r


# ---------------------------------------------------------------- output
def fmt(v, nd=0):
    if v is None:
        return "-"
    return f"{v:,.{nd}f}"


def fmt_range(r, key="ir_per_op", nd=0):
    """The median pair's figure, with the pairs' range when they differ
    by more than 1 % (batching-dependent workloads)"""
    v, pr = r.get(key), r.get(key + "_pairs") or []
    if v is None:
        return "-"
    if pr and pr[-1] - pr[0] > max(0.01 * abs(v), 0.5 * 10 ** -nd):
        return f"{fmt(v, nd)} [{fmt(pr[0], nd)}-{fmt(pr[-1], nd)}]"
    return fmt(v, nd)


def fmt_locked(r):
    """The library's locked instructions per op, then libc's: "6.0 + 2.0"
    ("-" when the runs had no instruction-level data: the RDMA guest)."""
    if not r or "locked_per_op" not in r:
        return "-"
    # + 0.0: a count that differences to -0.04 reads 0.0, not -0.0
    lib, libc = (round(r[k], 1) + 0.0
                 for k in ("locked_per_op", "libc_locked_per_op"))
    return f"{lib:.1f} + {libc:.1f}"


def table_rows(rows, res):
    """(columns, rows of cells) of the table of @rows, (row, ours id,
    peer id) of ROWS, from @res, {id: result}; scripts/bench-md.py
    renders docs/benchmarks.md's with it too."""
    head = ["workload", "mode", "ours", "Ir/op", "beyond copy",
            "locked/op (lib + libc)", "syscalls/op", "peer", "peer Ir/op",
            "peer locked/op (lib + libc)", "peer syscalls/op",
            "ours/peer Ir"]
    lines = []
    for row, oid, pid in rows:
        o, p = res.get(oid), res.get(pid) if pid else None
        if not o or (o["side"] == "peer" and not p):
            continue   # (a peer beside a peer: only when both ran)
        lines.append([
            row, o.get("mode", "-"), o["what"], fmt_range(o),
            fmt(o["beyond_copy_per_op"]), fmt_locked(o),
            fmt_range(o, "syscalls_per_op", 2),
            p["what"] if p else "-", fmt_range(p) if p else "-",
            fmt_locked(p), fmt_range(p, "syscalls_per_op", 2) if p else "-",
            f"{o['ir_per_op'] / p['ir_per_op']:.2f}x"
            if p and p["ir_per_op"] > 0 else "-"])
    return head, lines


def table(rows, res):
    head, lines = table_rows(rows, res)
    md = ["| " + " | ".join(head) + " |",
          "|" + "|".join("---" for _ in head) + "|"]
    md += ["| " + " | ".join(x) + " |" for x in lines]
    return md


def locked_lines(r):
    """The locked instructions of one of our workloads, by function."""
    if "locked_per_op" not in r:
        return []
    return [f"locked/op: library {r['locked_per_op']:.2f}, libc "
            f"{round(r['libc_locked_per_op'], 2) + 0.0:.2f}; by function: "
            + ", ".join(
                f"`{f}` {v:.2f}" for f, v in r["top_locked_per_op"]), ""]


def top_functions(res):
    out = []
    for wid, r in res.items():
        if r.get("side") != "ours" or "top_self_per_op" not in r:
            continue
        out.append(f"**{wid}** {r['what']}: {fmt(r['ir_per_op'])} Ir/op, "
                   f"copy {fmt(r['copy_per_op'])}; by object: " +
                   ", ".join(f"{o} {fmt(v)}" for o, v in
                             r["by_object_per_op"][:5]))
        out.append("")
        if r.get("syscalls_by_name_per_op"):
            out.append("syscalls/op: " + ", ".join(
                f"{k} {v:.2f}" for k, v in
                r["syscalls_by_name_per_op"].items()))
            out.append("")
        out += locked_lines(r)
        out.append("| function (self) | Ir/op |")
        out.append("|---|---|")
        out += [f"| `{f}` | {fmt(v)} |" for f, v in r["top_self_per_op"]]
        out.append("")
    peers = [(wid, r) for wid, r in res.items() if r.get("side") == "peer"]
    if peers:
        out.append("Peers (Ir/op, copy/op; syscalls/op by name):")
        out.append("")
        out += [f"- **{wid}** {r['what']}: {fmt(r['ir_per_op'])}, copy "
                f"{fmt(r['copy_per_op'])}; " + ", ".join(
                    f"{k} {v:.2f}" for k, v in
                    r.get("syscalls_by_name_per_op", {}).items()) +
                f"; locked/op {fmt_locked(r)}: " + ", ".join(
                    f"{f} {v:.2f}" for f, v in r.get("top_locked_per_op", []))
                for wid, r in peers]
        out.append("")
    return out


# ---------------------------------------------------------------- guard
GUARD_N1, GUARD_N2 = 1000, 5000
GUARD_LIMIT = 1.20
GUARD_BASELINE = os.environ.get("COST_BASELINE") or os.path.join(
    TOP, "tests", "cost", "baseline.txt")
# the fake server's threads (tests/unit/helpers/fakesrv.c)
SERVER_FNS = ("accept_main", "conn_main")


def read_baseline(path):
    base = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                base[line[0]] = float(line[1])
    return base


def client_cost(files):
    """(Ir, library's locked, libc's locked) of the client's threads:
    every per-thread file of a run but the fake server's (libxprt is
    linked statically: its code is found by its source files)."""
    ir = lib = libc = 0
    for path in files:
        with open(path) as f:
            p = parse_callgrind(f.read())
        if not any(fn in p.self_ir for fn in SERVER_FNS):
            ir += p.summary
            in_lib, in_libc = locked_split(p, libxprt_code)[:2]
            lib, libc = lib + in_lib, libc + in_libc
    return ir, lib, libc


def guard(build):
    prog = os.path.join(os.path.abspath(build), "tests", "cost", "cost-guard")
    raw = os.path.join(os.path.abspath(build), "cost-guard")
    base = read_baseline(GUARD_BASELINE)
    failed = []
    for mode, ref in base.items():
        best = None
        for attempt in (1, 2):   # a second pair before calling it a failure
            cost = []
            for n in (GUARD_N1, GUARD_N2):
                d = os.path.join(raw, f"{mode}.n{n}.a{attempt}")
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                r = subprocess.run(
                    ["valgrind", "--tool=callgrind", "--separate-threads=yes",
                     "--dump-instr=yes", f"--callgrind-out-file={d}/out",
                     prog, mode, str(n)],
                    capture_output=True, text=True, timeout=120)
                if r.returncode:
                    print(f"cost guard: {prog} {mode} {n} failed:\n"
                          f"{r.stderr[-1500:]}", file=sys.stderr)
                    return 1
                cost.append(client_cost(os.path.join(d, f)
                                        for f in os.listdir(d)
                                        if f.startswith("out-")))
            v = per_op(cost[0][0], cost[1][0], GUARD_N1, GUARD_N2)
            if best is None or v < best:
                # shown, not checked: the locked instructions per call
                best, locked = v, [per_op(cost[0][i], cost[1][i], GUARD_N1,
                                          GUARD_N2) for i in (1, 2)]
            if best <= ref * GUARD_LIMIT:
                break
        verdict = "ok" if best <= ref * GUARD_LIMIT else "FAIL"
        note = ""
        if best < ref * 0.9:
            note = (f" ({100 * (1 - best / ref):.0f} % below: lower "
                    f"tests/cost/baseline.txt)")
        print(f"cost guard: {mode:7s} {best:8.1f} Ir/call, baseline "
              f"{ref:.0f}, limit {ref * GUARD_LIMIT:.0f}: {verdict}{note}; "
              f"locked/call {locked[0]:.1f} + libc {locked[1]:.1f}")
        if verdict != "ok":
            failed.append(mode)
    if failed:
        print("cost guard: FAILED: " + ", ".join(failed) + " grew more than "
              f"20 %; where it goes: callgrind_annotate {raw}/"
              f"{failed[0]}.n{GUARD_N2}.a1/out-01 (the calling thread), "
              "or make bench-cost")
        return 1
    return 0


# ---------------------------------------------------------------- self-test
_CG_SAMPLE = """# callgrind format
version: 1
positions: line
events: Ir
summary: 1000

ob=(1) /lib/libc.so.6
fl=(1) memmove-vec-unaligned-erms.S
fn=(1) __memmove_avx_unaligned_erms
10 300
+2 20
ob=(2) /bin/prog
fl=(2) prog.c
fn=(2) main
5 100
cfi=(1)
cob=(1)
cfn=(3) memcpy@plt
calls=2 0
* 330
+1 50
cfn=(4) work
calls=1 20
6 400
fn=(3)
0 10
cfn=(1)
calls=2 10
0 320
fn=(4)
20 90
cfn=(2)
calls=1 5
21 7
"""

_STRACE_SAMPLE = """% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 60.00    0.000600          10        60           sendmsg
 30.00    0.000300           5        60        12 recvfrom
 10.00    0.000100           1        20           poll
------ ----------- ----------- --------- --------- ----------------
100.00    0.001000           7       140        12 total
"""


# instruction level (--dump-instr=yes): relative addresses, a call whose
# target must not move them, a recursion suffix, a versioned libc symbol
# and a program loaded 0x400000 above its objdump addresses, with a
# function of libxprt's sources linked into it statically
def _cg_instr_sample(k):
    return f"""# callgrind format
version: 1
positions: instr line
events: Ir
summary: {100 * k}

ob=(1) /x/libxprt.so.0
fl=(1) /elsewhere/xprt/tcp/tcp.c
fn=(1) lx_go
0x1000 10 {k}
+4 * {k}
+5 +1 {k}
cob=(2) /x/libc.so.6
cfi=(2) ./nptl/pthread_mutex_lock.c
cfn=(2) pthread_mutex_lock
calls={k} 0x9000 0
* * {20 * k}
+3 * {k}
fn=(3) helper'2
0x1020 30 {2 * k}
+4 * {2 * k}
ob=(2)
fl=(2)
fn=(2)
0x9000 5 {k}
+3 * {k}
ob=(3) /x/prog
fl=(3) perf/cost/prog.c
fn=(4) main
0x401100 1 1
+2 * {3 * k}
fl=(4) xprt/tcp/tcp.c
fn=(5) lx_static
0x401200 7 {k}
"""


_OBJDUMP_SAMPLE = {
    "/x/libxprt.so.0": """
0000000000001000 <lx_go>:
    1000:	mov    %rdi,%rax
    1004:	lock xadd %eax,(%rdi)
    1009:	call   1030 <pthread_mutex_lock@plt>
    100c:	xchg   %rax,(%rdi)

0000000000001020 <helper>:
    1020:	mov    %rsi,%rax
    1024:	mfence
""",
    "/x/libc.so.6": """
0000000000009000 <pthread_mutex_lock@@GLIBC_2.2.5>:
    9000:	lock cmpxchg %edx,(%rdi)
    9003:	xchg   %ax,%ax
""",
    "/x/prog": """
0000000000001100 <main>:
    1100:	push   %rbp
    1102:	lock incl (%rax)

0000000000001200 <lx_static>:
    1200:	lock orq $0x0,(%rsp)
""",
}


def self_test_locked():
    for obj, text in _OBJDUMP_SAMPLE.items():
        callgrind_locked.use_disassembly(obj, text)
    locked, syms = callgrind_locked.parse_objdump(
        _OBJDUMP_SAMPLE["/x/libc.so.6"])
    assert locked == {0x9000}, locked     # xchg %ax,%ax is a nop
    assert syms["pthread_mutex_lock"] == 0x9000, syms
    p = parse_callgrind(_cg_instr_sample(10))
    assert p.instr[("/x/libxprt.so.0", "lx_go", 0x100c)] == 10, p.instr
    assert p.fnmin[("/x/prog", "main")] == 0x401100, p.fnmin
    assert p.fn_file[("/x/prog", "lx_static")] == "xprt/tcp/tcp.c"
    assert p.locked() == {
        ("/x/libxprt.so.0", "lx_go"): 20, ("/x/libxprt.so.0", "helper'2"): 20,
        ("/x/libc.so.6", "pthread_mutex_lock"): 10,
        ("/x/prog", "main"): 30, ("/x/prog", "lx_static"): 10}, p.locked()
    # libxprt: its object, and its sources linked into the program
    assert locked_split(p, libxprt_code)[:2] == (50, 10)
    assert locked_split(p, object_code("prog"))[:2] == (40, 10)
    q = parse_callgrind(_cg_instr_sample(30))
    r = summarise(p, q, None, None, 100, 300, True, lib=libxprt_code)
    assert r["locked_per_op"] == 0.5 and r["libc_locked_per_op"] == 0.1, r
    assert r["top_locked_per_op"][0] == ["main (prog)", 0.3], r
    assert fmt_locked(r) == "0.5 + 0.1"
    assert fmt_locked({"locked_per_op": 2.0, "libc_locked_per_op": -0.01}) \
        == "2.0 + 0.0"
    assert "locked_per_op" not in summarise(p, q, None, None, 100, 300, True)


def self_test():
    self_test_locked()
    p = parse_callgrind(_CG_SAMPLE)
    assert p.summary == 1000, p.summary
    assert p.self_ir["__memmove_avx_unaligned_erms"] == 320
    assert p.self_ir["main"] == 150, p.self_ir["main"]
    assert p.self_ir["memcpy@plt"] == 10
    assert p.self_ir["work"] == 90
    assert p.calls[("main", "memcpy@plt")] == 330
    assert p.calls[("memcpy@plt", "__memmove_avx_unaligned_erms")] == 320
    # the copy set: the stub and the routine once each, not 330 + 320
    assert p.copy_ir() == 330, p.copy_ir()
    # work -> main is recursion through main: counted once in the set
    assert p.inclusive(["main", "work"]) == 150 + 90 + 330
    assert p.obj_ir["/lib/libc.so.6"] == 320  # the PLT stub is prog's
    assert p.obj_ir["/bin/prog"] == 150 + 10 + 90
    assert COPY_RE.match("__memcpy_chk") and COPY_RE.match("memmove")
    assert COPY_RE.match("__mempcpy_avx_unaligned_erms")
    assert not COPY_RE.match("memcmp") and not COPY_RE.match("xmemcpy")
    s = parse_strace(_STRACE_SAMPLE)
    assert s == {"sendmsg": 60, "recvfrom": 60, "poll": 20}, s
    q = parse_callgrind(_CG_SAMPLE.replace("summary: 1000", "summary: 3000")
                        .replace("10 300", "10 2300"))
    s2 = {"sendmsg": 260, "recvfrom": 260, "poll": 20, "futex": 5}
    r = summarise(p, q, s, s2, 100, 300, True)
    assert r["ir_per_op"] == 10.0, r
    assert r["copy_per_op"] == 10.0 and r["beyond_copy_per_op"] == 0.0, r
    assert r["syscalls_per_op"] == (545 - 140) / 200, r
    assert r["syscalls_by_name_per_op"]["sendmsg"] == 1.0, r
    assert r["top_self_per_op"][0] == ["__memmove_avx_unaligned_erms", 10.0]
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i, fn in enumerate(("main", "conn_main", "tcp_rx_main")):
            files.append(os.path.join(d, f"out-0{i + 1}"))
            with open(files[-1], "w") as f:
                f.write(f"events: Ir\nsummary: {100 * (i + 1)}\n"
                        f"fn=(1) {fn}\n1 {100 * (i + 1)}\n")
        # the server thread left out
        assert client_cost(files) == (100 + 300, 0, 0)
        with open(os.path.join(d, "base"), "w") as f:
            f.write("# comment\nnull 4229 # sync\n\nread16  5520\n")
        assert read_baseline(os.path.join(d, "base")) == {
            "null": 4229.0, "read16": 5520.0}
    print("bench-cost self-test: ok")


# ---------------------------------------------------------------- main
def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__)
        return 0
    if "--self-test" in argv:
        self_test()
        return 0
    if "--guard" in argv:
        rest = [a for a in argv if a != "--guard"]
        if len(rest) != 1:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
        return guard(rest[0])
    args = [a for a in argv if not a.startswith("--")]
    only = None
    for i, a in enumerate(argv):
        if a == "--only" and i + 1 < len(argv):
            only = set(argv[i + 1].split(","))
            args.remove(argv[i + 1])
    if "--list" in argv:
        for w in (workloads("build/plain", defaultdict(str)) +
                  rdma_workloads("build/plain", "build/rdma")):
            print(f"{w.id:12s} {w.side:5s} {w.what}")
        return 0
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if os.path.basename(os.path.abspath(args[0])) != "plain":
        sys.exit("bench-cost: the plain build only (valgrind does not run "
                 "sanitizer builds)")
    for tool in ("valgrind", "strace", "valgrind.bin"):
        if not shutil.which(tool) and not os.access("/usr/bin/" + tool,
                                                    os.X_OK):
            sys.exit(f"bench-cost: {tool} missing (scripts/deps.sh cost)")
    t_start = time.time()
    rn = Runner(args[0])
    shutil.rmtree(rn.raw, ignore_errors=True)
    os.makedirs(rn.raw)
    rn.up()
    res = {}
    tcp = [w for w in workloads(rn.build, rn.env)
           if not only or w.id in only]
    try:
        for w in tcp:
            r = rn.measure(w)
            if r is None:
                rn.failed.append(w.id)
            else:
                res[w.id] = r
    finally:
        rn.down()
    if "--no-rdma" in argv:
        rres, rdma = {}, "skipped: --no-rdma"
    else:
        try:
            rres, rdma = rdma_part(rn, only)
        except (OSError, subprocess.SubprocessError) as e:
            rres, rdma = {}, f"skipped: {e}"
    if rdma.startswith("skipped"):
        log(f"RDMA: {rdma}")
    res.update(rres)
    rows = ROWS + RDMA_ROWS
    wall = time.time() - t_start
    out = {
        "method": {
            "n1": N1, "n2": N2, "reps": REPS, "one_reps": ONE_REPS,
            "warmup": WARMUP,
            "rdma_n1": RN1, "rdma_n2": RN2, "rdma_strace_n2": RSN2,
            "rdma_reps": RREPS,
            "rdma_warmup": R_WARMUP,
            "valgrind": tool_version(["valgrind", "--version"]),
            "strace": tool_version(["strace", "-V"]),
            "kernel": os.uname().release,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "ir": "callgrind Ir, all threads, user space, "
                  "(I(N2)-I(N1))/(N2-N1)",
            "copy": "inclusive Ir of " + COPY_RE.pattern,
            "syscalls": "strace -f -c, (S(N2)-S(N1))/(N2-N1)",
            "locked": "callgrind --dump-instr=yes against objdump -d: "
                      "lock prefix, xchg with memory, m/l/sfence; the "
                      "library's code, libc apart, (L(N2)-L(N1))/(N2-N1)",
        },
        "workloads": res,
        "rows": [{"row": r, "ours": o, "peer": p} for r, o, p in rows],
        "rdma": rdma,
        "failed": rn.failed,
        "wall_seconds": round(wall, 1),
    }
    with open(os.path.join(rn.build, "bench-cost.json"), "w") as f:
        json.dump(out, f, indent=1)
    md = table(rows, res)
    with open(os.path.join(rn.build, "bench-cost.md"), "w") as f:
        f.write(f"# bench-cost {out['method']['date']}: N1={N1} N2={N2}, "
                f"{out['method']['valgrind']}\n\n")
        f.write("\n".join(md) + f"\n\nRDMA: {rdma}\n\n"
                "## Top functions (self Ir/op)\n\n")
        f.write("\n".join(top_functions(res)) + "\n")
    print("\n".join(md))
    print()
    print("\n".join(top_functions(res)))
    print(f"RDMA: {rdma}")
    print(f"bench-cost: {wall:.0f} s; {rn.build}/bench-cost.json, "
          f"{rn.build}/bench-cost.md")
    if rn.failed:
        print("bench-cost: FAILED: " + ", ".join(rn.failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
