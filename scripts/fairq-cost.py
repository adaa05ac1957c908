#!/usr/bin/env python3
"""The fair transmit queue's own cost, counted rather than timed.

usage: scripts/fairq-cost.py MB_FAIRQ [--json FILE] [--max-extra-ir N]
       scripts/fairq-cost.py --self-test
  MB_FAIRQ: the micro benchmark's program (build/plain/bench/micro/mb_fairq)

For each queue (fifo: the bare wait-free FIFO the fair queue is built on;
fair; xfifo: the fair queue in its FIFO order) and 1, 16, 256 and 4096
queued owners, runs the program's cost mode (MB_FAIRQ_COST=QUEUE,OWNERS,N:
a single-threaded closed loop, pop then push again, two requests queued per
owner) under `valgrind --tool=callgrind --dump-instr=yes` at N1 and N2
requests.  Per request:

  Ir      (Ir(N2) - Ir(N1)) / (N2 - N1): set-up, table growth and
          teardown cancel;
  locked  the same difference over the instructions that lock the bus:
          read-modify-writes with a lock prefix, xchg with a memory
          operand (locked without a prefix), mfence/lfence/sfence.
          Each executed address in the callgrind output is looked up in
          `objdump -d` of its object (scripts/callgrind_locked.py, shared
          with make bench-cost).

Prints the table; fails (exit 1) when fair - fifo exceeds --max-extra-ir
(default 30) instructions or any locked instruction at some owner count.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import callgrind_locked

OWNERS = (1, 16, 256, 4096)
QUEUES = ("fifo", "fair", "xfifo")
N1, N2 = 20000, 60000

def parse_callgrind(path):
    """Self cost per (object, function, address) from an uncompressed
    callgrind file with positions: instr.  Returns (total, costs, fnmin)."""
    costs = collections.Counter()
    fnmin = {}
    ob = fn = None
    skip_next = False
    total = 0
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if skip_next:
                skip_next = False
                continue
            if line.startswith("ob="):
                ob = line[3:]
            elif line.startswith("fn="):
                fn = line[3:]
            elif line.startswith("calls="):
                skip_next = True  # the call's inclusive cost line
            elif line.startswith("0x"):
                a, c = line.split()[:2]
                a = int(a, 16)
                costs[(ob, fn, a)] += int(c)
                total += int(c)
                key = (ob, fn)
                if key not in fnmin or a < fnmin[key]:
                    fnmin[key] = a
    return total, costs, fnmin


def measure(prog, queue, owners, n, tmp):
    out = os.path.join(tmp, "cg.%s.%d.%d" % (queue, owners, n))
    env = dict(os.environ, MB_FAIRQ_COST="%s,%d,%d" % (queue, owners, n))
    subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes",
                    "--dump-line=no", "--compress-pos=no",
                    "--compress-strings=no", "--callgrind-out-file=" + out,
                    prog], env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    total, costs, fnmin = parse_callgrind(out)
    locked = sum(callgrind_locked.locked_by_function(costs, fnmin).values())
    os.unlink(out)
    return total, locked


def self_test():
    is_locked = callgrind_locked.is_locked
    assert is_locked("lock cmpxchg %rdx,(%rcx)")
    assert is_locked("lock addq $0x1,0x40(%rdi)")
    assert is_locked("xchg   %rax,(%rdx)")
    assert is_locked("mfence")
    assert not is_locked("xchg   %ax,%ax")
    assert not is_locked("mov    %rax,(%rdx)")
    assert not is_locked("cmpxchg %rdx,(%rcx)")
    print("fairq-cost self-test: ok")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    prog = argv[1]
    jpath = None
    max_ir = 30.0
    args = argv[2:]
    while args:
        if args[0] == "--json" and len(args) > 1:
            jpath = args[1]
            args = args[2:]
        elif args[0] == "--max-extra-ir" and len(args) > 1:
            max_ir = float(args[1])
            args = args[2:]
        else:
            print(__doc__, file=sys.stderr)
            return 2
    rows = []
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for owners in OWNERS:
            row = {"owners": owners}
            for q in QUEUES:
                i1, l1 = measure(prog, q, owners, N1, tmp)
                i2, l2 = measure(prog, q, owners, N2, tmp)
                row[q + "_ir"] = (i2 - i1) / (N2 - N1)
                row[q + "_locked"] = (l2 - l1) / (N2 - N1)
            row["extra_ir"] = row["fair_ir"] - row["fifo_ir"]
            row["extra_locked"] = row["fair_locked"] - row["fifo_locked"]
            if row["extra_ir"] > max_ir or row["extra_locked"] > 0.001:
                ok = False
            rows.append(row)
    print("fair queue cost per request (push + pop), callgrind, "
          "N = %d vs %d" % (N1, N2))
    print("%8s %9s %9s %9s %12s %10s %10s %10s %13s" % (
        "owners", "FIFO Ir", "fair Ir", "xfifo Ir", "fair-FIFO Ir",
        "FIFO lock", "fair lock", "xfifo lock", "fair-FIFO lock"))
    for r in rows:
        print("%8d %9.1f %9.1f %9.1f %12.1f %10.2f %10.2f %10.2f %13.2f" % (
            r["owners"], r["fifo_ir"], r["fair_ir"], r["xfifo_ir"],
            r["extra_ir"], r["fifo_locked"], r["fair_locked"],
            r["xfifo_locked"], r["extra_locked"]))
    print("target: fair - FIFO <= %.0f Ir and no extra locked instruction "
          "per request: %s" % (max_ir, "met" if ok else "NOT met"))
    if jpath:
        with open(jpath, "w") as f:
            json.dump({"n1": N1, "n2": N2, "max_extra_ir": max_ir,
                       "rows": rows, "met": ok}, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
